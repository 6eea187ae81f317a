//! The manager's cache-aware policy (`new CondensationManager({ policy: 'cache-aware' })`): where
//! the default condenses only at the threshold, this one also condenses before it, in batches and
//! only where the reads saved beat re-writing the host's prompt cache, and summarizes on its own
//! at most half as often as the default would. Each request reads the cached prefix at a fraction
//! of the input price (a tenth with Anthropic, half with OpenAI); a change at message k makes every
//! later request read a smaller context, but the next request writes (or sends uncached) everything
//! from k again. Per call it:
//! - works in batches: it asks again only once the context has grown by the batch that minimises
//!   re-writes plus reads per turn (B = sqrt(2 x premium x growth x rewritten / read price), where
//!   `rewritten` is what the last condensing made the next request write again), or at once when
//!   the host's cache holds nothing the request could read (it expired during a pause, or the task
//!   is new): the request writes everything anyway, so a condensing then re-writes nothing;
//! - asks for two candidates, Lossless and Smart without model calls (old tool output, tool
//!   parameters and environment details suppressed; the working set's turns, the last
//!   `2 x workingSetTurns` messages, kept whole; what the user typed and errors kept), and takes the
//!   one whose reads saved until the trigger (at most the expected remaining turns) exceed, by the
//!   most, what it costs now: the next request priced by the prompt-cache model (src/cache_model.rs)
//!   with and without it, so a change after the last cached breakpoint costs nothing and one near the
//!   start re-writes it all; Lossless wins a tie;
//! - summarizes (Native, keeping the working set's turns whole) at most half as often as the
//!   default would at this growth and while it has made fewer than half the summaries of its
//!   shadow of the default (below), and then only when the reads the summary saves until the next
//!   one may run exceed its price (its call, priced by what it leaves, and the re-write after it);
//! - at the trigger, of Lossless, Smart (keeping the working set's turns whole, else the last
//!   [`AT_TRIGGER_KEEP`] messages) that leave room under the trigger for a turn's growth, and Roo's
//!   summary (while it has made fewer than half as many as Roo's default), takes the one that
//!   costs least per turn until the context is back at the trigger (its price now plus the reads of
//!   that cycle); when the summary wins or nothing leaves room, what the manager's config does
//!   (Native by default, the sliding window past the allowed size);
//! - keeps a shadow of Roo's default on the same task (its history, a summary at the trigger,
//!   priced by a cache model of its own) and takes a step it need not take (a batch candidate, a
//!   summary of its own) only when, were the task to end with this request, its bill would stay
//!   within `1 + `[`RISK`] times the shadow's: on a task too short to pay a step back, it costs what
//!   Roo's default costs.
//!
//! Remaining turns: `expectedTurns` when given, else as many as have elapsed (a task seen at turn t
//! is taken to be half done), at least [`MIN_REMAINING`].
//!
//! Between calls it keeps per task what the rule needs ([`TaskState`]): the bill so far, the
//! shadow's bill and summaries, the turn count, the tokens appended, and when it last tried,
//! re-wrote and summarized. The rule and its constants live here and nowhere else.
//!
//! Pure: it runs no provider, counts no token and never sees a message. The host hands it numbers
//! (token counts, what the prompt-cache model says a request costs, the manager's decisions) and
//! runs what each step names (the roles' condensings, the cache model's prices), then hands back
//! their outcomes. Which messages are the same (message identity) is the host's to say, and the
//! host keeps the histories the cache models align by.

use serde::Serialize;

use crate::cache_model;
use crate::cost::{self, CacheModel as Kind, Pricing, Usage};

/// The most a step it need not take may leave a task billed above Roo's default, as a fraction of
/// Roo's bill, were the task to end right after it: the tolerance the policy promises per task.
pub const RISK: f64 = 0.02;
/// Turns still to come at least, when the task's length is not known.
pub const MIN_REMAINING: f64 = 10.0;
/// Messages Smart keeps whole at the trigger, where the alternative is a summary keeping the last 3.
pub const AT_TRIGGER_KEEP: u32 = 6;
/// The working set's turns when the policy names none.
pub const DEFAULT_WORKING_SET_TURNS: u32 = 10;
/// What a summary is taken to weigh before one has been made, when the policy names no size.
pub const DEFAULT_SUMMARY_TOKENS: u32 = 2000;
/// Messages Roo's summary keeps after the first (Native's `N_MESSAGES_TO_KEEP`).
pub const ROO_KEEP_LAST: usize = 3;

/// The roles the rule asks besides the manager's own config (the role "summary").
pub const ROLE_SMART_AT_TRIGGER: &str = "smartAtTrigger";
pub const ROLE_OWN_SUMMARY: &str = "ownSummary";
pub const ROLE_SUMMARY: &str = "summary";

/// The Lossless operations: all, or (strict) only those that never point a newer copy at an older one.
fn operations(strict: bool) -> serde_json::Value {
    serde_json::json!({ "deduplicateFileReads": !strict, "consolidateToolResults": !strict, "removeObsoleteState": true })
}

/// Smart without model calls: old tool output, tool parameters and environment details
/// suppressed, the last `keep` messages kept whole (after the Lossless prelude).
fn suppress_old(keep: u32, strict: bool) -> serde_json::Value {
    serde_json::json!({
        "losslessPrelude": { "enabled": true, "operations": operations(strict) },
        "passes": [{
            "id": "suppress-old-output",
            "name": "Suppress old tool output",
            "mode": "individual",
            "selection": { "type": "preserve_recent", "keepRecentCount": keep },
            "individualConfig": {
                "defaults": { "toolResults": "suppress", "toolParameters": "suppress", "environmentDetails": "suppress" }
            }
        }]
    })
}

/// The configs of the roles the rule asks besides the manager's own config (which is the role
/// "summary"), from the manager's checked `config`: that config with another provider and no
/// fallback of its own, so its threshold, triggers, minimum gain and loop guard apply to them too.
/// The batch candidates (named after their providers): Lossless, and Smart keeping the working
/// set's turns whole (the last `2 x working_set_turns` messages); at the trigger, Smart keeping the
/// last [`AT_TRIGGER_KEEP`]; its own summary, Native keeping the working set's turns.
pub fn role_configs(config: &serde_json::Value, strict: bool, working_set_turns: u32) -> serde_json::Value {
    use crate::catalogue::NATIVE;
    use crate::providers::{lossless::ID as LOSSLESS, smart::ID as SMART};
    let keep = working_set_turns.saturating_mul(2);
    let empty = serde_json::Map::new();
    let providers = config.get("providers").and_then(|p| p.as_object()).unwrap_or(&empty);
    let role = |provider: &str, own: serde_json::Value| {
        let mut out = config.as_object().cloned().unwrap_or_default();
        let mut mine = providers.clone();
        mine.insert(provider.to_string(), own);
        out.insert("provider".into(), provider.into());
        out.insert("providers".into(), serde_json::Value::Object(mine));
        out.insert("fallback".into(), false.into());
        serde_json::Value::Object(out)
    };
    let mut native = providers.get(NATIVE.id).and_then(|n| n.as_object()).cloned().unwrap_or_default();
    native.insert("keepLast".into(), keep.into());
    let mut out = serde_json::Map::new();
    out.insert(LOSSLESS.into(), role(LOSSLESS, operations(strict)));
    out.insert(SMART.into(), role(SMART, suppress_old(keep, strict)));
    out.insert(ROLE_SMART_AT_TRIGGER.into(), role(SMART, suppress_old(AT_TRIGGER_KEEP, strict)));
    out.insert(ROLE_OWN_SUMMARY.into(), role(NATIVE.id, serde_json::Value::Object(native)));
    serde_json::Value::Object(out)
}

