//! Token counting (o200k_base by default, cl100k_base on request), behind a process-wide cache
//! keyed by a 128-bit content hash, so counting an unchanged history again costs a hash per block
//! instead of a BPE pass. Two engines give identical counts: tiktoken-rs for any text, and the
//! `tiktoken` crate, whose hand-written ASCII pre-tokenizer is several times faster on code and
//! logs, for pure-ASCII text (most of what agents read). Both merge each pre-token in time
//! quadratic in its length, so a text holding one very long pre-token (megabytes of letters with
//! no space) goes to a third engine, GitHub's `bpe` crate, linear in the worst case. Tests check
//! all three agree with each other and with OpenAI's tiktoken (the npm package) to the token.
//! Long counts can be stopped through a [`Cancel`] token.
//!
//! What counts, per message (the one definition the engine and the JavaScript side share):
//! text blocks, thinking text, a tool_use's name plus the JSON of its input, tool_result text,
//! string content; images by Roo Code's estimate `ceil(sqrt(len(base64 data)))` (300 when the
//! data is not inline). Unknown block types and `redacted_thinking` count 0.
//!
//! Never touches the messages themselves: it only reads strings.

use std::collections::HashMap;
use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::RecvTimeoutError;
use std::sync::{Arc, Mutex, OnceLock};
use std::time::Duration;

use bpe::byte_pair_encoding::BytePairEncoding;
use rayon::prelude::*;
use regex_automata::meta::Regex;
use regex_automata::{Anchored, Input};
use serde_json::Value;
use tiktoken_rs::CoreBPE;
use xxhash_rust::xxh3::xxh3_128_with_seed;

use crate::error::CondenseError;

/// The BPE encodings a caller may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    #[default]
    O200kBase,
    Cl100kBase,
}

impl Encoding {
    pub fn parse(name: &str) -> Option<Encoding> {
        match name {
            "o200k_base" => Some(Encoding::O200kBase),
            "cl100k_base" => Some(Encoding::Cl100kBase),
            _ => None,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Encoding::O200kBase => "o200k_base",
            Encoding::Cl100kBase => "cl100k_base",
        }
    }

    fn ascii_engine(self) -> Option<&'static tiktoken::CoreBpe> {
        tiktoken::get_encoding(self.name())
    }

    fn bpe(self) -> &'static CoreBPE {
        match self {
            Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
            Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
        }
    }

    fn seed(self) -> u64 {
        match self {
            Encoding::O200kBase => 0x0200,
            Encoding::Cl100kBase => 0x0100,
        }
    }
}

/// Entries kept before the cache is emptied; about 48 bytes each.
const CACHE_CAPACITY: usize = 1 << 20;
/// ASCII texts shorter than this are counted directly: hashing and locking would cost more.
/// Short texts with other characters (a `⟨ … ⟩` marker) go through the cache all the same: the
/// reference engine's setup costs more than the lookup.
const CACHE_MIN_LEN: usize = 64;

/// Whether `text` is counted directly rather than through the cache.
fn uncached(text: &str) -> bool {
    text.len() < CACHE_MIN_LEN && text.is_ascii()
}

fn cache() -> &'static Mutex<HashMap<u128, u32>> {
    static CACHE: OnceLock<Mutex<HashMap<u128, u32>>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(HashMap::new()))
}

/// Empties the count cache (memory, or a cold start in a benchmark).
pub fn clear_cache() {
    cache().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

/// Entries in the count cache.
pub fn cache_len() -> usize {
    cache().lock().unwrap_or_else(|e| e.into_inner()).len()
}

/// Loads the BPE tables (150-270 ms the first time). Idempotent.
pub fn warm_up(encoding: Encoding) {
    let _ = encoding.bpe();
    let _ = encoding.ascii_engine();
}

/// What long counting work looks at so that a caller can stop it: the flag is checked before
/// each text, between segments of about [`CHECK_EVERY`] bytes and, on the linear engine, between
/// pieces; a piece too long to wait for is counted on a helper thread the caller stops waiting
/// for. A stopped count answers [`CondenseError::Aborted`] and caches nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Cancel<'a> {
    flag: Option<&'a AtomicBool>,
}

