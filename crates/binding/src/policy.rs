//! The cache-aware policy for lib/internal/cache-aware.js: `PolicyTask` (what the rule keeps per
//! task between calls) and `PolicyCall` (one call, step by step). The rule is the engine's
//! (src/manager/policy.rs); JavaScript runs the roles, the prompt-cache model's prices and the
//! token counts each step names, and hands back numbers. Converts and checks values only; holds no rule.

use napi::bindgen_prelude::{Either, Float64Array, Unknown};
use napi_derive::napi;
use serde_json::Value;

use super::*;
use context_condense::cost;
use context_condense::manager::policy::{self, Candidate, Decision, Settings, TaskState};

const AT: &str = "PolicyCall";

fn refused(text: String) -> Error {
    coded(ErrorCode::InvalidArgument, format!("{AT}: {text}"))
}

/// `v` when it is a finite number, else an error naming `name`.
fn finite(v: f64, name: &str) -> Result<f64> {
    if v.is_finite() {
        Ok(v)
    } else {
        Err(refused(format!("{name}: expected a finite number, got {}", cost::js_number(v))))
    }
}

/// `v` when it is a finite number >= 0.
fn amount(v: f64, name: &str) -> Result<f64> {
    if v.is_finite() && v >= 0.0 {
        Ok(v)
    } else {
        Err(refused(format!("{name}: expected a finite number >= 0, got {}", cost::js_number(v))))
    }
}

/// The working set's turns: a whole number from 0 to 2^32 - 1.
fn turns(v: f64) -> Result<f64> {
    if v.is_finite() && v.fract() == 0.0 && (0.0..=f64::from(u32::MAX)).contains(&v) {
        Ok(v)
    } else {
        Err(refused(format!("workingSetTurns: expected a whole number of turns, got {}", cost::js_number(v))))
    }
}

fn step_error(e: policy::PolicyError) -> Error {
    coded(ErrorCode::Internal, format!("{AT}: {e}"))
}

fn tokens_of(given: Either<Float64Array, Unknown<'_>>, name: &str) -> Result<Vec<f64>> {
    let Either::A(array) = given else {
        return Err(refused(format!("{name}: expected a Float64Array of token counts")));
    };
    array.iter().enumerate().map(|(i, &t)| amount(t, &format!("{name}[{i}]"))).collect()
}

/// What the rule keeps of one task between calls.
#[napi]
#[derive(Default)]
pub struct PolicyTask {
    state: TaskState,
}

#[napi]
impl PolicyTask {
    #[napi(constructor)]
    pub fn new() -> Self {
        PolicyTask::default()
    }

    /// Requests so far less one (-1 before the first call).
    #[napi(getter)]
    pub fn turn(&self) -> f64 {
        self.state.turn
    }

    /// The summaries Roo's default has made on the task.
    #[napi(getter)]
    pub fn shadow_summaries(&self) -> f64 {
        self.state.shadow_summaries
    }
}

/// The policy's settings (read by lib/internal/cache-aware.js `readPolicy`).
#[napi(object, object_to_js = false)]
pub struct PolicySettings {
    pub name: String,
    pub cache: String,
    pub pricing: super::cache_model::CachePrices,
    pub working_set_turns: f64,
    pub summary_tokens: f64,
}

/// What the manager's decision says about a call (the fields of `ManagerRules.decide`'s answer
/// read here) and the call's context.
#[napi(object, object_to_js = false)]
pub struct CallStart {
    pub threshold_percent: f64,
    pub allowed_tokens: f64,
    pub context_window: f64,
    pub expected_turns: Option<f64>,
    /// The manager's config condenses before the allowed size.
    pub auto_condense: bool,
    pub force: bool,
    /// The host's prompt cache holds nothing the next request could read.
    pub cold_cache: Option<bool>,
}

/// What the host found when it asked a role.
#[napi(object, object_to_js = false)]
pub struct CandidateObject {
    pub condensed: bool,
    pub provider: Option<String>,
    pub report: String,
    pub tokens_after: Option<f64>,
    pub first_changed: Option<f64>,
    pub removed_tokens: Option<f64>,
    pub if_taken_cost: Option<f64>,
    pub if_taken_tokens: Option<f64>,
    pub if_taken_cached_read: Option<f64>,
    pub now_cost: Option<f64>,
}

/// What the prompt-cache model says a request costs (and its tokens).
#[napi(object, object_to_js = false)]
pub struct Priced {
    pub tokens: f64,
    pub cost: f64,
}

/// The call's account of its task.
#[napi(object, object_from_js = false)]
pub struct AccountObject {
    pub fresh: bool,
    pub remake: bool,
    pub bill: bool,
}

/// The call's figures (`ManagedResult.policy`'s numbers) and, once it is over, what it did.
#[napi(object, object_from_js = false)]
pub struct PolicyOutcome {
    pub prompt_tokens: f64,
    pub trigger_tokens: f64,
    pub batch_tokens: f64,
    pub growth_tokens: f64,
    pub remaining_turns: f64,
    pub turn: f64,
    pub billed: f64,
    pub roo_default_billed: f64,
    pub condensed: bool,
    pub provider: Option<String>,
    pub report: String,
    pub new_context_tokens: f64,
    #[napi(ts_type = "import('./lib/manager').PolicyStep[]")]
    pub steps: Value,
}

