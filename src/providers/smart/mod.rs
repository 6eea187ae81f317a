//! The Smart provider: an optional lossless prelude, then the configured passes
//! in order. Each pass touches only its selection, with per-content-type operations (individual
//! mode) or one summary of a span (batch mode); a conditional pass runs only above its token
//! threshold; the provider stops as soon as the target is met. Every pass is measured, and a
//! pass that would grow the context is rolled back. Summaries fall back to truncation when the
//! callback is missing or fails, and the metrics say so.
//!
//! Never reorders messages; never touches the first message, summaries, what the user typed or
//! error results unless the config says so in so many words.

pub mod config;
pub mod presets;

use std::time::Instant;

use serde_json::Value;

use crate::condense::parse_config;
use crate::draft::{Draft, Item};
use crate::error::CondenseError;
use crate::llm::Summarizer;
use crate::parse::View;
use crate::passes::content_ops::{self, ContentOps, OpsRun};
use crate::providers::lossless;
use crate::providers::native::{prompt_or_default, starts_with_tool_result, summarize_span};
use crate::report::PassMetrics;
use crate::tokens::Encoding;
pub use config::SmartConfig;
use config::{BatchOperation, ContentTypeOps, Execution, Mode, PassConfig, Selection};

/// Reads a Smart config, expanding a preset: keys given beside `preset` replace the preset's.
pub fn resolve(value: &Value) -> Result<SmartConfig, CondenseError> {
    let given: SmartConfig = parse_config(value, "options.config")?;
    let Some(name) = given.preset.clone() else {
        if given.passes.is_none() && given.lossless_prelude.is_none() {
            return Err(CondenseError::InvalidOptions(format!(
                "options.config: the smart provider needs `preset` (one of {}) or `passes`",
                presets::NAMES.map(|n| format!("\"{n}\"")).join(", ")
            )));
        }
        return Ok(given);
    };
    let Some(base) = presets::preset(&name) else {
        return Err(CondenseError::InvalidOptions(format!(
            "options.config.preset: unknown preset \"{name}\", expected one of {}",
            presets::NAMES.map(|n| format!("\"{n}\"")).join(", ")
        )));
    };
    let mut merged = base;
    if let (Value::Object(m), Value::Object(g)) = (&mut merged, value) {
        for (k, v) in g {
            if k != "preset" {
                m.insert(k.clone(), v.clone());
            }
        }
    }
    let mut config: SmartConfig = parse_config(&merged, "options.config")?;
    config.preset = Some(name);
    Ok(config)
}

#[derive(Debug, Default)]
pub struct SmartOutcome {
    pub passes: Vec<PassMetrics>,
    pub cost: f64,
    pub summary: String,
}

pub struct SmartRun<'a, 's> {
    pub encoding: Encoding,
    pub summarizer: Option<&'a mut (dyn Summarizer + 's)>,
    pub tokens_before: u64,
    pub abort: &'a std::sync::atomic::AtomicBool,
}

fn reached(config: &SmartConfig, before: u64, now: u64) -> bool {
    let by_tokens = config.target_tokens.is_some_and(|t| now <= t);
    let by_share = config
        .target_reduction_percent
        .is_some_and(|p| before > 0 && (before - now.min(before)) as f64 * 100.0 / before as f64 >= p);
    by_tokens || by_share
}

