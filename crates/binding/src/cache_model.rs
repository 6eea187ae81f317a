//! The prompt-cache model for JavaScript (`PromptCache`, which lib/internal/prompt-cache.js's
//! `CacheModel` wraps): the engine holds the cache's state (src/cache_model.rs) and prices each
//! request; JavaScript says how many leading messages a request shares with the previous one and
//! hands over the others as numbers (tokens, and whether each is a user message and how many
//! content blocks it has). Converts and checks values only; holds no rule.

use napi::bindgen_prelude::{Either, Float64Array, Uint8Array, Unknown};
use napi_derive::napi;

use super::*;
use context_condense::cache_model::{self, Msg};
use context_condense::cost;

const AT: &str = "PromptCache";
/// The largest whole number JavaScript holds exactly (2^53 - 1).
const MAX_WHOLE: f64 = 9_007_199_254_740_991.0;
/// What a request's messages cross as.
const PAIRS: &str = "a Float64Array of (tokens, shape) pairs";

fn refused(text: String) -> Error {
    coded(ErrorCode::InvalidArgument, format!("{AT}: {text}"))
}

/// `v` when it is a finite number >= 0, else an error naming `name`.
fn amount(v: f64, name: &str) -> Result<f64> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(refused(format!("{name}: expected a finite number >= 0, got {}", cost::js_number(v))))
    }
}

/// `v` when it is a whole number from 0 to `max`, else an error naming `name`.
fn whole(v: f64, name: &str, max: f64) -> Result<f64> {
    if v.is_finite() && v.fract() == 0.0 && (0.0..=max).contains(&v) {
        Ok(v)
    } else {
        Err(refused(format!("{name}: expected a whole number from 0 to {max}, got {}", cost::js_number(v))))
    }
}

/// A request's time in milliseconds: finite when given.
fn time(at: Option<f64>) -> Result<Option<f64>> {
    match at {
        Some(t) if !t.is_finite() => {
            Err(refused(format!("at: expected a finite number of milliseconds, got {}", cost::js_number(t))))
        }
        other => Ok(other),
    }
}

/// A price list of a prompt-cache model, in dollars per million tokens (a price left out is 0;
/// other keys, `accounting` among them, are not read: the model splits its token counts itself).
#[napi(object, object_to_js = false)]
pub struct CachePrices {
    pub input_price: Option<f64>,
    pub output_price: Option<f64>,
    pub cache_writes_price: Option<f64>,
    pub cache_reads_price: Option<f64>,
}

/// The price list, each price checked.
fn pricing(given: Either<CachePrices, Unknown<'_>>) -> Result<cost::Pricing> {
    read_prices(typed(given, "pricing", "an object of prices")?)
}

/// A price list read, each price checked (a price left out is 0).
pub(super) fn read_prices(given: CachePrices) -> Result<cost::Pricing> {
    let p = cost::Pricing {
        input_price: given.input_price.unwrap_or(0.0),
        output_price: given.output_price.unwrap_or(0.0),
        cache_writes_price: given.cache_writes_price.unwrap_or(0.0),
        cache_reads_price: given.cache_reads_price.unwrap_or(0.0),
        accounting: cost::Accounting::Anthropic,
    };
    cost::check_pricing(&p, "pricing").map_err(|e| refused(e.to_string()))?;
    Ok(p)
}

/// An argument of the type `T` stands for, or an error naming `name` and what it expected.
fn typed<T>(given: Either<T, Unknown<'_>>, name: &str, expected: &str) -> Result<T> {
    match given {
        Either::A(array) => Ok(array),
        Either::B(_) => Err(refused(format!("{name}: expected {expected}"))),
    }
}

/// The messages of a request after those it shares: two numbers each, its tokens and its shape
/// (content blocks times two, plus one for a user message).
fn messages(tail: &[f64]) -> Result<Vec<Msg>> {
    if tail.len() % 2 != 0 {
        return Err(refused(format!("tail: expected pairs of numbers (tokens, shape), got {} numbers", tail.len())));
    }
    tail.chunks_exact(2)
        .enumerate()
        .map(|(i, pair)| {
            let tokens = amount(pair[0], &format!("tail[{}] (message {i}'s tokens)", 2 * i))?;
            let shape =
                whole(pair[1], &format!("tail[{}] (message {i}'s shape)", 2 * i + 1), 2.0 * f64::from(u32::MAX) + 1.0)?;
            let shape = shape as u64;
            Ok(Msg { tokens, user: shape & 1 == 1, blocks: (shape >> 1) as u32 })
        })
        .collect()
}

