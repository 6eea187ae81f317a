//! The one entry every binding calls: reads the options, checks the history can be read, runs
//! the provider, and measures. Returns the changes to apply (new strings by place), never a
//! mutated history: the caller's messages are only read.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use serde::Deserialize;
use serde_json::Value;

use crate::edit::Op;
use crate::error::CondenseError;
use crate::model::TextRef;
use crate::providers::lossless::{self, LosslessConfig};
use crate::report::{render, Metrics, OperationMetrics};
use crate::tokens::{count_messages, Encoding};
use crate::validate::first_structural_problem;

/// Options of `condense`, as they arrive from JavaScript (callbacks and signals stay there).
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawOptions {
    provider: String,
    #[serde(default)]
    config: Option<Value>,
    #[serde(default)]
    prev_context_tokens: Option<f64>,
    #[serde(default)]
    encoding: Option<String>,
}

/// Options once checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub provider: Provider,
    pub prev_context_tokens: Option<u64>,
    pub encoding: Encoding,
}

#[derive(Debug, Clone, PartialEq)]
pub enum Provider {
    Lossless(LosslessConfig),
}

impl Provider {
    pub fn id(&self) -> &'static str {
        match self {
            Provider::Lossless(_) => "lossless",
        }
    }
}

/// Parses a config object with serde, naming the path of a bad key in the error.
pub fn parse_config<T: for<'de> Deserialize<'de>>(value: &Value, prefix: &str) -> Result<T, CondenseError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." { prefix.to_string() } else { format!("{prefix}.{path}") };
        CondenseError::InvalidOptions(format!("{at}: {}", e.inner()))
    })
}

pub fn parse_encoding(name: Option<&str>, at: &str) -> Result<Encoding, CondenseError> {
    match name {
        None => Ok(Encoding::default()),
        Some(n) => Encoding::parse(n).ok_or_else(|| {
            CondenseError::InvalidOptions(format!(
                "{at}: unknown encoding \"{n}\", expected \"o200k_base\" or \"cl100k_base\""
            ))
        }),
    }
}

impl Options {
    pub fn from_value(value: &Value) -> Result<Options, CondenseError> {
        if !value.is_object() {
            return Err(CondenseError::InvalidOptions("options: expected an object with at least { provider }".into()));
        }
        let raw: RawOptions = parse_config(value, "options")?;
        let prev_context_tokens = match raw.prev_context_tokens {
            None => None,
            Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Some(n as u64),
            Some(n) => {
                return Err(CondenseError::InvalidOptions(format!(
                    "options.prevContextTokens: expected a whole number >= 0, got {n}"
                )))
            }
        };
        let encoding = parse_encoding(raw.encoding.as_deref(), "options.encoding")?;
        let config = raw.config.unwrap_or(Value::Object(Default::default()));
        if !config.is_object() {
            return Err(CondenseError::InvalidOptions("options.config: expected an object".into()));
        }
        let provider = match raw.provider.as_str() {
            "lossless" => Provider::Lossless(parse_config(&config, "options.config")?),
            p @ ("truncation" | "smart" | "native") => return Err(CondenseError::NotBuilt(p.to_string())),
            other => return Err(CondenseError::UnknownProvider(other.to_string())),
        };
        Ok(Options { provider, prev_context_tokens, encoding })
    }
}

/// What a condensation produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The new text of every string that changed; everything else is the input as it is.
    pub changes: Vec<(TextRef, String)>,
    pub prev_context_tokens: u64,
    pub new_context_tokens: u64,
    /// A problem with the data: nothing was changed.
    pub error: Option<String>,
    pub metrics: Metrics,
    pub report: String,
}

pub fn condense(messages: &[Value], options: &Options, abort: &AtomicBool) -> Result<Outcome, CondenseError> {
    let started = Instant::now();
    let provider = options.provider.id();
    let before = || options.prev_context_tokens.unwrap_or_else(|| count_messages(messages, options.encoding) as u64);

    if let Some(problem) = first_structural_problem(messages) {
        let tokens = options.prev_context_tokens.unwrap_or(0);
        let metrics = empty_metrics(provider, options.encoding, tokens, started);
        return Ok(Outcome {
            changes: vec![],
            prev_context_tokens: tokens,
            new_context_tokens: tokens,
            error: Some(format!("{problem}; the messages were left unchanged")),
            report: format!("Context not condensed: {problem}"),
            metrics,
        });
    }

    let Provider::Lossless(config) = &options.provider;
    let run = lossless::run(messages, config, options.encoding, abort)?;
    let tokens_before = before();
    let saved = run.applied.tokens_saved.max(0) as u64;
    let tokens_after = tokens_before.saturating_sub(saved);
    let operations = Op::ALL
        .iter()
        .filter_map(|op| {
            let ms = run.op_ms.iter().find(|(o, _)| o == op)?.1;
            let s = run.applied.by_op.get(op).copied().unwrap_or_default();
            Some(OperationMetrics {
                id: op.id(),
                name: op_name(*op),
                count: s.count,
                tokens_saved: s.tokens_saved,
                reversible_tokens_saved: s.reversible_tokens,
                superseded_tokens_saved: s.superseded_tokens,
                duration_ms: ms,
            })
        })
        .collect::<Vec<_>>();
    let mut messages_changed: Vec<usize> = run.applied.changes.iter().map(|(at, _)| at.msg).collect();
    messages_changed.dedup();
    let metrics = Metrics {
        provider,
        encoding: options.encoding.name(),
        tokens_before,
        tokens_after,
        tokens_saved: saved as i64,
        reduction_percent: percent(saved, tokens_before),
        reversible_tokens_saved: operations.iter().map(|o| o.reversible_tokens_saved).sum(),
        superseded_tokens_saved: operations.iter().map(|o| o.superseded_tokens_saved).sum(),
        messages_changed: messages_changed.len(),
        edits_rolled_back: run.applied.edits_rolled_back,
        operations,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    Ok(Outcome {
        changes: run.applied.changes,
        prev_context_tokens: tokens_before,
        new_context_tokens: tokens_after,
        error: None,
        report: render(&metrics),
        metrics,
    })
}

fn op_name(op: Op) -> &'static str {
    match op {
        Op::DeduplicateFileReads => "File reads deduplicated",
        Op::ConsolidateToolResults => "Tool results consolidated",
        Op::RemoveObsoleteState => "Obsolete state removed",
    }
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 * 1000.0 / whole as f64).round() / 10.0
    }
}

fn empty_metrics(provider: &'static str, encoding: Encoding, tokens: u64, started: Instant) -> Metrics {
    Metrics {
        provider,
        encoding: encoding.name(),
        tokens_before: tokens,
        tokens_after: tokens,
        tokens_saved: 0,
        reduction_percent: 0.0,
        reversible_tokens_saved: 0,
        superseded_tokens_saved: 0,
        messages_changed: 0,
        edits_rolled_back: 0,
        operations: vec![],
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
    }
}
