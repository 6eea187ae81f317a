//! Prices and the cost of LLM calls, in one place: the price lists the package knows (per
//! prompt-cache model), the rule that fills in a price list a caller gave in part, the one check of
//! a price, and the cost of a usage (input, output, cache writes, cache reads) from its token
//! counts and a price list. A reply's cost is its own figure when it gives one, else its usage
//! priced. Anthropic reports input tokens without the cached ones; OpenAI includes them, so cached
//! tokens are taken out before pricing input. Pure arithmetic and checks: touches nothing else.

use serde::{Deserialize, Serialize};
use thiserror::Error;

use crate::llm::SummaryReply;

/// Prices in dollars per million tokens.
#[derive(Debug, Clone, Copy, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Pricing {
    #[schemars(transform = crate::bounds::price)]
    pub input_price: f64,
    #[schemars(transform = crate::bounds::price)]
    pub output_price: f64,
    #[schemars(transform = crate::bounds::price)]
    pub cache_writes_price: f64,
    #[schemars(transform = crate::bounds::price)]
    pub cache_reads_price: f64,
    /// How the provider counts input tokens. @default "anthropic"
    pub accounting: Accounting,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Accounting {
    /// `inputTokens` excludes cached tokens.
    #[default]
    Anthropic,
    /// `inputTokens` includes cache writes and reads.
    Openai,
}

impl Pricing {
    /// Every price within `bounds::PRICE` (the schema's minimum), else an error naming the key
    /// under `at`.
    pub fn check(&self, at: &str) -> Result<(), crate::error::CondenseError> {
        check_pricing(self, at).map_err(|e| crate::error::CondenseError::InvalidOptions(e.to_string()))
    }

    pub fn cost(&self, input: f64, output: f64, cache_write: f64, cache_read: f64) -> f64 {
        let uncached = match self.accounting {
            Accounting::Anthropic => input,
            Accounting::Openai => (input - cache_write - cache_read).max(0.0),
        };
        (self.input_price * uncached
            + self.output_price * output
            + self.cache_writes_price * cache_write
            + self.cache_reads_price * cache_read)
            / 1_000_000.0
    }
}

impl Pricing {
    /// Extra price per million tokens of sending cached tokens again instead of reading them:
    /// written again (Anthropic) or sent uncached (OpenAI), less the read price.
    pub fn rewrite_premium(&self, cache: CacheModel) -> f64 {
        match cache {
            CacheModel::Anthropic => self.cache_writes_price - self.cache_reads_price,
            CacheModel::Openai => self.input_price - self.cache_reads_price,
        }
    }

    /// The least `tokens` sent `times` times can cost: uncached each time, or written once and
    /// then read (the replay's floor of a policy's bill).
    pub fn least_cost(&self, tokens: f64, times: f64) -> f64 {
        let each = if times == 0.0 {
            0.0
        } else {
            (self.input_price * times).min(self.cache_writes_price + self.cache_reads_price * (times - 1.0))
        };
        (tokens * each) / 1_000_000.0
    }

    /// One request's share of sending each message once: its `appended` tokens written to the
    /// cache, and the system prompt's `system` tokens written on the `first` request, else read.
    pub fn send_once_cost(&self, appended: f64, system: f64, first: bool) -> f64 {
        let system_price = if first { self.cache_writes_price } else { self.cache_reads_price };
        (appended * self.cache_writes_price + system * system_price) / 1_000_000.0
    }
}

/// The token counts of one model call, as a reply or a host's usage report gives them; a count
/// left out is 0.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Usage {
    pub input_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    pub cache_write_tokens: Option<f64>,
    pub cache_read_tokens: Option<f64>,
}

/// The cost of a usage at `pricing`: each count that is not a number >= 0 (or is left out) is 0.
pub fn usage_cost(usage: &Usage, pricing: &Pricing) -> f64 {
    let n = |x: Option<f64>| x.filter(|v| v.is_finite() && *v >= 0.0).unwrap_or(0.0);
    pricing.cost(n(usage.input_tokens), n(usage.output_tokens), n(usage.cache_write_tokens), n(usage.cache_read_tokens))
}

