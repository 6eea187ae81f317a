//! The manager's decisions for lib/manager.js: config validation, thresholds, the trigger, the loop
//! guard. Pure functions of their arguments; lib/manager.js runs the providers and fallbacks.

use napi_derive::napi;
use serde_json::Value;

use super::*;
use context_condense::error::CondenseError;

fn manager_config(config: &Value) -> std::result::Result<context_condense::manager::ManagerConfig, CondenseError> {
    context_condense::manager::read_config(config).map_err(|problems| {
        CondenseError::InvalidOptions(problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
    })
}

/// Every problem of a manager config, with paths.
#[napi(
    catch_unwind,
    ts_args_type = "config: unknown",
    ts_return_type = "Array<{ path: string; code: string; message: string }>"
)]
pub fn manager_validate_config(config: Value) -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(context_condense::manager::validate_config(&config)).unwrap_or(Value::Null)))
}

/// The config with defaults filled in and Roo's earlier keys mapped; throws with every problem.
#[napi(catch_unwind, ts_args_type = "config: unknown", ts_return_type = "import('./lib/manager').ManagerConfig")]
pub fn manager_read_config(config: Value) -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(manager_config(&config)?).unwrap_or(Value::Null)))
}

/// What the host knows at the moment of deciding, as JavaScript passes it: token counts are whole
/// numbers >= 0 (`lastMessageTokens` 0 when absent, `maxTokens` the default reserve).
#[napi(object, object_to_js = false)]
pub struct SituationObject {
    pub total_tokens: Option<f64>,
    pub last_message_tokens: Option<f64>,
    pub context_window: Option<f64>,
    pub max_tokens: Option<f64>,
    pub profile_id: Option<String>,
    /// Which provider the decision is for (the config's by default).
    pub provider: Option<String>,
}

impl SituationObject {
    /// The situation checked; errors name its fields under `at` (what the caller called the
    /// object: `situation` for `decide`, `context` for `condenseIfNeeded`).
    fn read(self, at: &str) -> std::result::Result<context_condense::manager::Situation, CondenseError> {
        let count = |name: &str, v: Option<f64>| context_condense::condense::token_count(v, &format!("{at}.{name}"));
        let required = |name: &str, v: Option<f64>| {
            count(name, v)?
                .ok_or_else(|| CondenseError::InvalidOptions(format!("{at}.{name}: missing (a whole number >= 0)")))
        };
        Ok(context_condense::manager::Situation {
            total_tokens: required("totalTokens", self.total_tokens)?,
            last_message_tokens: count("lastMessageTokens", self.last_message_tokens)?.unwrap_or(0),
            context_window: required("contextWindow", self.context_window)?,
            max_tokens: count("maxTokens", self.max_tokens)?,
            profile_id: self.profile_id,
            provider: self.provider,
        })
    }
}

/// A decision as JavaScript gets it: built field by field (no JSON value in between; a host
/// asks on every turn).
#[napi(object, object_from_js = false)]
pub struct DecisionObject {
    pub condense: bool,
    /// "threshold", "overflow", "below-threshold" or "disabled".
    pub reason: &'static str,
    pub prev_context_tokens: f64,
    pub allowed_tokens: f64,
    pub context_percent: f64,
    pub threshold: ThresholdObject,
    /// Past the allowed size: if condensing fails, the sliding window must run.
    pub overflow: bool,
    /// What providers that take a target should aim for.
    pub target_tokens: Option<f64>,
    pub min_gain_tokens: f64,
}

/// The trigger threshold behind a decision, and where it came from.
#[napi(object, object_from_js = false)]
pub struct ThresholdObject {
    pub percent: f64,
    /// "global", "provider" or "profile".
    pub source: &'static str,
    pub warning: Option<String>,
}

impl From<context_condense::manager::Decision> for DecisionObject {
    fn from(d: context_condense::manager::Decision) -> Self {
        DecisionObject {
            condense: d.condense,
            reason: d.reason,
            prev_context_tokens: d.prev_context_tokens as f64,
            allowed_tokens: d.allowed_tokens,
            context_percent: d.context_percent,
            threshold: ThresholdObject {
                percent: d.threshold.percent,
                source: match d.threshold.source {
                    context_condense::manager::Source::Global => "global",
                    context_condense::manager::Source::Provider => "provider",
                    context_condense::manager::Source::Profile => "profile",
                },
                warning: d.threshold.warning,
            },
            overflow: d.overflow,
            target_tokens: d.target_tokens.map(|t| t as f64),
            min_gain_tokens: d.min_gain_tokens as f64,
        }
    }
}

/// A manager configuration read once (defaults filled in, Roo's earlier keys mapped, every problem
/// refused): its thresholds, trigger and loop guard answer without reading the config again.
#[napi]
pub struct ManagerRules {
    pub(super) config: context_condense::manager::ManagerConfig,
}

#[napi]
impl ManagerRules {
    #[napi(constructor, ts_args_type = "config: import('./lib/manager').ManagerConfig")]
    pub fn new(config: Value) -> Result<ManagerRules> {
        guarded(|| Ok(ManagerRules { config: manager_config(&config)? }))
    }

    /// The configuration as read.
    #[napi(ts_return_type = "import('./lib/manager').ManagerConfig")]
    pub fn config(&self) -> Result<Value> {
        guarded(|| Ok(serde_json::to_value(&self.config).unwrap_or(Value::Null)))
    }

    /// The trigger threshold of a profile (and where it came from, with a warning when invalid).
    #[napi(ts_return_type = "{ percent: number; source: 'global' | 'provider' | 'profile'; warning?: string }")]
    pub fn threshold(&self, provider: Option<String>, profile_id: Option<String>) -> Result<Value> {
        guarded(|| {
            let provider = provider.unwrap_or_else(|| self.config.provider.clone());
            let t = context_condense::manager::effective_threshold(&self.config, &provider, profile_id.as_deref());
            Ok(serde_json::to_value(t).unwrap_or(Value::Null))
        })
    }

    /// Whether to condense now, with the figures behind the answer. `at` names the situation in
    /// errors ("situation" when absent).
    #[napi]
    pub fn decide(&self, situation: SituationObject, at: Option<String>) -> Result<DecisionObject> {
        guarded(|| {
            let s = situation.read(at.as_deref().unwrap_or("situation"))?;
            Ok(DecisionObject::from(context_condense::manager::should_condense(&self.config, &s)))
        })
    }
}

/// The JSON Schema of the manager config, for settings UIs.
#[napi(catch_unwind, ts_return_type = "Record<string, unknown>")]
pub fn manager_config_schema() -> Result<Value> {
    guarded(|| {
        Ok(serde_json::to_value(schemars::schema_for!(context_condense::manager::ManagerConfig)).unwrap_or(Value::Null))
    })
}
