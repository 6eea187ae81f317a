//! Token counting (o200k_base by default, cl100k_base on request), behind a process-wide cache
//! keyed by a 128-bit content hash, so counting an unchanged history again costs a hash per block
//! instead of a BPE pass. The plain engine counts: the encoding's pre-tokenizer, then byte-pair
//! merging over token tables built into the library (written by the build script from the
//! `tiktoken` crate's vocabularies and read in place, so a fresh process loads nothing). A text
//! holding one very long pre-token (megabytes of letters with no space) goes to a second engine,
//! GitHub's `bpe` crate, linear in the worst case and stoppable mid-piece. Tests check both against
//! tiktoken-rs (the reference, a test dependency only) and OpenAI's tiktoken (the npm package) to
//! the token.
//! Long counts can be stopped through a [`Cancel`] token.
//!
//! What counts, per message (the one definition the engine and the JavaScript side share):
//! text blocks, thinking text, a tool_use's name plus the JSON of its input, tool_result text,
//! string content; images by Roo Code's estimate `ceil(sqrt(len(base64 data)))` (300 when the
//! data is not inline). Unknown block types and `redacted_thinking` count 0.
//!
//! Never touches the messages themselves: it only reads strings.
//!
//! Here: the encodings, the cache, `Cancel` and the counting entry points. `engines` routes a text
//! between the two engines, `plain` and `linear` are they, `vocab` reads the built-in tables laid
//! out by `layout`, `messages` says what counts in a message.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Mutex, OnceLock};

use rayon::prelude::*;
use xxhash_rust::xxh3::xxh3_128_with_seed;

use crate::error::CondenseError;

mod ascii;
mod engines;
mod layout;
mod linear;
mod messages;
mod plain;
#[cfg(test)]
mod tests;
mod vocab;

pub use engines::*;
use linear::*;
pub use messages::*;

/// The BPE encodings a caller may choose.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Encoding {
    #[default]
    O200kBase,
    Cl100kBase,
}

impl Encoding {
    /// Every encoding, the default first.
    pub const ALL: [Encoding; 2] = [Encoding::O200kBase, Encoding::Cl100kBase];

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
    let mut map = cache().lock().unwrap_or_else(|e| e.into_inner());
    *map = HashMap::new();
}

/// Entries in the count cache.
pub fn cache_len() -> usize {
    cache().lock().unwrap_or_else(|e| e.into_inner()).len()
}

/// Builds the pre-tokenizer of `encoding` (a few milliseconds the first time; the tables are
/// read in place and need no loading). Idempotent.
pub fn warm_up(encoding: Encoding) {
    let _ = plain::Pretokenizer::of(encoding);
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
