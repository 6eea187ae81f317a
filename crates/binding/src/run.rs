//! One condensing (`Run`): its options checked when it is made, the engine on its own thread over
//! a history handed to it (`History`) or a held conversation's messages, the summarizer that hands
//! summary requests to JavaScript and waits for the answers, the events JavaScript reads in parts,
//! and abort. It never holds a history between calls (a conversation does, and tells a run what it
//! knows through `HeldMessages`) and never answers a query about one (a `History` does).

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex, MutexGuard};

use napi_derive::napi;
use serde_json::Value;

use super::codec::*;
use super::history::History;
use super::tasks::EstimateTask;
use super::text::JsText;
use super::trim::*;
use super::*;
use context_condense::condense::{condense, condense_known, Known, Options};
use context_condense::draft::Changes;
use context_condense::error::CondenseError;
use context_condense::llm::{SummarizeRequest, Summarizer, SummaryReply};
use context_condense::parse::held::ViewCache;

/// What the engine thread tells JavaScript.
/// Both carry JSON text made on the engine thread, so the JavaScript thread only creates a string.
pub enum Event {
    /// A batch of summary requests, to be read in parts.
    Summarize(Parts),
    /// The changes and the outcome.
    Done(std::result::Result<(Packed, String), CondenseError>),
}

/// What JavaScript answers a batch with.
pub enum Answer {
    Replies(Vec<std::result::Result<SummaryReply, String>>),
    Aborted,
}

/// The engine's summarizer in Node: hands the batch to JavaScript and waits for the answer.
struct ChannelSummarizer {
    events: Sender<Event>,
    replies: Receiver<Answer>,
    abort: Arc<AtomicBool>,
}

impl Summarizer for ChannelSummarizer {
    fn summarize(&mut self, batch: Vec<SummarizeRequest>) -> Vec<std::result::Result<SummaryReply, String>> {
        let n = batch.len();
        let failed = |why: &str| (0..n).map(|_| Err(why.to_string())).collect();
        let batch = match requests_parts(batch) {
            Ok(parts) => parts,
            Err(e) => return failed(&e.to_string()),
        };
        if self.abort.load(Ordering::Relaxed) || self.events.send(Event::Summarize(batch)).is_err() {
            return failed("aborted");
        }
        match self.replies.recv() {
            Ok(Answer::Replies(r)) => {
                panic_probe("callback");
                r
            }
            Ok(Answer::Aborted) => failed("aborted"),
            // The run was dropped by JavaScript: nobody will answer.
            Err(_) => failed("the run was dropped"),
        }
    }
}

/// An engine run on its own thread, and the channels JavaScript talks to it through.
#[derive(Clone)]
pub struct Engine {
    events: Arc<Mutex<Receiver<Event>>>,
    replies: Sender<Answer>,
    /// What JavaScript is reading in parts: a batch of summary requests, or the changed texts.
    parts: Arc<Mutex<Option<Parts>>>,
}

/// What a run is asked to do.
struct RunSpec {
    options: Options,
    /// A history the boundary refused: the run answers with this refusal.
    rejected: Option<String>,
    /// Whether JavaScript answers summary requests.
    with_summarizer: bool,
    /// Where a successful run leaves its changes (a conversation applies them to what it holds).
    keep: Option<Arc<Mutex<Option<Changes>>>>,
    /// What the conversation running it knows of its messages.
    held: Option<Box<dyn HeldMessages>>,
}