/// `Math.min` as JavaScript has it: NaN when either is.
fn min(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.min(b)
    }
}

/// `Math.max` as JavaScript has it: NaN when either is.
fn max(a: f64, b: f64) -> f64 {
    if a.is_nan() || b.is_nan() {
        f64::NAN
    } else {
        a.max(b)
    }
}

/// `Math.round` (half up) as the reports write a number of turns or tokens.
fn round(x: f64) -> f64 {
    (x + 0.5).floor()
}

/// A number as JavaScript writes it in a template (`${n}`).
fn js(n: f64) -> String {
    cost::js_number(n)
}

/// Dollars with four decimals, as `x.toFixed(4)` writes them.
fn dollars(x: f64) -> String {
    if x.is_finite() {
        let s = format!("{x:.4}");
        format!("${s}")
    } else {
        format!("${}", cost::js_number(x))
    }
}

/// The policy's settings (read and checked by the host's option reader).
#[derive(Debug, Clone)]
pub struct Settings {
    pub name: String,
    pub kind: Kind,
    pub pricing: Pricing,
    pub working_set_turns: f64,
    pub summary_tokens: f64,
}

impl Settings {
    /// What a read of `tokens` costs.
    fn reads(&self, tokens: f64) -> f64 {
        let usage = Usage { cache_read_tokens: Some(tokens), ..Usage::default() };
        cost::usage_cost(&usage, &self.pricing)
    }

    /// A summary's size: `summaryTokens`, at most half of what it summarizes, at least 1.
    fn summary_size(&self, input: f64) -> f64 {
        max(1.0, min(self.summary_tokens, (input / 2.0).floor()))
    }

    /// What a summary call that reads `input` tokens costs, priced as a host sends it (nothing of it
    /// cached), with an answer of its size. The same price for this policy's summaries and the shadow's.
    pub fn summary_bill(&self, input: f64) -> f64 {
        let f = cache_model::fresh_request_cost(self.kind, &self.pricing, input, self.summary_size(input));
        f.input_cost + f.output_cost
    }
}

/// What the rule keeps per task between calls.
#[derive(Debug, Clone, PartialEq)]
pub struct TaskState {
    /// The system prompt the task's cache models were made for (its size, and its text when the
    /// host gave it); nothing cached is valid under another.
    system_tokens: Option<f64>,
    system_text: Option<String>,
    /// Requests so far less one (the turn of the current call, from 0); -1 before the first call.
    pub turn: f64,
    pub appended_tokens: f64,
    pub last_try: f64,
    pub rewritten: f64,
    pub last_summary_turn: f64,
    pub after_summary: Option<f64>,
    /// Summaries this policy has made (its own and the manager's config's).
    pub summaries: f64,
    /// What the requests sent so far and this policy's summaries are billed.
    pub bill: f64,
    /// Roo's default on the same task: its bill and its summaries.
    pub shadow_bill: f64,
    pub shadow_summaries: f64,
}

impl Default for TaskState {
    fn default() -> Self {
        TaskState {
            system_tokens: None,
            system_text: None,
            turn: -1.0,
            appended_tokens: 0.0,
            last_try: 0.0,
            rewritten: 0.0,
            last_summary_turn: 0.0,
            after_summary: None,
            summaries: 0.0,
            bill: 0.0,
            shadow_bill: 0.0,
            shadow_summaries: 0.0,
        }
    }
}

/// What a call's account of the task says.
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Account {
    /// The task is seen for the first time: its history up to its last reply was the request sent.
    pub fresh: bool,
    /// New cache models (for this policy and the shadow) from this call on: the first call, or
    /// another system prompt.
    pub remake: bool,
    /// The previous request is priced (it went out under the same system prompt).
    pub bill: bool,
}

impl TaskState {
    /// Brings the task up to this call: the system prompt (`system_text` when the host gave it),
    /// the turn (a task first seen counts its `assistants` messages as its turns).
    pub fn account(&mut self, system_tokens: f64, system_text: Option<&str>, assistants: f64) -> Account {
        let fresh = self.turn < 0.0;
        let had = self.system_tokens.is_some();
        let remake = !had
            || self.system_tokens != Some(system_tokens)
            || (system_text.is_some() && self.system_text.as_deref() != system_text);
        if remake {
            self.system_tokens = Some(system_tokens);
            self.system_text = system_text.map(str::to_string);
        }
        if fresh {
            self.turn = assistants;
        } else {
            self.turn += 1.0;
        }
        Account { fresh, remake, bill: !(remake && had) }
    }

    /// The previous request's price in this policy's cache model and in the shadow's.
    pub fn billed(&mut self, own: f64, shadow: f64) {
        self.bill += own;
        self.shadow_bill += shadow;
    }

    /// The tokens appended since the previous request.
    pub fn appended(&mut self, tokens: f64) {
        self.appended_tokens += tokens;
    }

    /// Roo's default at this call, its history of `len` messages: when its history has reached
    /// the trigger (`condense`, the manager's decision for it), the message from which its summary
    /// keeps the last messages (`None`: too little to summarize).
    pub fn shadow_summary_due(&self, condense: bool, len: usize) -> Option<usize> {
        let keep_start = len.checked_sub(ROO_KEEP_LAST)?;
        (condense && keep_start > 2).then_some(keep_start)
    }

    /// Roo's default summarized `input` tokens: its bill and count. Answers the stand-in summary's tokens.
    pub fn shadow_summarized(&mut self, settings: &Settings, input: f64) -> f64 {
        self.shadow_bill += settings.summary_bill(input);
        self.shadow_summaries += 1.0;
        settings.summary_size(input)
    }

    /// Whether one more summary it chooses leaves it at most half as many as Roo's default has made.
    fn under_half(&self) -> bool {
        self.summaries + 1.0 <= (self.shadow_summaries / 2.0).floor()
    }
}

/// The figures of one call (`ManagedResult.policy`'s numbers).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Figures {
    pub trigger: f64,
    pub growth: f64,
    pub remaining: f64,
    pub batch: f64,
}

/// What the manager's decision says about a call (`ManagerRules.decide`): its threshold and the
/// allowed size.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Decision {
    pub threshold_percent: f64,
    pub allowed_tokens: f64,
}

