//! One condensing call's course, step by step, and the loop guard's state per task: what the host
//! runs next (a provider of the fallback chain, or the sliding window), what each outcome means
//! (a failure, a gain under the minimum, a result to adopt) and what the call reports. Pure: it
//! runs no provider, counts no token and never sees the messages; the host runs what a step says
//! and hands back the outcome (an error, or the tokens after).
//!
//! The rules, in the order a call meets them:
//! - a task cooling down (its guard) tries no provider;
//! - the chain is the config's provider, then Native when the config falls back, the host has a
//!   summarize callback and the first provider is not Native already; Native without a callback
//!   fails at once (it has nothing to summarize with);
//! - a result that does not shrink the context fails that attempt (the next one runs);
//! - a gain under the minimum, the context not past its allowed size, changes nothing (the guard
//!   counts a failure) and the call stops there; any other gain is adopted (the guard resets);
//! - when every attempt failed the guard counts a failure, and the call gives up with the joined
//!   errors, unless the context is past its allowed size and the config falls back: then the
//!   sliding window cuts half of the messages after the first, its tokens counted as the context
//!   less what the cut removed;
//! - with `cutUntilFits` (the default) and the config falling back, a request is made to fit: a
//!   result adopted while still past the allowed size is cut by the window too, and the window
//!   cuts again while the context is past it and a cut still removes something (when the half cut
//!   removes nothing, once, all between the first message and the last exchange); each provider is
//!   run told the allowed size then (Native asks no summary the cut would remove). Without it, as
//!   Roo Code does, a result is handed back as it is and the window cuts once.

use std::collections::HashMap;

use serde::Serialize;

use super::*;

/// How many tasks' guard states are kept at most (`ManagerGuards` in the binding states 256 too).
/// A state at its start (no failure in a row, no cool-down) reads the same as none and is let go
/// first; past that, the least recently used.
pub const GUARDS_KEPT: usize = 256;

/// What fraction of the messages after the first the sliding window removes.
pub const WINDOW_FRACTION: f64 = 0.5;

/// The messages a request cannot do without besides the first: the last exchange (the call and
/// the results the model answers), what the window keeps when its half cut removes nothing.
pub const LAST_EXCHANGE: usize = 2;

/// How many messages after the first the sliding window removes from `count` messages: the
/// oldest [`WINDOW_FRACTION`] of the others, rounded down to an even number (Roo Code's rule;
/// `windowCut` in lib/internal/window.js applies it, with Roo's arithmetic for any fraction).
pub fn window_removes(count: usize) -> usize {
    let raw = (count.saturating_sub(1) as f64 * WINDOW_FRACTION).floor() as usize;
    raw - raw % 2
}

/// The loop guard's state of every task, by task id (the host's task, "" without one).
#[derive(Debug, Default)]
pub struct Guards {
    states: HashMap<String, (GuardState, u64)>,
    /// Counts every record, so that the least recently used state is known.
    clock: u64,
}

impl Guards {
    /// A task's state (the start state for a task not seen).
    pub fn state(&self, task: &str) -> GuardState {
        self.states.get(task).map(|(s, _)| s.clone()).unwrap_or_default()
    }

    /// Whether the task may try now; when it may not, why.
    pub fn allows(&self, task: &str, now_ms: u64) -> Result<(), String> {
        guard_allows(&self.state(task), now_ms)
    }

    /// Records an attempt of the task (progress resets it, a failure counts towards a cool-down).
    pub fn record(&mut self, rules: &LoopGuard, task: &str, progressed: bool, now_ms: u64) {
        let next = rules.record(&self.state(task), progressed, now_ms);
        self.clock += 1;
        if !self.states.contains_key(task) && self.states.len() >= GUARDS_KEPT {
            self.make_room();
        }
        self.states.insert(task.to_string(), (next, self.clock));
    }

    /// Lets go of states at their start (they read as none); when there are none, of the least
    /// recently used one.
    fn make_room(&mut self) {
        let before = self.states.len();
        self.states.retain(|_, (s, _)| *s != GuardState::default());
        if self.states.len() < before {
            return;
        }
        if let Some(oldest) = self.states.iter().min_by_key(|(_, (_, used))| *used).map(|(k, _)| k.clone()) {
            self.states.remove(&oldest);
        }
    }

    /// Forgets one task's state, or every task's (`None`). Answers whether there was any.
    pub fn forget(&mut self, task: Option<&str>) -> bool {
        match task {
            Some(t) => self.states.remove(t).is_some(),
            None => {
                let had = !self.states.is_empty();
                self.states.clear();
                had
            }
        }
    }