/// The cost of one reply: its own figure, else its token counts priced, else 0.
pub fn reply_cost(reply: &SummaryReply, pricing: Option<&Pricing>) -> f64 {
    if let Some(c) = reply.cost.filter(|c| c.is_finite() && *c >= 0.0) {
        return c;
    }
    let Some(p) = pricing else { return 0.0 };
    let usage = Usage {
        input_tokens: reply.input_tokens,
        output_tokens: reply.output_tokens,
        cache_write_tokens: reply.cache_write_tokens,
        cache_read_tokens: reply.cache_read_tokens,
    };
    usage_cost(&usage, p)
}

/// The prompt-cache models requests are priced with (`lib/internal/prompt-cache.js`): each has the price
/// list the package uses when a caller gives none.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CacheModel {
    Anthropic,
    Openai,
}

impl CacheModel {
    /// The model named `name` ("anthropic" or "openai").
    pub fn parse(name: &str) -> Option<CacheModel> {
        match name {
            "anthropic" => Some(CacheModel::Anthropic),
            "openai" => Some(CacheModel::Openai),
            _ => None,
        }
    }

    /// The list prices used when none are given: Claude Sonnet's for Anthropic (cache writes
    /// 1.25x and reads 0.1x of input), GPT-4o's for OpenAI (reads 0.5x of input; OpenAI charges
    /// no write surcharge, so a write is priced as input).
    pub fn default_pricing(self) -> Pricing {
        match self {
            CacheModel::Anthropic => Pricing {
                input_price: 3.0,
                output_price: 15.0,
                cache_writes_price: 3.75,
                cache_reads_price: 0.3,
                accounting: Accounting::Anthropic,
            },
            CacheModel::Openai => Pricing {
                input_price: 2.5,
                output_price: 10.0,
                cache_writes_price: 2.5,
                cache_reads_price: 1.25,
                accounting: Accounting::Anthropic,
            },
        }
    }
}

/// The keys a price list may have (`accounting` is read where a reply is priced; a cache model
/// reads token counts it has split itself and ignores it).
pub const PRICE_KEYS: [&str; 5] = ["inputPrice", "outputPrice", "cacheWritesPrice", "cacheReadsPrice", "accounting"];

/// A value a caller gave in a price list: a number, or anything else by how the caller's language
/// names it in an error (`string "3"`, `null`).
#[derive(Debug, Clone, PartialEq)]
pub enum Given {
    Number(f64),
    Other(String),
}

/// What is wrong with a price list, naming where it was given.
#[derive(Debug, Clone, PartialEq, Eq, Error)]
pub enum PriceError {
    #[error("{at}.{key}: expected {}, got {got}", crate::bounds::PRICE.expected)]
    NotAPrice { at: String, key: String, got: String },
    #[error("{at}.{key}: unknown key, expected one of {}", PRICE_KEYS.join(", "))]
    UnknownKey { at: String, key: String },
}

/// A number as JavaScript writes it (`String(n)`): `NaN`, `Infinity`, `-1`, `1.5`, `1e-7`,
/// `1e+21`. Error messages name the numbers a caller gave in the caller's own spelling.
pub fn js_number(n: f64) -> String {
    if n.is_nan() {
        return "NaN".into();
    }
    if n.is_infinite() {
        return if n > 0.0 { "Infinity".into() } else { "-Infinity".into() };
    }
    if n == 0.0 {
        return "0".into();
    }
    let size = n.abs();
    if (1e-6..1e21).contains(&size) {
        return format!("{n}");
    }
    // Shortest digits with an exponent; JavaScript writes a positive exponent with its sign.
    let e = format!("{n:e}");
    match e.split_once('e') {
        Some((mantissa, exp)) if !exp.starts_with('-') => format!("{mantissa}e+{exp}"),
        _ => e,
    }
}

