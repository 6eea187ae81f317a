//! The small stateless exports: token counting, schemas, presets, the catalogue, the error
//! codes, the default prompts. Each checks its arguments and turns a panic into an error.

use std::panic::catch_unwind;

use napi_derive::napi;
use serde_json::Value;

#[cfg(feature = "probes")]
use super::codec::as_array;
use super::*;
use context_condense::cost;
use context_condense::error::CondenseError;
use context_condense::tokens::{self, Encoding};

/// One code errors are thrown with (`ErrorCode`), and what it means.
#[napi(object, object_from_js = false)]
pub struct ErrorCodeInfo {
    pub code: String,
    pub meaning: String,
}

/// Every code the library's errors carry as `errorCode`, in order, from the engine's one list
/// (`ErrorCode::ALL`): lib/internal/errors.js reads it, scripts/gen-names.mjs writes the
/// TypeScript union from it.
#[napi]
pub fn error_codes() -> Vec<ErrorCodeInfo> {
    ErrorCode::ALL
        .iter()
        .map(|c| ErrorCodeInfo { code: c.as_str().to_string(), meaning: c.meaning().to_string() })
        .collect()
}

/// Builds the pre-tokenizer on a background thread (a few milliseconds) so the first count does
/// not pay for it; the token tables are read in place and need no loading.
#[napi]
pub fn warm_up() {
    std::thread::spawn(|| {
        let _ = catch_unwind(|| tokens::warm_up(Encoding::O200kBase));
    });
}

/// Empties the engine's token-count cache; when no engine run is going on, the memory it held
/// goes back to the system at once (on a helper thread).
#[napi]
pub fn clear_token_cache() {
    tokens::clear_cache();
    super::trim::give_back_if_idle();
}

/// The JSON Schema of a provider's config.
#[napi(catch_unwind, ts_return_type = "Record<string, unknown>")]
pub fn config_schema(provider: String) -> Result<Value> {
    guarded(|| context_condense::condense::config_schema(&provider))
}

/// The configuration of a Smart preset, as JSON.
#[napi(catch_unwind, ts_return_type = "import('./lib/index').SmartConfig")]
pub fn smart_preset(name: String) -> Result<Value> {
    guarded(|| {
        context_condense::providers::smart::presets::preset(&name).ok_or_else(|| {
            CondenseError::InvalidOptions(format!(
                "unknown preset \"{name}\", expected one of {}",
                context_condense::providers::smart::presets::NAMES.join(", ")
            ))
        })
    })
}

/// The prompts a summary is asked with when the config gives none: `conversation` (Native and
/// Smart's batch mode) and `content` (Smart's per-content summarize operation). Settings UIs show
/// them beside the custom prompt fields.
#[napi(object)]
pub struct DefaultPrompts {
    pub conversation: String,
    pub content: String,
}

#[napi]
pub fn default_prompts() -> DefaultPrompts {
    DefaultPrompts {
        conversation: context_condense::providers::native::SUMMARY_PROMPT.to_string(),
        content: context_condense::passes::content_ops::DEFAULT_SUMMARY_PROMPT.to_string(),
    }
}

/// What each message's Roo tags do (`model::tag_states`: 1 sent, 2 its summary hides it, 4 a
/// truncation marker hides it, 8 a shortened copy in place, 16 its shortened copy hides it), from
/// each message's marks packed
/// by JavaScript as six numbers: the ids of condenseId, truncationId, condenseParent,
/// truncationParent and condensedBy (0 for none), then flags (1 isSummary, 2 isTruncationMarker).
#[napi]
pub fn visible_messages(marks: Int32Array) -> Result<Uint8Array> {
    guarded(|| {
        if marks.len() % 6 != 0 {
            return Err(context_condense::error::CondenseError::InvalidOptions(format!(
                "visibleMessages: expected six numbers per message, got {}",
                marks.len()
            )));
        }
        let id = |v: i32| (v != 0).then_some(v);
        let keys: Vec<context_condense::model::MarkKeys<i32>> = marks
            .chunks_exact(6)
            .map(|m| context_condense::model::MarkKeys {
                condense_id: id(m[0]),
                truncation_id: id(m[1]),
                condense_parent: id(m[2]),
                truncation_parent: id(m[3]),
                condensed_by: id(m[4]),
                summary: m[5] & 1 != 0,
                truncation_marker: m[5] & 2 != 0,
            })
            .collect();
        Ok(Uint8Array::new(context_condense::model::tag_states(&keys)))
    })
}

