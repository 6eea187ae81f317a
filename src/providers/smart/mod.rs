//! The Smart provider: an optional lossless prelude, then the configured passes
//! in order. Each pass touches only its selection, with per-content-type operations (individual
//! mode) or one summary of a span (batch mode); a conditional pass runs only above its token
//! threshold; the provider stops as soon as the target is met. Every pass is measured, and a
//! pass that would grow the context is rolled back. Summaries fall back to truncation when the
//! callback is missing or fails, and the metrics say so.
//!
//! With `workingSet`, the latest state of the files touched in the latest turns is left whole
//! (or given an outline beyond its budget) by the individual passes, and follows a batch summary
//! that replaces it (`crate::working_set`).
//!
//! Never reorders messages; never touches the first message, summaries, what the user typed or
//! error results unless the config says so in so many words.

pub mod config;
pub mod presets;

use crate::config::parse_config;
use crate::draft::{Draft, Item};
use crate::error::CondenseError;
use crate::passes::content_ops::{self, ContentOps, OpsRun};
use crate::passes::runner::Policy;
use crate::passes::{Pass, PassCx, Ran, Stop};
use crate::providers::native::{prompt_or_default, starts_with_tool_result, summarize_span, SummarySpan};
use crate::providers::{lossless, Capabilities, Provider};
use crate::working_set::{self, Guard};
pub use config::SmartConfig;
use config::{BatchOperation, ContentTypeOps, Execution, Mode, PassConfig, Selection};

/// The provider's id, as hosts name it.
pub const ID: &str = "smart";

/// A lossless prelude, then configurable passes (a preset or passes).
pub struct Smart;

impl Provider for Smart {
    type Config = SmartConfig;
    const ID: &'static str = ID;
    const NAME: &'static str = "Smart";
    const DESCRIPTION: &'static str = "A lossless prelude, then configurable passes of keep / suppress / truncate / summarize over message text, tool parameters and tool results.";
    const TAKES_TARGET: bool = true;
    const CAPABILITIES: Capabilities = Capabilities {
        supports_lossless: true,
        supports_batch_mode: true,
        supports_individual_mode: true,
        supports_multi_pass: true,
        supports_llm_summarization: true,
        estimated_speed: "medium",
    };
    const NUMBERS_PASSES: bool = true;

    /// A preset expanded ([`resolve`]), then the ranges checked.
    fn read(config: &serde_json::Value) -> Result<SmartConfig, CondenseError> {
        let c = resolve(config)?;
        c.check()?;
        Ok(c)
    }

    fn passes(config: &SmartConfig) -> Vec<Box<dyn Pass + '_>> {
        passes(config)
    }

    fn policy(config: &SmartConfig, before: u64) -> Policy<'_> {
        policy(config, before)
    }
}

/// Reads a Smart config, expanding a preset: keys given beside `preset` replace the preset's. A
/// config that names neither a preset nor passes runs the default preset ([`presets::DEFAULT`]),
/// with the keys it gives replacing the preset's: this is the one place that rule lives, so every
/// entry (a run, a preview, the manager's check, a held conversation) reads such a config alike.
pub fn resolve(value: &serde_json::Value) -> Result<SmartConfig, CondenseError> {
    let given: SmartConfig = parse_config(value, "options.config")?;
    let name = match given.preset.clone() {
        Some(name) => name,
        None if given.passes.is_none() => presets::DEFAULT.to_string(),
        None => return Ok(given),
    };
    let Some(base) = presets::preset(&name) else {
        return Err(CondenseError::InvalidOptions(format!(
            "options.config.preset: unknown preset \"{name}\", expected one of {}",
            presets::NAMES.map(|n| format!("\"{n}\"")).join(", ")
        )));
    };
    let mut merged = base;
    if let (serde_json::Value::Object(m), serde_json::Value::Object(g)) = (&mut merged, value) {
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

fn reached(config: &SmartConfig, before: u64, now: u64) -> bool {
    let by_tokens = config.target_tokens.is_some_and(|t| now <= t);
    let by_share = config
        .target_reduction_percent
        .is_some_and(|p| before > 0 && (before - now.min(before)) as f64 * 100.0 / before as f64 >= p);
    by_tokens || by_share
}

/// Smart's passes, in order: the lossless prelude's operations when it is on, then the
/// configured passes.
pub fn passes(config: &SmartConfig) -> Vec<Box<dyn Pass + '_>> {
    let mut out: Vec<Box<dyn Pass + '_>> = Vec::new();
    if let Some(prelude) = config.lossless_prelude.as_ref().filter(|p| p.enabled) {
        out.extend(lossless::passes(&prelude.operations));
    }
    for pass in config.passes.iter().flatten() {
        out.push(Box::new(SmartPass { pass, config }));
    }
    out
}

/// How Smart runs its passes: the target, when set, stops it after the first pass that meets
/// it, and a pass that would grow the context is undone.
pub fn policy(config: &SmartConfig, before: u64) -> Policy<'_> {
    Policy { undo_growth: true, reached: Some(Box::new(move |now| reached(config, before, now))), measure_last: true }
}

