//! The prompt-cache model: what one request reads from and writes to a provider's prompt cache,
//! given what earlier requests left there, and what it costs. The manager's cache-aware policy
//! prices a condensing with it before taking it, and the replay prices every request with it.
//!
//! Anthropic: cache breakpoints where Anthropic's API and Roo Code put them (the system prompt and
//! the last two user messages); the longest cached prefix still valid is read at the cache-read
//! price, the rest up to the last breakpoint is written at the cache-write price, anything after
//! it is plain input; a prefix shorter than [`ANTHROPIC_MIN_CACHE_TOKENS`] is not cached; with a
//! lookback, an entry is found only within that many content blocks before a breakpoint. OpenAI:
//! automatic prefix caching of what the previous request sent, from [`OPENAI_MIN_CACHE_TOKENS`] in
//! steps of [`OPENAI_CACHE_STEP`], read at the cache-read price, no write surcharge. Either way an
//! entry unused for longer than its time to live (on the clock the requests give) is gone.
//!
//! Pure arithmetic over token counts: a message is its token count, whether it is a user message
//! and how many content blocks it has; which messages a request shares with the previous one (the
//! messages' identity) is the caller's to say. Prices go through `src/cost.rs`. Never sees a message.

use thiserror::Error;

use crate::cost::{self, CacheModel as Kind, Pricing, Usage};

/// Anthropic does not cache a prefix shorter than this (Claude Sonnet's minimum).
pub const ANTHROPIC_MIN_CACHE_TOKENS: f64 = 1024.0;
/// OpenAI caches a prompt's prefix from this many tokens...
pub const OPENAI_MIN_CACHE_TOKENS: f64 = 1024.0;
/// ...in steps of this many.
pub const OPENAI_CACHE_STEP: f64 = 128.0;
/// How long an unused cache entry lives by default: Anthropic's default time to live (5 minutes;
/// each read or write of an entry starts it again). OpenAI keeps a prefix 5 to 10 minutes after
/// its last use (up to an hour off-peak): 5 minutes is the short end.
pub const DEFAULT_CACHE_TTL_MS: f64 = 300_000.0;
/// Anthropic looks for a cache entry only this many content blocks before each breakpoint of a
/// request (its documentation: about 20); an entry further back is not found, and is written again.
pub const DEFAULT_LOOKBACK_BLOCKS: u32 = 20;

/// One message as the model sees it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Msg {
    pub tokens: f64,
    /// A user message (its end is a breakpoint when it is one of the last two).
    pub user: bool,
    /// Its content blocks as given (a string content is 0 here); a message counts at least one.
    pub blocks: u32,
}

impl Msg {
    fn block_count(&self) -> f64 {
        f64::from(self.blocks.max(1))
    }
}

/// What a request reads, writes and sends uncached, and its cost.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Row {
    /// The prompt's tokens: the system prompt and every message.
    pub tokens: f64,
    pub cached_read: f64,
    pub cache_write: f64,
    pub uncached: f64,
    pub cost: f64,
    /// The first message not shared with the previous request.
    pub first_changed: usize,
    /// How many messages the prefix read from the cache holds.
    pub cached_messages: usize,
}

/// What a request that shares nothing with the cache costs (`PromptCache::fresh_request_cost`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FreshCost {
    pub input_cost: f64,
    pub output_cost: f64,
    pub cache_write: f64,
}

/// Why a request cannot be priced.
#[derive(Debug, Clone, PartialEq, Error)]
pub enum CacheError {
    #[error("shares {same} messages with the previous request, which sent {sent}")]
    SharesTooMany { same: usize, sent: usize },
}

/// An Anthropic cache entry: the prefix through `end` messages (0: the system prompt alone), and
/// when it was last written or read (`None`: not known).
#[derive(Debug, Clone, Copy, PartialEq)]
struct Entry {
    end: usize,
    used: Option<f64>,
}

/// A request priced, with what it would leave in the cache.
struct Priced {
    row: Row,
    prefix: Vec<f64>,
    entries: Option<Vec<Entry>>,
}

/// The breakpoints of a request (as message counts: the prefix through that message): the system
/// prompt (0) and the last two user messages, ascending. `user[i]`: whether message `i` is a user
/// message.
pub fn breakpoints(user: impl DoubleEndedIterator<Item = bool> + ExactSizeIterator) -> Vec<usize> {
    let n = user.len();
    let mut out = vec![0];
    for (k, is_user) in user.rev().enumerate() {
        if out.len() == 3 {
            break;
        }
        if is_user {
            out.push(n - k);
        }
    }
    out.sort_unstable();
    out
}