/// One call under the cache-aware policy: `account`, the shadow's turn, `start`, then each step's
/// outcome (`proposed`, `shadowPriced`, `decided`, `pricedNow`, `taken`) until `{ action: "done" }`,
/// then `finish`.
#[napi]
pub struct PolicyCall {
    settings: Settings,
    call: Option<policy::PolicyCall>,
}

fn candidate(c: CandidateObject) -> Result<Candidate> {
    let n = |v: Option<f64>, name: &str| v.map(|v| finite(v, name)).transpose().map(|v| v.unwrap_or(0.0));
    Ok(Candidate {
        condensed: c.condensed,
        provider: c.provider,
        report: c.report,
        tokens_after: n(c.tokens_after, "tokensAfter")?,
        first_changed: n(c.first_changed, "firstChanged")?,
        removed_tokens: n(c.removed_tokens, "removedTokens")?,
        if_taken_cost: n(c.if_taken_cost, "ifTakenCost")?,
        if_taken_tokens: n(c.if_taken_tokens, "ifTakenTokens")?,
        if_taken_cached_read: n(c.if_taken_cached_read, "ifTakenCachedRead")?,
        now_cost: n(c.now_cost, "nowCost")?,
    })
}

#[napi]
impl PolicyCall {
    #[napi(constructor)]
    pub fn new(settings: PolicySettings) -> Result<Self> {
        let Some(kind) = cost::CacheModel::parse(&settings.cache) else {
            return Err(refused(format!("cache: expected \"anthropic\" or \"openai\", got {:?}", settings.cache)));
        };
        let pricing = super::cache_model::read_prices(settings.pricing)?;
        Ok(PolicyCall {
            settings: Settings {
                name: settings.name,
                kind,
                pricing,
                working_set_turns: turns(settings.working_set_turns)?,
                summary_tokens: amount(settings.summary_tokens, "summaryTokens")?,
            },
            call: None,
        })
    }

    /// Brings the task up to this call (see `TaskState::account`).
    #[napi]
    pub fn account(
        &mut self,
        task: &mut PolicyTask,
        system_tokens: f64,
        system_text: Option<String>,
        assistants: f64,
    ) -> Result<AccountObject> {
        let a = task.state.account(
            amount(system_tokens, "systemTokens")?,
            system_text.as_deref(),
            amount(assistants, "assistants")?,
        );
        Ok(AccountObject { fresh: a.fresh, remake: a.remake, bill: a.bill })
    }

    /// The previous request's price in the policy's cache model and in the shadow's.
    #[napi]
    pub fn billed(&mut self, task: &mut PolicyTask, own: f64, shadow: f64) -> Result<()> {
        task.state.billed(amount(own, "own")?, amount(shadow, "shadow")?);
        Ok(())
    }

    /// The tokens appended since the previous request.
    #[napi]
    pub fn appended(&mut self, task: &mut PolicyTask, tokens: f64) -> Result<()> {
        task.state.appended(amount(tokens, "tokens")?);
        Ok(())
    }

    /// Roo's default at this call: the message from which its summary keeps the last ones, when
    /// it summarizes now (`condense`: the manager's decision for its history of `length` messages).
    #[napi]
    pub fn shadow_summary_due(&self, task: &PolicyTask, condense: bool, length: f64) -> Result<Option<u32>> {
        let len = amount(length, "length")? as usize;
        Ok(task.state.shadow_summary_due(condense, len).map(|k| k as u32))
    }

    /// Roo's default summarized `input` tokens; answers the stand-in summary's tokens.
    #[napi]
    pub fn shadow_summarized(&self, task: &mut PolicyTask, input: f64) -> Result<f64> {
        Ok(task.state.shadow_summarized(&self.settings, amount(input, "input")?))
    }

