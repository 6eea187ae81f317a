//! The plain counting engine: the encodings' pre-tokenizer (by hand for ASCII, see `ascii`, by
//! automaton otherwise), then byte-pair merging of each
//! pre-token over the built-in tables (`vocab`), exactly as tiktoken merges (always the pair of
//! lowest rank, the leftmost of equals). Short pre-tokens merge in place on the stack; long ones
//! through a heap, so a long pre-token costs `n log n`, not `n²`. Counts only; caches nothing.

use std::cell::RefCell;
use std::cmp::Reverse;
use std::collections::BinaryHeap;
use std::sync::OnceLock;

use regex_automata::meta::{Cache, Regex};
use regex_automata::{Anchored, Input};

use super::vocab::Vocab;
use super::{ascii, layout, Encoding};

/// The pre-tokenizer of an encoding: its pattern with the look-ahead of `\s+(?!\S)` written as a
/// match that gives back its last character (the patterns `bpe-openai` uses), so an automaton
/// without look-around splits exactly as tiktoken does.
pub(super) struct Pretokenizer {
    regex: Regex,
    /// For each pattern of `regex`, whether its last character is a look-ahead to give back.
    lookahead: [bool; 3],
    encoding: Encoding,
}

impl Pretokenizer {
    /// The pre-tokenizer of `encoding`, built on first use (a few milliseconds). `None` only if
    /// the automaton cannot be built, which the tests rule out.
    pub(super) fn of(encoding: Encoding) -> Option<&'static Pretokenizer> {
        static BUILT: [OnceLock<Option<Pretokenizer>>; 2] = [OnceLock::new(), OnceLock::new()];
        BUILT[encoding as usize].get_or_init(|| Pretokenizer::build(encoding)).as_ref()
    }

    fn build(encoding: Encoding) -> Option<Pretokenizer> {
        let words = match encoding {
            Encoding::O200kBase => [
                "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]*[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]+(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                "[^\\r\\n\\p{L}\\p{N}]?[\\p{Lu}\\p{Lt}\\p{Lm}\\p{Lo}\\p{M}]+[\\p{Ll}\\p{Lm}\\p{Lo}\\p{M}]*(?i:'s|'t|'re|'ve|'m|'ll|'d)?",
                "\\p{N}{1,3}",
                " ?[^\\s\\p{L}\\p{N}]+[\\r\\n/]*",
                "\\s*[\\r\\n]+",
                "\\s+$",
            ]
            .join("|"),
            Encoding::Cl100kBase => "(?i:'s|'t|'re|'ve|'m|'ll|'d)|[^\\r\\n\\p{L}\\p{N}]?\\p{L}+|\\p{N}{1,3}| ?[^\\s\\p{L}\\p{N}]+[\\r\\n]*|\\s*[\\r\\n]+|\\s+$".to_string(),
        };
        let regex = Regex::new_many(&[words.as_str(), "\\s+\\s", "\\s+"]).ok()?;
        Some(Pretokenizer { regex, lookahead: [false, true, false], encoding })
    }

    /// The pre-tokens of `text`, in order; together they are the whole text.
    pub(super) fn pieces<'t>(&'static self, text: &'t str) -> Pieces<'t> {
        let cache = CACHES
            .try_with(|c| c.borrow_mut()[self.encoding as usize].take())
            .ok()
            .flatten()
            .unwrap_or_else(|| self.regex.create_cache());
        Pieces { pre: self, cache: Some(cache), text, pos: 0 }
    }
}

thread_local! {
    /// Each thread's search state for each encoding's pre-tokenizer, kept between texts.
    static CACHES: RefCell<[Option<Cache>; 2]> = const { RefCell::new([None, None]) };
}

/// The pre-tokens of a text (see [`Pretokenizer::pieces`]).
pub(super) struct Pieces<'t> {
    pre: &'static Pretokenizer,
    cache: Option<Cache>,
    text: &'t str,
    pos: usize,
}

impl<'t> Iterator for Pieces<'t> {
    type Item = &'t [u8];

    fn next(&mut self) -> Option<&'t [u8]> {
        let rest = self.text.get(self.pos..).filter(|r| !r.is_empty())?;
        if let Some(end) = ascii::next_piece(self.text.as_bytes(), self.pos, self.pre.encoding) {
            let piece = &self.text.as_bytes()[self.pos..end];
            self.pos = end;
            return Some(piece);
        }
        let input = Input::new(rest).anchored(Anchored::Yes);
        let found = match self.cache.as_mut() {
            Some(cache) => self.pre.regex.search_with(cache, &input),
            None => self.pre.regex.search(&input),
        };
        let mut end = match found {
            Some(m) => {
                let mut end = m.end();
                if self.pre.lookahead.get(m.pattern().as_usize()).copied().unwrap_or(false) {
                    end -= rest[..end].chars().next_back().map_or(0, char::len_utf8);
                }
                end
            }
            None => 0,
        };
        // Every character starts a match of some pattern; were one not to, it is a piece alone.
        if end == 0 {
            end = rest.chars().next().map_or(rest.len(), char::len_utf8);
        }
        self.pos += end;
        Some(&rest.as_bytes()[..end])
    }
}

