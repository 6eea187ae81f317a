//! The condensation manager's decisions:
//! the manager config and its validation with every problem's path, the effective trigger
//! threshold per profile (Roo Code's rules: 5..100 %, -1 inherits, an invalid value warns and
//! inherits), the trigger decision (percentage of the window, or tokens past the allowed size
//! after the 10 % buffer and the reserved output), per-provider trigger / stop / minimum-gain
//! overrides (global, then provider, then profile), the minimum-gain gate, the loop guard's
//! state transitions, the mapping of Roo Code's earlier settings keys, and estimates made by
//! running a provider with a stand-in model.
//!
//! Pure decisions over JSON: never calls a model, never touches the caller's messages (the
//! JavaScript manager runs the providers and the fallback chain with what this module decides).

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::condense::{condense, Options};
use crate::cost::Pricing;
use crate::llm::{SummarizeRequest, SummaryReply};
use crate::tokens::{count, Encoding};
use crate::validate::Problem;

pub const MIN_CONDENSE_THRESHOLD: f64 = 5.0;
pub const MAX_CONDENSE_THRESHOLD: f64 = 100.0;
pub const TOKEN_BUFFER_PERCENTAGE: f64 = 0.1;
/// Reserved for the model's answer when the host gives no `maxTokens` (Roo Code's Anthropic default).
pub const DEFAULT_MAX_TOKENS: u64 = 8192;

/// Trigger, stop and minimum-gain settings; each level may set any of them.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Triggers {
    /// Condense when the context reaches this % of the window (5..100).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 5.0, max = 100.0))]
    pub trigger_percent: Option<f64>,
    /// Aim for this % of the window after condensing (providers that take a target).
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 5.0, max = 100.0))]
    pub stop_percent: Option<f64>,
    /// Skip a condensation that saves fewer tokens than this (keeps the host's prompt cache).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_gain_tokens: Option<u64>,
    /// Skip a condensation that saves less than this % of the context.
    #[serde(skip_serializing_if = "Option::is_none")]
    #[schemars(range(min = 0.0, max = 100.0))]
    pub min_gain_percent: Option<f64>,
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LoopGuard {
    /// Attempts in a row that made no progress before the task cools down. @default 3
    #[schemars(range(min = 1))]
    pub max_attempts: u32,
    /// How long a task cools down, in milliseconds. @default 60000
    pub cool_down_ms: u64,
}

impl Default for LoopGuard {
    fn default() -> Self {
        LoopGuard { max_attempts: 3, cool_down_ms: 60_000 }
    }
}

/// The manager's configuration.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ManagerConfig {
    /// The provider used first. @default "native"
    pub provider: String,
    /// Each provider's config, by provider id (what `condense` takes as `config`).
    pub providers: BTreeMap<String, Value>,
    /// Condense automatically (Roo's `autoCondenseContext`). @default true
    pub auto_condense: bool,
    /// The global trigger, % of the window (Roo's `autoCondenseContextPercent`). @default 100
    #[schemars(range(min = 5.0, max = 100.0))]
    pub threshold: f64,
    /// Per API profile: 5..100, or -1 to inherit the global threshold.
    #[schemars(schema_with = "profile_thresholds_schema")]
    pub profile_thresholds: BTreeMap<String, f64>,
    /// Global trigger / stop / minimum-gain settings.
    pub triggers: Triggers,
    /// By provider id, over the global ones.
    pub provider_triggers: BTreeMap<String, Triggers>,
    /// By profile id, over the provider's.
    pub profile_triggers: BTreeMap<String, Triggers>,
    /// After a failure: Native when a summarize callback exists, then sliding-window truncation. @default true
    pub fallback: bool,
    pub loop_guard: LoopGuard,
    /// The API profile whose handler summarizes (Roo's `condensingApiConfigId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condensing_profile_id: Option<String>,
}

impl Default for ManagerConfig {
    fn default() -> Self {
        ManagerConfig {
            provider: "native".into(),
            providers: BTreeMap::new(),
            auto_condense: true,
            threshold: 100.0,
            profile_thresholds: BTreeMap::new(),
            triggers: Triggers::default(),
            provider_triggers: BTreeMap::new(),
            profile_triggers: BTreeMap::new(),
            fallback: true,
            loop_guard: LoopGuard::default(),
            condensing_profile_id: None,
        }
    }
}

