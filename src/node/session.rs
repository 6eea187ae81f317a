//! A condensation in steps (`Session`): the options checked first, the messages pushed in chunks,
//! the engine run on its own thread, summary requests answered from JavaScript, abort at any time.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use napi_derive::napi;
use serde_json::Value;

use super::codec::*;
use super::tasks::*;
use super::text::{JsMessages, JsText, LongStrings};
use super::trim::*;
use super::*;
use crate::condense::{condense, condense_known, Known, Options};
use crate::draft::Changes;
use crate::error::CondenseError;
use crate::llm::{SummarizeRequest, Summarizer, SummaryReply};

/// A condensation in steps, so no step holds the JavaScript thread long: the options are checked
/// when the session is made, the messages arrive in chunks (`push`), `start` runs the engine on
/// its own thread, and `next` waits (off the JavaScript thread) for what the engine needs next:
/// a batch of summaries, which JavaScript answers with `reply`, or its result. `abort` stops a run
/// in progress, also while it waits for summaries.
#[napi]
pub struct Session {
    options: Options,
    messages: Vec<Message>,
    abort: Arc<AtomicBool>,
    run: Option<Run>,
    /// Set when the history could not cross the boundary: the run then refuses with it.
    rejected: Option<String>,
    /// The strings the last push left out, arriving in parts.
    incoming: crate::escape::Incoming,
}

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
            // The session was dropped by JavaScript: nobody will answer.
            Err(_) => failed("the session was closed"),
        }
    }
}

#[napi]
impl Session {
    #[napi(constructor)]
    pub fn new(options: Value) -> Result<Session> {
        let options = guarded(|| Options::from_value(&options))?;
        Ok(Session {
            options,
            messages: Vec::new(),
            abort: Arc::new(AtomicBool::new(false)),
            run: None,
            rejected: None,
            incoming: Default::default(),
        })
    }

    /// Adds the next messages of the history, in the engine's escaped form (see `text`), so edited
    /// text comes back exactly. With `longUnits`, strings longer than that are left out and
    /// answered: JavaScript sends each in parts (`textPart`, then `setText`) before it pushes more.
    #[napi(ts_args_type = "chunk: object[], longUnits?: number | undefined | null", ts_return_type = "string[]")]
    pub fn push(&mut self, chunk: JsMessages, long_units: Option<u32>) -> Result<LongStrings> {
        let (messages, deferred, strings) = chunk.convert(long_units)?;
        self.incoming.expect(deferred, self.messages.len());
        self.messages.extend(messages);
        Ok(strings)
    }

    /// The next part (UTF-16, any length) of a string the last `push` left out; with its first
    /// part, the whole string's length.
    #[napi]
    pub fn text_part(&mut self, part: Utf16String, whole: Option<u32>) {
        self.incoming.part(&part, whole.map(|n| n as usize));
    }

    /// Puts the string sent since the last `setText` in place of string `j` the last `push` left out.
    #[napi]
    pub fn set_text(&mut self, j: u32) -> Result<()> {
        self.incoming
            .put_into(&mut self.messages, j as usize)
            .map(|_| ())
            .map_err(|e| Error::new(Status::InvalidArg, format!("setText: {e}")))
    }

    /// The changes that restore every reference in the pushed messages.
    #[napi]
    pub fn expand(&mut self) -> Result<RawExpansion> {
        let messages = std::mem::take(&mut self.messages);
        guarded(|| {
            let x = crate::reference::expand(&messages);
            Ok(RawExpansion {
                changes: Packed::new(x.changes).into_js(),
                expanded: x.expanded as u32,
                unresolved: x.unresolved as u32,
            })
        })
    }

    /// The changes that make the references in the pushed messages follow a summary that
    /// replaced positions `1..keep_start` (see `reference::follow_summary`); `only` flags the
    /// messages to look at.
    #[napi]
    pub fn follow_summary(&mut self, keep_start: u32, only: Vec<bool>) -> Result<RawExpansion> {
        let messages = std::mem::take(&mut self.messages);
        guarded(|| {
            let changes = crate::reference::follow_summary(&messages, keep_start as usize, &only);
            let n = changes.len() as u32;
            Ok(RawExpansion { changes: Packed::new(changes).into_js(), expanded: n, unresolved: 0 })
        })
    }