/// The call's figures: where the trigger is (the threshold's share of the window, or the allowed
/// size if lower), the growth per turn, the turns taken to remain, and the batch that minimises
/// re-writes plus reads per turn: `sqrt(2 x premium x growth x rewritten / read price)`, at most
/// half the trigger, where `rewritten` is what the last condensing made the next request write again.
pub fn figures(
    state: &TaskState,
    settings: &Settings,
    decision: Decision,
    context_window: f64,
    expected_turns: Option<f64>,
) -> Figures {
    let turn = state.turn;
    let trigger = min(((decision.threshold_percent / 100.0) * context_window).floor(), decision.allowed_tokens);
    let growth = max(1.0, state.appended_tokens / (turn + 1.0));
    let remaining = match expected_turns {
        Some(e) => max(1.0, e - turn),
        None => max(MIN_REMAINING, turn),
    };
    let premium = settings.pricing.rewrite_premium(settings.kind);
    let rewritten = max(state.rewritten, growth);
    let batch = min(trigger / 2.0, ((2.0 * premium * growth * rewritten) / settings.pricing.cache_reads_price).sqrt());
    Figures { trigger, growth, remaining, batch }
}

/// What the host found when it asked a role (a candidate).
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Candidate {
    pub condensed: bool,
    /// The provider that condensed (or, when none did, the first one tried).
    pub provider: Option<String>,
    /// Why it did not condense (its error, report or reason skipped), or its report when it did.
    pub report: String,
    /// The prompt's tokens with it (the system prompt and its messages).
    pub tokens_after: f64,
    pub first_changed: f64,
    /// The tokens of the messages it summarized away (what a Native summary read).
    pub removed_tokens: f64,
    /// What the next request would cost with it, its tokens and what of them it would read from the
    /// cache (asked when the step says `priced`).
    pub if_taken_cost: f64,
    pub if_taken_tokens: f64,
    pub if_taken_cached_read: f64,
    /// What the next request would cost without it.
    pub now_cost: f64,
}

/// One thing the policy asked for on a call, taken or not, and why (`ManagedResult.policy.steps`).
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct StepRecord {
    pub role: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub provider: Option<String>,
    pub taken: bool,
    pub tokens_before: f64,
    pub tokens_after: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub first_changed: Option<f64>,
    pub why: String,
}

/// What the host does next.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum Step {
    /// Ask each role in turn (forced or not) of the history as it is, then hand back each
    /// candidate (with the next request's prices with and without it when `priced`).
    Propose { roles: Vec<String>, force: bool, priced: bool },
    /// Price the shadow's next request (its history as it is now), then hand back its cost.
    PriceShadow,
    /// Say whether the manager's config condenses the history as it is now (its decision).
    Decide,
    /// Price the next request as the history is, and (when `roo` is given) as Roo's summary would
    /// leave it: the first message, a stand-in of `standIn` tokens, the messages from `keepStart` on.
    PriceNow { roo: Option<RooSummary> },
    /// Take candidate `index` of the last proposal (its messages become the history), then hand
    /// back the history's message tokens.
    Take { index: usize, role: String },
    /// The call is over.
    Done,
}

#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct RooSummary {
    pub keep_start: usize,
    pub stand_in: f64,
}

/// Why a step's outcome cannot be taken.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum PolicyError {
    #[error("the call is at \"{at}\", not \"{expected}\"")]
    OutOfStep { at: &'static str, expected: &'static str },
    #[error("{got} candidates for a proposal of {asked} roles")]
    Candidates { got: usize, asked: usize },
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Batch,
    OwnSummary,
    Trigger,
    Summary,
}

#[derive(Debug, Clone, PartialEq)]
enum Waiting {
    Proposal(Phase, Vec<String>),
    Shadow(Phase),
    Decision,
    Now,
    Taken(Phase),
    Nothing,
}

impl Waiting {
    fn name(&self) -> &'static str {
        match self {
            Waiting::Proposal(..) => "propose",
            Waiting::Shadow(_) => "price-shadow",
            Waiting::Decision => "decide",
            Waiting::Now => "price-now",
            Waiting::Taken(_) => "take",
            Waiting::Nothing => "done",
        }
    }
}

/// One call under the policy: made after the task's account, with the call's figures; then each
/// step's outcome handed back until `Done`.
#[derive(Debug, Clone)]
pub struct PolicyCall {
    settings: Settings,
    figures: Figures,
    system_tokens: f64,
    /// The history's message tokens, and the prompt's (the system prompt and the messages).
    messages: Vec<f64>,
    tokens: f64,
    prompt_tokens: f64,
    auto: bool,
    force: bool,
    /// The host's prompt cache holds nothing the next request could read (it expired, or the task
    /// is new to the policy): the request writes everything whatever is condensed.
    cold: bool,
    steps: Vec<StepRecord>,
    spent: f64,
    shadow_next: Option<f64>,
    waiting: Waiting,
    /// The candidates of the last proposal, and what the phase needs of them.
    candidates: Vec<(String, Candidate)>,
    horizon: f64,
    own_summary_why: String,
    /// Its own summary's price (its call, and the next request writing all after the system prompt again).
    own_summary_price: f64,
    /// At the trigger: the next request's cost now and the summary's cost per turn.
    now_cost: f64,
    summary_cost: f64,
    taking: Option<(String, Candidate, String)>,
    /// Where the step record of the candidate being taken goes among the call's steps.
    take_at: usize,
    /// Roo's summary of the history at the trigger, when priced.
    roo: Option<RooSummary>,
}