impl<'a> Cancel<'a> {
    /// Counting that nobody stops (the synchronous entry points).
    pub const NEVER: Cancel<'static> = Cancel { flag: None };

    /// Counting stopped once `flag` is set.
    pub fn new(flag: &'a AtomicBool) -> Self {
        Cancel { flag: Some(flag) }
    }

    pub fn check(&self) -> Result<(), CondenseError> {
        match self.flag {
            Some(f) if f.load(Ordering::Relaxed) => Err(CondenseError::Aborted),
            _ => Ok(()),
        }
    }
}

/// The result of counting under [`Cancel::NEVER`], which cannot be stopped.
fn unstoppable(r: Result<usize, CondenseError>) -> usize {
    r.unwrap_or_default()
}

/// Bytes counted between two looks at the abort flag.
const CHECK_EVERY: usize = 1 << 20;
/// A text holding a run this long of bytes that one pre-token could span (see [`long_run`]) is
/// counted by the linear engine: the merge loop of tiktoken is quadratic in the length of a
/// pre-token, which costs little below this length and whole seconds per megabyte above it.
const LONG_RUN: usize = 64 << 10;
/// Pieces longer than this are counted on a helper thread when the count can be stopped.
const HELPER_PIECE: usize = 4 << 20;

/// Counts the tokens of `text` without the cache (special tokens are plain text).
pub fn count_uncached(text: &str, encoding: Encoding) -> usize {
    unstoppable(count_uncached_within(text, encoding, Cancel::NEVER))
}

/// Counts `text` without the cache, stopping when `cancel` says so.
///
/// The text is cut into segments at line starts where no pre-token can cross: after a `\n`
/// followed by a character that is neither whitespace (a run of blank lines is one piece) nor
/// `/` (which a punctuation piece ending in newlines may still take), in both encodings'
/// patterns. A cut falls where the text changes between ASCII and other lines, and once a
/// segment passes [`CHECK_EVERY`] bytes. Each segment is counted by the engine that suits it
/// (the `tiktoken` crate for ASCII, tiktoken-rs for the rest, the linear engine when it holds a
/// long run); the sum is the count of the whole (tests check it against tiktoken-rs on whole
/// texts, random mixes and long runs included).
pub fn count_uncached_within(text: &str, encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    if text.is_empty() {
        return Ok(0);
    }
    cancel.check()?;
    if text.len() <= CHECK_EVERY && text.is_ascii() {
        // One segment whatever the lines: no need to walk them.
        return count_segment(text, true, encoding, cancel);
    }
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut run_start = 0;
    let mut run_ascii = true;
    let mut line_start = 0;
    while line_start < bytes.len() {
        let line_end = memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i + 1);
        let ascii = bytes[line_start..line_end].is_ascii();
        let cut = line_start > run_start && (ascii != run_ascii || line_start - run_start >= CHECK_EVERY);
        if cut && text[line_start..].chars().next().is_some_and(|c| !c.is_whitespace() && c != '/') {
            total += count_segment(&text[run_start..line_start], run_ascii, encoding, cancel)?;
            cancel.check()?;
            run_start = line_start;
        }
        if line_start == run_start {
            run_ascii = ascii;
        } else {
            run_ascii &= ascii;
        }
        line_start = line_end;
    }
    Ok(total + count_segment(&text[run_start..], run_ascii, encoding, cancel)?)
}

fn count_segment(segment: &str, ascii: bool, encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    if long_run(segment.as_bytes()) {
        return count_linear(segment, encoding, cancel);
    }
    match encoding.ascii_engine() {
        Some(engine) if ascii => Ok(engine.count(segment)),
        _ => Ok(count_reference(segment, encoding)),
    }
}