/// What a settings UI may write per profile: -1 (inherit) or a percentage from 5 to 100. Reading a
/// config stays looser (any number, warned about at use), as Roo Code reads its own settings.
fn profile_thresholds_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    schemars::json_schema!({
        "type": "object",
        "additionalProperties": {
            "anyOf": [
                { "const": -1, "description": "Inherit the global threshold." },
                { "type": "number", "minimum": MIN_CONDENSE_THRESHOLD, "maximum": MAX_CONDENSE_THRESHOLD }
            ]
        }
    })
}

/// Reads a manager config, mapping Roo Code's earlier settings keys onto the new ones
/// (`autoCondenseContext`, `autoCondenseContextPercent`, `profileThresholds`,
/// `customCondensingPrompt`, `condensingApiConfigId`). Every problem is reported, each with its
/// path; the config is returned only when there is none.
pub fn read_config(value: &Value) -> Result<ManagerConfig, Vec<Problem>> {
    let problems = validate_config(value);
    if !problems.is_empty() {
        return Err(problems);
    }
    let mapped = map_legacy(value);
    serde_json::from_value(mapped).map_err(|e| vec![problem("config", "invalid_config", e.to_string())])
}

fn problem(path: impl Into<String>, code: &'static str, message: impl Into<String>) -> Problem {
    Problem { path: path.into(), code, message: message.into() }
}

/// Roo Code's settings keys, renamed; `customCondensingPrompt` becomes Native's `customPrompt`.
pub fn map_legacy(value: &Value) -> Value {
    let Value::Object(src) = value else { return value.clone() };
    let mut out = Map::new();
    for (k, v) in src {
        match k.as_str() {
            "autoCondenseContext" => {
                out.entry("autoCondense").or_insert_with(|| v.clone());
            }
            "autoCondenseContextPercent" => {
                out.entry("threshold").or_insert_with(|| v.clone());
            }
            "condensingApiConfigId" => {
                out.entry("condensingProfileId").or_insert_with(|| v.clone());
            }
            "customCondensingPrompt" => {
                if v.as_str().is_some_and(|s| !s.trim().is_empty()) {
                    let providers = out.entry("providers").or_insert_with(|| json!({}));
                    if let Value::Object(p) = providers {
                        let native = p.entry("native").or_insert_with(|| json!({}));
                        if let Value::Object(n) = native {
                            n.entry("customPrompt").or_insert_with(|| v.clone());
                        }
                    }
                }
            }
            _ => {
                if k == "providers" {
                    // Merge with what a legacy prompt may have put there.
                    if let (Some(Value::Object(have)), Value::Object(given)) = (out.get_mut("providers"), v) {
                        for (id, c) in given {
                            match (have.get_mut(id), c) {
                                (Some(Value::Object(h)), Value::Object(g)) => {
                                    for (a, b) in g {
                                        h.insert(a.clone(), b.clone());
                                    }
                                }
                                _ => {
                                    have.insert(id.clone(), c.clone());
                                }
                            }
                        }
                        continue;
                    }
                }
                out.insert(k.clone(), v.clone());
            }
        }
    }
    Value::Object(out)
}

const KEYS: [&str; 11] = [
    "provider",
    "providers",
    "autoCondense",
    "threshold",
    "profileThresholds",
    "triggers",
    "providerTriggers",
    "profileTriggers",
    "fallback",
    "loopGuard",
    "condensingProfileId",
];
const LEGACY_KEYS: [&str; 4] =
    ["autoCondenseContext", "autoCondenseContextPercent", "customCondensingPrompt", "condensingApiConfigId"];

fn percent_problem(at: &str, v: &Value, problems: &mut Vec<Problem>) {
    match v.as_f64() {
        Some(p) if (MIN_CONDENSE_THRESHOLD..=MAX_CONDENSE_THRESHOLD).contains(&p) => {}
        _ => problems.push(problem(
            at,
            "out_of_range",
            format!("expected a percentage from {MIN_CONDENSE_THRESHOLD} to {MAX_CONDENSE_THRESHOLD}, got {v}"),
        )),
    }
}