/// What a conversation knows of the messages a run works on (their counts and semantic view),
/// handed to the run's thread.
pub trait HeldMessages: Send {
    /// The tokens of `messages` (counting those not counted yet) and the view cache, locked for
    /// the run.
    fn known(
        &self,
        messages: &[Message],
        abort: &AtomicBool,
    ) -> std::result::Result<(u64, MutexGuard<'_, ViewCache>), CondenseError>;
}

/// Starts the engine on its own thread over `messages`.
fn spawn_run(messages: Arc<Vec<Message>>, spec: RunSpec, abort: Arc<AtomicBool>) -> Result<Engine> {
    let (event_tx, event_rx) = channel::<Event>();
    let (reply_tx, reply_rx) = channel::<Answer>();
    let RunSpec { options, rejected, with_summarizer, keep, held } = spec;
    run_started();
    let spawned = std::thread::Builder::new().name("context-condense".into()).spawn(move || {
        let done_tx = event_tx.clone();
        let mut tokens = 0u64;
        let result = catch_unwind(AssertUnwindSafe(|| {
            panic_probe("task");
            if let Some(problem) = rejected {
                let o = context_condense::condense::refuse(&options, problem);
                return Ok((Packed::new(o.changes.texts.clone()), json_text(&outcome_summary(&o))?));
            }
            let mut channel = ChannelSummarizer { events: event_tx, replies: reply_rx, abort: abort.clone() };
            let summarizer: Option<&mut dyn Summarizer> = if with_summarizer { Some(&mut channel) } else { None };
            let o = match &held {
                Some(h) => {
                    let (tokens, mut views) = h.known(&messages, &abort)?;
                    let known = Known { tokens: Some(tokens), views: Some(&mut views) };
                    condense_known(&messages, &options, &abort, summarizer, known)?
                }
                None => condense(&messages, &options, &abort, summarizer)?,
            };
            tokens = o.prev_context_tokens;
            let summary = json_text(&outcome_summary(&o))?;
            if let (Some(keep), None) = (&keep, &o.error) {
                *keep.lock().unwrap_or_else(|e| e.into_inner()) = Some(o.changes.clone());
            }
            Ok((Packed::new(o.changes.texts), summary))
        }));
        let result = result.unwrap_or_else(|p| Err(CondenseError::Internal(panic_message(p))));
        // A large history's values were allocated on the JavaScript thread and are freed
        // here: glibc then tidies those small blocks up (malloc_consolidate) on the next
        // allocation of the JavaScript thread, a stall of a second or two after a
        // million-message run. Freeing them a little at a time here and trimming does that work
        // on this thread instead, and gives the memory back before JavaScript builds the result
        // (a history of many megabytes otherwise stays resident beside it). (A conversation's
        // messages stay alive: only this run's reference goes.)
        if messages.len() >= LARGE_HISTORY || tokens >= LARGE_HISTORY_TOKENS {
            free_large(messages);
        } else {
            drop(messages);
        }
        let _ = done_tx.send(Event::Done(result));
        run_ended();
    });
    match spawned {
        Ok(_) => Ok(Engine { events: Arc::new(Mutex::new(event_rx)), replies: reply_tx, parts: Default::default() }),
        Err(e) => {
            RUNNING.fetch_sub(1, Ordering::AcqRel);
            Err(coded(ErrorCode::Internal, format!("could not start the engine thread: {e}")))
        }
    }
}

/// Stops a run: the engine checks the flag between steps, and a wait for summaries ends at once.
fn abort_run(abort: &AtomicBool, run: Option<&Engine>) {
    abort.store(true, Ordering::Relaxed);
    if let Some(r) = run {
        let _ = r.replies.send(Answer::Aborted);
    }
}

fn lock_parts(parts: &Mutex<Option<Parts>>) -> std::sync::MutexGuard<'_, Option<Parts>> {
    parts.lock().unwrap_or_else(|e| e.into_inner())
}

/// The next part of what the run's last event left to read (see [`Parts`]), or `None` once read.
fn read_part(run: Option<&Engine>, max_bytes: u32) -> Option<JsText> {
    let mut slot = lock_parts(&run?.parts);
    let parts = slot.as_mut()?;
    let part = parts.next(max_bytes);
    // Let go of the texts as soon as the last part is out: a reader that knows how much to read
    // never asks again.
    let frees_as_read = matches!(parts, Parts::Lines { .. });
    if part.is_none() || parts.is_done() {
        *slot = None;
    }
    drop(slot);
    if let (Some(p), true) = (&part, frees_as_read) {
        read_out(p.len());
    }
    part.map(JsText)
}

/// Lets go of whatever of a run's texts is still unread.
fn drop_parts(run: Option<&Engine>) {
    if let Some(run) = run {
        *lock_parts(&run.parts) = None;
    }
}

/// Hands the run JavaScript's answers to a batch of summary requests; each reply's text is the
/// matching entry of `texts`, escaped (without `texts`, the reply's own, read as UTF-8).
fn reply_run(run: &Engine, results: Value, texts: Option<Vec<Utf16String>>) -> Result<()> {
    let Value::Array(items) = results else {
        return Err(coded(ErrorCode::Internal, "reply: expected an array"));
    };
    let mut texts = texts.map(Vec::into_iter);
    let answers = items
        .into_iter()
        .map(|item| {
            let text = texts.as_mut().and_then(Iterator::next);
            if item.get("ok").and_then(Value::as_bool) == Some(true) {
                let mut reply =
                    serde_json::from_value::<SummaryReply>(item.get("reply").cloned().unwrap_or(Value::Null))
                        .map_err(|e| format!("the summarize callback's answer could not be read: {e}"))?;
                reply.text = match text {
                    Some(t) => context_condense::escape::escape_utf16(&t),
                    None => context_condense::escape::double_esc(&reply.text),
                };
                Ok(reply)
            } else {
                Err(item.get("error").and_then(Value::as_str).unwrap_or("the summarize callback failed").to_string())
            }
        })
        .collect();
    // The engine may have stopped waiting (aborted): nothing to do then.
    let _ = run.replies.send(Answer::Replies(answers));
    Ok(())
}