    /// The changes that rewrite the references in the pushed messages from one numbering of
    /// them to another (see `reference::renumber`): `from[i]` and `to[i]` are message `i`'s
    /// index in each, negative for a message outside it.
    #[napi]
    pub fn renumber(&mut self, from: Vec<i64>, to: Vec<i64>) -> Result<RawExpansion> {
        let messages = std::mem::take(&mut self.messages);
        let index = |v: Vec<i64>| v.into_iter().map(|i| usize::try_from(i).ok()).collect::<Vec<_>>();
        let (from, to) = (index(from), index(to));
        guarded(|| {
            let changes = crate::reference::renumber(&messages, &from, &to);
            let n = changes.len() as u32;
            Ok(RawExpansion { changes: Packed::new(changes).into_js(), expanded: n, unresolved: 0 })
        })
    }

    /// The changes that make the references in the pushed messages follow a cut keeping only
    /// the messages `kept` (see `reference::follow_cut`), by index in the pushed messages.
    #[napi]
    pub fn follow_cut(&mut self, kept: Vec<u32>) -> Result<RawExpansion> {
        let messages = std::mem::take(&mut self.messages);
        guarded(|| {
            let kept: Vec<usize> = kept.into_iter().map(|k| k as usize).collect();
            let changes = crate::reference::follow_cut(&messages, &kept);
            let n = changes.len() as u32;
            Ok(RawExpansion { changes: Packed::new(changes).into_js(), expanded: n, unresolved: 0 })
        })
    }

    /// Repairs the tool pairing of the pushed messages (`repair::repair`) in place, so the run
    /// that follows condenses the repaired history; answers, as JSON text, the messages changed by
    /// index, those inserted before an index, and the repairs.
    #[napi]
    pub fn repair(&mut self) -> Result<String> {
        guarded(|| {
            let repaired = crate::repair::repair(&self.messages);
            let text = json_text(&repaired)?;
            crate::repair::apply(&mut self.messages, repaired);
            Ok(text)
        })
    }

    /// Every problem the provider APIs would reject in the pushed messages (or in `instead`,
    /// a value that is not an array), with its path, as JSON text (a list of any length crosses
    /// as one string).
    #[napi]
    pub fn validate(&mut self, instead: Option<crate::json::Value>) -> Result<String> {
        let pushed = Message::Array(std::mem::take(&mut self.messages));
        let messages = instead.unwrap_or(pushed);
        guarded(|| {
            panic_probe("sync");
            json_text(&crate::validate::validate_value(&messages))
        })
    }

    /// What fills the context of the pushed messages, now, as JSON text.
    #[napi]
    pub fn analyze_now(&mut self, encoding_name: Option<String>) -> Result<String> {
        let enc = encoding(encoding_name)?;
        let messages = std::mem::take(&mut self.messages);
        guarded(|| json_text(&crate::analyze::analyze(&messages, enc)))
    }

    /// The working set of the pushed messages, now, as JSON text (`crate::working_set`): per
    /// file, how it is kept, where its latest state lives, its tokens; `config` is
    /// `{ turns?, budgetTokens? }`.
    #[napi]
    pub fn working_set_now(
        &mut self,
        config: Option<Value>,
        with_text: bool,
        encoding_name: Option<String>,
    ) -> Result<String> {
        let enc = encoding(encoding_name)?;
        let messages = std::mem::take(&mut self.messages);
        guarded(|| {
            let config = config.unwrap_or(Value::Null);
            json_text(&crate::working_set::of_history(&messages, &config, with_text, enc)?)
        })
    }

    /// Marks the history as one the engine cannot take (`problem` names where): `start` then
    /// answers with a refusal that leaves the messages unchanged.
    #[napi]
    pub fn reject(&mut self, problem: String) {
        self.messages.clear();
        self.rejected = Some(problem);
    }

