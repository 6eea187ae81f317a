//! The manager's decisions for lib/manager.js: config validation, thresholds, the trigger, the loop
//! guard. Pure functions of their arguments; lib/manager.js runs the providers and fallbacks.

use napi_derive::napi;
use serde_json::Value;

use super::*;
use crate::error::CondenseError;

fn manager_config(config: &Value) -> std::result::Result<crate::manager::ManagerConfig, CondenseError> {
    crate::manager::read_config(config).map_err(|problems| {
        CondenseError::InvalidOptions(problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
    })
}

/// Every problem of a manager config, with paths.
#[napi(catch_unwind)]
pub fn manager_validate_config(config: Value) -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(crate::manager::validate_config(&config)).unwrap_or(Value::Null)))
}

/// The config with defaults filled in and Roo's earlier keys mapped; throws with every problem.
#[napi(catch_unwind)]
pub fn manager_read_config(config: Value) -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(manager_config(&config)?).unwrap_or(Value::Null)))
}

/// The loop guard: `null` when the task may try now, else why not.
#[napi(catch_unwind)]
pub fn manager_guard_allows(state: Value, now_ms: f64) -> Result<Option<String>> {
    guarded(|| {
        let s: crate::manager::GuardState = crate::condense::parse_config(&state, "state")?;
        Ok(crate::manager::guard_allows(&s, now_ms.max(0.0) as u64).err())
    })
}

/// A manager configuration read once (defaults filled in, Roo's earlier keys mapped, every problem
/// refused): its thresholds, trigger and loop guard answer without reading the config again.
#[napi]
pub struct ManagerRules {
    config: crate::manager::ManagerConfig,
}

#[napi]
impl ManagerRules {
    #[napi(constructor)]
    pub fn new(config: Value) -> Result<ManagerRules> {
        guarded(|| Ok(ManagerRules { config: manager_config(&config)? }))
    }

    /// The configuration as read.
    #[napi]
    pub fn config(&self) -> Result<Value> {
        guarded(|| Ok(serde_json::to_value(&self.config).unwrap_or(Value::Null)))
    }

    /// The trigger threshold of a profile (and where it came from, with a warning when invalid).
    #[napi]
    pub fn threshold(&self, provider: Option<String>, profile_id: Option<String>) -> Result<Value> {
        guarded(|| {
            let provider = provider.unwrap_or_else(|| self.config.provider.clone());
            let t = crate::manager::effective_threshold(&self.config, &provider, profile_id.as_deref());
            Ok(serde_json::to_value(t).unwrap_or(Value::Null))
        })
    }

    /// Whether to condense now, with the figures behind the answer.
    #[napi]
    pub fn decide(&self, situation: Value) -> Result<Value> {
        guarded(|| {
            let s: crate::manager::Situation = crate::condense::parse_config(&situation, "situation")?;
            Ok(serde_json::to_value(crate::manager::should_condense(&self.config, &s)).unwrap_or(Value::Null))
        })
    }

    /// The loop guard's state after an attempt.
    #[napi]
    pub fn guard_record(&self, state: Value, progressed: bool, now_ms: f64) -> Result<Value> {
        guarded(|| {
            let s: crate::manager::GuardState = crate::condense::parse_config(&state, "state")?;
            let next = crate::manager::guard_record(&self.config, &s, progressed, now_ms.max(0.0) as u64);
            Ok(serde_json::to_value(next).unwrap_or(Value::Null))
        })
    }
}

/// The JSON Schema of the manager config, for settings UIs.
#[napi(catch_unwind)]
pub fn manager_config_schema() -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(schemars::schema_for!(crate::manager::ManagerConfig)).unwrap_or(Value::Null)))
}