/// What the run's handle says when asked for what only a started run has.
const NOT_STARTED: &str = "this run was not started";

/// One condensing, in steps, so no step holds the JavaScript thread long: the options are checked
/// when the run is made, `start` runs the engine on its own thread over a history's messages (a
/// held conversation starts it over its own, `Conversation.start`), and `next` waits (off the
/// JavaScript thread) for what the engine needs next: a batch of summaries, which JavaScript
/// answers with `reply`, or its result. `abort` stops it, also while it waits for summaries. A run
/// starts once.
#[napi]
pub struct Run {
    options: Options,
    abort: Arc<AtomicBool>,
    engine: Option<Engine>,
}

/// What stops a run started over a held conversation's messages, for the conversation to stop it
/// when it is closed.
pub struct Stop {
    abort: Arc<AtomicBool>,
    engine: Engine,
}

impl Stop {
    /// Stops the run and lets go of whatever of its texts is still unread.
    pub fn stop(&self) {
        abort_run(&self.abort, Some(&self.engine));
        drop_parts(Some(&self.engine));
    }
}

impl Run {
    /// The run's options, checked.
    pub(super) fn options(&self) -> &Options {
        &self.options
    }

    /// Starts the engine over messages a conversation holds: a successful run leaves its changes
    /// in `keep`, and `held` tells it what the conversation knows of them. Answers what stops it.
    pub(super) fn start_held(
        &mut self,
        messages: Arc<Vec<Message>>,
        with_summarizer: bool,
        keep: Arc<Mutex<Option<Changes>>>,
        held: Box<dyn HeldMessages>,
    ) -> Result<Stop> {
        let spec = RunSpec {
            options: self.options.clone(),
            rejected: None,
            with_summarizer,
            keep: Some(keep),
            held: Some(held),
        };
        let engine = self.spawn(messages, spec)?;
        Ok(Stop { abort: self.abort.clone(), engine })
    }

    /// Starts the engine with `spec` over `messages`, once.
    fn spawn(&mut self, messages: Arc<Vec<Message>>, spec: RunSpec) -> Result<Engine> {
        self.unstarted()?;
        let engine = spawn_run(messages, spec, self.abort.clone())?;
        self.engine = Some(engine.clone());
        Ok(engine)
    }

    /// Refuses to start a run twice.
    fn unstarted(&self) -> Result<()> {
        match self.engine {
            Some(_) => Err(coded(ErrorCode::InvalidState, "this run was already started")),
            None => Ok(()),
        }
    }

    fn started(&self) -> Result<&Engine> {
        self.engine.as_ref().ok_or_else(|| coded(ErrorCode::InvalidState, NOT_STARTED))
    }
}

#[napi]
impl Run {
    #[napi(constructor, ts_args_type = "options: Record<string, unknown>")]
    pub fn new(options: Value) -> Result<Run> {
        let options = guarded(|| Options::from_value(&options))?;
        Ok(Run { options, abort: Arc::new(AtomicBool::new(false)), engine: None })
    }

    /// Starts the engine on its own thread over the messages pushed into `history`, which it takes
    /// over (a history marked as rejected is answered with that refusal); `with_summarizer` says
    /// whether JavaScript will answer summary requests.
    #[napi]
    pub fn start(&mut self, history: &mut History, with_summarizer: bool) -> Result<()> {
        // Checked before the history is taken over, so a refused start leaves it as it was.
        self.unstarted()?;
        let (messages, rejected) = history.hand_over("start")?;
        let spec = RunSpec { options: self.options.clone(), rejected, with_summarizer, keep: None, held: None };
        self.spawn(Arc::new(messages), spec).map(|_| ())
    }