/// Byte classes for [`long_run`]: bytes a letter or punctuation pre-token may hold after its first
/// character (everything but digits and whitespace other than `\r` `\n`), and bytes a whitespace
/// pre-token may hold. Bytes of non-ASCII characters are in both (they may be letters, marks,
/// punctuation or whitespace); digits are in neither (no pre-token longer than three holds one).
const IN_WORD: u8 = 1;
const IN_SPACE: u8 = 2;
const CLASS: [u8; 256] = {
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
fn long_run(bytes: &[u8]) -> bool {
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

/// tiktoken-rs, the reference engine, for any text.
pub fn count_reference(text: &str, encoding: Encoding) -> usize {
    encoding.bpe().encode_ordinary(text).len()
}

/// The linear engine: GitHub's `bpe` crate (backtracking encoder, linear in the length of a
/// piece), built from the `tiktoken` crate's vocabulary, behind the pre-tokenizer of its
/// companion crate `bpe-openai` (the two encodings' patterns, with the look-ahead of `\s+(?!\S)`
/// written as a match that gives back its last character).
struct Linear {
    bpe: BytePairEncoding,
    pre: Regex,
    /// For each pattern of `pre`, whether its last character is a look-ahead to give back.
    lookahead: [bool; 3],
    encoding: Encoding,
}

/// The hash factor `bpe-openai` uses for both encodings: no two tokens collide with it.
const HASH_FACTOR: u64 = 17_846_336_922_010_275_747;

impl Linear {
    fn build(encoding: Encoding) -> Option<Linear> {
        let engine = encoding.ascii_engine()?;
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
        let pre = Regex::new_many(&[words.as_str(), "\\s+\\s", "\\s+"]).ok()?;
        let n = engine.vocab_size().checked_sub(engine.num_special_tokens())?;
        let tokens: Vec<Vec<u8>> = (0..n as u32).map(|id| engine.decode(&[id])).collect();
        // The constructor asserts that every token encodes to itself: a failure there means the
        // vocabulary is not what it expects, and counting falls back to tiktoken-rs.
        let bpe =
            std::panic::catch_unwind(AssertUnwindSafe(|| BytePairEncoding::from_dictionary(tokens, Some(HASH_FACTOR))))
                .ok()?;
        Some(Linear { bpe, pre, lookahead: [false, true, false], encoding })
    }

    /// Counts `text`, looking at `cancel` every [`CHECK_EVERY`] bytes and handing pieces longer
    /// than [`HELPER_PIECE`] to a helper thread when the count can be stopped.
    fn count(&'static self, text: &str, cancel: Cancel) -> Result<usize, CondenseError> {
        let mut total = 0;
        let mut pos = 0;
        let mut since_check = 0;
        while pos < text.len() {
            let input = Input::new(&text[pos..]).anchored(Anchored::Yes);
            let Some(m) = self.pre.find(input) else {
                // Every character matches one of the patterns; if not, the reference counts the rest.
                return Ok(total + count_reference(&text[pos..], self.encoding));
            };
            let mut end = pos + m.end();
            if self.lookahead.get(m.pattern().as_usize()).copied().unwrap_or(false) {
                end -= text[pos..end].chars().next_back().map_or(0, char::len_utf8);
            }
            if end <= pos {
                return Ok(total + count_reference(&text[pos..], self.encoding));
            }
            let piece = &text.as_bytes()[pos..end];
            total += if piece.len() > HELPER_PIECE && cancel.flag.is_some() {
                self.count_on_helper(piece, cancel)?
            } else {
                self.bpe.count(piece)
            };
            since_check += piece.len();
            if since_check >= CHECK_EVERY {
                cancel.check()?;
                since_check = 0;
            }
            pos = end;
        }
        Ok(total)
    }

    fn count_on_helper(&'static self, piece: &[u8], cancel: Cancel) -> Result<usize, CondenseError> {
        let owned = piece.to_vec();
        wait_for(cancel, move || self.bpe.count(&owned))
    }
}

/// The linear engine of `encoding`, built on first use (about 1 s for o200k_base, 0.4 s for
/// cl100k_base; only texts with a long run need it). `None` when it cannot be built: the
/// reference engine counts then. A count that can be stopped waits for the build on a helper
/// thread, so an abort during the build answers at once (the build goes on and is kept).
fn linear(encoding: Encoding, cancel: Cancel) -> Result<Option<&'static Linear>, CondenseError> {
    static O200K: OnceLock<Option<Linear>> = OnceLock::new();
    static CL100K: OnceLock<Option<Linear>> = OnceLock::new();
    let cell: &'static OnceLock<Option<Linear>> = match encoding {
        Encoding::O200kBase => &O200K,
        Encoding::Cl100kBase => &CL100K,
    };
    if let Some(l) = cell.get() {
        return Ok(l.as_ref());
    }
    if cancel.flag.is_none() {
        return Ok(cell.get_or_init(|| Linear::build(encoding)).as_ref());
    }
    wait_for(cancel, move || cell.get_or_init(|| Linear::build(encoding)).as_ref())
}

