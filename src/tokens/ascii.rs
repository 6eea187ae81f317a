//! The pre-tokenizer's fast path: the next pre-token of ASCII text, found by hand with the
//! encodings' patterns read for ASCII alone (letters `A-Za-z`, digits `0-9`, whitespace
//! `\t\n\x0b\x0c\r` and space, everything else punctuation). Whenever the answer could depend on a
//! byte outside ASCII (a letter, digit, whitespace or case fold the ASCII reading cannot know)
//! it answers `None` and the automaton decides that pre-token. Reads bytes; allocates nothing.

use super::Encoding;

#[inline]
fn letter(b: u8) -> bool {
    b.is_ascii_alphabetic()
}

#[inline]
fn space(b: u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

#[inline]
fn newline(b: u8) -> bool {
    b == b'\r' || b == b'\n'
}

/// `[^\s\p{L}\p{N}]` for an ASCII byte.
#[inline]
fn punct(b: u8) -> bool {
    b < 0x80 && !letter(b) && !b.is_ascii_digit() && !space(b)
}

/// The byte at `i`, or `None` past the end; `Err(())` for a byte outside ASCII.
#[inline]
fn at(bytes: &[u8], i: usize) -> Result<Option<u8>, ()> {
    match bytes.get(i) {
        Some(&b) if b >= 0x80 => Err(()),
        Some(&b) => Ok(Some(b)),
        None => Ok(None),
    }
}

/// The end of the run of bytes from `i` that `keep` accepts; `Err` when it stops at a byte
/// outside ASCII.
#[inline]
fn run(bytes: &[u8], mut i: usize, keep: impl Fn(u8) -> bool) -> Result<usize, ()> {
    loop {
        match at(bytes, i)? {
            Some(b) if keep(b) => i += 1,
            _ => return Ok(i),
        }
    }
}

/// The end of the pre-token that starts at `i` of `bytes` (`i` is before the end), or `None`
/// when bytes outside ASCII could change it.
#[inline]
pub(super) fn next_piece(bytes: &[u8], i: usize, encoding: Encoding) -> Option<usize> {
    piece(bytes, i, encoding).ok()
}

fn piece(bytes: &[u8], i: usize, encoding: Encoding) -> Result<usize, ()> {
    let b = at(bytes, i)?.ok_or(())?;
    let o200k = encoding == Encoding::O200kBase;
    // cl100k: a contraction alone, first of all.
    if !o200k && b == b'\'' {
        if let Some(end) = contraction(bytes, i)? {
            return Ok(end);
        }
    }
    // A run of letters, after at most one character that is neither a letter, a digit nor a
    // line break.
    let letters = if letter(b) {
        Some(i)
    } else if !newline(b) && !b.is_ascii_digit() && at(bytes, i + 1)?.is_some_and(letter) {
        Some(i + 1)
    } else {
        None
    };
    if let Some(j) = letters {
        if !o200k {
            return run(bytes, j, letter);
        }
        // o200k: capitals then small letters if any small letter follows the capitals, else the
        // capitals alone; then an optional contraction.
        let upper = run(bytes, j, |c| c.is_ascii_uppercase())?;
        let end = run(bytes, upper, |c| c.is_ascii_lowercase())?;
        return Ok(contraction(bytes, end)?.unwrap_or(end));
    }
    // One to three digits.
    if b.is_ascii_digit() {
        let mut end = i + 1;
        while end < i + 3 {
            match at(bytes, end)? {
                Some(c) if c.is_ascii_digit() => end += 1,
                _ => break,
            }
        }
        return Ok(end);
    }
    // Punctuation, after at most one space, then line breaks (and `/` in o200k).
    let j = if b == b' ' { i + 1 } else { i };
    if at(bytes, j)?.is_some_and(punct) {
        let end = run(bytes, j, punct)?;
        let tail = if o200k { run(bytes, end, |c| newline(c) || c == b'/')? } else { run(bytes, end, newline)? };
        return Ok(tail);
    }
    // Whitespace: up to its last line break if it holds one; else all of it before the end of
    // the text, or all but its last character before anything else (one character at least).
    let end = run(bytes, i, space)?;
    if let Some(last) = bytes[i..end].iter().rposition(|&c| newline(c)) {
        return Ok(i + last + 1);
    }
    if end == bytes.len() || end - i == 1 {
        Ok(end)
    } else {
        Ok(end - 1)
    }
}

/// `(?i:'s|'t|'re|'ve|'m|'ll|'d)` at `i`: its end, or `None` when there is none.
fn contraction(bytes: &[u8], i: usize) -> Result<Option<usize>, ()> {
    if bytes.get(i) != Some(&b'\'') {
        return Ok(None);
    }
    let Some(c) = at(bytes, i + 1)? else { return Ok(None) };
    Ok(match c.to_ascii_lowercase() {
        b's' | b't' | b'm' | b'd' => Some(i + 2),
        first @ (b'r' | b'v' | b'l') => {
            let second = if first == b'l' { b'l' } else { b'e' };
            match at(bytes, i + 2)? {
                Some(c) if c.to_ascii_lowercase() == second => Some(i + 3),
                _ => None,
            }
        }
        _ => None,
    })
}
