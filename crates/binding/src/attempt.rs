//! One condensing call's course for lib/manager.js (`ManagerAttempt`) and the loop guard's state
//! per task (`ManagerGuards`): the engine says what to run next and what each outcome means
//! (src/manager/attempt.rs); the manager in JavaScript runs providers, the sliding window,
//! callbacks and token counts. Converts values only; holds no rule.

use napi_derive::napi;
use serde_json::Value;

use super::manager::ManagerRules;
use super::*;
use context_condense::error::CondenseError;

/// The loop guard's state of every task a manager condenses for: at most 256 tasks, those whose
/// state holds nothing (no failure in a row, no cool-down) let go first, then the least recently
/// used.
#[napi]
#[derive(Default)]
pub struct ManagerGuards {
    guards: context_condense::manager::Guards,
}

#[napi]
impl ManagerGuards {
    #[napi(constructor)]
    pub fn new() -> Self {
        ManagerGuards::default()
    }

    /// How many tasks have a state.
    #[napi(getter)]
    pub fn size(&self) -> u32 {
        self.guards.len() as u32
    }

    /// Whether the task has a state.
    #[napi]
    pub fn has(&self, task_id: String) -> bool {
        self.guards.contains(&task_id)
    }

    /// Forgets one task's state, or every task's without a task id; answers whether there was any.
    #[napi]
    pub fn forget(&mut self, task_id: Option<String>) -> bool {
        self.guards.forget(task_id.as_deref())
    }
}

/// What a decision says about a call's course (the fields of `ManagerRules.decide`'s answer
/// read here; the others are ignored).
#[napi(object, object_to_js = false)]
pub struct CourseObject {
    pub prev_context_tokens: f64,
    pub min_gain_tokens: f64,
    pub overflow: bool,
    pub allowed_tokens: f64,
}

/// A whole number of tokens from JavaScript (`at` names it in the error).
fn tokens(v: f64, at: &str) -> std::result::Result<i64, CondenseError> {
    if v.is_finite() && v.fract() == 0.0 && v.abs() <= 9_007_199_254_740_991.0 {
        Ok(v as i64)
    } else {
        Err(CondenseError::InvalidOptions(format!("{at}: expected a whole number of tokens, got {v}")))
    }
}

fn count(v: f64, at: &str) -> std::result::Result<u64, CondenseError> {
    u64::try_from(tokens(v, at)?)
        .map_err(|_| CondenseError::InvalidOptions(format!("{at}: expected a whole number >= 0, got {v}")))
}

/// A size in tokens from JavaScript: any finite number (the allowed size may be fractional, or
/// negative when the reserved output exceeds the window).
fn size(v: f64, at: &str) -> std::result::Result<f64, CondenseError> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(CondenseError::InvalidOptions(format!("{at}: expected a finite number of tokens, got {v}")))
    }
}

fn attempt_error(e: context_condense::manager::AttemptError) -> CondenseError {
    CondenseError::Internal(e.to_string())
}

/// One condensing call: `start`, then `failed` or `produced` after each `run` step, `windowed`
/// after a `window` step. Each answers the next step `{ action, … }`; a last step (`adopt`,
/// `min-gain`, `truncated`, `give-up`) carries the call's `attempts`.
#[napi]
pub struct ManagerAttempt {
    attempt: context_condense::manager::Attempt,
}

#[napi]
impl ManagerAttempt {
    /// A call of `taskId` under the rules' config with a decision of theirs; `hasSummarize`:
    /// whether the host has a summarize callback for it.
    #[napi(constructor)]
    pub fn new(rules: &ManagerRules, decision: CourseObject, task_id: String, has_summarize: bool) -> Result<Self> {
        guarded(|| {
            let course = context_condense::manager::Course {
                prev_context_tokens: count(decision.prev_context_tokens, "decision.prevContextTokens")?,
                min_gain_tokens: count(decision.min_gain_tokens, "decision.minGainTokens")?,
                overflow: decision.overflow,
                allowed_tokens: size(decision.allowed_tokens, "decision.allowedTokens")?,
            };
            Ok(ManagerAttempt {
                attempt: context_condense::manager::Attempt::new(&rules.config, course, &task_id, has_summarize),
            })
        })
    }

    /// The first step (none is run while the task cools down).
    #[napi(ts_return_type = "import('./lib/manager').ManagerStep")]
    pub fn start(&mut self, guards: &mut ManagerGuards, now_ms: f64) -> Result<Value> {
        guarded(|| {
            let step = self.attempt.start(&mut guards.guards, now_ms.max(0.0) as u64).map_err(attempt_error)?;
            Ok(self.to_js(step))
        })
    }

    /// The running provider failed with `error`.
    #[napi(ts_return_type = "import('./lib/manager').ManagerStep")]
    pub fn failed(&mut self, guards: &mut ManagerGuards, error: String, now_ms: f64) -> Result<Value> {
        guarded(|| {
            let step =
                self.attempt.failed(&mut guards.guards, &error, now_ms.max(0.0) as u64).map_err(attempt_error)?;
            Ok(self.to_js(step))
        })
    }

    /// The running provider answered a context of `tokens`.
    #[napi(ts_return_type = "import('./lib/manager').ManagerStep")]
    pub fn produced(&mut self, guards: &mut ManagerGuards, tokens_after: f64, now_ms: f64) -> Result<Value> {
        guarded(|| {
            let t = tokens(tokens_after, "tokens")?;
            let step = self.attempt.produced(&mut guards.guards, t, now_ms.max(0.0) as u64).map_err(attempt_error)?;
            Ok(self.to_js(step))
        })
    }

    /// The sliding window's cut: the messages' tokens before it and after it.
    #[napi(ts_return_type = "import('./lib/manager').ManagerStep")]
    pub fn windowed(&mut self, before: f64, after: f64) -> Result<Value> {
        guarded(|| {
            let step =
                self.attempt.windowed(tokens(before, "before")?, tokens(after, "after")?).map_err(attempt_error)?;
            Ok(self.to_js(step))
        })
    }
}

impl ManagerAttempt {
    fn to_js(&self, step: context_condense::manager::Step) -> Value {
        let last = step.is_last();
        let mut v = serde_json::to_value(step).unwrap_or(Value::Null);
        if let (true, Value::Object(m)) = (last, &mut v) {
            m.insert("attempts".into(), serde_json::to_value(self.attempt.attempts()).unwrap_or(Value::Null));
        }
        v
    }
}