/// What a request reads, writes and sends uncached, and its cost in dollars.
#[napi(object, object_from_js = false)]
pub struct CacheRow {
    pub tokens: f64,
    pub cached_read: f64,
    pub cache_write: f64,
    pub uncached: f64,
    pub cost: f64,
    pub first_changed: u32,
    pub cached_messages: u32,
}

impl From<cache_model::Row> for CacheRow {
    fn from(r: cache_model::Row) -> Self {
        CacheRow {
            tokens: r.tokens,
            cached_read: r.cached_read,
            cache_write: r.cache_write,
            uncached: r.uncached,
            cost: r.cost,
            first_changed: r.first_changed as u32,
            cached_messages: r.cached_messages as u32,
        }
    }
}

/// What a request sharing nothing with the cache costs: its input, its output, and what it writes.
#[napi(object, object_from_js = false)]
pub struct FreshRequestCost {
    pub input_cost: f64,
    pub output_cost: f64,
    pub cache_write: f64,
}

/// The model's defaults and limits, for the facade to name.
#[napi(object, object_from_js = false)]
pub struct PromptCacheConstants {
    pub default_ttl_ms: f64,
    pub default_lookback_blocks: u32,
    pub anthropic_min_cache_tokens: f64,
    pub openai_min_cache_tokens: f64,
    pub openai_cache_step: f64,
}

#[napi]
pub fn prompt_cache_constants() -> PromptCacheConstants {
    PromptCacheConstants {
        default_ttl_ms: cache_model::DEFAULT_CACHE_TTL_MS,
        default_lookback_blocks: cache_model::DEFAULT_LOOKBACK_BLOCKS,
        anthropic_min_cache_tokens: cache_model::ANTHROPIC_MIN_CACHE_TOKENS,
        openai_min_cache_tokens: cache_model::OPENAI_MIN_CACHE_TOKENS,
        openai_cache_step: cache_model::OPENAI_CACHE_STEP,
    }
}

/// A request's breakpoints (as message counts): the system prompt (0) and the last two user
/// messages; `user[i]` is 1 when message `i` is a user message.
#[napi(ts_args_type = "user: Uint8Array")]
pub fn cache_breakpoints(user: Either<Uint8Array, Unknown<'_>>) -> Result<Vec<u32>> {
    let user = typed(user, "user", "a Uint8Array")?;
    Ok(cache_model::breakpoints(user.iter().map(|&u| u != 0)).into_iter().map(|b| b as u32).collect())
}

/// One prompt cache as a sequence of requests leaves it.
#[napi]
pub struct PromptCache {
    cache: cache_model::PromptCache,
}