/// Runs `work` on a helper thread and waits for it, looking at `cancel` every 10 ms; on abort
/// it stops waiting and answers `Aborted` while the helper finishes on its own (the work is
/// linear, so it ends soon) and its result is dropped. Runs `work` here if no thread can start.
fn wait_for<T: Send + 'static>(cancel: Cancel, work: impl FnOnce() -> T + Send + 'static) -> Result<T, CondenseError> {
    let (tx, rx) = std::sync::mpsc::sync_channel(1);
    let work = Arc::new(Mutex::new(Some(work)));
    let shared = work.clone();
    let spawned = std::thread::Builder::new().name("context-condense-count".into()).spawn(move || {
        let job = shared.lock().unwrap_or_else(|e| e.into_inner()).take();
        if let Some(job) = job {
            let _ = tx.send(job());
        }
    });
    if spawned.is_err() {
        let job = work.lock().unwrap_or_else(|e| e.into_inner()).take();
        return match job {
            Some(job) => Ok(job()),
            None => Err(CondenseError::Internal("a counting helper thread neither started nor ran".into())),
        };
    }
    loop {
        cancel.check()?;
        match rx.recv_timeout(Duration::from_millis(10)) {
            Ok(v) => return Ok(v),
            Err(RecvTimeoutError::Timeout) => {}
            Err(RecvTimeoutError::Disconnected) => {
                return Err(CondenseError::Internal("a counting helper thread stopped without an answer".into()))
            }
        }
    }
}

fn count_linear(text: &str, encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    match linear(encoding, cancel)? {
        Some(engine) => engine.count(text, cancel),
        None => Ok(count_reference(text, encoding)),
    }
}

/// Counts the tokens of one text, through the content-hash cache.
pub fn count(text: &str, encoding: Encoding) -> usize {
    unstoppable(count_within(text, encoding, Cancel::NEVER))
}

/// [`count`], stopped when `cancel` says so.
pub fn count_within(text: &str, encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    if uncached(text) {
        return count_uncached_within(text, encoding, cancel);
    }
    let key = xxh3_128_with_seed(text.as_bytes(), encoding.seed());
    if let Some(n) = lookup(key) {
        return Ok(n as usize);
    }
    let n = count_uncached_within(text, encoding, cancel)?;
    store(&[(key, n as u32)]);
    Ok(n)
}

fn lookup(key: u128) -> Option<u32> {
    // A poisoned lock only means another thread panicked mid-insert: the map is still usable.
    let map = cache().lock().unwrap_or_else(|e| e.into_inner());
    map.get(&key).copied()
}

fn store(entries: &[(u128, u32)]) {
    let mut map = cache().lock().unwrap_or_else(|e| e.into_inner());
    if map.len() + entries.len() > CACHE_CAPACITY {
        map.clear();
    }
    map.extend(entries.iter().copied());
}

/// Counts many texts at once: cached ones by lookup, the rest in parallel on the rayon pool.
pub fn count_many(texts: &[&str], encoding: Encoding) -> Vec<usize> {
    count_many_within(texts, encoding, Cancel::NEVER).unwrap_or_else(|_| vec![0; texts.len()])
}

/// [`count_many`], stopped when `cancel` says so (nothing is cached then).
pub fn count_many_within(texts: &[&str], encoding: Encoding, cancel: Cancel) -> Result<Vec<usize>, CondenseError> {
    cancel.check()?;
    let mut out = vec![0usize; texts.len()];
    let mut misses: Vec<(usize, u128)> = Vec::new();
    let mut cached = Vec::with_capacity(texts.len());
    for (i, t) in texts.iter().enumerate() {
        if uncached(t) {
            out[i] = count_uncached_within(t, encoding, cancel)?;
        } else {
            cached.push((i, xxh3_128_with_seed(t.as_bytes(), encoding.seed())));
        }
    }
    {
        let map = cache().lock().unwrap_or_else(|e| e.into_inner());
        for (i, key) in cached {
            match map.get(&key) {
                Some(n) => out[i] = *n as usize,
                None => misses.push((i, key)),
            }
        }
    }
    if misses.is_empty() {
        return Ok(out);
    }
    let counted: Vec<usize> = misses
        .par_iter()
        .with_min_len(4)
        .map(|(i, _)| count_uncached_within(texts[*i], encoding, cancel))
        .collect::<Result<_, _>>()?;
    let mut fresh = Vec::with_capacity(misses.len());
    for ((i, key), n) in misses.iter().zip(counted) {
        out[*i] = n;
        fresh.push((*key, n as u32));
    }
    store(&fresh);
    Ok(out)
}

