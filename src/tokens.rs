//! Token counting (o200k_base by default, cl100k_base on request), behind a process-wide cache
//! keyed by a 128-bit content hash, so counting an unchanged history again costs a hash per block
//! instead of a BPE pass. Two engines give identical counts: tiktoken-rs for any text, and the
//! `tiktoken` crate, whose hand-written ASCII pre-tokenizer is several times faster on code and
//! logs, for pure-ASCII text (most of what agents read). Tests check they agree with each other
//! and with OpenAI's tiktoken (the npm package) to the token.
//!
//! What counts, per message (the one definition the engine and the JavaScript side share):
//! text blocks, thinking text, a tool_use's name plus the JSON of its input, tool_result text,
//! string content; images by Roo Code's estimate `ceil(sqrt(len(base64 data)))` (300 when the
//! data is not inline). Unknown block types and `redacted_thinking` count 0.
//!
//! Never touches the messages themselves: it only reads strings.

use std::collections::HashMap;
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;
use serde_json::Value;
use tiktoken_rs::CoreBPE;
use xxhash_rust::xxh3::xxh3_128_with_seed;

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

/// Counts the tokens of `text` without the cache (special tokens are plain text).
///
/// Mixed text (an environment block with one emoji, French prose in a log) is cut into runs of
/// lines, ASCII or not, at line starts where no pre-token can cross: after a `\n` followed by
/// a character that is neither whitespace (a run of blank lines is one piece) nor `/` (which a
/// punctuation piece ending in newlines may still take), in both encodings' patterns. Each run
/// is counted by the engine that suits it; the sum is the count of the whole (tests check it
/// against tiktoken-rs on whole texts, random mixes included).
pub fn count_uncached(text: &str, encoding: Encoding) -> usize {
    if text.is_empty() {
        return 0;
    }
    let Some(engine) = encoding.ascii_engine() else { return count_reference(text, encoding) };
    if text.is_ascii() {
        return engine.count(text);
    }
    let bytes = text.as_bytes();
    let mut total = 0;
    let mut run_start = 0;
    let mut run_ascii = true;
    let mut line_start = 0;
    while line_start < bytes.len() {
        let line_end = memchr::memchr(b'\n', &bytes[line_start..]).map_or(bytes.len(), |i| line_start + i + 1);
        let ascii = bytes[line_start..line_end].is_ascii();
        let safe = line_start > 0 && text[line_start..].chars().next().is_some_and(|c| !c.is_whitespace() && c != '/');
        if ascii != run_ascii && safe && line_start > run_start {
            total += count_run(&text[run_start..line_start], run_ascii, engine, encoding);
            run_start = line_start;
        }
        if line_start == run_start {
            run_ascii = ascii;
        } else {
            run_ascii &= ascii;
        }
        line_start = line_end;
    }
    total + count_run(&text[run_start..], run_ascii, engine, encoding)
}

fn count_run(run: &str, ascii: bool, engine: &tiktoken::CoreBpe, encoding: Encoding) -> usize {
    if ascii {
        engine.count(run)
    } else {
        count_reference(run, encoding)
    }
}

/// tiktoken-rs, the reference engine, for any text.
pub fn count_reference(text: &str, encoding: Encoding) -> usize {
    encoding.bpe().encode_ordinary(text).len()
}

/// Counts the tokens of one text, through the content-hash cache.
pub fn count(text: &str, encoding: Encoding) -> usize {
    if uncached(text) {
        return count_uncached(text, encoding);
    }
    let key = xxh3_128_with_seed(text.as_bytes(), encoding.seed());
    if let Some(n) = lookup(key) {
        return n as usize;
    }
    let n = count_uncached(text, encoding);
    store(&[(key, n as u32)]);
    n
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
    let mut out = vec![0usize; texts.len()];
    let mut misses: Vec<(usize, u128)> = Vec::new();
    let mut cached = Vec::with_capacity(texts.len());
    for (i, t) in texts.iter().enumerate() {
        if uncached(t) {
            out[i] = count_uncached(t, encoding);
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
        return out;
    }
    let counted: Vec<usize> =
        misses.par_iter().with_min_len(4).map(|(i, _)| count_uncached(texts[*i], encoding)).collect();
    let mut fresh = Vec::with_capacity(misses.len());
    for ((i, key), n) in misses.iter().zip(counted) {
        out[*i] = n;
        fresh.push((*key, n as u32));
    }
    store(&fresh);
    out
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
    fixed + count_many(&borrowed, encoding).iter().sum::<usize>()
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
}