#[napi]
impl PromptCache {
    /// A cache with nothing in it: `kind` "anthropic" or "openai", its prices (`Pricing`), the
    /// system prompt's tokens, Anthropic's lookback in content blocks (undefined: any entry) and
    /// an entry's time to live in milliseconds (undefined: for ever).
    #[napi(
        constructor,
        ts_args_type = "kind: string, pricing: CachePrices, systemTokens: number, lookbackBlocks?: number | undefined | null, ttlMs?: number | undefined | null"
    )]
    pub fn new(
        kind: String,
        pricing_given: Either<CachePrices, Unknown<'_>>,
        system_tokens: f64,
        lookback_blocks: Option<f64>,
        ttl_ms: Option<f64>,
    ) -> Result<Self> {
        let Some(k) = cost::CacheModel::parse(&kind) else {
            return Err(refused(format!("kind: expected \"anthropic\" or \"openai\", got {kind:?}")));
        };
        let p = pricing(pricing_given)?;
        let system = amount(system_tokens, "systemTokens")?;
        let lookback = match lookback_blocks {
            Some(v) => Some(whole(v, "lookbackBlocks", MAX_WHOLE)?),
            None => None,
        };
        let ttl = match ttl_ms {
            Some(v) => Some(amount(v, "ttlMs")?),
            None => None,
        };
        Ok(PromptCache { cache: cache_model::PromptCache::new(k, p, system, lookback, ttl) })
    }

    /// Prices later requests at `pricing` (what is cached stays).
    #[napi(ts_args_type = "pricing: CachePrices")]
    pub fn set_pricing(&mut self, pricing_given: Either<CachePrices, Unknown<'_>>) -> Result<()> {
        self.cache.set_pricing(pricing(pricing_given)?);
        Ok(())
    }

    /// How many messages the previous request sent.
    #[napi(getter)]
    pub fn sent(&self) -> u32 {
        self.cache.sent() as u32
    }

    /// Whether nothing the cache holds is alive at `at` milliseconds (no request was sent, or every
    /// entry outlived its time to live).
    #[napi(ts_args_type = "at?: number | undefined | null")]
    pub fn expired(&self, at: Option<f64>) -> Result<bool> {
        Ok(self.cache.expired(time(at)?))
    }

    /// What a request costs that shares its first `same` messages with the previous request and
    /// sends `tail` (tokens and shape of each other message) after them, at `at` milliseconds
    /// (optional); records nothing.
    #[napi(ts_args_type = "same: number, tail: Float64Array, at?: number | undefined | null")]
    pub fn peek(&self, same: f64, tail: Either<Float64Array, Unknown<'_>>, at: Option<f64>) -> Result<CacheRow> {
        let same = whole(same, "same", f64::from(u32::MAX))? as usize;
        let tail = messages(&typed(tail, "tail", PAIRS)?)?;
        let row = self.cache.peek(same, &tail, time(at)?).map_err(|e| refused(format!("same: {e}")))?;
        Ok(row.into())
    }

    /// Prices a request as `peek` does and records what it leaves in the cache.
    #[napi(ts_args_type = "same: number, tail: Float64Array, at?: number | undefined | null")]
    pub fn request(&mut self, same: f64, tail: Either<Float64Array, Unknown<'_>>, at: Option<f64>) -> Result<CacheRow> {
        let same = whole(same, "same", f64::from(u32::MAX))? as usize;
        let tail = messages(&typed(tail, "tail", PAIRS)?)?;
        let row = self.cache.request(same, &tail, time(at)?).map_err(|e| refused(format!("same: {e}")))?;
        Ok(row.into())
    }

    /// What a request sharing nothing with the cache costs: `input` tokens of prompt, `output` of answer.
    #[napi]
    pub fn fresh_request_cost(&self, input: f64, output: f64) -> Result<FreshRequestCost> {
        let f = self.cache.fresh_request_cost(amount(input, "input")?, amount(output, "output")?);
        Ok(FreshRequestCost { input_cost: f.input_cost, output_cost: f.output_cost, cache_write: f.cache_write })
    }

    /// Extra price per million tokens of sending cached tokens again instead of reading them.
    #[napi(getter)]
    pub fn rewrite_premium(&self) -> f64 {
        self.cache.rewrite_premium()
    }

    /// Whether a prompt of `tokens` ending at a breakpoint is written to the cache.
    #[napi]
    pub fn writes_prefix(&self, tokens: f64) -> Result<bool> {
        Ok(self.cache.writes_prefix(amount(tokens, "tokens")?))
    }

    /// The least `tokens` sent `times` times can cost at this cache's prices.
    #[napi]
    pub fn least_cost(&self, tokens: f64, times: f64) -> Result<f64> {
        Ok(self.cache.pricing().least_cost(amount(tokens, "tokens")?, whole(times, "times", MAX_WHOLE)?))
    }

    /// One request's share of sending each message once: its `appended` tokens written, and the
    /// system prompt written on the `first` request, else read.
    #[napi]
    pub fn send_once_cost(&self, appended: f64, first: bool) -> Result<f64> {
        Ok(self.cache.pricing().send_once_cost(amount(appended, "appended")?, self.cache.system_tokens(), first))
    }
}