impl Drop for Pieces<'_> {
    fn drop(&mut self) {
        if let Some(cache) = self.cache.take() {
            let _ = CACHES.try_with(|c| {
                if let Ok(mut slots) = c.try_borrow_mut() {
                    slots[self.pre.encoding as usize].get_or_insert(cache);
                }
            });
        }
    }
}

/// Tokens of `text` in `encoding`.
pub(super) fn count(text: &str, encoding: Encoding) -> Option<usize> {
    let pre = Pretokenizer::of(encoding)?;
    let vocab = Vocab::of(encoding);
    let remembered = REMEMBERED.try_with(|r| {
        let mut r = r.try_borrow_mut().ok()?;
        let seen = &mut r[encoding as usize];
        if seen.is_empty() {
            seen.resize(REMEMBER, Remembered::default());
        }
        Some(pre.pieces(text).map(|piece| count_remembered(vocab, seen, piece)).sum())
    });
    match remembered {
        Ok(Some(n)) => Some(n),
        _ => Some(pre.pieces(text).map(|piece| count_piece(vocab, piece)).sum()),
    }
}

/// The counts of recent short pre-tokens (a direct-mapped table per thread and encoding, 96 KB):
/// text repeats its pre-tokens so much that most are found here, in memory close at hand,
/// rather than in the large tables.
const REMEMBER: usize = 1 << 12;

#[derive(Clone, Copy, Default)]
struct Remembered {
    words: [u64; 2],
    /// The length in the low 8 bits (0: empty), the count above.
    len_count: u32,
}

thread_local! {
    static REMEMBERED: RefCell<[Vec<Remembered>; 2]> = const { RefCell::new([Vec::new(), Vec::new()]) };
}