/// Roo Code's image estimate: ceil(sqrt(base64 length)), or 300 without inline data.
pub fn image_tokens(block: &Value) -> usize {
    match block.pointer("/source/data").and_then(Value::as_str) {
        Some(data) => (data.len() as f64).sqrt().ceil() as usize,
        None => 300,
    }
}

/// The countable pieces of one message: texts to run through the BPE, plus a fixed amount
/// (images). Both the message counter and the analyzer use this one walk.
pub fn countable_parts<'a>(message: &'a Value, mut text: impl FnMut(Part<'a>)) {
    match message.get("content") {
        Some(Value::String(s)) => text(Part::Text(s)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                block_parts(block, &mut text);
            }
        }
        _ => {}
    }
}

/// One countable piece of a message.
pub enum Part<'a> {
    Text(&'a str),
    /// A tool_use: its name and the JSON of its input, counted as one text.
    ToolCall(String),
    Fixed(usize),
}

fn block_parts<'a>(block: &'a Value, text: &mut impl FnMut(Part<'a>)) {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => {
            if let Some(s) = block.get("text").and_then(Value::as_str) {
                text(Part::Text(s));
            }
        }
        Some("thinking") => {
            if let Some(s) = block.get("thinking").and_then(Value::as_str) {
                text(Part::Text(s));
            }
        }
        Some("tool_use") => {
            let name = block.get("name").and_then(Value::as_str).unwrap_or("");
            let input = block.get("input").map(|v| serde_json::to_string(v).unwrap_or_default()).unwrap_or_default();
            text(Part::ToolCall(format!("{name}{input}")));
        }
        Some("tool_result") => match block.get("content") {
            Some(Value::String(s)) => text(Part::Text(s)),
            Some(Value::Array(inner)) => {
                for b in inner {
                    block_parts(b, text);
                }
            }
            _ => {}
        },
        Some("image") => text(Part::Fixed(image_tokens(block))),
        _ => {}
    }
}

/// Tokens of one message.
pub fn count_message(message: &Value, encoding: Encoding) -> usize {
    count_messages(std::slice::from_ref(message), encoding)
}

/// Tokens of a whole history, every text through the cache, misses counted in parallel.
pub fn count_messages(messages: &[Value], encoding: Encoding) -> usize {
    unstoppable(count_messages_within(messages, encoding, Cancel::NEVER))
}