pub fn run(
    draft: &mut Draft,
    view: &View,
    config: &SmartConfig,
    r: &mut SmartRun,
) -> Result<SmartOutcome, CondenseError> {
    let mut out = SmartOutcome::default();
    let before = r.tokens_before;
    let encoding = r.encoding;
    let abort = r.abort;
    let now = |d: &Draft| before.saturating_sub(d.saved_tokens(encoding).max(0) as u64);
    let aborted = || abort.load(std::sync::atomic::Ordering::Relaxed);

    if let Some(prelude) = config.lossless_prelude.as_ref().filter(|p| p.enabled) {
        let t = Instant::now();
        let run = lossless::run_on(draft.original, view, &prelude.operations, r.encoding, r.abort)?;
        for (at, text) in run.applied.changes {
            draft.set_text(at, text);
        }
        draft.acts.extend(run.applied.acts.into_iter().map(|a| crate::provenance::Act { pass: out.passes.len(), ..a }));
        // The prelude changes nothing else: its own exact saving is the draft's.
        let after = before.saturating_sub(run.applied.tokens_saved.max(0) as u64);
        out.passes.push(PassMetrics {
            id: "lossless-prelude".into(),
            name: "Lossless prelude".into(),
            tokens_before: before,
            tokens_after: after,
            duration_ms: ms(t),
            ..Default::default()
        });
        if reached(config, before, after) {
            return Ok(out);
        }
    }
    for pass in config.passes.iter().flatten() {
        if aborted() {
            return Err(CondenseError::Aborted);
        }
        let t = Instant::now();
        let start = now(draft);
        let mut m = PassMetrics {
            id: pass.id.clone(),
            name: pass.name.clone().unwrap_or_else(|| pass.id.clone()),
            tokens_before: start,
            tokens_after: start,
            ..Default::default()
        };
        if let Execution::Conditional { condition } = &pass.execution {
            if start <= condition.token_threshold {
                m.skipped = Some(format!(
                    "context {start} tokens, at or under the pass's threshold {}",
                    condition.token_threshold
                ));
                m.duration_ms = ms(t);
                out.passes.push(m);
                continue;
            }
        }
        draft.pass = out.passes.len();
        let snapshot = draft.clone();
        match pass.mode {
            Mode::Individual => individual(draft, view, pass, config, r, &mut m, start),
            Mode::Batch => batch(draft, pass, config, r, &mut m, &mut out),
        }
        let after = now(draft);
        if after > start {
            *draft = snapshot;
            m.skipped = Some("undone: it would have grown the context".into());
            m.tokens_after = start;
        } else {
            m.tokens_after = after;
        }
        m.duration_ms = ms(t);
        out.passes.push(m);
        if reached(config, before, now(draft)) {
            break;
        }
    }
    out.cost = out.passes.iter().map(|p| p.cost).sum();
    Ok(out)
}

/// Original indices of the messages a selection picks in the current layout (never the first
/// message, never a message the condensation wrote).
fn select(draft: &Draft, selection: &Selection) -> Vec<usize> {
    let n = draft.layout.len();
    let keep_from = match selection {
        Selection::PreserveRecent { keep_recent_count } => n.saturating_sub(*keep_recent_count),
        Selection::PreservePercent { keep_percentage } => {
            n - ((n as f64 * keep_percentage.clamp(0.0, 100.0) / 100.0).ceil() as usize).min(n)
        }
        Selection::Custom { .. } => n,
    };
    draft
        .layout
        .iter()
        .enumerate()
        .filter(|(p, _)| {
            *p > 0
                && match selection {
                    Selection::Custom { message_indices } => message_indices.contains(p),
                    _ => *p < keep_from,
                }
        })
        .filter_map(|(_, item)| if let Item::Keep(i) = item { Some(*i) } else { None })
        .collect()
}

fn ops_for(config: &SmartConfig, defaults: &ContentTypeOps, thresholds: &config::Thresholds) -> ContentOps {
    ContentOps {
        message_text: defaults.message_text.clone().unwrap_or_default(),
        tool_parameters: defaults.tool_parameters.clone().unwrap_or_default(),
        tool_results: defaults.tool_results.clone().unwrap_or_default(),
        environment_details: defaults.environment_details.clone().unwrap_or_default(),
        min_tokens: [
            ("messageText", thresholds.message_text),
            ("toolParameters", thresholds.tool_parameters),
            ("toolResults", thresholds.tool_results),
            ("environmentDetails", thresholds.environment_details),
        ]
        .into_iter()
        .collect(),
        preserve_user_text: config.preserve_user_text,
        preserve_errors: config.preserve_errors,
    }
}