/// What a request that shares no prefix with anything cached costs: `input` tokens of prompt and
/// `output` of answer, sent with the breakpoints a host puts on every request. Anthropic: its
/// prompt ends with a user message, so all of it is written (when it is long enough to be cached);
/// OpenAI: plain input. The summary request of a condensing is one.
pub fn fresh_request_cost(kind: Kind, pricing: &Pricing, input: f64, output: f64) -> FreshCost {
    let written = if kind == Kind::Anthropic && input >= ANTHROPIC_MIN_CACHE_TOKENS { input } else { 0.0 };
    let usage = Usage {
        input_tokens: Some(input - written),
        output_tokens: Some(0.0),
        cache_write_tokens: Some(written),
        cache_read_tokens: None,
    };
    let input_cost = cost::usage_cost(&usage, pricing);
    let output_cost = cost::usage_cost(&Usage { output_tokens: Some(output), ..Usage::default() }, pricing);
    FreshCost { input_cost, output_cost, cache_write: written }
}

/// One cache as a sequence of requests leaves it.
#[derive(Debug, Clone)]
pub struct PromptCache {
    kind: Kind,
    pricing: Pricing,
    system_tokens: f64,
    lookback_blocks: Option<f64>,
    ttl_ms: Option<f64>,
    /// What the previous request sent.
    prev: Vec<Msg>,
    /// Its prefix sums: `prefix[i]` = the system prompt and messages `0..i`.
    prefix: Vec<f64>,
    /// Whether a request was sent, and when (`None`: not known).
    prev_sent: bool,
    prev_at: Option<f64>,
    /// Anthropic: the prefixes still cached, ascending by `end`.
    entries: Vec<Entry>,
}

impl PromptCache {
    /// A cache with nothing in it. `lookback_blocks`: Anthropic, how many content blocks before a
    /// breakpoint an entry is looked for (`None`: any still valid); `ttl_ms`: how long an entry
    /// lives after its last use (`None`, or a request without a time: for ever).
    pub fn new(
        kind: Kind,
        pricing: Pricing,
        system_tokens: f64,
        lookback_blocks: Option<f64>,
        ttl_ms: Option<f64>,
    ) -> Self {
        PromptCache {
            kind,
            pricing,
            system_tokens,
            lookback_blocks,
            ttl_ms,
            prev: Vec::new(),
            prefix: vec![system_tokens],
            prev_sent: false,
            prev_at: None,
            entries: Vec::new(),
        }
    }

    pub fn kind(&self) -> Kind {
        self.kind
    }

    /// The system prompt's tokens, which every request sends first.
    pub fn system_tokens(&self) -> f64 {
        self.system_tokens
    }

    pub fn pricing(&self) -> &Pricing {
        &self.pricing
    }

    /// Prices later requests at `pricing` (what is cached stays).
    pub fn set_pricing(&mut self, pricing: Pricing) {
        self.pricing = pricing;
    }

    /// How many messages the previous request sent.
    pub fn sent(&self) -> usize {
        self.prev.len()
    }

    /// Whether an entry last used at `used` is still alive at `at`.
    fn alive(&self, used: Option<f64>, at: Option<f64>) -> bool {
        match (self.ttl_ms, at, used) {
            (Some(ttl), Some(at), Some(used)) => at - used <= ttl,
            _ => true,
        }
    }

    /// Whether nothing the cache holds is alive at `at`: no request was sent, or every entry went
    /// unused for longer than its time to live. A request then reads nothing, whatever it sends.
    pub fn expired(&self, at: Option<f64>) -> bool {
        match self.kind {
            Kind::Anthropic => self.entries.iter().all(|e| !self.alive(e.used, at)),
            Kind::Openai => !(self.prev_sent && self.alive(self.prev_at, at)),
        }
    }

    /// What a request costs whose first `same` messages are the previous request's and whose
    /// others are `tail`, sent at `at` (milliseconds, optional), without recording it.
    pub fn peek(&self, same: usize, tail: &[Msg], at: Option<f64>) -> Result<Row, CacheError> {
        self.price(same, tail, at).map(|p| p.row)
    }