/// [`count_messages`], stopped when `cancel` says so.
pub fn count_messages_within(messages: &[Value], encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    let mut owned: Vec<String> = Vec::new();
    let mut borrowed: Vec<&str> = Vec::new();
    let mut fixed = 0usize;
    for m in messages {
        countable_parts(m, |p| match p {
            Part::Text(s) => borrowed.push(s),
            Part::ToolCall(s) => owned.push(s),
            Part::Fixed(n) => fixed += n,
        });
    }
    borrowed.extend(owned.iter().map(String::as_str));
    Ok(fixed + count_many_within(&borrowed, encoding, cancel)?.iter().sum::<usize>())
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn special_tokens_are_plain_text() {
        // `<|endoftext|>` must not throw nor count as one special token.
        assert!(count("<|endoftext|>", Encoding::O200kBase) > 1);
    }

    #[test]
    fn the_ascii_engine_agrees_with_tiktoken_rs() {
        // Texts that stress the pre-tokenizer: whitespace runs, digits, contractions, symbols,
        // line endings, special-token strings, code.
        let samples = [
            "fn main() {\n    let x = 12345678;\r\n\tprintln!(\"{x}\");\n}\n\n\n",
            "It's we'll they're I'M YOU'VE don't   spaces   \n \n  trailing  ",
            "<|endoftext|><|fim_prefix|> a<|endoftext|>b",
            "1234567890 3.14159 -42 0x1F 1e-9 100,000,000",
            "   \n\n\t\t  \r\n   x",
            "!!!???...;;;:::---___===+++***&&&|||",
            "camelCaseWord snake_case_word SCREAMING_CASE kebab-case-word",
            " 1 | import React from \"react\"\n 2 | \n 3 | export const a = () => <div/>;\n",
            "",
            "a",
        ];
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            for s in samples {
                assert_eq!(count_uncached(s, enc), count_reference(s, enc), "{enc:?}: {s:?}");
            }
        }
        // And a deterministic pseudo-random stream of ASCII.
        let mut x: u64 = 0x9E37_79B9_7F4A_7C15;
        let alphabet = b" \t\n\rabcXYZ019'_-.,:;(){}[]<>|!?\"/\\=+*&^%$#@~`";
        for len in [1usize, 7, 64, 500, 5000] {
            for _ in 0..20 {
                let text: String = (0..len)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        alphabet[(x % alphabet.len() as u64) as usize] as char
                    })
                    .collect();
                for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
                    assert_eq!(count_uncached(&text, enc), count_reference(&text, enc), "{enc:?}: {text:?}");
                }
            }
        }
    }

    #[test]
    fn mixed_text_is_counted_by_runs_exactly() {
        let samples = [
            "<environment_details>\n# Current Mode\n<slug>code</slug>\n<name>💻 Code</name>\n<model>x</model>\n\n# Files\na.ts\nb.ts\n",
            "déjà vu\nplain ascii line\n/path/after/newline\névénement\n\n\nascii again)\n/x\n",
            "ascii first\n\r\nnon-ascii: ü\r\nmore ascii\r\n  indented ascii\n\tü tab\n",
            "¿qué?\n\n\n\n",
            "x\nü",
            "ü\nx",
            "});\n// comment\nconst café = 1;\n",
        ];
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            for s in samples {
                assert_eq!(count_uncached(s, enc), count_reference(s, enc), "{enc:?}: {s:?}");
            }
            // A pseudo-random mix of ASCII and non-ASCII lines.
            let mut x: u64 = 0x2545_F491_4F6C_DD1D;
            let pieces =
                ["ü", "é ", "💻", "日本", "abc", " ", "\n", "\r\n", "/", "//", "x/y", ");", "'s", "123", "\t", "  \n"];
            for _ in 0..300 {
                let text: String = (0..60)
                    .map(|_| {
                        x ^= x << 13;
                        x ^= x >> 7;
                        x ^= x << 17;
                        pieces[(x % pieces.len() as u64) as usize]
                    })
                    .collect();
                assert_eq!(count_uncached(&text, enc), count_reference(&text, enc), "{enc:?}: {text:?}");
            }
        }
    }

    #[test]
    fn cached_and_uncached_agree() {
        let text = "fn main() { println!(\"hello\"); }\n".repeat(40);
        let a = count_uncached(&text, Encoding::O200kBase);
        assert_eq!(count(&text, Encoding::O200kBase), a);
        assert_eq!(count(&text, Encoding::O200kBase), a);
        assert_ne!(count(&text, Encoding::Cl100kBase), 0, "cl100k counts through its own cache key");
    }

    #[test]
    fn count_many_matches_single_counts() {
        let texts: Vec<String> = (0..50).map(|i| format!("line {i} ").repeat(i * 7)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let many = count_many(&refs, Encoding::O200kBase);
        for (t, n) in refs.iter().zip(many) {
            assert_eq!(n, count_uncached(t, Encoding::O200kBase));
        }
    }

    #[test]
    fn message_parts_follow_the_documented_rules() {
        let m = json!({"role":"assistant","content":[
            {"type":"thinking","thinking":"hmm","signature":"sig"},
            {"type":"text","text":"hello world"},
            {"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a.ts"}},
            {"type":"image","source":{"type":"base64","media_type":"image/png","data":"AAAAAAAAA"}},
            {"type":"redacted_thinking","data":"xxxx"},
            {"type":"some_future_block","payload":1}
        ]});
        let expected = count_uncached("hmm", Encoding::O200kBase)
            + count_uncached("hello world", Encoding::O200kBase)
            + count_uncached("read_file{\"path\":\"a.ts\"}", Encoding::O200kBase)
            + 3;
        assert_eq!(count_message(&m, Encoding::O200kBase), expected);
    }
    /// `n` pseudo-random picks from `alphabet` (xorshift, seeded).
    fn random_from<T: Copy>(alphabet: &[T], n: usize, seed: u64) -> Vec<T> {
        let mut x = seed | 1;
        (0..n)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                alphabet[(x % alphabet.len() as u64) as usize]
            })
            .collect()
    }

    fn random_letters(n: usize, seed: u64) -> String {
        random_from(b"abcdefghijklmnopqrstuvwxyz", n, seed).into_iter().map(char::from).collect()
    }

    /// Texts with one pre-token longer than the threshold, each kind a pattern can make long.
    fn long_samples() -> Vec<(&'static str, String)> {
        let big = LONG_RUN + 5_000;
        let upper: String = random_letters(big, 7).to_uppercase();
        let mixed_case: String =
            random_from(b"aBcDeFgHiJ", big, 11).into_iter().map(char::from).collect::<String>() + "'S tail";
        vec![
            ("random letters", random_letters(big, 1)),
            ("random letters, three times as long", random_letters(3 * big, 2)),
            ("one letter repeated", "a".repeat(4 * big)),
            ("capitals", upper),
            ("mixed case with a contraction", mixed_case),
            ("a space then letters", format!(" {}", random_letters(big, 3))),
            ("Cyrillic", random_from(&['б', 'в', 'г', 'д', 'е', 'ж', 'з', 'Ж'], big / 2, 4).into_iter().collect()),
            ("CJK", random_from(&['日', '本', '語', '文', '字', '漢'], big / 3, 5).into_iter().collect()),
            ("letters and combining marks", "e\u{301}o\u{308}".repeat(big / 6)),
            ("mixed scripts", random_from(&["a", "ü", "ж", "日", "é", "Z", "ß"], big, 6).concat()),
            ("digits", random_from(b"0123456789", big, 8).into_iter().map(char::from).collect()),
            ("spaces", " ".repeat(big)),
            ("spaces then a word", " ".repeat(big) + "word"),
            ("blank lines", "\n".repeat(big) + "x"),
            ("spaces and newlines", random_from(&[" ", "\n", "\t", "\r\n"], big, 9).concat() + "end"),
            ("ideographic and ASCII spaces", random_from(&[" ", "\u{3000}", "\u{a0}"], big, 10).concat() + "x"),
            ("punctuation", random_from(b"!?.,;:-_=+*&|<>()[]{}", big, 12).into_iter().map(char::from).collect()),
            ("punctuation ending in newlines and slashes", format!("!{}", "\n/".repeat(big / 2))),
            (
                "a long run inside ordinary lines",
                format!("fn main() {{\n    let x = 1;\n}}\n{}\n// after\nplain words 123\n", random_letters(big, 13)),
            ),
            ("a long run beside non-ASCII lines", format!("déjà vu\n{}\nü end\nascii line\n", random_letters(big, 14))),
        ]
    }

    #[test]
    fn long_pre_tokens_are_counted_exactly() {
        for (what, text) in long_samples() {
            for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
                let expected = count_reference(&text, enc);
                assert_eq!(count_uncached(&text, enc), expected, "{enc:?}: {what}");
                assert_eq!(count(&text, enc), expected, "{enc:?}: {what}, through the cache");
            }
        }
    }

    #[test]
    fn long_runs_are_detected() {
        for (what, text) in long_samples() {
            if what != "digits" {
                assert!(long_run(text.as_bytes()), "{what}");
            }
        }
        assert!(!long_run(random_from(b"0123456789", 4 * LONG_RUN, 1).as_slice()));
        let prose = "The quick brown fox jumps over the lazy dog.\n".repeat(10_000);
        assert!(!long_run(prose.as_bytes()));
        assert!(!long_run("x".repeat(LONG_RUN - 1).as_bytes()));
        assert!(long_run("x".repeat(LONG_RUN).as_bytes()));
    }

    #[test]
    fn the_linear_engine_agrees_with_tiktoken_rs_on_ordinary_text() {
        // A segment holding a long run is counted whole by the linear engine, so it must be
        // exact on everything else in it too.
        let mut texts: Vec<String> = vec![
            "fn main() {\n    let x = 12345678;\r\n\tprintln!(\"{x}\");\n}\n\n\n".into(),
            "It's we'll they're I'M YOU'VE don't   spaces   \n \n  trailing  ".into(),
            "<|endoftext|><|fim_prefix|> a<|endoftext|>b".into(),
            "1234567890 3.14159 -42 0x1F 1e-9 100,000,000".into(),
            "   \n\n\t\t  \r\n   x".into(),
            "<environment_details>\n# Current Mode\n<name>💻 Code</name>\n\n# Files\na.ts\n".into(),
            "déjà vu\nplain ascii line\n/path/after/newline\névénement\n\n\nascii again)\n/x\n".into(),
            "¿qué?\n\n\n\n".into(),
            "Ünïcödé ÀÉÎ ǅemal ǈubljana ΣΊΣΥΦΟΣ straße 𝔘𝔫𝔦 ١٢٣٤ ⅫⅦ".into(),
            " ".into(),
            "x".into(),
        ];
        let pieces = [
            "ü", "é ", "💻", "日本", "abc", "ABC", " ", "\n", "\r\n", "/", "x/y", ");", "'s", "'LL", "123", "\t",
            "  \n", "\u{3000}", "\u{301}",
        ];
        for seed in 1..200u64 {
            texts.push(random_from(&pieces, 80, seed).concat());
        }
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            for t in &texts {
                assert_eq!(count_linear(t, enc, Cancel::NEVER), Ok(count_reference(t, enc)), "{enc:?}: {t:?}");
            }
        }
    }

    #[test]
    fn an_abort_during_a_long_count_answers_promptly() {
        // One pre-token of 24 MB (the linear engine, on a helper thread), and 48 MB of ordinary
        // lines (the fast engine, segment by segment).
        let one_piece = random_letters(24 << 20, 21);
        let lines = "let value = compute(alpha, beta); // a line of ordinary code\n".repeat(800_000);
        for text in [&one_piece, &lines] {
            let enc = Encoding::O200kBase;
            // The engine is built first, so the unaborted time below is the count alone.
            let _ = linear(enc, Cancel::NEVER);
            let t = std::time::Instant::now();
            let full = count_uncached(text, enc);
            let unaborted = t.elapsed();
            assert!(full > 0);

            let flag = AtomicBool::new(false);
            let started = std::time::Instant::now();
            let answer = std::thread::scope(|s| {
                s.spawn(|| {
                    std::thread::sleep(unaborted / 10);
                    flag.store(true, Ordering::Relaxed);
                });
                count_within(text, enc, Cancel::new(&flag))
            });
            let took = started.elapsed();
            assert_eq!(answer, Err(CondenseError::Aborted));
            assert!(took < unaborted / 2, "aborted after {took:?}, the whole count takes {unaborted:?}");
            // Nothing was cached for the stopped count.
            assert_eq!(lookup(xxh3_128_with_seed(text.as_bytes(), enc.seed())), None);
        }
    }

    #[test]
    fn a_count_that_is_not_stopped_is_the_plain_count() {
        let flag = AtomicBool::new(false);
        let texts: Vec<String> = (0..20).map(|i| random_letters(LONG_RUN / 8 * i, i as u64)).collect();
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        let within = count_many_within(&refs, Encoding::Cl100kBase, Cancel::new(&flag));
        assert_eq!(within, Ok(count_many(&refs, Encoding::Cl100kBase)));
        flag.store(true, Ordering::Relaxed);
        assert_eq!(count_many_within(&refs, Encoding::Cl100kBase, Cancel::new(&flag)), Err(CondenseError::Aborted));
        let m = json!([{"role":"user","content":"hello there"}]);
        assert_eq!(
            count_messages_within(m.as_array().map_or(&[][..], Vec::as_slice), Encoding::O200kBase, Cancel::new(&flag)),
            Err(CondenseError::Aborted)
        );
    }
}