fn triggers_problems(at: &str, v: &Value, problems: &mut Vec<Problem>) {
    let Value::Object(m) = v else {
        problems.push(problem(
            at,
            "invalid_type",
            "expected an object of triggerPercent, stopPercent, minGainTokens, minGainPercent",
        ));
        return;
    };
    for (k, x) in m {
        let path = format!("{at}.{k}");
        match k.as_str() {
            "triggerPercent" | "stopPercent" => percent_problem(&path, x, problems),
            "minGainTokens" => {
                if x.as_u64().is_none() {
                    problems.push(problem(path, "invalid_type", format!("expected a whole number >= 0, got {x}")));
                }
            }
            "minGainPercent" => match x.as_f64() {
                Some(p) if (0.0..=100.0).contains(&p) => {}
                _ => problems.push(problem(
                    path,
                    "out_of_range",
                    format!("expected a percentage from 0 to 100, got {x}"),
                )),
            },
            _ => problems.push(problem(
                path,
                "unknown_key",
                "unknown key, expected one of triggerPercent, stopPercent, minGainTokens, minGainPercent",
            )),
        }
    }
}

/// Every problem of a manager config, each with its path (`config.providers.smart.preset: …`).
pub fn validate_config(value: &Value) -> Vec<Problem> {
    let mut problems = Vec::new();
    let Value::Object(m) = value else {
        return vec![problem("config", "invalid_type", "expected an object")];
    };
    let mapped = map_legacy(value);
    let Value::Object(mm) = &mapped else { return problems };
    for k in m.keys() {
        if !KEYS.contains(&k.as_str()) && !LEGACY_KEYS.contains(&k.as_str()) {
            problems.push(problem(
                format!("config.{k}"),
                "unknown_key",
                format!("unknown key, expected one of {}", KEYS.join(", ")),
            ));
        }
    }
    if let Some(p) = mm.get("provider") {
        if !p.is_string() {
            problems.push(problem("config.provider", "invalid_type", format!("expected a provider id, got {p}")));
        }
    }
    for key in ["autoCondense", "fallback"] {
        if let Some(v) = mm.get(key).filter(|v| !v.is_boolean()) {
            problems.push(problem(format!("config.{key}"), "invalid_type", format!("expected true or false, got {v}")));
        }
    }
    if let Some(v) = mm.get("threshold") {
        percent_problem("config.threshold", v, &mut problems);
    }
    match mm.get("profileThresholds") {
        None => {}
        Some(Value::Object(t)) => {
            for (id, v) in t {
                // -1 inherits; anything else outside 5..100 is kept but warned about at use (Roo's rule).
                if !v.is_number() {
                    problems.push(problem(
                        format!("config.profileThresholds.{id}"),
                        "invalid_type",
                        format!("expected a number, got {v}"),
                    ));
                }
            }
        }
        Some(v) => {
            problems.push(problem("config.profileThresholds", "invalid_type", format!("expected an object, got {v}")))
        }
    }
    if let Some(v) = mm.get("triggers") {
        triggers_problems("config.triggers", v, &mut problems);
    }
    for key in ["providerTriggers", "profileTriggers"] {
        match mm.get(key) {
            None => {}
            Some(Value::Object(t)) => {
                for (id, v) in t {
                    triggers_problems(&format!("config.{key}.{id}"), v, &mut problems);
                }
            }
            Some(v) => {
                problems.push(problem(format!("config.{key}"), "invalid_type", format!("expected an object, got {v}")))
            }
        }
    }
    match mm.get("loopGuard") {
        None => {}
        Some(Value::Object(g)) => {
            for (k, v) in g {
                let ok = match k.as_str() {
                    "maxAttempts" => v.as_u64().is_some_and(|n| n >= 1),
                    "coolDownMs" => v.as_u64().is_some(),
                    _ => {
                        problems.push(problem(
                            format!("config.loopGuard.{k}"),
                            "unknown_key",
                            "unknown key, expected maxAttempts or coolDownMs",
                        ));
                        continue;
                    }
                };
                if !ok {
                    problems.push(problem(
                        format!("config.loopGuard.{k}"),
                        "invalid_type",
                        format!(
                            "expected a whole number{}, got {v}",
                            if k == "maxAttempts" { " >= 1" } else { " >= 0" }
                        ),
                    ));
                }
            }
        }
        Some(v) => problems.push(problem("config.loopGuard", "invalid_type", format!("expected an object, got {v}"))),
    }
    if let Some(v) = mm.get("condensingProfileId").filter(|v| !v.is_string() && !v.is_null()) {
        problems.push(problem("config.condensingProfileId", "invalid_type", format!("expected a profile id, got {v}")));
    }
    match mm.get("providers") {
        None => {}
        Some(Value::Object(p)) => {
            for (id, c) in p {
                if crate::catalogue::provider(id).is_none() {
                    continue; // a provider written in JavaScript checks its own config
                }
                if let Err(e) = Options::from_value(&json!({ "provider": id, "config": c })) {
                    let text = e.to_string();
                    let text = text.strip_prefix("invalid options: ").unwrap_or(&text).to_string();
                    let (at, message) = match text.split_once(": ") {
                        Some((at, msg)) if at.starts_with("options.config") => {
                            (at.replacen("options.config", &format!("config.providers.{id}"), 1), msg.to_string())
                        }
                        _ => (format!("config.providers.{id}"), text.clone()),
                    };
                    problems.push(problem(at, "invalid_provider_config", message));
                }
            }
        }
        Some(v) => problems.push(problem("config.providers", "invalid_type", format!("expected an object, got {v}"))),
    }
    problems
}

