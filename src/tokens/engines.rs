//! The two counting engines and how a text is routed between them: the plain engine, and the
//! linear engine for texts with a very long pre-token; long texts are counted in segments so a
//! `Cancel` can stop them. Counts only; caches nothing.

use crate::error::CondenseError;

use super::*;

/// Bytes counted between two looks at the abort flag.
pub(super) const CHECK_EVERY: usize = 1 << 20;
/// A text holding a run this long of bytes that one pre-token could span (see [`long_run`]) is
/// counted by the linear engine: the merge loop of tiktoken is quadratic in the length of a
/// pre-token, which costs little below this length and whole seconds per megabyte above it.
pub(super) const LONG_RUN: usize = 64 << 10;
/// Pieces longer than this are counted on a helper thread when the count can be stopped.
pub(super) const HELPER_PIECE: usize = 4 << 20;

/// Counts the tokens of `text` without the cache (special tokens are plain text).
pub fn count_uncached(text: &str, encoding: Encoding) -> usize {
    unstoppable(count_uncached_within(text, encoding, Cancel::NEVER))
}

/// Counts `text` without the cache, stopping when `cancel` says so.
///
/// A text longer than [`CHECK_EVERY`] bytes is cut into segments at line starts where no
/// pre-token can cross: after a `\n` followed by a character that is neither whitespace (a run of
/// blank lines is one piece) nor `/` (which a punctuation piece ending in newlines may still
/// take), in both encodings' patterns, once a segment passes [`CHECK_EVERY`] bytes. Each segment
/// is counted by the engine that suits it (the linear one when it holds a long run); the sum is
/// the count of the whole (tests check it against tiktoken-rs on whole texts, random mixes and
/// long runs included).
pub fn count_uncached_within(text: &str, encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    if text.is_empty() {
        return Ok(0);
    }
    cancel.check()?;
    if text.len() <= CHECK_EVERY {
        return count_segment(text, encoding, cancel);
    }
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut run_start = 0;
    let mut line_start = 0;
    while line_start < bytes.len() {
        let line_end = memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i + 1);
        if line_start - run_start >= CHECK_EVERY
            && text[line_start..].chars().next().is_some_and(|c| !c.is_whitespace() && c != '/')
        {
            total += count_segment(&text[run_start..line_start], encoding, cancel)?;
            cancel.check()?;
            run_start = line_start;
        }
        line_start = line_end;
    }
    Ok(total + count_segment(&text[run_start..], encoding, cancel)?)
}

pub(super) fn count_segment(segment: &str, encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    if long_run(segment.as_bytes()) {
        return count_linear(segment, encoding, cancel);
    }
    count_plain(segment, encoding)
}

/// Byte classes for [`long_run`]: bytes a letter or punctuation pre-token may hold after its first
/// character (everything but digits and whitespace other than `\r` `\n`), and bytes a whitespace
/// pre-token may hold. Bytes of non-ASCII characters are in both (they may be letters, marks,
/// punctuation or whitespace); digits are in neither (no pre-token longer than three holds one).
pub(super) const IN_WORD: u8 = 1;
pub(super) const IN_SPACE: u8 = 2;
pub(super) const CLASS: [u8; 256] = {
    let mut t = [0u8; 256];
    let mut b = 0;
    while b < 256 {
        t[b] = match b as u8 {
            b'0'..=b'9' => 0,
            b' ' | b'\t' | 0x0b | 0x0c => IN_SPACE,
            b'\r' | b'\n' => IN_WORD | IN_SPACE,
            0x80..=0xff => IN_WORD | IN_SPACE,
            _ => IN_WORD,
        };
        b += 1;
    }
    t
};

/// Whether `bytes` may hold a pre-token of more than [`LONG_RUN`] + 4 bytes. In both encodings'
/// patterns a pre-token is a letter run or a punctuation run (after at most one leading
/// character: a space, say) or a whitespace run, so a long one leaves a long run of one class
/// here. False positives (a long run of CJK text cut into short pieces) only cost speed: every
/// engine counts exactly.
pub(super) fn long_run(bytes: &[u8]) -> bool {
    if bytes.len() < LONG_RUN {
        return false;
    }
    let (mut word, mut space) = (0usize, 0usize);
    for &b in bytes {
        let c = CLASS[b as usize];
        word = if c & IN_WORD != 0 { word + 1 } else { 0 };
        space = if c & IN_SPACE != 0 { space + 1 } else { 0 };
        if word >= LONG_RUN || space >= LONG_RUN {
            return true;
        }
    }
    false
}

/// The plain engine's count of `text`, whatever its pre-tokens.
pub(super) fn count_plain(text: &str, encoding: Encoding) -> Result<usize, CondenseError> {
    match plain::count(text, encoding) {
        Some(n) => Ok(n),
        None => Err(CondenseError::Internal(format!("the {} pre-tokenizer cannot be built", encoding.name()))),
    }
}