impl PolicyCall {
    /// A call of a task whose account is done: the history's message tokens, the system prompt's,
    /// the manager's decision for the history, whether the manager's config condenses before the
    /// allowed size (`auto`) and whether the host forces a condensing.
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        state: &TaskState,
        settings: Settings,
        system_tokens: f64,
        messages: Vec<f64>,
        decision: Decision,
        context_window: f64,
        expected_turns: Option<f64>,
        auto: bool,
        force: bool,
    ) -> PolicyCall {
        let figures = figures(state, &settings, decision, context_window, expected_turns);
        let tokens = system_tokens + messages.iter().sum::<f64>();
        PolicyCall {
            settings,
            figures,
            system_tokens,
            messages,
            tokens,
            prompt_tokens: tokens,
            auto,
            force,
            cold: false,
            steps: Vec::new(),
            spent: 0.0,
            shadow_next: None,
            waiting: Waiting::Nothing,
            candidates: Vec::new(),
            horizon: 0.0,
            own_summary_why: String::new(),
            own_summary_price: 0.0,
            now_cost: 0.0,
            summary_cost: f64::INFINITY,
            taking: None,
            take_at: 0,
            roo: None,
        }
    }

    /// Says the host's prompt cache holds nothing the next request could read: a condensing now
    /// re-writes nothing the request would not write anyway, so the batch is asked whatever the
    /// context has grown since the last try.
    pub fn cold_cache(mut self, cold: bool) -> PolicyCall {
        self.cold = cold;
        self
    }

    pub fn figures(&self) -> Figures {
        self.figures
    }

    pub fn prompt_tokens(&self) -> f64 {
        self.prompt_tokens
    }

    pub fn tokens(&self) -> f64 {
        self.tokens
    }

    pub fn steps(&self) -> &[StepRecord] {
        &self.steps
    }

    /// The first step.
    pub fn start(&mut self, state: &mut TaskState) -> Step {
        if self.auto && !self.force {
            let n = self.tokens;
            let f = self.figures;
            if (self.cold || n - state.last_try >= f.batch) && n < f.trigger {
                self.horizon = min(f.remaining, max(1.0, (f.trigger - n) / f.growth));
                return self.propose(
                    Phase::Batch,
                    &[crate::providers::lossless::ID, crate::providers::smart::ID],
                    true,
                    true,
                );
            }
            return self.own_summary(state);
        }
        self.summary()
    }

    fn propose(&mut self, phase: Phase, roles: &[&str], force: bool, priced: bool) -> Step {
        let roles: Vec<String> = roles.iter().map(|r| r.to_string()).collect();
        self.waiting = Waiting::Proposal(phase, roles.clone());
        Step::Propose { roles, force, priced }
    }

    fn expect(&self, expected: &'static str) -> PolicyError {
        PolicyError::OutOfStep { at: self.waiting.name(), expected }
    }

    /// The candidates of the roles the last `Propose` named, in its order.
    pub fn proposed(&mut self, state: &mut TaskState, candidates: Vec<Candidate>) -> Result<Step, PolicyError> {
        let Waiting::Proposal(phase, roles) = self.waiting.clone() else { return Err(self.expect("propose")) };
        if candidates.len() != roles.len() {
            return Err(PolicyError::Candidates { got: candidates.len(), asked: roles.len() });
        }
        self.candidates = roles.into_iter().zip(candidates).collect();
        let needs_shadow = match phase {
            Phase::Batch => self.candidates.iter().any(|(_, c)| c.condensed),
            _ => false,
        };
        if needs_shadow && self.shadow_next.is_none() {
            self.waiting = Waiting::Shadow(phase);
            return Ok(Step::PriceShadow);
        }
        Ok(self.decide_phase(state, phase))
    }

    /// The shadow's next request costs `cost`.
    pub fn shadow_priced(&mut self, state: &mut TaskState, cost: f64) -> Result<Step, PolicyError> {
        let Waiting::Shadow(phase) = self.waiting.clone() else { return Err(self.expect("price-shadow")) };
        self.shadow_next = Some(cost);
        Ok(match phase {
            Phase::OwnSummary => self.own_summary_priced(state),
            other => self.decide_phase(state, other),
        })
    }

    /// What Roo's default is billed once this call's request is sent.
    fn shadow_bill(&self, state: &TaskState) -> f64 {
        state.shadow_bill + self.shadow_next.unwrap_or(0.0)
    }

    /// Whether a step it need not take leaves the task, were it to end with this request (whose
    /// cost with the step is `next`), billed at most `1 + RISK` times what Roo's default is billed.
    fn affordable(&self, state: &TaskState, next: f64) -> bool {
        state.bill + self.spent + next <= (1.0 + RISK) * self.shadow_bill(state)
    }

    fn not_taken(&mut self, role: &str, c: &Candidate, why: String) {
        let (before, after) = if c.condensed { (self.tokens, c.tokens_after) } else { (self.tokens, self.tokens) };
        self.steps.push(StepRecord {
            role: role.to_string(),
            provider: c.provider.clone(),
            taken: false,
            tokens_before: before,
            tokens_after: after,
            first_changed: None,
            why,
        });
    }

    fn decide_phase(&mut self, state: &mut TaskState, phase: Phase) -> Step {
        match phase {
            Phase::Batch => self.batch_chosen(state),
            Phase::OwnSummary => self.own_summary_done(state),
            Phase::Trigger => self.trigger_chosen(state),
            Phase::Summary => self.summary_done(state),
        }
    }

    /// A batch's candidates: the one worth most (its reads saved until the trigger, at most the
    /// turns to come, less what it costs the next request more), when it pays and is affordable;
    /// Lossless wins a tie.
    fn batch_chosen(&mut self, state: &mut TaskState) -> Step {
        let horizon = self.horizon;
        let candidates = std::mem::take(&mut self.candidates);
        let mut rows = Vec::new();
        let mut best: Option<usize> = None;
        for (i, (role, c)) in candidates.iter().enumerate() {
            if !c.condensed {
                self.not_taken(role, c, c.report.clone());
                continue;
            }
            let saved = self.tokens - c.tokens_after;
            let (v, reads, rewrite) = if saved <= 0.0 {
                (f64::NEG_INFINITY, 0.0, 0.0)
            } else {
                let reads = self.settings.reads(saved) * horizon;
                let rewrite = c.if_taken_cost - c.now_cost;
                (reads - rewrite, reads, rewrite)
            };
            let why = format!(
                "{}saves {} tokens: reads over {} turns {} against {} more for the next request",
                if self.cold { "the cache holds nothing to read (it expired, or the task is new): " } else { "" },
                js(saved),
                js(round(horizon)),
                dollars(reads),
                dollars(rewrite)
            );
            let affordable = self.affordable(state, c.if_taken_cost);
            if v > 0.0 && affordable && best.is_none_or(|b: usize| v > rows_value(&rows, b)) {
                best = Some(rows.len());
            }
            rows.push((i, v, why, affordable));
        }
        for (k, (i, v, why, affordable)) in rows.iter().enumerate() {
            if Some(k) == best {
                continue;
            }
            let reason = if *v <= 0.0 {
                "does not pay".to_string()
            } else if !affordable {
                format!(
                    "would bill the task more than {} times what Roo's default is billed ({}) if it ended now",
                    js(1.0 + RISK),
                    dollars(self.shadow_bill(state))
                )
            } else {
                let b = best.map(|b| rows[b].0).unwrap_or(0);
                format!("{} is worth more", candidates[b].0)
            };
            let (role, c) = &candidates[*i];
            self.not_taken(role, c, format!("{why}: {reason}"));
        }
        self.candidates = candidates;
        match best {
            Some(b) => {
                let (i, _, why, _) = rows[b].clone();
                let c = &self.candidates[i].1;
                state.rewritten = c.if_taken_tokens - c.if_taken_cached_read;
                self.take(i, format!("{why}: worth most"), Phase::Batch)
            }
            None => {
                state.last_try = self.tokens;
                self.own_summary(state)
            }
        }
    }

    /// Records the take of candidate `i` and asks the host to take it.
    fn take(&mut self, i: usize, why: String, phase: Phase) -> Step {
        let (role, c) = self.candidates[i].clone();
        self.taking = Some((role.clone(), c, why));
        self.take_at = self.steps.len();
        self.waiting = Waiting::Taken(phase);
        Step::Take { index: i, role }
    }

    /// The host took the candidate: the history's message tokens now.
    pub fn taken(&mut self, state: &mut TaskState, messages: Vec<f64>) -> Result<Step, PolicyError> {
        let Waiting::Taken(phase) = self.waiting.clone() else { return Err(self.expect("take")) };
        let Some((role, c, why)) = self.taking.take() else { return Err(self.expect("take")) };
        let native = c.provider.as_deref() == Some(crate::catalogue::NATIVE.id);
        if native {
            self.spent += self.settings.summary_bill(c.removed_tokens);
        }
        let before = self.tokens;
        self.messages = messages;
        self.tokens = c.tokens_after;
        self.steps.insert(
            self.take_at.min(self.steps.len()),
            StepRecord {
                role,
                provider: c.provider.clone(),
                taken: true,
                tokens_before: before,
                tokens_after: c.tokens_after,
                first_changed: Some(c.first_changed),
                why,
            },
        );
        Ok(match phase {
            Phase::Batch => {
                state.last_try = self.tokens;
                self.own_summary(state)
            }
            Phase::OwnSummary => {
                if native {
                    self.summarized(state);
                }
                self.waiting = Waiting::Decision;
                Step::Decide
            }
            Phase::Trigger => self.after_trigger(state),
            Phase::Summary => {
                if native {
                    self.summarized(state);
                }
                self.waiting = Waiting::Nothing;
                Step::Done
            }
        })
    }

    fn summarized(&mut self, state: &mut TaskState) {
        state.summaries += 1.0;
        state.last_summary_turn = state.turn;
        state.after_summary = Some(self.tokens);
        state.last_try = self.tokens;
    }

    /// A summary of its own: no sooner than twice the default's cycle at this growth after the
    /// last one, while it has made fewer than half the shadow's summaries, and when the reads it
    /// saves until the next may run beat its price (its call, and the next request writing all
    /// after the system prompt again).
    fn own_summary(&mut self, state: &mut TaskState) -> Step {
        let f = self.figures;
        let sys = self.system_tokens;
        let roo_cycle = max(1.0, (f.trigger - state.after_summary.unwrap_or(sys)) / f.growth);
        let since = state.turn - state.last_summary_turn;
        let m = self.tokens;
        let keep = (2.0 * self.settings.working_set_turns) as usize;
        let held = self.messages.len();
        if since >= 2.0 * roo_cycle && m < f.trigger && held > keep.saturating_add(2) && state.under_half() {
            let input: f64 = self.messages[1..held - keep].iter().sum();
            let after = sys
                + self.messages[0]
                + min(self.settings.summary_tokens, (input / 2.0).floor())
                + self.messages[held - keep..].iter().sum::<f64>();
            let next = cost::usage_cost(
                &Usage { cache_read_tokens: Some(sys), cache_write_tokens: Some(after - sys), ..Usage::default() },
                &self.settings.pricing,
            );
            let price = self.settings.summary_bill(input) + next;
            let saves = self.settings.reads(max(0.0, m - after)) * min(f.remaining, 2.0 * roo_cycle);
            self.own_summary_why = format!(
                "{} turns since the last summary (the default's cycle here: {}); saves {} of reads against its price {}",
                js(since),
                js(round(roo_cycle)),
                dollars(saves),
                dollars(price)
            );
            if saves > price {
                self.own_summary_price = price;
                if self.shadow_next.is_none() {
                    self.waiting = Waiting::Shadow(Phase::OwnSummary);
                    return Step::PriceShadow;
                }
                return self.own_summary_priced(state);
            }
        }
        self.waiting = Waiting::Decision;
        Step::Decide
    }

    fn own_summary_priced(&mut self, state: &mut TaskState) -> Step {
        if self.affordable(state, self.own_summary_price) {
            return self.propose(Phase::OwnSummary, &[ROLE_OWN_SUMMARY], true, false);
        }
        self.waiting = Waiting::Decision;
        Step::Decide
    }

    fn own_summary_done(&mut self, _state: &mut TaskState) -> Step {
        let (role, c) = self.candidates[0].clone();
        let why = self.own_summary_why.clone();
        if c.condensed {
            return self.take(0, why, Phase::OwnSummary);
        }
        self.not_taken(&role, &c, format!("{why}: {}", c.report));
        self.waiting = Waiting::Decision;
        Step::Decide
    }

    /// The manager's config condenses the history as it is (`condense`) or not.
    pub fn decided(&mut self, state: &mut TaskState, condense: bool) -> Result<Step, PolicyError> {
        if self.waiting != Waiting::Decision {
            return Err(self.expect("decide"));
        }
        if !condense {
            return Ok(self.summary());
        }
        let roo = if state.under_half() {
            let len = self.messages.len();
            len.checked_sub(ROO_KEEP_LAST).filter(|&k| k > 2).map(|keep_start| {
                let input: f64 = self.messages[1..keep_start].iter().sum();
                RooSummary { keep_start, stand_in: self.settings.summary_size(input) }
            })
        } else {
            None
        };
        self.waiting = Waiting::Now;
        self.taking = None;
        self.summary_cost = f64::INFINITY;
        self.candidates.clear();
        self.roo = roo;
        Ok(Step::PriceNow { roo })
    }

    /// The next request costs `now` as the history is, and (when asked) `roo` (its tokens and
    /// cost) as Roo's summary would leave it.
    pub fn priced_now(&mut self, now: f64, roo: Option<(f64, f64)>) -> Result<Step, PolicyError> {
        if self.waiting != Waiting::Now {
            return Err(self.expect("price-now"));
        }
        self.now_cost = now;
        if let (Some(r), Some((tokens, cost))) = (self.roo, roo) {
            let input: f64 = self.messages[1..r.keep_start].iter().sum();
            self.summary_cost = self.per_turn(tokens, self.settings.summary_bill(input) + cost - now);
        }
        Ok(self.propose(
            Phase::Trigger,
            &[crate::providers::lossless::ID, crate::providers::smart::ID, ROLE_SMART_AT_TRIGGER],
            true,
            true,
        ))
    }

    /// What a step leaving `after` tokens at `price` now costs per turn until the context is back
    /// at the trigger: its price plus the reads of each turn of that cycle, over the cycle's turns.
    fn per_turn(&self, after: f64, price: f64) -> f64 {
        let f = self.figures;
        let turns = max(1.0, min(f.remaining, (f.trigger - after) / f.growth));
        (price + self.settings.reads(after + (f.growth * (turns - 1.0)) / 2.0) * turns) / turns
    }

    /// At the trigger: of the candidates that leave room under it for a turn's growth, and Roo's
    /// summary, the one that costs least per turn until the context is back at the trigger. One
    /// that leaves little room pays its price over few turns, so the comparison, not a margin,
    /// rules it out. When the summary wins or nothing leaves room, the manager's config runs.
    fn trigger_chosen(&mut self, state: &mut TaskState) -> Step {
        let f = self.figures;
        let candidates = std::mem::take(&mut self.candidates);
        let mut room: Vec<(usize, f64)> = Vec::new();
        for (i, (role, c)) in candidates.iter().enumerate() {
            if !c.condensed {
                self.not_taken(role, c, format!("at the trigger: {}", c.report));
                continue;
            }
            if c.tokens_after + f.growth > f.trigger {
                let why = format!(
                    "at the trigger: does not leave room under the trigger ({}) for a turn's growth ({})",
                    js(f.trigger),
                    js(round(f.growth))
                );
                self.not_taken(role, c, why);
                continue;
            }
            room.push((i, self.per_turn(c.tokens_after, c.if_taken_cost - self.now_cost)));
        }
        let mut best: Option<usize> = None;
        for (k, x) in room.iter().enumerate() {
            if best.is_none_or(|b| x.1 < room[b].1) {
                best = Some(k);
            }
        }
        self.candidates = candidates;
        let mut take = None;
        for (k, &(i, cost)) in room.iter().enumerate() {
            let each = format!("{} a turn until the trigger", dollars(cost));
            let (role, c) = self.candidates[i].clone();
            if Some(k) == best && cost <= self.summary_cost {
                take = Some((i, format!("at the trigger: {each}, the least"), self.steps.len()));
            } else {
                let other = if Some(k) == best || cost > self.summary_cost {
                    format!("the summary {}", dollars(self.summary_cost))
                } else {
                    let b = best.map(|b| room[b].0).unwrap_or(0);
                    format!("{} less", self.candidates[b].0)
                };
                self.not_taken(&role, &c, format!("at the trigger: {each}, {other}"));
            }
        }
        match take {
            Some((i, why, at)) => {
                let step = self.take(i, why, Phase::Trigger);
                self.take_at = at;
                step
            }
            None => self.after_trigger(state),
        }
    }

    fn after_trigger(&mut self, state: &mut TaskState) -> Step {
        if self.tokens < self.figures.trigger {
            state.last_try = self.tokens;
        }
        self.summary()
    }

    /// The manager's own config: at the threshold (or forced), past the allowed size its fallbacks.
    fn summary(&mut self) -> Step {
        let force = self.force;
        self.propose(Phase::Summary, &[ROLE_SUMMARY], force, false)
    }

    fn summary_done(&mut self, _state: &mut TaskState) -> Step {
        let c = self.candidates[0].1.clone();
        if c.condensed {
            return self.take(0, c.report.clone(), Phase::Summary);
        }
        self.waiting = Waiting::Nothing;
        Step::Done
    }

    /// The call's end: this policy's summaries billed, and what it did. `last_report`: the report
    /// of the manager's own config's answer, said when no step was taken.
    pub fn finish(&mut self, state: &mut TaskState, last_report: Option<&str>) -> Result<Finish, PolicyError> {
        if self.waiting != Waiting::Nothing {
            return Err(self.expect("done"));
        }
        state.bill += self.spent;
        self.spent = 0.0;
        let taken: Vec<&StepRecord> = self.steps.iter().filter(|s| s.taken).collect();
        let name = &self.settings.name;
        let report = if taken.is_empty() {
            let said = if !self.steps.is_empty() {
                self.steps.iter().map(|s| format!("{}: {}", s.role, s.why)).collect::<Vec<_>>().join("; ")
            } else {
                last_report.unwrap_or("no batch due, under the threshold").to_string()
            };
            format!("Context not condensed ({name}): {said}")
        } else {
            let each = taken
                .iter()
                .map(|s| {
                    format!(
                        "{} ({}) {} -> {}",
                        s.role,
                        s.provider.as_deref().unwrap_or("undefined"),
                        js(s.tokens_before),
                        js(s.tokens_after)
                    )
                })
                .collect::<Vec<_>>()
                .join(", then ");
            format!("Context condensed ({name}): {each}")
        };
        Ok(Finish {
            condensed: !taken.is_empty(),
            provider: taken.last().and_then(|s| s.provider.clone()),
            report,
            tokens: self.tokens,
        })
    }
}