/// `value` when it is a price (a finite number >= 0), else the error naming `at.key`.
pub fn check_price(value: &Given, at: &str, key: &str) -> Result<f64, PriceError> {
    let bad = |got: String| PriceError::NotAPrice { at: at.into(), key: key.into(), got };
    match value {
        Given::Number(v) if crate::bounds::PRICE.contains(*v) => Ok(*v),
        Given::Number(v) => Err(bad(format!("number {}", js_number(*v)))),
        Given::Other(shown) => Err(bad(shown.clone())),
    }
}

/// Every price of `pricing` checked (`at`: where it was given, `options.config.pricing`).
pub fn check_pricing(pricing: &Pricing, at: &str) -> Result<(), PriceError> {
    for (key, v) in [
        ("inputPrice", pricing.input_price),
        ("outputPrice", pricing.output_price),
        ("cacheWritesPrice", pricing.cache_writes_price),
        ("cacheReadsPrice", pricing.cache_reads_price),
    ] {
        check_price(&Given::Number(v), at, key)?;
    }
    Ok(())
}

/// How long a prompt-cache entry lives: Anthropic's default five minutes, or its extended hour.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CacheTtl {
    #[default]
    FiveMinutes,
    OneHour,
}

impl CacheTtl {
    /// `"5m"` or `"1h"`.
    pub fn parse(name: &str) -> Option<CacheTtl> {
        match name {
            "5m" => Some(CacheTtl::FiveMinutes),
            "1h" => Some(CacheTtl::OneHour),
            _ => None,
        }
    }
}

/// Anthropic bills a write to its one-hour cache at twice the input price (a five-minute write at
/// 1.25 times, the default list's ratio).
pub const ANTHROPIC_HOUR_WRITE_FACTOR: f64 = 2.0;