/// Which level a setting came from.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Source {
    Global,
    Provider,
    Profile,
}

/// The trigger threshold for a profile: Roo Code's rules on `profileThresholds`, with the
/// trigger overrides of the levels above it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Threshold {
    pub percent: f64,
    pub source: Source,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub warning: Option<String>,
}

pub fn effective_threshold(config: &ManagerConfig, provider: &str, profile_id: Option<&str>) -> Threshold {
    let mut t = Threshold { percent: config.threshold, source: Source::Global, warning: None };
    if let Some(p) = config.triggers.trigger_percent {
        t.percent = p;
    }
    if let Some(p) = config.provider_triggers.get(provider).and_then(|x| x.trigger_percent) {
        t = Threshold { percent: p, source: Source::Provider, warning: None };
    }
    let Some(profile) = profile_id else { return t };
    if let Some(p) = config.profile_triggers.get(profile).and_then(|x| x.trigger_percent) {
        return Threshold { percent: p, source: Source::Profile, warning: None };
    }
    match config.profile_thresholds.get(profile).copied() {
        None => t,
        Some(-1.0) => t,
        Some(v) if (MIN_CONDENSE_THRESHOLD..=MAX_CONDENSE_THRESHOLD).contains(&v) => {
            Threshold { percent: v, source: Source::Profile, warning: None }
        }
        Some(v) => Threshold {
            warning: Some(format!(
                "Invalid profile threshold {v} for profile \"{profile}\". Using global default of {}%",
                t.percent
            )),
            ..t
        },
    }
}

/// Stop and minimum-gain settings after the overrides (global, then provider, then profile).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Effective {
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stop_percent: Option<f64>,
    pub min_gain_tokens: u64,
    pub min_gain_percent: f64,
}

pub fn effective(config: &ManagerConfig, provider: &str, profile_id: Option<&str>) -> Effective {
    let levels = [
        Some(&config.triggers),
        config.provider_triggers.get(provider),
        profile_id.and_then(|p| config.profile_triggers.get(p)),
    ];
    let mut e = Effective { stop_percent: None, min_gain_tokens: 0, min_gain_percent: 0.0 };
    for t in levels.into_iter().flatten() {
        if let Some(s) = t.stop_percent {
            e.stop_percent = Some(s);
        }
        if let Some(g) = t.min_gain_tokens {
            e.min_gain_tokens = g;
        }
        if let Some(g) = t.min_gain_percent {
            e.min_gain_percent = g;
        }
    }
    e
}

/// What the host knows at the moment of deciding.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Situation {
    pub total_tokens: u64,
    #[serde(default)]
    pub last_message_tokens: u64,
    pub context_window: u64,
    pub max_tokens: Option<u64>,
    pub profile_id: Option<String>,
    /// Which provider the decision is for (the config's by default).
    pub provider: Option<String>,
}

#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Decision {
    pub condense: bool,
    /// "threshold", "overflow", "below-threshold" or "disabled".
    pub reason: &'static str,
    pub prev_context_tokens: u64,
    pub allowed_tokens: f64,
    pub context_percent: f64,
    pub threshold: Threshold,
    /// Past the allowed size: if condensing fails, the sliding window must run.
    pub overflow: bool,
    /// What providers that take a target should aim for.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub target_tokens: Option<u64>,
    pub min_gain_tokens: u64,
}