    /// Prices a request as `peek` does and records what it leaves in the cache.
    pub fn request(&mut self, same: usize, tail: &[Msg], at: Option<f64>) -> Result<Row, CacheError> {
        let p = self.price(same, tail, at)?;
        self.prev.truncate(same);
        self.prev.extend_from_slice(tail);
        self.prefix = p.prefix;
        self.prev_sent = true;
        self.prev_at = at;
        if let Some(entries) = p.entries {
            self.entries = entries;
        }
        Ok(p.row)
    }

    fn price(&self, d: usize, tail: &[Msg], at: Option<f64>) -> Result<Priced, CacheError> {
        if d > self.prev.len() {
            return Err(CacheError::SharesTooMany { same: d, sent: self.prev.len() });
        }
        let n = d + tail.len();
        let msg = |i: usize| if i < d { &self.prev[i] } else { &tail[i - d] };
        let mut prefix = Vec::with_capacity(n + 1);
        prefix.extend_from_slice(&self.prefix[..=d]);
        for m in tail {
            let last = prefix[prefix.len() - 1];
            prefix.push(last + m.tokens);
        }
        let total = prefix[n];
        let mut cached_read = 0.0;
        let mut cache_write = 0.0;
        let mut cached_messages = 0;
        let mut entries = None;
        match self.kind {
            Kind::Anthropic => {
                // Entries written through a message that changed since are gone, and so are those
                // unused for longer than their time to live; the longest left is read.
                let alive: Vec<Entry> =
                    self.entries.iter().copied().filter(|e| e.end <= d && self.alive(e.used, at)).collect();
                let bps: Vec<usize> = breakpoints((0..n).map(|i| msg(i).user))
                    .into_iter()
                    .filter(|&b| prefix[b] >= ANTHROPIC_MIN_CACHE_TOKENS)
                    .collect();
                // With a lookback, an entry is found only within that many content blocks before
                // one of this request's breakpoints (the system prompt's own breakpoint finds its entry).
                let readable: Vec<Entry> = match self.lookback_blocks {
                    Some(lookback) if !alive.is_empty() => {
                        let mut blocks = Vec::with_capacity(n + 1);
                        blocks.push(0.0);
                        for i in 0..n {
                            blocks.push(blocks[i] + msg(i).block_count());
                        }
                        alive
                            .iter()
                            .copied()
                            .filter(|e| {
                                e.end == 0 || bps.iter().any(|&b| b >= e.end && blocks[b] - blocks[e.end] <= lookback)
                            })
                            .collect()
                    }
                    _ => alive.clone(),
                };
                if let Some(e) = readable.last() {
                    cached_messages = e.end;
                    cached_read = prefix[cached_messages];
                }
                if let Some(&last) = bps.last() {
                    if prefix[last] > cached_read {
                        cache_write = prefix[last] - cached_read;
                    }
                }
                // What this request reads or writes lives again from now; the others keep their age.
                let mut next = alive;
                let mut touch = |end: usize| match next.iter_mut().find(|e| e.end == end) {
                    Some(e) => e.used = at,
                    None => next.push(Entry { end, used: at }),
                };
                if !readable.is_empty() {
                    touch(cached_messages);
                }
                for &b in &bps {
                    touch(b);
                }
                next.sort_by_key(|e| e.end);
                entries = Some(next);
            }
            Kind::Openai => {
                if self.prev_sent && self.alive(self.prev_at, at) {
                    // The previous request's prompt is cached in steps of 128 tokens (until its
                    // time to live runs out); this one reads the part it shares.
                    let common = prefix[d].min(self.prefix[d]);
                    if common >= OPENAI_MIN_CACHE_TOKENS {
                        cached_read = common - common % OPENAI_CACHE_STEP;
                    }
                    cached_messages = d;
                }
            }
        }
        let uncached = total - cached_read - cache_write;
        let usage = Usage {
            input_tokens: Some(uncached),
            output_tokens: None,
            cache_write_tokens: Some(cache_write),
            cache_read_tokens: Some(cached_read),
        };
        let cost = cost::usage_cost(&usage, &self.pricing);
        Ok(Priced {
            row: Row { tokens: total, cached_read, cache_write, uncached, cost, first_changed: d, cached_messages },
            prefix,
            entries,
        })
    }

    /// Whether a prompt of `tokens` is written to the cache when it ends at a breakpoint
    /// (Anthropic, from its minimum; OpenAI writes nothing).
    pub fn writes_prefix(&self, tokens: f64) -> bool {
        self.kind == Kind::Anthropic && tokens >= ANTHROPIC_MIN_CACHE_TOKENS
    }