    /// Estimates what the run's provider would do over the messages pushed into `history` (a run
    /// with a stand-in model, see `manager::estimate`), off the JavaScript thread; the history is
    /// spent, the run stays as it was.
    #[napi(
        ts_args_type = "history: History, pricing: import('./lib/index').Pricing | undefined | null, withModel: boolean",
        ts_return_type = "Promise<import('./lib/manager').Estimate>"
    )]
    pub fn estimate(
        &self,
        history: &mut History,
        pricing: Option<Value>,
        with_model: bool,
    ) -> Result<AsyncTask<EstimateTask>> {
        let pricing = match pricing {
            None | Some(Value::Null) => None,
            Some(p) => Some(guarded(|| {
                let pricing = context_condense::config::parse_config::<context_condense::cost::Pricing>(&p, "pricing")?;
                context_condense::cost::check_pricing(&pricing, "pricing")
                    .map_err(|e| context_condense::error::CondenseError::InvalidOptions(e.to_string()))?;
                Ok(pricing)
            })?),
        };
        let (messages, _) = history.hand_over("estimate")?;
        Ok(AsyncTask::new(EstimateTask { messages, options: self.options.clone(), pricing, with_model }))
    }

    /// Waits, off the JavaScript thread, for what the engine needs next.
    #[napi(ts_return_type = "Promise<RawEvent>")]
    pub fn next(&self) -> Result<AsyncTask<NextTask>> {
        let engine = self.started()?;
        Ok(AsyncTask::new(NextTask {
            events: engine.events.clone(),
            abort: self.abort.clone(),
            parts: engine.parts.clone(),
        }))
    }

    /// The next part of what the last event left to read (a batch of summary requests, or
    /// the changed texts), or null once read.
    #[napi(ts_return_type = "string | null")]
    pub fn read_part(&self, max_bytes: u32) -> Option<JsText> {
        read_part(self.engine.as_ref(), max_bytes)
    }

    /// Answers the batch of summaries the engine asked for: one `{ ok: true, reply }` or
    /// `{ ok: false, error }` per request, in order, each reply's text in `texts` when given (as
    /// UTF-16: it is escaped here, so a lone surrogate in it comes back exactly).
    #[napi(
        ts_args_type = "results: Array<{ ok: boolean; reply?: Record<string, unknown>; error?: string }>, texts?: Array<string> | undefined | null"
    )]
    pub fn reply(&self, results: Value, texts: Option<Vec<Utf16String>>) -> Result<()> {
        reply_run(self.started()?, results, texts)
    }

    /// Stops the run: the engine checks between steps, and a wait for summaries ends at once.
    #[napi]
    pub fn abort(&self) {
        abort_run(&self.abort, self.engine.as_ref());
    }
}

/// The next event of an engine run, as JavaScript receives it.
#[napi(object, object_from_js = false)]
pub struct RawEvent {
    /// "summarize" (the batch is then read with `readPart`), "done" (the changed texts are read
    /// with `readPart`) or "error".
    pub kind: String,
    pub changes: Option<PackedChanges>,
    /// The outcome (numbers, report, new messages, layout), as JSON text.
    pub summary: Option<String>,
    pub error: Option<String>,
    pub aborted: bool,
    /// With "error": the error's `ErrorCode`, for JavaScript to throw it with.
    pub error_code: Option<String>,
}

pub struct NextTask {
    events: Arc<Mutex<Receiver<Event>>>,
    abort: Arc<AtomicBool>,
    parts: Arc<Mutex<Option<Parts>>>,
}

#[napi]
impl Task for NextTask {
    type Output = Result<Event>;
    type JsValue = RawEvent;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        let rx = self.events.lock().unwrap_or_else(|e| e.into_inner());
        Ok(rx.recv().map_err(|_| coded(ErrorCode::Internal, "the engine thread ended without a result")))
    }

    fn resolve(&mut self, env: Env, event: Self::Output) -> napi::Result<RawEvent> {
        let event = event.map_err(|e| rejection(&env, e))?;
        let empty = RawEvent {
            kind: String::new(),
            changes: None,
            summary: None,
            error: None,
            aborted: false,
            error_code: None,
        };
        Ok(match event {
            // A batch of requests, and the changed texts, wait here for JavaScript to read them in
            // parts (moved, not copied).
            Event::Summarize(batch) => {
                *lock_parts(&self.parts) = Some(batch);
                RawEvent { kind: "summarize".into(), ..empty }
            }
            Event::Done(Ok((mut packed, summary))) => {
                *lock_parts(&self.parts) = Some(packed.take_text());
                RawEvent { kind: "done".into(), changes: Some(packed.into_js()), summary: Some(summary), ..empty }
            }
            Event::Done(Err(e)) => RawEvent {
                kind: "error".into(),
                aborted: matches!(e, CondenseError::Aborted) || self.abort.load(Ordering::Relaxed),
                error_code: Some(e.code().as_str().to_string()),
                error: Some(e.to_string()),
                ..empty
            },
        })
    }
}
