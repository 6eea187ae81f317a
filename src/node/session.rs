//! A condensation in steps (`Session`): the options checked first, the messages pushed in chunks,
//! the engine run on its own thread (`run`), summary requests answered from JavaScript, abort at
//! any time.

use std::sync::atomic::AtomicBool;
use std::sync::Arc;

use napi_derive::napi;
use serde_json::Value;

use super::codec::*;
use super::run::*;
use super::tasks::*;
use super::text::{JsMessages, JsText, LongStrings};
use super::*;
use crate::condense::Options;

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

#[napi]
impl Session {
    #[napi(constructor, ts_args_type = "options: Record<string, unknown>")]
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
        let (messages, deferred, strings) = chunk.convert(long_units).map_err(unreadable)?;
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
            .map_err(|e| coded(ErrorCode::Internal, format!("setText: {e}")))
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
    #[napi(ts_args_type = "instead?: unknown")]
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
    #[napi(
        ts_args_type = "config: import('./lib/index').WorkingSetConfig | undefined | null, withText: boolean, encodingName?: string | undefined | null"
    )]
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
            return Err(coded(ErrorCode::InvalidState, "this session was already started"));
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
    #[napi(ts_return_type = "Promise<RawEvent>")]
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
    #[napi(
        ts_args_type = "results: Array<{ ok: boolean; reply?: Record<string, unknown>; error?: string }>, texts?: Array<string> | undefined | null"
    )]
    pub fn reply(&self, results: Value, texts: Option<Vec<Utf16String>>) -> Result<()> {
        reply_run(self.run.as_ref(), results, texts, "this session was not started")
    }

    /// Estimates what the session's provider would do (a run with a stand-in model, see
    /// `manager::estimate`), off the JavaScript thread; the session is emptied.
    #[napi(
        ts_args_type = "pricing: import('./lib/index').Pricing | undefined | null, withModel: boolean",
        ts_return_type = "Promise<import('./lib/manager').Estimate>"
    )]
    pub fn estimate(&mut self, pricing: Option<Value>, with_model: bool) -> Result<AsyncTask<EstimateTask>> {
        let pricing = match pricing {
            None | Some(Value::Null) => None,
            Some(p) => Some(guarded(|| {
                let pricing = crate::config::parse_config::<crate::cost::Pricing>(&p, "pricing")?;
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
    #[napi(
        ts_args_type = "config: import('./lib/index').WorkingSetConfig | undefined | null, withText: boolean, encodingName?: string | undefined | null",
        ts_return_type = "Promise<import('./lib/index').WorkingSetFile[]>"
    )]
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
    #[napi(ts_return_type = "Promise<import('./lib/index').Analysis>")]
    pub fn analyze(&mut self, encoding_name: Option<String>) -> Result<AsyncTask<AnalyzeTask>> {
        Ok(AsyncTask::new(AnalyzeTask {
            messages: Arc::new(std::mem::take(&mut self.messages)),
            encoding: encoding(encoding_name)?,
        }))
    }
}