/// A price list for `cache` from what a caller gave (`None`: nothing, the model's defaults), each
/// key and price checked in the order given: a price left out is the model's default, scaled by
/// the input price over the default one when the input price is given (a list that names only
/// its input price keeps the provider's usual ratios). OpenAI writes its cache at the input price,
/// whatever is given; Anthropic's one-hour cache (`ttl`), when no write price is given, at
/// [`ANTHROPIC_HOUR_WRITE_FACTOR`] times the input price. `accounting` is accepted and not used.
/// `at` names where the list was given.
pub fn resolve_pricing(
    given: Option<&[(String, Given)]>,
    cache: CacheModel,
    ttl: CacheTtl,
    at: &str,
) -> Result<Pricing, PriceError> {
    let hour_writes = |input_price: f64| match (cache, ttl) {
        (CacheModel::Anthropic, CacheTtl::OneHour) => Some(input_price * ANTHROPIC_HOUR_WRITE_FACTOR),
        _ => None,
    };
    let base = cache.default_pricing();
    let Some(given) = given else {
        let cache_writes_price = hour_writes(base.input_price).unwrap_or(base.cache_writes_price);
        return Ok(Pricing { cache_writes_price, ..base });
    };
    if let Some((key, _)) = given.iter().find(|(k, _)| !PRICE_KEYS.contains(&k.as_str())) {
        return Err(PriceError::UnknownKey { at: at.into(), key: key.clone() });
    }
    let (mut input, mut output, mut writes, mut reads) = (None, None, None, None);
    for (key, value) in given {
        let slot = match key.as_str() {
            "inputPrice" => &mut input,
            "outputPrice" => &mut output,
            "cacheWritesPrice" => &mut writes,
            "cacheReadsPrice" => &mut reads,
            _ => continue,
        };
        *slot = Some(check_price(value, at, key)?);
    }
    let input_price = input.unwrap_or(base.input_price);
    let ratio = if input.is_some() { input_price / base.input_price } else { 1.0 };
    Ok(Pricing {
        input_price,
        output_price: output.unwrap_or(base.output_price * ratio),
        cache_writes_price: match cache {
            CacheModel::Openai => input_price,
            CacheModel::Anthropic => writes.or(hour_writes(input_price)).unwrap_or(base.cache_writes_price * ratio),
        },
        cache_reads_price: reads.unwrap_or(base.cache_reads_price * ratio),
        accounting: Accounting::Anthropic,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_one_hour_write_costs_twice_the_input_unless_given() {
        let (a, o, hour) = (CacheModel::Anthropic, CacheModel::Openai, CacheTtl::OneHour);
        let list = |pairs: &[(&str, f64)]| -> Vec<(String, Given)> {
            pairs.iter().map(|(k, v)| (k.to_string(), Given::Number(*v))).collect()
        };
        let default = resolve_pricing(None, a, hour, "x").unwrap_or_default();
        assert_eq!(default.cache_writes_price, a.default_pricing().input_price * 2.0);
        assert_eq!(default.cache_reads_price, a.default_pricing().cache_reads_price);
        let cheaper = resolve_pricing(Some(&list(&[("inputPrice", 1.0)])), a, hour, "x").unwrap_or_default();
        assert_eq!(cheaper.cache_writes_price, 2.0);
        let given = resolve_pricing(Some(&list(&[("cacheWritesPrice", 5.0)])), a, hour, "x").unwrap_or_default();
        assert_eq!(given.cache_writes_price, 5.0);
        // OpenAI writes at the input price, whatever the entry's life.
        let openai = resolve_pricing(None, o, hour, "x").unwrap_or_default();
        assert_eq!(openai.cache_writes_price, o.default_pricing().input_price);
        assert_eq!(CacheTtl::parse("1h"), Some(hour));
        assert_eq!(CacheTtl::parse("5m"), Some(CacheTtl::FiveMinutes));
        assert_eq!(CacheTtl::parse("2h"), None);
    }

    #[test]
    fn anthropic_and_openai_accounting() {
        let p = Pricing {
            input_price: 3.0,
            output_price: 15.0,
            cache_writes_price: 3.75,
            cache_reads_price: 0.3,
            accounting: Accounting::Anthropic,
        };
        // 1M uncached input, 100k output, 200k cache writes, 500k cache reads.
        let a = p.cost(1_000_000.0, 100_000.0, 200_000.0, 500_000.0);
        assert!((a - (3.0 + 1.5 + 0.75 + 0.15)).abs() < 1e-9);
        let o = Pricing { accounting: Accounting::Openai, ..p };
        // OpenAI's input includes the 700k cached tokens: only 300k are priced as input.
        let b = o.cost(1_000_000.0, 100_000.0, 200_000.0, 500_000.0);
        assert!((b - (0.9 + 1.5 + 0.75 + 0.15)).abs() < 1e-9);
        let reply = SummaryReply { cost: Some(0.25), ..Default::default() };
        assert_eq!(reply_cost(&reply, Some(&p)), 0.25);
        let counted = SummaryReply { input_tokens: Some(1_000_000.0), output_tokens: Some(0.0), ..Default::default() };
        assert!((reply_cost(&counted, Some(&p)) - 3.0).abs() < 1e-9);
        assert_eq!(reply_cost(&counted, None), 0.0);
    }

    #[test]
    fn a_usage_is_priced_as_a_reply_is() {
        let p = CacheModel::Anthropic.default_pricing();
        let usage = Usage {
            input_tokens: Some(1000.0),
            output_tokens: None,
            cache_write_tokens: Some(f64::NAN),
            cache_read_tokens: Some(-5.0),
        };
        // Left out, NaN and negative counts are 0.
        assert_eq!(usage_cost(&usage, &p), 3.0 * 1000.0 / 1_000_000.0);
        let reply = SummaryReply { input_tokens: Some(1000.0), cost: Some(f64::NAN), ..Default::default() };
        assert_eq!(reply_cost(&reply, Some(&p)), usage_cost(&usage, &p));
    }

    fn list(entries: &[(&str, Given)]) -> Vec<(String, Given)> {
        entries.iter().map(|(k, v)| (k.to_string(), v.clone())).collect()
    }

    #[test]
    fn defaults_and_the_ratio_rule() {
        let a = CacheModel::Anthropic;
        assert_eq!(resolve_pricing(None, a, CacheTtl::FiveMinutes, "x"), Ok(a.default_pricing()));
        assert_eq!(resolve_pricing(Some(&[]), a, CacheTtl::FiveMinutes, "x"), Ok(a.default_pricing()));
        let doubled =
            resolve_pricing(Some(&list(&[("inputPrice", Given::Number(6.0))])), a, CacheTtl::FiveMinutes, "x")
                .unwrap_or_default();
        assert_eq!(
            (doubled.output_price, doubled.cache_writes_price, doubled.cache_reads_price),
            (30.0, 7.5, 0.3 * 2.0)
        );
        let o = CacheModel::Openai;
        let given = list(&[("cacheWritesPrice", Given::Number(9.0)), ("inputPrice", Given::Number(5.0))]);
        let openai = resolve_pricing(Some(&given), o, CacheTtl::FiveMinutes, "x").unwrap_or_default();
        assert_eq!((openai.output_price, openai.cache_writes_price, openai.cache_reads_price), (20.0, 5.0, 2.5));
        let accounting = list(&[("accounting", Given::Other("string \"openai\"".into()))]);
        assert_eq!(resolve_pricing(Some(&accounting), o, CacheTtl::FiveMinutes, "x"), Ok(o.default_pricing()));
    }

    #[test]
    fn refusals_name_the_path_and_the_value() {
        let at = "replay: options.pricing";
        let refused = |v: Given| {
            resolve_pricing(Some(&list(&[("inputPrice", v)])), CacheModel::Anthropic, CacheTtl::FiveMinutes, at)
                .map_err(|e| e.to_string())
        };
        let text =
            |got: &str| Err(format!("{at}.inputPrice: expected a price >= 0 in dollars per million tokens, got {got}"));
        assert_eq!(refused(Given::Number(-1.0)), text("number -1"));
        assert_eq!(refused(Given::Number(f64::NAN)), text("number NaN"));
        assert_eq!(refused(Given::Number(f64::INFINITY)), text("number Infinity"));
        assert_eq!(refused(Given::Other("string \"3\"".into())), text("string \"3\""));
        let unknown = resolve_pricing(
            Some(&list(&[("input", Given::Number(3.0))])),
            CacheModel::Openai,
            CacheTtl::FiveMinutes,
            at,
        );
        assert_eq!(
            unknown.map_err(|e| e.to_string()),
            Err(format!("{at}.input: unknown key, expected one of inputPrice, outputPrice, cacheWritesPrice, cacheReadsPrice, accounting"))
        );
    }

    #[test]
    fn numbers_as_javascript_writes_them() {
        for (n, js) in [
            (-1.0, "-1"),
            (1.5, "1.5"),
            (-0.25, "-0.25"),
            (9_007_199_254_740_992.0, "9007199254740992"),
            (-1e-7, "-1e-7"),
            (1.5e-7, "1.5e-7"),
            (-1e21, "-1e+21"),
            (1.25e300, "1.25e+300"),
            (0.000001, "0.000001"),
            (f64::NEG_INFINITY, "-Infinity"),
            (-0.0, "0"),
        ] {
            assert_eq!(js_number(n), js, "{n}");
        }
    }

    #[test]
    fn the_least_a_token_can_cost_and_sending_each_message_once() {
        let p = CacheModel::Anthropic.default_pricing();
        // Sent once: uncached (3) beats written (3.75); twice: written then read (4.05) beats 6.
        assert_eq!(p.least_cost(1e6, 1.0), 3.0);
        assert!((p.least_cost(1e6, 2.0) - 4.05).abs() < 1e-12);
        assert_eq!(p.least_cost(1e6, 0.0), 0.0);
        // The first request writes the system prompt, later ones read it.
        assert!((p.send_once_cost(1e6, 1e6, true) - 7.5).abs() < 1e-12);
        assert!((p.send_once_cost(1e6, 1e6, false) - 4.05).abs() < 1e-12);
        assert!((p.rewrite_premium(CacheModel::Anthropic) - 3.45).abs() < 1e-12);
        let o = CacheModel::Openai.default_pricing();
        assert!((o.rewrite_premium(CacheModel::Openai) - 1.25).abs() < 1e-12);
    }
}