/// [`count_piece`], through `seen` for pre-tokens of 2 to 16 bytes.
#[inline]
fn count_remembered(vocab: &Vocab, seen: &mut [Remembered], piece: &[u8]) -> usize {
    let len = piece.len();
    if !(2..=16).contains(&len) {
        return count_piece(vocab, piece);
    }
    let words = [layout::word(piece), layout::word(piece.get(8..).unwrap_or(&[]))];
    let slot = ((words[0] ^ words[1].rotate_left(17) ^ len as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 52) as usize;
    if let Some(r) = seen.get(slot) {
        if r.words == words && (r.len_count & 0xff) as usize == len {
            return (r.len_count >> 8) as usize;
        }
    }
    let n = count_piece(vocab, piece);
    if let Some(r) = seen.get_mut(slot) {
        *r = Remembered { words, len_count: len as u32 | (n as u32) << 8 };
    }
    n
}

/// Pre-tokens up to this length merge on the stack, longer ones through a heap.
const SHORT: usize = 128;
const NONE: u32 = u32::MAX;

/// Tokens of one pre-token.
#[inline]
pub(super) fn count_piece(vocab: &Vocab, piece: &[u8]) -> usize {
    match piece.len() {
        0 | 1 => piece.len(),
        _ if vocab.rank(piece).is_some() => 1,
        n if n <= SHORT => merge_short(vocab, piece),
        _ => merge_long(vocab, piece),
    }
}

/// Byte-pair merging with the parts in two arrays: `starts[i]` where part `i` begins
/// (`starts[parts]` is the end), `ranks[i]` the rank of parts `i` and `i + 1` joined.
fn merge_short(vocab: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len().min(SHORT);
    let mut starts = [0u8; SHORT + 1];
    let mut ranks = [NONE; SHORT];
    for (i, s) in starts.iter_mut().enumerate().take(n + 1) {
        *s = i as u8;
    }
    let joined = |starts: &[u8], parts: usize, i: usize| -> u32 {
        if i + 2 > parts {
            return NONE;
        }
        vocab.rank(&piece[starts[i] as usize..starts[i + 2] as usize]).unwrap_or(NONE)
    };
    for (i, r) in ranks.iter_mut().enumerate().take(n - 1) {
        *r = joined(&starts, n, i);
    }
    let mut parts = n;
    loop {
        // The lowest rank, then the first place it is at: two passes the compiler vectorizes.
        let live = &ranks[..parts - 1];
        let lowest = live.iter().copied().min().unwrap_or(NONE);
        if lowest == NONE {
            return parts;
        }
        let Some(at) = live.iter().position(|&r| r == lowest) else { return parts };
        starts.copy_within(at + 2..parts + 1, at + 1);
        if at + 2 < parts {
            ranks.copy_within(at + 2..parts - 1, at + 1);
        }
        parts -= 1;
        ranks[at] = joined(&starts, parts, at);
        if at > 0 {
            ranks[at - 1] = joined(&starts, parts, at - 1);
        }
    }
}

/// Byte-pair merging as a linked list of parts (indexed by where they begin) and a heap of the
/// joined pairs by rank, then position; a heap entry whose part has since changed is skipped
/// (a part only grows, so its joined rank never returns to an old value).
fn merge_long(vocab: &Vocab, piece: &[u8]) -> usize {
    let n = piece.len();
    let mut next: Vec<u32> = (1..=n as u32).collect();
    next.push(n as u32);
    let mut prev: Vec<u32> = (0..n as u32).map(|i| i.wrapping_sub(1)).collect();
    let joined = |next: &[u32], i: usize| -> u32 {
        let j = next[i] as usize;
        if j >= n {
            return NONE;
        }
        vocab.rank(&piece[i..next[j] as usize]).unwrap_or(NONE)
    };
    let mut pair: Vec<u32> = (0..n).map(|i| joined(&next, i)).collect();
    let heap: Vec<Reverse<(u32, u32)>> =
        pair.iter().enumerate().filter(|(_, &r)| r != NONE).map(|(i, &r)| Reverse((r, i as u32))).collect();
    let mut heap = BinaryHeap::from(heap);
    let mut parts = n;
    while let Some(Reverse((rank, i))) = heap.pop() {
        let i = i as usize;
        if pair[i] != rank {
            continue;
        }
        let j = next[i] as usize;
        let after = next[j];
        next[i] = after;
        if (after as usize) < n {
            prev[after as usize] = i as u32;
        }
        pair[j] = NONE;
        parts -= 1;
        pair[i] = joined(&next, i);
        if pair[i] != NONE {
            heap.push(Reverse((pair[i], i as u32)));
        }
        if let Some(&q) = prev.get(i).filter(|&&q| (q as usize) < n) {
            let q = q as usize;
            pair[q] = joined(&next, q);
            if pair[q] != NONE {
                heap.push(Reverse((pair[q], q as u32)));
            }
        }
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::super::tests::random_from;
    use super::*;

    /// The automaton's pre-tokens of `text`, without the fast path.
    fn by_automaton(text: &str, encoding: Encoding) -> Vec<&[u8]> {
        let pre = Pretokenizer::of(encoding).expect("built");
        let mut cache = pre.regex.create_cache();
        let mut out = Vec::new();
        let mut pos = 0;
        while pos < text.len() {
            let rest = &text[pos..];
            let m = pre.regex.search_with(&mut cache, &Input::new(rest).anchored(Anchored::Yes)).expect("a match");
            let mut end = m.end();
            if pre.lookahead[m.pattern().as_usize()] {
                end -= rest[..end].chars().next_back().map_or(0, char::len_utf8);
            }
            out.push(&rest.as_bytes()[..end]);
            pos += end;
        }
        out
    }

    /// The fast path splits ASCII as the automaton does, and hands over wherever other bytes
    /// are near.
    #[test]
    fn the_ascii_path_splits_as_the_automaton_does() {
        let pieces = [
            "a", "Z", "ab", "CD", "Ab", "aB", "'", "'s", "'S", "'re", "'LL", "'ve", "'d", "'x", "1", "12", "1234", " ",
            "  ", "\t", "\n", "\r\n", "\x0b", "\x0c", "\x01", "/", "//", ".", "(", ");", "\"", "_", "-", "é", "ſ",
            "\u{a0}", "\u{3000}", "²", "日本", "\u{301}",
        ];
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let pre = Pretokenizer::of(encoding).expect("built");
            for seed in 0..3000u64 {
                let text = random_from(&pieces, 1 + (seed % 24) as usize, seed).concat();
                let fast: Vec<&[u8]> = pre.pieces(&text).collect();
                assert_eq!(fast, by_automaton(&text, encoding), "{encoding:?}: {text:?}");
            }
        }
    }

    /// Every rank's bytes are one token of that rank, in both tables.
    #[test]
    fn every_token_is_found_at_its_rank() {
        for (encoding, ranks) in [(Encoding::O200kBase, 199_998), (Encoding::Cl100kBase, 100_256)] {
            let vocab = Vocab::of(encoding);
            let tokens = vocab.tokens();
            assert_eq!(tokens.len(), ranks);
            for (rank, token) in tokens.iter().enumerate() {
                assert!(!token.is_empty());
                assert_eq!(vocab.rank(token), Some(rank as u32), "{encoding:?} rank {rank}");
            }
            assert_eq!(vocab.rank(b"\xff\xfe not a token at all \xff"), None);
        }
    }

    /// A word of up to 8 bytes is those bytes, little-endian, zero-padded.
    #[test]
    fn words_are_the_bytes_zero_padded() {
        let bytes: Vec<u8> = (1..=12).collect();
        for n in 0..=12 {
            let mut padded = [0u8; 8];
            padded[..n.min(8)].copy_from_slice(&bytes[..n.min(8)]);
            assert_eq!(layout::word(&bytes[..n]), u64::from_le_bytes(padded), "{n} bytes");
        }
    }

    /// The stack merge and the heap merge agree on every pre-token either can take.
    #[test]
    fn short_and_long_merges_agree() {
        let alphabet = b"abcdefghijklmnopqrstuvwxyzAEIOU";
        for encoding in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let vocab = Vocab::of(encoding);
            for len in 2..=SHORT {
                for seed in 0..40u64 {
                    let piece = random_from(alphabet, len, seed << 8 | len as u64);
                    assert_eq!(merge_short(vocab, &piece), merge_long(vocab, &piece), "{piece:?}");
                }
            }
        }
    }
}