    pub fn len(&self) -> usize {
        self.states.len()
    }

    pub fn is_empty(&self) -> bool {
        self.states.is_empty()
    }

    pub fn contains(&self, task: &str) -> bool {
        self.states.contains_key(task)
    }
}

/// One attempt of a call, as the call's result lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct AttemptRecord {
    pub provider: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub error: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tokens_saved: Option<i64>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
}

/// What the host does next.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(tag = "action", rename_all = "kebab-case", rename_all_fields = "camelCase")]
pub enum Step {
    /// Run this provider, then hand back its outcome. `allowed_tokens`: the allowed size, given when
    /// a result past it would be cut by the window (the config cuts until a request fits): Native,
    /// told it, asks no summary that cut would remove.
    Run {
        provider: String,
        #[serde(skip_serializing_if = "Option::is_none")]
        allowed_tokens: Option<f64>,
    },
    /// Take this provider's result (the call is over: the guard recorded progress).
    Adopt { provider: String, new_context_tokens: i64, report: String },
    /// Change nothing: the gain is under the minimum (the call is over: the guard counted a failure).
    MinGain { report: String },
    /// Cut the sliding window (`frac_to_remove` of the messages after the first), then hand back
    /// the tokens of the messages before and after the cut. `after_result`: cut the result of the
    /// provider that just ran (adopt it first: the guard recorded progress), not the history.
    /// `keep_last`: instead, keep the first message and the last `keep_last` (moved back over
    /// results whose calls would go), when the half cut removes nothing and the request still
    /// does not fit.
    Window {
        frac_to_remove: f64,
        error: String,
        after_result: bool,
        #[serde(skip_serializing_if = "Option::is_none")]
        keep_last: Option<usize>,
    },
    /// Take the window's cut (the call is over).
    Truncated { provider: String, new_context_tokens: i64, error: String, report: String },
    /// Change nothing (the call is over).
    GiveUp { error: String, report: String },
}

impl Step {
    /// Whether the call is over with this step.
    pub fn is_last(&self) -> bool {
        !matches!(self, Step::Run { .. } | Step::Window { .. })
    }
}

/// What a call's decision says about its course (from `should_condense`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Course {
    pub prev_context_tokens: u64,
    pub min_gain_tokens: u64,
    pub overflow: bool,
    /// The size past which a request does not fit (counted as `prev_context_tokens` is).
    pub allowed_tokens: f64,
}

