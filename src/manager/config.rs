//! The manager's configuration: its types and JSON Schema, Roo Code's earlier keys mapped onto it,
//! and every problem of a config with its path. Reads values; decides nothing.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::{json, Map, Value};

use crate::condense::Options;
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
    /// With `fallback`: past the allowed size, the sliding window cuts until the request fits, a
    /// provider's result still past it included (false: Roo Code's way, one cut, and only when
    /// every provider failed). @default true
    pub cut_until_fits: bool,
    pub loop_guard: LoopGuard,
    /// The API profile whose handler summarizes (Roo's `condensingApiConfigId`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub condensing_profile_id: Option<String>,
}

impl Default for ManagerConfig {
    fn default() -> Self {
        ManagerConfig {
            provider: crate::catalogue::DEFAULT_PROVIDER.id.into(),
            providers: BTreeMap::new(),
            auto_condense: true,
            threshold: 100.0,
            profile_thresholds: BTreeMap::new(),
            triggers: Triggers::default(),
            provider_triggers: BTreeMap::new(),
            profile_triggers: BTreeMap::new(),
            fallback: true,
            cut_until_fits: true,
            loop_guard: LoopGuard::default(),
            condensing_profile_id: None,
        }
    }
}

/// What a settings UI may write per profile: -1 (inherit) or a percentage from 5 to 100. Reading a
/// config stays looser (any number, warned about at use), as Roo Code reads its own settings.
pub(super) fn profile_thresholds_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
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

pub(super) fn problem(path: impl Into<String>, code: &'static str, message: impl Into<String>) -> Problem {
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
                        // Roo's custom condensing prompt is its own summary's prompt.
                        let native = p.entry(crate::catalogue::NATIVE.id).or_insert_with(|| json!({}));
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

pub(super) const KEYS: [&str; 12] = [
    "provider",
    "providers",
    "autoCondense",
    "threshold",
    "profileThresholds",
    "triggers",
    "providerTriggers",
    "profileTriggers",
    "fallback",
    "cutUntilFits",
    "loopGuard",
    "condensingProfileId",
];
pub(super) const LEGACY_KEYS: [&str; 4] =
    ["autoCondenseContext", "autoCondenseContextPercent", "customCondensingPrompt", "condensingApiConfigId"];

pub(super) fn percent_problem(at: &str, v: &Value, problems: &mut Vec<Problem>) {
    match v.as_f64() {
        Some(p) if (MIN_CONDENSE_THRESHOLD..=MAX_CONDENSE_THRESHOLD).contains(&p) => {}
        _ => problems.push(problem(
            at,
            "out_of_range",
            format!("expected a percentage from {MIN_CONDENSE_THRESHOLD} to {MAX_CONDENSE_THRESHOLD}, got {v}"),
        )),
    }
}

pub(super) fn triggers_problems(at: &str, v: &Value, problems: &mut Vec<Problem>) {
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
        // null is the key left out, as the schema says (each is an optional setting).
        if x.is_null() && ["triggerPercent", "stopPercent", "minGainTokens", "minGainPercent"].contains(&k.as_str()) {
            continue;
        }
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
    // Roo Code's earlier keys are checked under their own names, whether or not the key each maps
    // onto is given too (then the newer key wins, and the earlier one would otherwise go unread);
    // one that is wrong is left out of the mapped config, so its problem is named once.
    let mut given = m.clone();
    for key in LEGACY_KEYS {
        let Some(v) = m.get(key) else { continue };
        let at = format!("config.{key}");
        let before = problems.len();
        match key {
            "autoCondenseContext" if !v.is_boolean() => {
                problems.push(problem(at, "invalid_type", format!("expected true or false, got {v}")))
            }
            "autoCondenseContextPercent" => percent_problem(&at, v, &mut problems),
            "customCondensingPrompt" if !v.is_string() => {
                problems.push(problem(at, "invalid_type", format!("expected a prompt (a string), got {v}")))
            }
            "condensingApiConfigId" if !v.is_string() => {
                problems.push(problem(at, "invalid_type", format!("expected a profile id, got {v}")))
            }
            _ => {}
        }
        if problems.len() > before {
            given.remove(key);
        }
    }
    let mapped = map_legacy(&Value::Object(given));
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
    for key in ["autoCondense", "fallback", "cutUntilFits"] {
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