    /// Stops the run: the engine checks between steps, and a wait for summaries ends at once.
    #[napi]
    pub fn abort(&self) {
        abort_run(&self.abort, self.run.as_ref());
    }

    /// Starts the engine on its own thread with the pushed messages; `with_summarizer` says
    /// whether JavaScript will answer summary requests.
    #[napi]
    pub fn start(&mut self, with_summarizer: bool) -> Result<()> {
        if self.run.is_some() {
            return Err(Error::new(Status::GenericFailure, "this session was already started"));
        }
        let messages = Arc::new(std::mem::take(&mut self.messages));
        let spec = RunSpec {
            options: self.options.clone(),
            rejected: self.rejected.take(),
            with_summarizer,
            keep: None,
            held: None,
        };
        self.run = Some(spawn_run(messages, spec, self.abort.clone())?);
        Ok(())
    }

    /// Waits, off the JavaScript thread, for what the engine needs next.
    #[napi]
    pub fn next(&self) -> Result<AsyncTask<NextTask>> {
        next_event(self.run.as_ref(), &self.abort, "this session was not started")
    }

    /// The next part of what the last event left to read (a batch of summary requests, or
    /// the changed texts), or null once read.
    #[napi(ts_return_type = "string | null")]
    pub fn read_part(&self, max_bytes: u32) -> Option<JsText> {
        read_part(self.run.as_ref(), max_bytes)
    }

    /// Answers the batch of summaries the engine asked for: one `{ ok: true, reply }` or
    /// `{ ok: false, error }` per request, in order, each reply's text in `texts` when given (as
    /// UTF-16: it is escaped here, so a lone surrogate in it comes back exactly).
    #[napi]
    pub fn reply(&self, results: Value, texts: Option<Vec<Utf16String>>) -> Result<()> {
        reply_run(self.run.as_ref(), results, texts, "this session was not started")
    }

    /// Estimates what the session's provider would do (a run with a stand-in model, see
    /// `manager::estimate`), off the JavaScript thread; the session is emptied.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn estimate(&mut self, pricing: Option<Value>, with_model: bool) -> Result<AsyncTask<EstimateTask>> {
        let pricing = match pricing {
            None | Some(Value::Null) => None,
            Some(p) => Some(guarded(|| {
                let pricing = crate::condense::parse_config::<crate::cost::Pricing>(&p, "pricing")?;
                crate::cost::check_pricing(&pricing, "pricing")
                    .map_err(|e| crate::error::CondenseError::InvalidOptions(e.to_string()))?;
                Ok(pricing)
            })?),
        };
        Ok(AsyncTask::new(EstimateTask {
            messages: std::mem::take(&mut self.messages),
            options: self.options.clone(),
            pricing,
            with_model,
        }))
    }

    /// The working set of the pushed messages off the JavaScript thread; the session is emptied.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn working_set(
        &mut self,
        config: Option<Value>,
        with_text: bool,
        encoding_name: Option<String>,
    ) -> Result<AsyncTask<WorkingSetTask>> {
        Ok(AsyncTask::new(WorkingSetTask {
            messages: std::mem::take(&mut self.messages),
            config: config.unwrap_or(Value::Null),
            with_text,
            encoding: encoding(encoding_name)?,
        }))
    }

    /// Analyzes the pushed messages off the JavaScript thread; the session is emptied.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn analyze(&mut self, encoding_name: Option<String>) -> Result<AsyncTask<AnalyzeTask>> {
        Ok(AsyncTask::new(AnalyzeTask {
            messages: Arc::new(std::mem::take(&mut self.messages)),
            encoding: encoding(encoding_name)?,
        }))
    }
}

/// An engine run on its own thread, and the channels JavaScript talks to it through.
pub struct Run {
    events: Arc<Mutex<Receiver<Event>>>,
    replies: Sender<Answer>,
    /// What JavaScript is reading in parts: a batch of summary requests, or the changed texts.
    parts: Arc<Mutex<Option<Parts>>>,
}