/// Why an outcome cannot be taken.
#[derive(Debug, thiserror::Error, PartialEq)]
pub enum AttemptError {
    #[error("the call has started already: it is at \"{0}\"")]
    Started(&'static str),
    #[error("no provider is running: the call is at \"{0}\"")]
    NotRunning(&'static str),
    #[error("the sliding window is not due: the call is at \"{0}\"")]
    NoWindow(&'static str),
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Phase {
    Start,
    Running,
    Window,
    Over,
}

impl Phase {
    fn name(self) -> &'static str {
        match self {
            Phase::Start => "start",
            Phase::Running => "running",
            Phase::Window => "window",
            Phase::Over => "over",
        }
    }
}

/// One condensing call's course: `start`, then an outcome per `Run` step (`failed` or
/// `produced`), `windowed` after a `Window` step, until a last step.
#[derive(Debug, Clone)]
pub struct Attempt {
    task: String,
    course: Course,
    chain: Vec<String>,
    next: usize,
    has_summarize: bool,
    fallback: bool,
    /// Cut until the context fits the allowed size (the config's `cutUntilFits`).
    fit: bool,
    /// The context's tokens now: the decision's, then a result's, then each cut's.
    tokens_now: i64,
    /// The provider whose result the window cuts, with the tokens it left.
    adopted: Option<(String, i64)>,
    /// The window has cut down to the last exchange once.
    tail_cut: bool,
    first: String,
    loop_guard: LoopGuard,
    attempts: Vec<AttemptRecord>,
    /// Why the task tried nothing: it is cooling down.
    cooling: Option<String>,
    error: String,
    phase: Phase,
}

impl Attempt {
    /// A call of `task` under `config` with the decision's course; `has_summarize`: whether the
    /// host has a summarize callback for this call.
    pub fn new(config: &ManagerConfig, course: Course, task: &str, has_summarize: bool) -> Attempt {
        let native = crate::catalogue::NATIVE.id;
        let mut chain = vec![config.provider.clone()];
        if config.fallback && config.provider != native && has_summarize {
            chain.push(native.to_string());
        }
        Attempt {
            task: task.to_string(),
            course,
            chain,
            next: 0,
            has_summarize,
            fallback: config.fallback,
            fit: config.cut_until_fits,
            tokens_now: course.prev_context_tokens as i64,
            adopted: None,
            tail_cut: false,
            first: config.provider.clone(),
            loop_guard: config.loop_guard.clone(),
            attempts: Vec::new(),
            cooling: None,
            error: String::new(),
            phase: Phase::Start,
        }
    }

    /// The attempts so far.
    pub fn attempts(&self) -> &[AttemptRecord] {
        &self.attempts
    }

    /// The first step: a task cooling down tries no provider.
    pub fn start(&mut self, guards: &mut Guards, now_ms: u64) -> Result<Step, AttemptError> {
        if self.phase != Phase::Start {
            return Err(AttemptError::Started(self.phase.name()));
        }
        if let Err(why) = guards.allows(&self.task, now_ms) {
            self.attempts.push(AttemptRecord {
                provider: self.first.clone(),
                error: None,
                tokens_saved: None,
                skipped: Some(why.clone()),
            });
            self.cooling = Some(why);
            return Ok(self.after_the_chain());
        }
        self.phase = Phase::Running;
        Ok(self.advance(guards, now_ms))
    }

    /// The running provider failed with `error`.
    pub fn failed(&mut self, guards: &mut Guards, error: &str, now_ms: u64) -> Result<Step, AttemptError> {
        let provider = self.running()?;
        self.fail(provider, error.to_string());
        Ok(self.advance(guards, now_ms))
    }

    /// The running provider answered a context of `tokens`.
    pub fn produced(&mut self, guards: &mut Guards, tokens: i64, now_ms: u64) -> Result<Step, AttemptError> {
        let provider = self.running()?;
        let prev = self.course.prev_context_tokens as i64;
        if tokens >= prev {
            self.fail(
                provider,
                format!("Context size increased during condensing ({prev} -> {tokens} tokens); skipping this attempt"),
            );
            return Ok(self.advance(guards, now_ms));
        }
        let saved = prev - tokens;
        let min = self.course.min_gain_tokens;
        self.phase = Phase::Over;
        if saved < min as i64 && !self.course.overflow {
            // Not worth breaking the host's prompt cache: nothing changes, and the guard counts it.
            self.attempts.push(AttemptRecord {
                provider: provider.clone(),
                error: None,
                tokens_saved: Some(saved),
                skipped: Some(format!("saved {saved} tokens, under the minimum gain of {min}")),
            });
            guards.record(&self.loop_guard, &self.task, false, now_ms);
            return Ok(Step::MinGain {
                report: format!("Context not condensed: {provider} would save only {saved} tokens (minimum {min})"),
            });
        }
        self.attempts.push(AttemptRecord {
            provider: provider.clone(),
            error: None,
            tokens_saved: Some(saved),
            skipped: None,
        });
        guards.record(&self.loop_guard, &self.task, true, now_ms);
        if self.still_past(tokens) {
            // Still past the allowed size: the request would not fit; the window cuts the result.
            self.phase = Phase::Window;
            self.tokens_now = tokens;
            self.adopted = Some((provider, tokens));
            return Ok(Step::Window {
                frac_to_remove: WINDOW_FRACTION,
                error: String::new(),
                after_result: true,
                keep_last: None,
            });
        }
        Ok(Step::Adopt {
            report: format!("Context condensed by {provider}: {prev} -> {tokens} tokens (-{saved})"),
            provider,
            new_context_tokens: tokens,
        })
    }

    /// The sliding window cut the messages from `before` tokens to `after` (counted the same way):
    /// the context is taken to shrink by the difference. Answers another cut while the context is
    /// still past the allowed size, the config cuts until it fits and this cut removed something.
    pub fn windowed(&mut self, before: i64, after: i64) -> Result<Step, AttemptError> {
        if self.phase != Phase::Window {
            return Err(AttemptError::NoWindow(self.phase.name()));
        }
        let provider = "sliding-window".to_string();
        let from = self.tokens_now;
        let tokens = from - (before - after);
        self.tokens_now = tokens;
        // One record for the window, however many cuts it made.
        match self.attempts.last_mut() {
            Some(last) if last.provider == provider && last.error.is_none() && last.skipped.is_none() => {
                last.tokens_saved = Some(last.tokens_saved.unwrap_or(0) + (from - tokens));
            }
            _ => self.attempts.push(AttemptRecord {
                provider: provider.clone(),
                error: None,
                tokens_saved: Some(from - tokens),
                skipped: None,
            }),
        }
        if self.still_past(tokens) {
            if after < before {
                return Ok(Step::Window {
                    frac_to_remove: WINDOW_FRACTION,
                    error: self.error.clone(),
                    after_result: false,
                    keep_last: None,
                });
            }
            // The half cut removes nothing (four messages or fewer): what lies between the first
            // message and the last exchange goes, once.
            if !self.tail_cut {
                self.tail_cut = true;
                return Ok(Step::Window {
                    frac_to_remove: WINDOW_FRACTION,
                    error: self.error.clone(),
                    after_result: false,
                    keep_last: Some(LAST_EXCHANGE),
                });
            }
        }
        self.phase = Phase::Over;
        let prev = self.course.prev_context_tokens as i64;
        let error = self.error.clone();
        // A result the window could not cut at all is still the provider's.
        let uncut = self.adopted.as_ref().filter(|(_, left)| *left == tokens).map(|(p, _)| p.clone());
        let mut report = match (&uncut, &self.adopted) {
            (Some(p), _) => format!("Context condensed by {p}: {prev} -> {tokens} tokens"),
            (None, Some((p, left))) => format!(
                "Context condensed by {p}: {prev} -> {left} tokens, then truncated by the sliding window to {tokens} (the allowed size is {})",
                self.course.allowed_tokens
            ),
            (None, None) => format!("Context truncated by the sliding window: {prev} -> {tokens} tokens, after: {error}"),
        };
        if self.still_past(tokens) {
            report.push_str(&format!(
                "; still past the allowed size of {}: the window has nothing more to cut",
                self.course.allowed_tokens
            ));
        }
        Ok(Step::Truncated { report, provider: uncut.unwrap_or(provider), new_context_tokens: tokens, error })
    }

    /// Whether the window cuts whatever is past the allowed size (the config cuts until a request fits).
    fn cut_follows(&self) -> bool {
        self.fit && self.fallback
    }

    /// Whether a context of `tokens` is still past the allowed size, where the window cuts until it fits.
    fn still_past(&self, tokens: i64) -> bool {
        self.cut_follows() && tokens as f64 > self.course.allowed_tokens
    }

    /// The provider whose outcome is due.
    fn running(&self) -> Result<String, AttemptError> {
        match (self.phase, self.next.checked_sub(1).and_then(|i| self.chain.get(i))) {
            (Phase::Running, Some(p)) => Ok(p.clone()),
            _ => Err(AttemptError::NotRunning(self.phase.name())),
        }
    }

    fn fail(&mut self, provider: String, error: String) {
        self.attempts.push(AttemptRecord { provider, error: Some(error), tokens_saved: None, skipped: None });
    }

    /// The next provider of the chain to run, or the end of the chain.
    fn advance(&mut self, guards: &mut Guards, now_ms: u64) -> Step {
        while let Some(id) = self.chain.get(self.next).cloned() {
            self.next += 1;
            if id == crate::catalogue::NATIVE.id && !self.has_summarize {
                self.fail(id.clone(), format!("No summarize callback: the {id} provider needs one"));
                continue;
            }
            let allowed_tokens = (self.cut_follows() && self.course.overflow).then_some(self.course.allowed_tokens);
            return Step::Run { provider: id, allowed_tokens };
        }
        guards.record(&self.loop_guard, &self.task, false, now_ms);
        self.after_the_chain()
    }

    /// Every attempt failed (or none was made): the sliding window when the context is past its
    /// allowed size and the config falls back, else giving up.
    fn after_the_chain(&mut self) -> Step {
        self.error = match &self.cooling {
            Some(why) => why.clone(),
            None => self
                .attempts
                .iter()
                .map(|a| format!("{}: {}", a.provider, a.error.as_deref().unwrap_or("undefined")))
                .collect::<Vec<_>>()
                .join("; "),
        };
        if self.course.overflow && self.fallback {
            self.phase = Phase::Window;
            return Step::Window {
                frac_to_remove: WINDOW_FRACTION,
                error: self.error.clone(),
                after_result: false,
                keep_last: None,
            };
        }
        self.phase = Phase::Over;
        Step::GiveUp { error: self.error.clone(), report: format!("Context not condensed: {}", self.error) }
    }
}