/// What a call did, besides its steps.
#[derive(Debug, Clone, PartialEq)]
pub struct Finish {
    pub condensed: bool,
    pub provider: Option<String>,
    pub report: String,
    pub tokens: f64,
}

/// The value of the row `b` of a batch's candidates.
fn rows_value(rows: &[(usize, f64, String, bool)], b: usize) -> f64 {
    rows[b].1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings() -> Settings {
        Settings {
            name: "cache-aware".into(),
            kind: Kind::Anthropic,
            pricing: Kind::Anthropic.default_pricing(),
            working_set_turns: 10.0,
            summary_tokens: 2000.0,
        }
    }

    /// A task at turn 9 that grew 1,000 tokens a turn, billed as Roo's default would be.
    fn task() -> TaskState {
        TaskState { turn: 9.0, appended_tokens: 10_000.0, bill: 1.0, shadow_bill: 1.0, ..TaskState::default() }
    }

    /// A call over `n` messages of 1,000 tokens with a 10,000-token system prompt; the trigger at 90,000.
    fn call(state: &TaskState, n: usize, expected: Option<f64>) -> PolicyCall {
        let decision = Decision { threshold_percent: 100.0, allowed_tokens: 90_000.0 };
        PolicyCall::new(state, settings(), 10_000.0, vec![1000.0; n], decision, 100_000.0, expected, true, false)
    }

    fn condensed(tokens_after: f64, if_taken_cost: f64, now_cost: f64) -> Candidate {
        Candidate {
            condensed: true,
            provider: Some("lossless".into()),
            report: String::new(),
            tokens_after,
            if_taken_cost,
            now_cost,
            ..Candidate::default()
        }
    }

    #[test]
    fn the_batch_minimises_rewrites_plus_reads_and_is_asked_once_grown() {
        let state = task();
        let f = call(&state, 10, None).figures();
        // sqrt(2 x (3.75 - 0.3) x 1000 x 1000 / 0.3), under half the trigger.
        assert_eq!(f.trigger, 90_000.0);
        assert_eq!(f.growth, 1000.0);
        assert!((f.batch - (2.0f64 * 3.45 * 1000.0 * 1000.0 / 0.3).sqrt()).abs() < 1e-9, "{}", f.batch);
        // What the last condensing made the next request write again counts when larger.
        let rewrote = TaskState { rewritten: 4000.0, ..task() };
        assert!(
            (call(&rewrote, 10, None).figures().batch - (2.0f64 * 3.45 * 1000.0 * 4000.0 / 0.3).sqrt()).abs() < 1e-9
        );
        // At most half the trigger.
        let fast = TaskState { appended_tokens: 10_000_000.0, ..task() };
        assert_eq!(call(&fast, 10, None).figures().batch, 45_000.0);
        // Remaining turns: at least MIN_REMAINING, else as many as elapsed, else what the host says.
        assert_eq!(f.remaining, MIN_REMAINING);
        assert_eq!(call(&TaskState { turn: 30.0, ..task() }, 10, None).figures().remaining, 30.0);
        assert_eq!(call(&state, 10, Some(12.0)).figures().remaining, 3.0);
        // Grown by less than a batch since the last try: no batch (and no summary due): the decision.
        let mut tried = TaskState { last_try: 20_000.0 - f.batch + 1.0, ..task() };
        assert_eq!(call(&tried, 10, None).start(&mut tried), Step::Decide);
        let mut due = TaskState { last_try: 20_000.0 - f.batch, ..task() };
        assert_eq!(
            call(&due, 10, None).start(&mut due),
            Step::Propose { roles: vec!["lossless".into(), "smart".into()], force: true, priced: true }
        );
    }

    #[test]
    fn a_cold_cache_asks_the_batch_whatever_the_growth_but_not_past_the_trigger() {
        let f = call(&task(), 10, None).figures();
        let batch = Step::Propose { roles: vec!["lossless".into(), "smart".into()], force: true, priced: true };
        // Grown by a token since the last try: the batch only when the cache holds nothing to read.
        let mut tried = TaskState { last_try: 20_000.0 - 1.0, ..task() };
        assert_eq!(call(&tried, 10, None).start(&mut tried), Step::Decide);
        assert_eq!(call(&tried, 10, None).cold_cache(false).start(&mut tried), Step::Decide);
        let mut cold = call(&tried, 10, None).cold_cache(true);
        assert_eq!(cold.start(&mut tried), batch);
        // Its price now is no re-write: it pays on the reads alone, and says why it was asked.
        let pays = vec![condensed(15_000.0, 0.009, 0.01), Candidate { condensed: false, ..Candidate::default() }];
        assert_eq!(cold.proposed(&mut tried, pays), Ok(Step::PriceShadow));
        assert_eq!(cold.shadow_priced(&mut tried, 0.01), Ok(Step::Take { index: 0, role: "lossless".into() }));
        assert!(cold.taken(&mut tried, vec![1000.0; 5]).is_ok());
        let took = cold.steps().iter().find(|s| s.taken).expect("the batch taken");
        assert!(took.why.starts_with("the cache holds nothing to read"), "{}", took.why);
        // At the trigger the trigger's rule applies, cold or not.
        let n = (f.trigger / 1000.0) as usize;
        let mut full = TaskState { last_try: f.trigger, ..task() };
        assert_ne!(call(&full, n, None).cold_cache(true).start(&mut full), batch);
        // A forced call runs the config, cold or not.
        let mut forced = task();
        let decision = Decision { threshold_percent: 100.0, allowed_tokens: 90_000.0 };
        let mut c =
            PolicyCall::new(&forced, settings(), 10_000.0, vec![1000.0; 10], decision, 100_000.0, None, true, true)
                .cold_cache(true);
        assert_ne!(c.start(&mut forced), batch);
    }

    /// Runs a batch with these candidates and the shadow's next request at `shadow`; answers the step taken.
    fn batch(state: &mut TaskState, candidates: Vec<Candidate>, shadow: f64) -> (Step, PolicyCall) {
        let mut c = call(state, 10, None);
        assert!(matches!(c.start(state), Step::Propose { .. }));
        assert_eq!(c.proposed(state, candidates), Ok(Step::PriceShadow));
        let step = c.shadow_priced(state, shadow).expect("a step");
        (step, c)
    }

    #[test]
    fn a_step_it_need_not_take_keeps_the_task_within_the_guarantee() {
        // Saves 5,000 tokens: reads of 0.0015 a turn over 10 turns against 0.002 more now: it pays.
        let pays = || vec![condensed(15_000.0, 0.012, 0.01), Candidate { condensed: false, ..Candidate::default() }];
        // Billed 1.0 + 0.012 against 1.02 x 1.0: taken.
        let mut state = task();
        let (step, _) = batch(&mut state, pays(), 0.0);
        assert_eq!(step, Step::Take { index: 0, role: "lossless".into() });
        // Billed 1.009 + 0.012 = 1.021 against 1.02: not taken, and the reason says so.
        let mut state = TaskState { bill: 1.009, ..task() };
        let (step, c) = batch(&mut state, pays(), 0.0);
        assert_eq!(step, Step::Decide);
        assert!(c.steps()[1].why.contains("would bill the task more than 1.02 times"), "{:?}", c.steps());
        // Exactly at 1.02 times Roo's default's bill (50 + 1 against 1.02 x 50): within.
        let mut state = TaskState { bill: 50.0, shadow_bill: 50.0, ..task() };
        let (step, _) = batch(&mut state, vec![condensed(15_000.0, 1.0, 0.999), Candidate::default()], 0.0);
        assert_eq!(step, Step::Take { index: 0, role: "lossless".into() });
        // The shadow's next request counts in its bill: with it, the same step is within.
        let mut state = TaskState { bill: 1.009, ..task() };
        assert_eq!(batch(&mut state, pays(), 0.01).0, Step::Take { index: 0, role: "lossless".into() });
    }

    #[test]
    fn the_candidate_worth_most_is_taken_and_lossless_wins_a_tie() {
        let smart = |c: Candidate| Candidate { provider: Some("smart".into()), ..c };
        let mut state = task();
        let (step, c) =
            batch(&mut state, vec![condensed(15_000.0, 0.012, 0.01), smart(condensed(15_000.0, 0.012, 0.01))], 0.0);
        assert_eq!(step, Step::Take { index: 0, role: "lossless".into() });
        assert!(c.steps()[0].why.ends_with("lossless is worth more"), "{:?}", c.steps());
        let mut state = task();
        let (step, _) =
            batch(&mut state, vec![condensed(15_000.0, 0.012, 0.01), smart(condensed(14_000.0, 0.012, 0.01))], 0.0);
        assert_eq!(step, Step::Take { index: 1, role: "smart".into() });
        // One whose re-write costs more than its reads save is not taken.
        let mut state = task();
        let (step, c) =
            batch(&mut state, vec![condensed(15_000.0, 0.03, 0.01), smart(condensed(15_000.0, 0.03, 0.01))], 0.0);
        assert_eq!(step, Step::Decide);
        assert!(c.steps().iter().all(|s| !s.taken && s.why.ends_with("does not pay")));
        // Taken: the next request's re-write is what the next batch is sized by.
        let mut state = task();
        let taken =
            Candidate { if_taken_tokens: 15_000.0, if_taken_cached_read: 11_000.0, ..condensed(15_000.0, 0.012, 0.01) };
        let (_, mut c) = batch(&mut state, vec![taken, Candidate::default()], 0.0);
        assert_eq!(state.rewritten, 4000.0);
        assert_eq!(c.taken(&mut state, vec![1000.0; 5]), Ok(Step::Decide));
        assert_eq!(state.last_try, 15_000.0);
    }

    /// Brings a call to the trigger's candidates; `summaries`: Roo's default's so far.
    fn at_trigger(state: &mut TaskState, roo_cost: f64, candidates: Vec<Candidate>) -> (Step, PolicyCall) {
        // 80 messages of 1,000: 90,000 tokens, at the trigger; no batch (under it only).
        let mut c = call(state, 80, None);
        assert_eq!(c.start(state), Step::Decide);
        let Ok(Step::PriceNow { roo }) = c.decided(state, true) else { panic!("no price-now") };
        let roo_priced = roo.map(|r| {
            assert_eq!(r, RooSummary { keep_start: 77, stand_in: 2000.0 });
            (10_000.0 + 1000.0 + 2000.0 + 3000.0, roo_cost)
        });
        assert!(matches!(c.priced_now(0.05, roo_priced), Ok(Step::Propose { .. })));
        let step = c.proposed(state, candidates).expect("a step");
        (step, c)
    }

    #[test]
    fn at_the_trigger_the_least_cost_per_turn_until_it_is_back_there() {
        let smart = |c: Candidate| Candidate { provider: Some("smart".into()), ..c };
        let three = || {
            vec![
                // Leaves no room for a turn's growth (1,000) under the trigger.
                condensed(89_500.0, 0.05, 0.05),
                // (0.55 + 44,500 tokens read) / 10 turns: 0.06835 a turn.
                smart(condensed(40_000.0, 0.6, 0.05)),
                // (0.56 + 34,500 tokens read) / 10 turns: 0.06635 a turn.
                smart(condensed(30_000.0, 0.61, 0.05)),
            ]
        };
        // Roo's default has made no summary: none of its own is weighed; the cheapest per turn is taken.
        let mut state = task();
        let (step, c) = at_trigger(&mut state, 0.0, three());
        assert_eq!(step, Step::Take { index: 2, role: "smartAtTrigger".into() });
        assert!(c.steps()[0].why.contains("does not leave room under the trigger (90000)"), "{:?}", c.steps());
        // Roo's default has made two summaries (this policy none): a summary is weighed (its call,
        // 0.315, and its next request 0.06 against 0.05 now, plus 20,500 tokens read a turn:
        // 0.03865 a turn), cheaper than either: the manager's config runs.
        let mut state = TaskState { shadow_summaries: 2.0, ..task() };
        let (step, c) = at_trigger(&mut state, 0.06, three());
        assert_eq!(step, Step::Propose { roles: vec!["summary".into()], force: false, priced: false });
        assert!(c.steps()[1..].iter().all(|s| s.why.contains("the summary $0.0386")), "{:?}", c.steps());
        assert_eq!(state.last_try, 0.0, "at the trigger, no try is recorded");
        // A summary at 0.06865 a turn: dearer than both, Smart keeping fewer is taken.
        let mut state = TaskState { shadow_summaries: 2.0, ..task() };
        let (step, c) = at_trigger(&mut state, 0.36, three());
        assert_eq!(step, Step::Take { index: 2, role: "smartAtTrigger".into() });
        assert!(c.steps()[1].why.ends_with("smartAtTrigger less"), "{:?}", c.steps());
        // Roo's default has made one summary: half of it is none, so none is weighed.
        let mut state = TaskState { shadow_summaries: 1.0, ..task() };
        let mut c = call(&state, 80, None);
        c.start(&mut state);
        assert_eq!(c.decided(&mut state, true), Ok(Step::PriceNow { roo: None }));
        // While this policy has made half as many summaries as Roo's default, none is weighed.
        let mut state = TaskState { shadow_summaries: 2.0, summaries: 1.0, ..task() };
        assert_eq!(at_trigger(&mut state, 0.0, three()).0, Step::Take { index: 2, role: "smartAtTrigger".into() });
    }

    #[test]
    fn its_own_summary_after_twice_the_default_cycle_when_it_pays_and_is_affordable() {
        // Turn 200, 1,000 tokens a turn: the default's cycle from the system prompt to the trigger
        // is 80 turns; 60 messages (70,000 tokens) under the trigger, tried there already.
        let own = |last_summary_turn: f64, shadow_summaries: f64, shadow_bill: f64| TaskState {
            turn: 200.0,
            appended_tokens: 201_000.0,
            last_try: 70_000.0,
            last_summary_turn,
            shadow_summaries,
            shadow_bill,
            bill: 1.0,
            ..TaskState::default()
        };
        // Its price: the call (39,000 tokens written, 2,000 answered: 0.17625) and the next request
        // (10,000 read, 23,000 written: 0.08925); it saves 37,000 tokens read over 160 turns.
        let mut state = own(0.0, 2.0, 2.0);
        let mut c = call(&state, 60, None);
        assert_eq!(c.start(&mut state), Step::PriceShadow);
        assert_eq!(
            c.shadow_priced(&mut state, 0.0),
            Ok(Step::Propose { roles: vec!["ownSummary".into()], force: true, priced: false })
        );
        let summary =
            Candidate { provider: Some("native".into()), removed_tokens: 39_000.0, ..condensed(33_000.0, 0.0, 0.0) };
        assert_eq!(c.proposed(&mut state, vec![summary]), Ok(Step::Take { index: 0, role: "ownSummary".into() }));
        assert_eq!(c.taken(&mut state, vec![1000.0; 22]), Ok(Step::Decide));
        assert!(c.steps()[0].why.starts_with("200 turns since the last summary (the default's cycle here: 80)"));
        assert_eq!(
            (state.summaries, state.last_summary_turn, state.after_summary, state.last_try),
            (1.0, 200.0, Some(33_000.0), 33_000.0)
        );
        assert_eq!(
            c.decided(&mut state, false),
            Ok(Step::Propose { roles: vec!["summary".into()], force: false, priced: false })
        );
        assert_eq!(c.proposed(&mut state, vec![Candidate::default()]), Ok(Step::Done));
        let done = c.finish(&mut state, None).expect("the end");
        assert!(done.condensed);
        assert!((state.bill - 1.17625).abs() < 1e-12, "{}", state.bill);
        // Not affordable against Roo's default's bill (1.2655 against 1.02): none.
        let mut state = own(0.0, 2.0, 1.0);
        let mut c = call(&state, 60, None);
        assert_eq!(c.start(&mut state), Step::PriceShadow);
        assert_eq!(c.shadow_priced(&mut state, 0.0), Ok(Step::Decide));
        // Under twice the default's cycle since the last one, or at half Roo's default's count: none.
        for mut state in [own(100.0, 2.0, 2.0), own(0.0, 1.0, 2.0)] {
            assert_eq!(call(&state, 60, None).start(&mut state), Step::Decide);
        }
    }

    #[test]
    fn a_new_system_prompt_remakes_the_cache_and_leaves_the_request_unbilled() {
        let mut state = TaskState::default();
        assert_eq!(state.account(10_000.0, None, 4.0), Account { fresh: true, remake: true, bill: true });
        assert_eq!(state.turn, 4.0);
        assert_eq!(state.account(10_000.0, None, 9.0), Account { fresh: false, remake: false, bill: true });
        assert_eq!(state.turn, 5.0);
        assert_eq!(state.account(12_000.0, None, 9.0), Account { fresh: false, remake: true, bill: false });
        assert_eq!(state.account(12_000.0, Some("a"), 9.0), Account { fresh: false, remake: true, bill: false });
        assert!(!state.account(12_000.0, Some("a"), 9.0).remake);
        // Roo's default summarizes at the trigger, keeping the first message and the last three.
        assert_eq!(state.shadow_summary_due(true, 6), Some(3));
        assert_eq!(state.shadow_summary_due(true, 5), None);
        assert_eq!(state.shadow_summary_due(false, 60), None);
        let standin = state.shadow_summarized(&settings(), 3000.0);
        assert_eq!((standin, state.shadow_summaries), (1500.0, 1.0));
    }
}