    /// What a request that shares no prefix with anything cached costs ([`fresh_request_cost`]).
    pub fn fresh_request_cost(&self, input: f64, output: f64) -> FreshCost {
        fresh_request_cost(self.kind, &self.pricing, input, output)
    }

    /// Extra price per million tokens of sending cached tokens again (written, or uncached) instead
    /// of reading them.
    pub fn rewrite_premium(&self) -> f64 {
        self.pricing.rewrite_premium(self.kind)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const ANTHROPIC: Pricing = Pricing {
        input_price: 3.0,
        output_price: 15.0,
        cache_writes_price: 3.75,
        cache_reads_price: 0.3,
        accounting: cost::Accounting::Anthropic,
    };
    const OPENAI: Pricing = Pricing {
        input_price: 2.5,
        output_price: 10.0,
        cache_writes_price: 2.5,
        cache_reads_price: 1.25,
        accounting: cost::Accounting::Anthropic,
    };

    fn user(tokens: f64) -> Msg {
        Msg { tokens, user: true, blocks: 0 }
    }
    fn assistant(tokens: f64) -> Msg {
        Msg { tokens, user: false, blocks: 0 }
    }

    /// Sends `history`, sharing with the previous request as many leading messages as are equal.
    fn send(cache: &mut PromptCache, history: &[Msg], at: Option<f64>) -> Row {
        let same = shared(cache, history);
        cache.request(same, &history[same..], at).expect("a request")
    }
    fn shared(cache: &PromptCache, history: &[Msg]) -> usize {
        cache.prev.iter().zip(history).take_while(|(a, b)| a == b).count()
    }
    fn row(tokens: f64, read: f64, write: f64, uncached: f64) -> (f64, f64, f64, f64) {
        (tokens, read, write, uncached)
    }
    fn figures(r: &Row) -> (f64, f64, f64, f64) {
        (r.tokens, r.cached_read, r.cache_write, r.uncached)
    }
    fn close(a: f64, b: f64) {
        assert!((a - b).abs() < 1e-12, "{a} != {b}");
    }

    #[test]
    fn breakpoints_are_the_system_prompt_and_the_last_two_user_messages() {
        let roles = [true, false, true, false, true, false];
        assert_eq!(breakpoints(roles.iter().copied()), vec![0, 3, 5]);
        assert_eq!(breakpoints([false, true].iter().copied()), vec![0, 2]);
        assert_eq!(breakpoints([false, false].iter().copied()), vec![0]);
    }

    #[test]
    fn anthropic_writes_through_the_last_user_message_then_reads() {
        let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, None, None);
        let h = [user(1000.0), assistant(500.0), user(1000.0)];
        let r1 = send(&mut cache, &h[..1], None);
        assert_eq!(figures(&r1), row(3000.0, 0.0, 3000.0, 0.0));
        close(r1.cost, 3000.0 * 3.75 / 1e6);
        let r2 = send(&mut cache, &h, None);
        assert_eq!(figures(&r2), row(4500.0, 3000.0, 1500.0, 0.0));
        close(r2.cost, (3000.0 * 0.3 + 1500.0 * 3.75) / 1e6);
        // Ending with an assistant message: what follows the last user message is plain input.
        let mut fresh = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, None, None);
        assert_eq!(
            figures(&send(&mut fresh, &[user(1000.0), assistant(700.0)], None)),
            row(3700.0, 0.0, 3000.0, 700.0)
        );
    }

    #[test]
    fn expired_when_nothing_it_holds_is_alive_and_then_the_next_request_reads_nothing() {
        for (kind, prices) in [(Kind::Anthropic, ANTHROPIC), (Kind::Openai, OPENAI)] {
            let ttl = DEFAULT_CACHE_TTL_MS;
            let mut cache = PromptCache::new(kind, prices, 2000.0, None, Some(ttl));
            assert!(cache.expired(Some(0.0)), "{kind:?}: nothing sent yet");
            let h = [user(1000.0), assistant(500.0), user(1000.0)];
            send(&mut cache, &h[..1], Some(0.0));
            assert!(!cache.expired(Some(ttl)), "{kind:?}: at its time to live it is alive");
            assert!(cache.expired(Some(ttl + 1.0)), "{kind:?}: a millisecond later it is gone");
            // What `expired` says is what the next request finds.
            assert_eq!(cache.peek(1, &h[1..], Some(ttl + 1.0)).map(|r| r.cached_read), Ok(0.0));
            assert!(cache.peek(1, &h[1..], Some(ttl)).is_ok_and(|r| r.cached_read > 0.0), "{kind:?}");
            // Without a time, or without a time to live, entries live for ever.
            assert!(!cache.expired(None));
            let mut forever = PromptCache::new(kind, prices, 2000.0, None, None);
            send(&mut forever, &h[..1], Some(0.0));
            assert!(!forever.expired(Some(1e15)));
        }
    }

    #[test]
    fn an_edit_reads_back_to_the_last_entry_before_it() {
        let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, None, None);
        let h = [user(1000.0), assistant(500.0), user(1000.0), assistant(500.0), user(1000.0)];
        send(&mut cache, &h[..1], None);
        send(&mut cache, &h[..3], None);
        let full = send(&mut cache, &h, None);
        assert_eq!((full.cached_read, full.cache_write), (4500.0, 1500.0));
        // Message 2 changed: the entries through messages 3 and 5 are gone; the one through
        // message 1 (after the first user message) is read.
        let edited = [h[0], h[1], user(200.0), h[3], h[4]];
        let r = cache.request(2, &edited[2..], None).expect("a request");
        assert_eq!(figures(&r), row(5200.0, 3000.0, 2200.0, 0.0));
        assert_eq!((r.first_changed, r.cached_messages), (2, 1));
        // The first message changed: only the system prompt's entry is left.
        let r = cache.request(0, &[user(900.0), h[1], user(200.0), h[3], h[4]], None).expect("a request");
        assert_eq!((r.cached_read, r.cache_write, r.cached_messages), (2000.0, 3100.0, 0));
    }

    #[test]
    fn a_prefix_under_the_minimum_is_not_cached() {
        let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 500.0, None, None);
        let r = send(&mut cache, &[user(300.0)], None);
        assert_eq!(figures(&r), row(800.0, 0.0, 0.0, 800.0));
        close(r.cost, 800.0 * 3.0 / 1e6);
        // At the minimum exactly, it is.
        let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 724.0, None, None);
        assert_eq!(figures(&send(&mut cache, &[user(300.0)], None)), row(1024.0, 0.0, 1024.0, 0.0));
    }

    #[test]
    fn a_lookback_finds_only_entries_within_its_blocks_of_a_breakpoint() {
        let h: Vec<Msg> = (0..40).map(|i| Msg { tokens: 500.0, user: i % 2 == 0, blocks: 2 }).collect();
        let run = |lookback: Option<f64>| {
            let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, lookback, None);
            for k in 1..=40 {
                send(&mut cache, &h[..k], None);
            }
            let mut tail = vec![Msg { tokens: 500.0, user: true, blocks: 2 }];
            tail.extend_from_slice(&h[5..]);
            tail.push(Msg { tokens: 500.0, user: true, blocks: 2 });
            cache.request(4, &tail, None).expect("a request")
        };
        assert_eq!(run(None).cached_read, 3500.0);
        // 20 blocks before the breakpoints (through messages 39 and 41): the entry through message 3
        // is 72 blocks before the nearer one, so only the system prompt's entry is found.
        assert_eq!(run(Some(20.0)).cached_read, 2000.0);
        // With a lookback wide enough, found again (72 blocks back to its end).
        assert_eq!(run(Some(72.0)).cached_read, 3500.0);
        assert_eq!(run(Some(71.0)).cached_read, 2000.0);
    }

    #[test]
    fn a_string_content_is_one_block() {
        // Blocks given as 0 (a string content) count one each: the entry through message 1 is 18
        // blocks before the breakpoint through message 19.
        let h: Vec<Msg> = (0..20).map(|i| Msg { tokens: 500.0, user: i % 2 == 0, blocks: 0 }).collect();
        let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, Some(18.0), None);
        send(&mut cache, &h[..1], None);
        let mut next = h[..1].to_vec();
        next.push(assistant(1.0));
        next.extend_from_slice(&h[2..]);
        next.push(user(500.0));
        let r = cache.request(1, &next[1..], None).expect("a request");
        assert_eq!(r.cached_read, 2500.0);
        let mut tight = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, Some(17.0), None);
        send(&mut tight, &h[..1], None);
        assert_eq!(tight.request(1, &next[1..], None).expect("a request").cached_read, 2000.0);
    }

    #[test]
    fn an_entry_unused_past_its_time_to_live_is_written_again() {
        let h = [user(1000.0), assistant(500.0), user(1000.0), assistant(500.0), user(1000.0)];
        let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, None, Some(300_000.0));
        send(&mut cache, &h[..1], Some(0.0));
        assert_eq!(send(&mut cache, &h[..3], Some(300_000.0)).cached_read, 3000.0);
        assert_eq!(send(&mut cache, &h, Some(600_000.0)).cached_read, 4500.0);
        let late = send(&mut cache, &h, Some(900_001.0));
        assert_eq!(figures(&late), row(6000.0, 0.0, 6000.0, 0.0));
        // A read starts an entry's time again though the request has no breakpoint there.
        let mut refreshed = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, None, Some(300_000.0));
        send(&mut refreshed, &h[..1], Some(800_000.0));
        send(&mut refreshed, &[h[0], h[1], user(999.0), h[3], h[4]], Some(1_000_000.0));
        assert_eq!(send(&mut refreshed, &[h[0], h[1], user(998.0)], Some(1_250_000.0)).cached_read, 3000.0);
        // Without a time, entries live for ever.
        let mut timeless = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, None, Some(300_000.0));
        send(&mut timeless, &h[..1], None);
        assert_eq!(send(&mut timeless, &h[..3], None).cached_read, 3000.0);
    }

    #[test]
    fn openai_reads_the_shared_prefix_in_steps_from_its_minimum() {
        let mut cache = PromptCache::new(Kind::Openai, OPENAI, 1000.0, None, Some(300_000.0));
        let u1 = user(100.0);
        let r1 = send(&mut cache, &[u1], Some(0.0));
        assert_eq!(figures(&r1), row(1100.0, 0.0, 0.0, 1100.0));
        let r2 = send(&mut cache, &[u1, assistant(50.0), user(100.0)], Some(300_000.0));
        assert_eq!(figures(&r2), row(1250.0, 1024.0, 0.0, 226.0));
        close(r2.cost, (1024.0 * 1.25 + 226.0 * 2.5) / 1e6);
        // 1,250 shared: 1,152 read (nine steps).
        let r3 = send(&mut cache, &[u1, assistant(50.0), user(100.0), assistant(10.0)], Some(600_000.0));
        assert_eq!(r3.cached_read, 1152.0);
        // Past its time to live nothing is read.
        assert_eq!(send(&mut cache, &[u1, assistant(50.0)], Some(900_001.0)).cached_read, 0.0);
        // Under the minimum shared: nothing.
        assert_eq!(send(&mut cache, &[user(99.0)], Some(900_002.0)).cached_read, 0.0);
    }

    #[test]
    fn peek_records_nothing_and_a_share_beyond_what_was_sent_is_refused() {
        let mut cache = PromptCache::new(Kind::Anthropic, ANTHROPIC, 2000.0, None, None);
        let h = [user(1000.0)];
        let peeked = cache.peek(0, &h, None).expect("a peek");
        assert_eq!(cache.peek(0, &h, None).expect("a peek"), peeked);
        assert_eq!(cache.request(0, &h, None).expect("a request"), peeked);
        assert_eq!(cache.peek(2, &[], None), Err(CacheError::SharesTooMany { same: 2, sent: 1 }));
    }

    #[test]
    fn a_fresh_request_is_written_whole_on_anthropic_and_plain_input_on_openai() {
        let a = PromptCache::new(Kind::Anthropic, ANTHROPIC, 0.0, None, None);
        let f = a.fresh_request_cost(2000.0, 100.0);
        assert_eq!(f.cache_write, 2000.0);
        close(f.input_cost, 2000.0 * 3.75 / 1e6);
        close(f.output_cost, 100.0 * 15.0 / 1e6);
        assert_eq!(a.fresh_request_cost(1000.0, 0.0).cache_write, 0.0);
        let o = PromptCache::new(Kind::Openai, OPENAI, 0.0, None, None);
        let f = o.fresh_request_cost(2000.0, 100.0);
        assert_eq!(f.cache_write, 0.0);
        close(f.input_cost, 2000.0 * 2.5 / 1e6);
        close(a.rewrite_premium(), 3.45);
        close(o.rewrite_premium(), 1.25);
    }
}
