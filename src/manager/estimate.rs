//! What a provider would save on a history, before running it for real: runs the engine on the
//! history (Native with a stand-in summary of the expected size) and prices the model calls.

use std::sync::atomic::AtomicBool;

use crate::json::Value;
use serde::Serialize;

use crate::condense::{condense, Options};
use crate::cost::Pricing;
use crate::llm::{SummarizeRequest, SummaryReply};
use crate::tokens::{count, Encoding};

/// An estimate made by running the provider with a stand-in model.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Estimate {
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub tokens_saved: u64,
    pub reduction_percent: f64,
    /// Dollars, from the pricing given (0 without one or without model calls).
    pub cost: f64,
    pub llm_calls: usize,
    pub input_tokens: u64,
    pub output_tokens: u64,
    /// True when no model call was involved: the figures are what a run gives.
    pub exact: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
}

/// Tokens a model is expected to write for a summary of `input` tokens: a tenth, at least
/// 400, at most `max` (4,000 when the request sets none). Models told to be thorough write
/// about this; the estimate's tests hold it to 20 % of real runs with summaries of that size.
pub fn expected_summary_tokens(input: u64, max: Option<u32>) -> u64 {
    (input / 10).clamp(400, max.map_or(4000, u64::from).max(400))
}

/// Runs the provider as configured, with a stand-in model that answers each summary
/// request with text of the expected size (when the host has a model: `with_model`), and prices
/// the calls.
pub fn estimate(
    messages: &[Value],
    options: &Options,
    pricing: Option<&Pricing>,
    encoding: Encoding,
    with_model: bool,
) -> Estimate {
    let mut calls = 0usize;
    let mut input = 0u64;
    let mut output = 0u64;
    let mut stand_in = |batch: Vec<SummarizeRequest>| {
        batch
            .iter()
            .map(|req| {
                calls += 1;
                let mut n = count(&req.system_prompt, encoding) as u64;
                for m in &req.messages {
                    n += count(&m.content(), encoding) as u64;
                }
                let out = expected_summary_tokens(n, req.max_tokens);
                input += n;
                output += out;
                // " summary" is one token in both encodings.
                Ok(SummaryReply { text: " summary".repeat(out as usize), ..Default::default() })
            })
            .collect()
    };
    let summarizer: Option<&mut dyn crate::llm::Summarizer> = if with_model { Some(&mut stand_in) } else { None };
    let outcome = condense(messages, options, &AtomicBool::new(false), summarizer);
    match outcome {
        Ok(o) => {
            let saved = o.prev_context_tokens.saturating_sub(o.new_context_tokens);
            Estimate {
                tokens_before: o.prev_context_tokens,
                tokens_after: o.new_context_tokens,
                tokens_saved: saved,
                reduction_percent: if o.prev_context_tokens == 0 {
                    0.0
                } else {
                    (saved as f64 * 1000.0 / o.prev_context_tokens as f64).round() / 10.0
                },
                cost: pricing.map_or(0.0, |p| p.cost(input as f64, output as f64, 0.0, 0.0)),
                llm_calls: calls,
                input_tokens: input,
                output_tokens: output,
                exact: calls == 0,
                error: o.error,
            }
        }
        Err(e) => Estimate {
            tokens_before: 0,
            tokens_after: 0,
            tokens_saved: 0,
            reduction_percent: 0.0,
            cost: 0.0,
            llm_calls: calls,
            input_tokens: input,
            output_tokens: output,
            exact: false,
            error: Some(e.to_string()),
        },
    }
}