/// The built-in providers, the Smart presets' names, the encodings, the defaults and the engine's
/// constants (the one list every JavaScript module reads, through lib/internal/registry.js).
#[napi(ts_return_type = "ReturnType<typeof import('./lib/index').providerCatalogue>")]
pub fn provider_catalogue() -> Value {
    context_condense::catalogue::catalogue()
}

/// Tokens of one string.
#[napi(catch_unwind)]
pub fn count_text(text: String, encoding_name: Option<String>) -> Result<u32> {
    let enc = encoding(encoding_name)?;
    guarded(|| Ok(tokens::count(&text, enc) as u32))
}

/// Tokens of many strings (what the JavaScript cache missed).
#[napi(catch_unwind)]
pub fn count_texts(texts: Vec<String>, encoding_name: Option<String>) -> Result<Vec<u32>> {
    let enc = encoding(encoding_name)?;
    guarded(|| {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        Ok(tokens::count_many(&refs, enc).into_iter().map(|n| n as u32).collect())
    })
}

pub struct CountTextsTask {
    texts: Vec<String>,
    encoding: Encoding,
}

#[napi]
impl Task for CountTextsTask {
    type Output = Result<Vec<u32>>;
    type JsValue = Vec<u32>;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        Ok(guarded(|| {
            let refs: Vec<&str> = self.texts.iter().map(String::as_str).collect();
            Ok(tokens::count_many(&refs, self.encoding).into_iter().map(|n| n as u32).collect())
        }))
    }

    fn resolve(&mut self, env: Env, output: Self::Output) -> napi::Result<Vec<u32>> {
        let output = output.map_err(|e| rejection(&env, e))?;
        Ok(output)
    }
}

/// Tokens of many strings, counted off the JavaScript thread.
#[napi]
pub fn count_texts_async(texts: Vec<String>, encoding_name: Option<String>) -> Result<AsyncTask<CountTextsTask>> {
    Ok(AsyncTask::new(CountTextsTask { texts, encoding: encoding(encoding_name)? }))
}

/// Tokens of whole messages, by the engine's own walk (the tests cross-check the JavaScript one with
/// it; only in builds with the `probes` feature).
#[cfg(feature = "probes")]
#[napi(catch_unwind, ts_args_type = "messages: unknown[], encodingName?: string | undefined | null")]
pub fn count_messages(messages: Value, encoding_name: Option<String>) -> Result<u32> {
    let enc = encoding(encoding_name)?;
    let messages = Message::from(messages);
    guarded(|| Ok(tokens::count_messages(as_array(&messages)?, enc) as u32))
}

/// Bytes the C allocator has handed out and not had back (glibc's `mallinfo2`), for the benchmark
/// to measure what a conversation holds without the noise of resident memory; -1 where it cannot
/// tell. Only in builds with the `probes` feature.
#[cfg(feature = "probes")]
#[napi]
pub fn malloc_in_use() -> f64 {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    {
        // SAFETY: mallinfo2 only reads the allocator's statistics; it is thread-safe in glibc.
        let info = unsafe { libc::mallinfo2() };
        (info.uordblks + info.hblkhd) as f64
    }
    #[cfg(not(all(target_os = "linux", target_env = "gnu")))]
    {
        -1.0
    }
}