/// Condense when the context reaches the threshold or passes the allowed size.
pub fn should_condense(config: &ManagerConfig, s: &Situation) -> Decision {
    let provider = s.provider.as_deref().unwrap_or(&config.provider);
    let threshold = effective_threshold(config, provider, s.profile_id.as_deref());
    let prev = s.total_tokens + s.last_message_tokens;
    let reserved = s.max_tokens.unwrap_or(DEFAULT_MAX_TOKENS) as f64;
    let allowed = s.context_window as f64 * (1.0 - TOKEN_BUFFER_PERCENTAGE) - reserved;
    let percent = if s.context_window == 0 { f64::INFINITY } else { 100.0 * prev as f64 / s.context_window as f64 };
    let overflow = prev as f64 > allowed;
    let e = effective(config, provider, s.profile_id.as_deref());
    let (condense, reason) = if overflow {
        (true, "overflow")
    } else if !config.auto_condense {
        (false, "disabled")
    } else if percent >= threshold.percent {
        (true, "threshold")
    } else {
        (false, "below-threshold")
    };
    let target_tokens = e.stop_percent.map(|p| (s.context_window as f64 * p / 100.0) as u64);
    let min_gain_tokens = e.min_gain_tokens.max((prev as f64 * e.min_gain_percent / 100.0).ceil() as u64);
    Decision {
        condense,
        reason,
        prev_context_tokens: prev,
        allowed_tokens: allowed,
        context_percent: percent,
        threshold,
        overflow,
        target_tokens,
        min_gain_tokens,
    }
}

/// Per-task loop-guard state, kept by the host between calls.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
#[serde(default, rename_all = "camelCase")]
pub struct GuardState {
    pub attempts_without_progress: u32,
    /// Epoch milliseconds until which the task does not condense (0: not cooling down).
    pub cool_down_until: u64,
}

/// Whether a task may try now; when it may not, why.
pub fn guard_allows(state: &GuardState, now_ms: u64) -> Result<(), String> {
    if now_ms < state.cool_down_until {
        return Err(format!(
            "condensing is cooling down for {} s after attempts that made no progress",
            (state.cool_down_until - now_ms).div_ceil(1000)
        ));
    }
    Ok(())
}

/// The state after an attempt: progress resets it; the `max_attempts`-th attempt in a row
/// without progress starts a cool-down.
pub fn guard_record(config: &ManagerConfig, state: &GuardState, progressed: bool, now_ms: u64) -> GuardState {
    if progressed {
        return GuardState::default();
    }
    let attempts = state.attempts_without_progress + 1;
    if attempts >= config.loop_guard.max_attempts {
        GuardState { attempts_without_progress: 0, cool_down_until: now_ms + config.loop_guard.cool_down_ms }
    } else {
        GuardState { attempts_without_progress: attempts, cool_down_until: 0 }
    }
}

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
                    n += m.get("content").and_then(Value::as_str).map_or(0, |c| count(c, encoding) as u64);
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

#[cfg(test)]
mod tests {
    use super::*;

    fn config(v: Value) -> ManagerConfig {
        read_config(&v).unwrap_or_else(|p| panic!("{p:?}"))
    }

    #[test]
    fn thresholds_follow_roos_rules() {
        let c = config(json!({ "threshold": 80, "profileThresholds": { "a": 60, "b": -1, "c": 3, "d": 101 } }));
        assert_eq!(
            effective_threshold(&c, "native", Some("a")),
            Threshold { percent: 60.0, source: Source::Profile, warning: None }
        );
        assert_eq!(effective_threshold(&c, "native", Some("b")).percent, 80.0);
        assert_eq!(effective_threshold(&c, "native", Some("zz")).percent, 80.0);
        let bad = effective_threshold(&c, "native", Some("c"));
        assert_eq!((bad.percent, bad.source), (80.0, Source::Global));
        assert_eq!(
            bad.warning.as_deref(),
            Some("Invalid profile threshold 3 for profile \"c\". Using global default of 80%")
        );
        assert!(effective_threshold(&c, "native", Some("d")).warning.is_some());
    }