fn individual(
    draft: &mut Draft,
    view: &View,
    pass: &PassConfig,
    config: &SmartConfig,
    r: &mut SmartRun,
    m: &mut PassMetrics,
    start: u64,
) {
    let ic = pass.individual_config.clone().unwrap_or_default();
    let selected = select(draft, &pass.selection);
    // Messages with an override run with their own operations; the others with the defaults.
    let positions: Vec<(usize, usize)> = draft
        .layout
        .iter()
        .enumerate()
        .filter_map(|(p, it)| if let Item::Keep(i) = it { Some((p, *i)) } else { None })
        .collect();
    let overridden: Vec<(usize, ContentTypeOps)> = ic
        .overrides
        .iter()
        .filter_map(|o| {
            positions.iter().find(|(p, _)| *p == o.message_index).map(|(_, i)| (*i, merge(&ic.defaults, &o.operations)))
        })
        .filter(|(i, _)| selected.contains(i))
        .collect();
    let plain: Vec<usize> = selected.iter().copied().filter(|i| !overridden.iter().any(|(o, _)| o == i)).collect();
    let mut groups: Vec<(Vec<usize>, ContentOps)> = vec![(plain, ops_for(config, &ic.defaults, &ic.thresholds))];
    groups.extend(overridden.into_iter().map(|(i, ops)| (vec![i], ops_for(config, &ops, &ic.thresholds))));
    let target = config.target_tokens.or_else(|| {
        config.target_reduction_percent.map(|p| (r.tokens_before as f64 * (1.0 - p / 100.0)).max(0.0) as u64)
    });
    let mut current = start;
    for (messages, ops) in groups {
        let mut run = OpsRun {
            encoding: r.encoding,
            summarizer: r.summarizer.as_deref_mut(),
            pricing: config.pricing.as_ref(),
            task_id: config.task_id.clone(),
            target_tokens: target,
            current_tokens: current,
        };
        let o = content_ops::run(draft, view, &messages, &ops, &mut run);
        current = run.current_tokens;
        m.callback_calls += o.callback_calls;
        m.summarize_fallbacks += o.summarize_fallbacks;
        m.cost += o.cost;
        m.errors.extend(o.summarize_errors);
    }
}

fn merge(defaults: &ContentTypeOps, over: &ContentTypeOps) -> ContentTypeOps {
    ContentTypeOps {
        message_text: over.message_text.clone().or_else(|| defaults.message_text.clone()),
        tool_parameters: over.tool_parameters.clone().or_else(|| defaults.tool_parameters.clone()),
        tool_results: over.tool_results.clone().or_else(|| defaults.tool_results.clone()),
        environment_details: over.environment_details.clone().or_else(|| defaults.environment_details.clone()),
    }
}

fn batch(
    draft: &mut Draft,
    pass: &PassConfig,
    config: &SmartConfig,
    r: &mut SmartRun,
    m: &mut PassMetrics,
    out: &mut SmartOutcome,
) {
    let bc = pass.batch_config.clone().unwrap_or_default();
    if bc.operation == BatchOperation::Keep {
        m.skipped = Some("batch operation \"keep\"".into());
        return;
    }
    let Some(summarizer) = r.summarizer.as_deref_mut() else {
        m.skipped =
            Some("no summarize callback: a batch summary cannot fall back to truncation, the messages stay".into());
        return;
    };
    let s = &bc.summarization_config;
    let n = draft.layout.len();
    let keep_first = s.keep_first.max(1).min(n);
    let mut to = n.saturating_sub(s.keep_last).max(keep_first);
    let current = draft.messages();
    while to > keep_first && current.get(to).is_some_and(|m| starts_with_tool_result(m)) {
        to -= 1;
    }
    drop(current);
    if to <= keep_first + 1 {
        m.skipped = Some("too few messages between the kept head and tail".into());
        return;
    }
    let prompt = prompt_or_default(s.custom_prompt.as_deref());
    m.callback_calls += 1;
    match summarize_span(
        draft,
        keep_first,
        keep_first,
        to,
        prompt,
        s.max_tokens,
        config.task_id.clone(),
        config.pricing.as_ref(),
        summarizer,
        r.encoding,
    ) {
        Ok(b) => {
            m.cost += b.cost;
            if !out.summary.is_empty() {
                out.summary.push_str("\n\n");
            }
            out.summary.push_str(&b.summary);
        }
        Err(e) => {
            m.skipped = Some(format!("summary not used: {e}"));
            m.errors.push(e.to_string());
        }
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