/// One entry of a price list as JavaScript was given it: `price` when the value is a number, else
/// `shown`, how JavaScript names the value in an error (`string "3"`, `null`).
#[napi(object)]
pub struct GivenPrice {
    pub key: String,
    pub price: Option<f64>,
    pub shown: Option<String>,
}

/// A price list of a prompt-cache model, in dollars per million tokens.
#[napi(object)]
pub struct PriceList {
    pub input_price: f64,
    pub output_price: f64,
    pub cache_writes_price: f64,
    pub cache_reads_price: f64,
}

/// The price list for the prompt-cache model `cacheModel` ("anthropic" or "openai") from the
/// entries a caller gave (none: the model's own; `cost::resolve_pricing` fills in and checks it).
/// An error names `at`: `replay: options.pricing.inputPrice: expected a price >= 0 …`.
/// `cacheTtl` ("5m", the default, or "1h") prices Anthropic's one-hour cache writes.
#[napi(catch_unwind)]
pub fn resolve_pricing(
    given: Option<Vec<GivenPrice>>,
    cache_model: String,
    at: String,
    cache_ttl: Option<String>,
) -> Result<PriceList> {
    let Some(cache) = cost::CacheModel::parse(&cache_model) else {
        return Err(coded(
            ErrorCode::InvalidOptions,
            format!("{at}: unknown cache model {cache_model:?}, expected \"anthropic\" or \"openai\""),
        ));
    };
    let ttl = match cache_ttl.as_deref() {
        None => cost::CacheTtl::default(),
        Some(name) => cost::CacheTtl::parse(name).ok_or_else(|| {
            coded(
                ErrorCode::InvalidOptions,
                format!("{at}: unknown cache entry life {name:?}, expected \"5m\" or \"1h\""),
            )
        })?,
    };
    let given: Option<Vec<(String, cost::Given)>> = given.map(|entries| {
        entries
            .into_iter()
            .map(|e| {
                let value = match (e.price, e.shown) {
                    (Some(p), _) => cost::Given::Number(p),
                    (None, shown) => cost::Given::Other(shown.unwrap_or_else(|| "undefined".into())),
                };
                (e.key, value)
            })
            .collect()
    });
    let p = cost::resolve_pricing(given.as_deref(), cache, ttl, &at)
        .map_err(|e| coded(ErrorCode::InvalidOptions, e.to_string()))?;
    Ok(PriceList {
        input_price: p.input_price,
        output_price: p.output_price,
        cache_writes_price: p.cache_writes_price,
        cache_reads_price: p.cache_reads_price,
    })
}

/// The token counts of one model call (a host's usage report); a count left out is 0.
#[napi(object)]
pub struct UsageTokens {
    pub input_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    pub cache_write_tokens: Option<f64>,
    pub cache_read_tokens: Option<f64>,
}

/// What a usage costs in dollars at `pricing` (a `Pricing`: its prices, left out 0, and its
/// `accounting`), as the engine prices a summary reply (`cost::usage_cost`). An error names the
/// price list `pricing` (`pricing.inputPrice: …`), for the caller to say where it was given.
#[napi(catch_unwind, ts_args_type = "usage: UsageTokens, pricing: import('./lib/index').Pricing")]
pub fn usage_cost(usage: UsageTokens, pricing: Value) -> Result<f64> {
    let refused = |text: String| coded(ErrorCode::InvalidOptions, text);
    let p: cost::Pricing = context_condense::config::parse_config(&pricing, "pricing").map_err(|e| match e {
        CondenseError::InvalidOptions(text) => refused(text),
        other => refused(other.to_string()),
    })?;
    cost::check_pricing(&p, "pricing").map_err(|e| refused(e.to_string()))?;
    let usage = cost::Usage {
        input_tokens: usage.input_tokens,
        output_tokens: usage.output_tokens,
        cache_write_tokens: usage.cache_write_tokens,
        cache_read_tokens: usage.cache_read_tokens,
    };
    Ok(cost::usage_cost(&usage, &p))
}