    #[test]
    fn overrides_go_global_then_provider_then_profile() {
        let c = config(json!({
            "threshold": 90,
            "triggers": { "triggerPercent": 85, "minGainTokens": 500 },
            "providerTriggers": { "smart": { "triggerPercent": 70, "stopPercent": 40 } },
            "profileTriggers": { "cheap": { "triggerPercent": 50, "minGainPercent": 5 } },
        }));
        assert_eq!(effective_threshold(&c, "native", None).percent, 85.0);
        assert_eq!(
            effective_threshold(&c, "smart", None),
            Threshold { percent: 70.0, source: Source::Provider, warning: None }
        );
        assert_eq!(effective_threshold(&c, "smart", Some("cheap")).percent, 50.0);
        assert_eq!(
            effective(&c, "smart", Some("cheap")),
            Effective { stop_percent: Some(40.0), min_gain_tokens: 500, min_gain_percent: 5.0 }
        );
    }

    #[test]
    fn the_trigger_decision() {
        let c = config(json!({ "threshold": 75 }));
        let s = |total: u64, last: u64| Situation {
            total_tokens: total,
            last_message_tokens: last,
            context_window: 100_000,
            max_tokens: Some(10_000),
            profile_id: None,
            provider: None,
        };
        // allowed = 100000 * 0.9 - 10000 = 80000
        assert_eq!(should_condense(&c, &s(70_000, 4_000)).reason, "below-threshold");
        assert_eq!(should_condense(&c, &s(70_000, 5_000)).reason, "threshold");
        let d = should_condense(&c, &s(80_000, 1));
        assert_eq!((d.reason, d.overflow, d.allowed_tokens), ("overflow", true, 80_000.0));
        let off = config(json!({ "autoCondenseContext": false }));
        assert_eq!(should_condense(&off, &s(79_000, 0)).reason, "disabled");
        assert!(should_condense(&off, &s(90_000, 0)).condense, "past the allowed size even when auto-condense is off");
        let default_reserve = Situation { max_tokens: None, ..s(0, 0) };
        assert_eq!(should_condense(&c, &default_reserve).allowed_tokens, 90_000.0 - DEFAULT_MAX_TOKENS as f64);
    }

    #[test]
    fn legacy_keys_map_onto_the_new_ones() {
        let c = config(json!({
            "autoCondenseContext": false,
            "autoCondenseContextPercent": 65,
            "profileThresholds": { "p": 40 },
            "customCondensingPrompt": "Summarize tersely.",
            "condensingApiConfigId": "cheap-profile",
        }));
        assert!(!c.auto_condense);
        assert_eq!(c.threshold, 65.0);
        assert_eq!(c.profile_thresholds.get("p"), Some(&40.0));
        assert_eq!(c.providers.get("native"), Some(&json!({ "customPrompt": "Summarize tersely." })));
        assert_eq!(c.condensing_profile_id.as_deref(), Some("cheap-profile"));
    }

    #[test]
    fn every_problem_is_reported_with_its_path() {
        let problems = validate_config(&json!({
            "threshold": 2,
            "bogus": 1,
            "triggers": { "stopPercent": 500, "minGainTokens": -3, "when": 1 },
            "loopGuard": { "maxAttempts": 0 },
            "providers": { "smart": { "preset": "turbo" }, "truncation": { "preserveRecentCount": -1 }, "mine": { "anything": true } },
        }));
        let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
        assert_eq!(
            paths,
            vec![
                "config.bogus",
                "config.threshold",
                "config.triggers.stopPercent",
                "config.triggers.minGainTokens",
                "config.triggers.when",
                "config.loopGuard.maxAttempts",
                "config.providers.smart.preset",
                "config.providers.truncation.preserveRecentCount",
            ]
        );
        assert!(read_config(&json!({ "threshold": 2 })).is_err());
    }

    #[test]
    fn the_loop_guard_cools_down_after_three_attempts_without_progress() {
        let c = ManagerConfig::default();
        let mut s = GuardState::default();
        for _ in 0..2 {
            s = guard_record(&c, &s, false, 1_000);
            assert!(guard_allows(&s, 1_000).is_ok());
        }
        s = guard_record(&c, &s, false, 1_000);
        assert_eq!(s.cool_down_until, 61_000);
        assert_eq!(
            guard_allows(&s, 2_000).unwrap_err(),
            "condensing is cooling down for 59 s after attempts that made no progress"
        );
        assert!(guard_allows(&s, 61_000).is_ok());
        assert_eq!(guard_record(&c, &s, true, 70_000), GuardState::default());
    }
}