    /// The call's first step: the system prompt's tokens, each message's, and the manager's
    /// decision for the history.
    #[napi(
        ts_args_type = "task: PolicyTask, systemTokens: number, messages: Float64Array, given: CallStart",
        ts_return_type = "import('./lib/manager').PolicyCallStep"
    )]
    pub fn start(
        &mut self,
        task: &mut PolicyTask,
        system_tokens: f64,
        messages: Either<Float64Array, Unknown<'_>>,
        given: CallStart,
    ) -> Result<Value> {
        let messages = tokens_of(messages, "messages")?;
        let decision = Decision {
            threshold_percent: finite(given.threshold_percent, "thresholdPercent")?,
            allowed_tokens: finite(given.allowed_tokens, "allowedTokens")?,
        };
        let expected = given.expected_turns.map(|e| amount(e, "expectedTurns")).transpose()?;
        let mut call = policy::PolicyCall::new(
            &task.state,
            self.settings.clone(),
            amount(system_tokens, "systemTokens")?,
            messages,
            decision,
            amount(given.context_window, "contextWindow")?,
            expected,
            given.auto_condense,
            given.force,
        )
        .cold_cache(given.cold_cache.unwrap_or(false));
        let step = call.start(&mut task.state);
        self.call = Some(call);
        Ok(to_js(&step))
    }

    fn running(&mut self) -> Result<&mut policy::PolicyCall> {
        self.call.as_mut().ok_or_else(|| coded(ErrorCode::Internal, format!("{AT}: not started")))
    }

    /// The candidates of the roles the last `propose` step named, in its order.
    #[napi(ts_return_type = "import('./lib/manager').PolicyCallStep")]
    pub fn proposed(&mut self, task: &mut PolicyTask, candidates: Vec<CandidateObject>) -> Result<Value> {
        let candidates = candidates.into_iter().map(candidate).collect::<Result<Vec<_>>>()?;
        let step = self.running()?.proposed(&mut task.state, candidates).map_err(step_error)?;
        Ok(to_js(&step))
    }

    /// The shadow's next request costs `cost`.
    #[napi(ts_return_type = "import('./lib/manager').PolicyCallStep")]
    pub fn shadow_priced(&mut self, task: &mut PolicyTask, cost: f64) -> Result<Value> {
        let cost = amount(cost, "cost")?;
        let step = self.running()?.shadow_priced(&mut task.state, cost).map_err(step_error)?;
        Ok(to_js(&step))
    }

    /// Whether the manager's config condenses the history as it is now.
    #[napi(ts_return_type = "import('./lib/manager').PolicyCallStep")]
    pub fn decided(&mut self, task: &mut PolicyTask, condense: bool) -> Result<Value> {
        let step = self.running()?.decided(&mut task.state, condense).map_err(step_error)?;
        Ok(to_js(&step))
    }

    /// The next request's cost as the history is, and (when asked) as Roo's summary would leave it.
    #[napi(ts_return_type = "import('./lib/manager').PolicyCallStep")]
    pub fn priced_now(&mut self, now: f64, roo: Option<Priced>) -> Result<Value> {
        let now = amount(now, "now")?;
        let roo = match roo {
            Some(r) => Some((amount(r.tokens, "roo.tokens")?, amount(r.cost, "roo.cost")?)),
            None => None,
        };
        let step = self.running()?.priced_now(now, roo).map_err(step_error)?;
        Ok(to_js(&step))
    }

    /// The host took the candidate: the history's message tokens now.
    #[napi(ts_return_type = "import('./lib/manager').PolicyCallStep")]
    pub fn taken(&mut self, task: &mut PolicyTask, messages: Either<Float64Array, Unknown<'_>>) -> Result<Value> {
        let messages = tokens_of(messages, "messages")?;
        let step = self.running()?.taken(&mut task.state, messages).map_err(step_error)?;
        Ok(to_js(&step))
    }

    /// The call is over: its figures, steps and report (`lastReport`: the report of the manager's
    /// own config's answer, said when no step was taken).
    #[napi]
    pub fn finish(&mut self, task: &mut PolicyTask, last_report: Option<String>) -> Result<PolicyOutcome> {
        let call = self.running()?;
        let f = call.figures();
        let prompt_tokens = call.prompt_tokens();
        let done = call.finish(&mut task.state, last_report.as_deref()).map_err(step_error)?;
        let steps = serde_json::to_value(call.steps()).unwrap_or(Value::Null);
        Ok(PolicyOutcome {
            prompt_tokens,
            trigger_tokens: f.trigger,
            batch_tokens: f.batch,
            growth_tokens: f.growth,
            remaining_turns: f.remaining,
            turn: task.state.turn,
            billed: task.state.bill,
            roo_default_billed: task.state.shadow_bill,
            condensed: done.condensed,
            provider: done.provider,
            report: done.report,
            new_context_tokens: done.tokens,
            steps,
        })
    }
}

fn to_js(step: &policy::Step) -> Value {
    serde_json::to_value(step).unwrap_or(Value::Null)
}

/// The policy's constants and defaults, for its option reader and the role configs.
#[napi(object, object_from_js = false)]
pub struct PolicyConstants {
    pub default_working_set_turns: u32,
    pub default_summary_tokens: u32,
    pub min_remaining: f64,
    pub at_trigger_keep: u32,
}

#[napi]
pub fn policy_constants() -> PolicyConstants {
    PolicyConstants {
        default_working_set_turns: policy::DEFAULT_WORKING_SET_TURNS,
        default_summary_tokens: policy::DEFAULT_SUMMARY_TOKENS,
        min_remaining: policy::MIN_REMAINING,
        at_trigger_keep: policy::AT_TRIGGER_KEEP,
    }
}

/// The configs of the roles the policy asks besides the manager's own config, from the manager's
/// checked config (`ManagerRules.config()`).
#[napi(
    ts_args_type = "config: Record<string, unknown>, strict: boolean, workingSetTurns: number",
    ts_return_type = "Record<string, Record<string, unknown>>"
)]
pub fn policy_role_configs(config: Value, strict: bool, working_set_turns: f64) -> Result<Value> {
    if !config.is_object() {
        return Err(refused("config: expected the manager's checked config, an object".into()));
    }
    Ok(policy::role_configs(&config, strict, turns(working_set_turns)? as u32))
}
