//! Cost of LLM calls: from the callback's own figure when it gives one, else from
//! the token counts it reports and a price list. Anthropic reports input tokens without the
//! cached ones; OpenAI includes them, so cached tokens are taken out before pricing input.
//! Pure arithmetic: touches nothing else.

use serde::{Deserialize, Serialize};

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
        for (key, v) in [
            ("inputPrice", self.input_price),
            ("outputPrice", self.output_price),
            ("cacheWritesPrice", self.cache_writes_price),
            ("cacheReadsPrice", self.cache_reads_price),
        ] {
            crate::bounds::PRICE.check(&format!("{at}.{key}"), v)?;
        }
        Ok(())
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

/// The cost of one reply: its own figure, else priced from its token counts, else 0.
pub fn reply_cost(reply: &SummaryReply, pricing: Option<&Pricing>) -> f64 {
    if let Some(c) = reply.cost.filter(|c| c.is_finite() && *c >= 0.0) {
        return c;
    }
    let Some(p) = pricing else { return 0.0 };
    let n = |x: Option<f64>| x.filter(|v| v.is_finite() && *v >= 0.0).unwrap_or(0.0);
    p.cost(n(reply.input_tokens), n(reply.output_tokens), n(reply.cache_write_tokens), n(reply.cache_read_tokens))
}

#[cfg(test)]
mod tests {
    use super::*;

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
}