/// What a run is asked to do.
pub struct RunSpec {
    pub options: Options,
    /// A history the boundary refused: the run answers with this refusal.
    pub rejected: Option<String>,
    /// Whether JavaScript answers summary requests.
    pub with_summarizer: bool,
    /// Where a successful run leaves its changes (a conversation applies them to what it holds).
    pub keep: Option<Arc<Mutex<Option<Changes>>>>,
    /// What the conversation running it knows of its messages.
    pub held: Option<super::conversation::Held>,
}

/// Starts the engine on its own thread over `messages`.
pub fn spawn_run(messages: Arc<Vec<Message>>, spec: RunSpec, abort: Arc<AtomicBool>) -> Result<Run> {
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
                let o = crate::condense::refuse(&options, problem);
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
        Ok(_) => Ok(Run { events: Arc::new(Mutex::new(event_rx)), replies: reply_tx, parts: Default::default() }),
        Err(e) => {
            RUNNING.fetch_sub(1, Ordering::AcqRel);
            Err(Error::new(Status::GenericFailure, format!("could not start the engine thread: {e}")))
        }
    }
}

/// Stops a run: the engine checks the flag between steps, and a wait for summaries ends at once.
pub fn abort_run(abort: &AtomicBool, run: Option<&Run>) {
    abort.store(true, Ordering::Relaxed);
    if let Some(r) = run {
        let _ = r.replies.send(Answer::Aborted);
    }
}

/// Waits, off the JavaScript thread, for the run's next event.
pub fn next_event(run: Option<&Run>, abort: &Arc<AtomicBool>, not_started: &str) -> Result<AsyncTask<NextTask>> {
    match run {
        Some(r) => {
            Ok(AsyncTask::new(NextTask { events: r.events.clone(), abort: abort.clone(), parts: r.parts.clone() }))
        }
        None => Err(Error::new(Status::GenericFailure, not_started.to_string())),
    }
}

fn lock_parts(parts: &Mutex<Option<Parts>>) -> std::sync::MutexGuard<'_, Option<Parts>> {
    parts.lock().unwrap_or_else(|e| e.into_inner())
}

/// The next part of what the run's last event left to read (see [`Parts`]), or `None` once read.
pub fn read_part(run: Option<&Run>, max_bytes: u32) -> Option<JsText> {
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
pub fn drop_parts(run: Option<&Run>) {
    if let Some(run) = run {
        *lock_parts(&run.parts) = None;
    }
}

/// Hands the run JavaScript's answers to a batch of summary requests; each reply's text is the
/// matching entry of `texts`, escaped (without `texts`, the reply's own, read as UTF-8).
pub fn reply_run(run: Option<&Run>, results: Value, texts: Option<Vec<Utf16String>>, not_started: &str) -> Result<()> {
    let Some(run) = run else {
        return Err(Error::new(Status::GenericFailure, not_started.to_string()));
    };
    let Value::Array(items) = results else {
        return Err(Error::new(Status::InvalidArg, "reply: expected an array"));
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
                    Some(t) => crate::escape::escape_utf16(&t),
                    None => crate::escape::double_esc(&reply.text),
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
    pub invalid_options: bool,
}

pub struct NextTask {
    events: Arc<Mutex<Receiver<Event>>>,
    abort: Arc<AtomicBool>,
    parts: Arc<Mutex<Option<Parts>>>,
}

#[napi]
impl Task for NextTask {
    type Output = Event;
    type JsValue = RawEvent;

    fn compute(&mut self) -> Result<Event> {
        let rx = self.events.lock().unwrap_or_else(|e| e.into_inner());
        rx.recv().map_err(|_| Error::new(Status::GenericFailure, "the engine thread ended without a result"))
    }

    fn resolve(&mut self, _env: Env, event: Event) -> Result<RawEvent> {
        let empty = RawEvent {
            kind: String::new(),
            changes: None,
            summary: None,
            error: None,
            aborted: false,
            invalid_options: false,
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
                invalid_options: matches!(e, CondenseError::InvalidOptions(_) | CondenseError::UnknownProvider(_)),
                error: Some(e.to_string()),
                ..empty
            },
        })
    }
}