/// One configured pass: content operations per message, or one summary of a span.
struct SmartPass<'c> {
    pass: &'c PassConfig,
    config: &'c SmartConfig,
}

impl Pass for SmartPass<'_> {
    fn id(&self) -> String {
        self.pass.id.clone()
    }

    fn name(&self) -> String {
        self.pass.name.clone().unwrap_or_else(|| self.pass.id.clone())
    }

    fn skip(&self, tokens_now: u64) -> Option<String> {
        match &self.pass.execution {
            Execution::Conditional { condition } if tokens_now <= condition.token_threshold => Some(format!(
                "context {tokens_now} tokens, at or under the pass's threshold {}",
                condition.token_threshold
            )),
            _ => None,
        }
    }

    fn run(&self, cx: &mut PassCx, draft: &mut Draft) -> Result<Ran, Stop> {
        Ok(match self.pass.mode {
            Mode::Individual => individual(draft, self.pass, self.config, cx),
            Mode::Batch => batch(draft, self.pass, self.config, cx),
        })
    }
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

fn individual(draft: &mut Draft, pass: &PassConfig, config: &SmartConfig, cx: &mut PassCx) -> Ran {
    let mut ran = Ran::default();
    let view = cx.view;
    // The working set, found in the history and guarded over the draft as the earlier passes left it.
    let guard = config.working_set.as_ref().map(|ws| {
        let files = cx.working_set(draft.original, ws);
        Guard::build(draft, view, &files)
    });
    let ic = pass.individual_config.clone().unwrap_or_default();
    let selected = select(draft, &pass.selection);
    draft.selected.extend(selected.iter().copied());
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
        config.target_reduction_percent.map(|p| (cx.tokens_before as f64 * (1.0 - p / 100.0)).max(0.0) as u64)
    });
    let mut current = cx.tokens_now;
    for (messages, ops) in groups {
        let mut run = OpsRun {
            encoding: cx.encoding,
            summarizer: cx.summarizer.as_deref_mut(),
            pricing: config.pricing.as_ref(),
            task_id: config.task_id.clone(),
            target_tokens: target,
            current_tokens: current,
            guard: guard.as_ref(),
        };
        let o = content_ops::run(draft, view, &messages, &ops, &mut run);
        current = run.current_tokens;
        ran.callback_calls += o.callback_calls;
        ran.summarize_fallbacks += o.summarize_fallbacks;
        ran.cost += o.cost;
        ran.errors.extend(o.summarize_errors);
    }
    ran
}

fn merge(defaults: &ContentTypeOps, over: &ContentTypeOps) -> ContentTypeOps {
    ContentTypeOps {
        message_text: over.message_text.clone().or_else(|| defaults.message_text.clone()),
        tool_parameters: over.tool_parameters.clone().or_else(|| defaults.tool_parameters.clone()),
        tool_results: over.tool_results.clone().or_else(|| defaults.tool_results.clone()),
        environment_details: over.environment_details.clone().or_else(|| defaults.environment_details.clone()),
    }
}

fn batch(draft: &mut Draft, pass: &PassConfig, config: &SmartConfig, cx: &mut PassCx) -> Ran {
    let mut ran = Ran::default();
    let bc = pass.batch_config.clone().unwrap_or_default();
    if bc.operation == BatchOperation::Keep {
        ran.skipped = Some("batch operation \"keep\"".into());
        return ran;
    }
    // The working set whose latest state the summary may replace (it follows the summary; found
    // once per run, shared with the individual passes).
    let files = config.working_set.as_ref().map(|ws| cx.working_set(draft.original, ws));
    let Some(summarizer) = cx.summarizer.as_deref_mut() else {
        ran.skipped =
            Some("no summarize callback: a batch summary cannot fall back to truncation, the messages stay".into());
        return ran;
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
        ran.skipped = Some("too few messages between the kept head and tail".into());
        return ran;
    }
    let prompt = prompt_or_default(s.custom_prompt.as_deref());
    ran.callback_calls += 1;
    // The working set whose latest state the summary replaces follows it, whole or outlined.
    let appendix = files.map_or_else(String::new, |files| {
        let replaced: Vec<usize> = draft.layout[keep_first..to]
            .iter()
            .filter_map(|i| if let Item::Keep(k) = i { Some(*k) } else { None })
            .collect();
        working_set::summary_sections(draft.original, &files, &replaced)
    });
    let span = SummarySpan {
        keep_head: keep_first,
        from: keep_first,
        to,
        prompt,
        max_tokens: s.max_tokens,
        task_id: config.task_id.clone(),
        pricing: config.pricing.as_ref(),
        appendix,
    };
    match summarize_span(draft, span, summarizer, cx.encoding) {
        Ok(b) => {
            ran.cost += b.cost;
            ran.summary = Some(b.summary);
        }
        Err(e) => {
            ran.skipped = Some(format!("summary not used: {e}"));
            ran.errors.push(e.to_string());
        }
    }
    ran
}
