//! The manager's decisions, pure functions of the config and the situation: the threshold of a
//! profile (and where it came from), whether to condense now, and the loop guard. Runs no provider.

use serde::{Deserialize, Serialize};

use super::*;

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

/// What the host knows at the moment of deciding (read from JavaScript by
/// `node::manager::SituationObject`).
#[derive(Debug, Clone)]
pub struct Situation {
    pub total_tokens: u64,
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

impl LoopGuard {
    /// The state after an attempt: progress resets it; the `max_attempts`-th attempt in a row
    /// without progress starts a cool-down of `cool_down_ms`.
    pub fn record(&self, state: &GuardState, progressed: bool, now_ms: u64) -> GuardState {
        if progressed {
            return GuardState::default();
        }
        let attempts = state.attempts_without_progress + 1;
        if attempts >= self.max_attempts {
            GuardState { attempts_without_progress: 0, cool_down_until: now_ms + self.cool_down_ms }
        } else {
            GuardState { attempts_without_progress: attempts, cool_down_until: 0 }
        }
    }
}
