//! A history kept in the engine between calls (`Conversation`): the messages as the engine holds
//! them, their token counts message by message, and runs of the engine over them. A host adds
//! what is new (`push`), rewrites (`set`, `truncate`), and after a condensation the conversation
//! takes on its result (`adopt`), so the next call crosses only the new messages, and is neither
//! counted nor parsed again: the counts and the semantic view (`ViewCache`) are kept message by
//! message. It never sees the host's objects: `lib/conversation.js` keeps those beside it.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::AtomicBool;
use std::sync::{Arc, Mutex, MutexGuard};

use napi_derive::napi;
use serde_json::Value;

use super::codec::*;
use super::session::*;
use super::tasks::*;
use super::trim::*;
use super::*;
use crate::condense::Options;
use crate::draft::{apply_in_place, Changes};
use crate::error::CondenseError;
use crate::parse::held::ViewCache;
use crate::tokens::{count_each_within, Cancel};

/// Token counts of the conversation's first messages (all of them once counted).
#[derive(Default)]
struct Counts {
    each: Vec<u64>,
    total: u64,
}

impl Counts {
    /// Forgets the counts from message `from` on.
    fn cut(&mut self, from: usize) {
        if from < self.each.len() {
            self.total -= self.each[from..].iter().sum::<u64>();
            self.each.truncate(from);
        }
    }

    /// Counts the messages not counted yet.
    fn catch_up(
        &mut self,
        messages: &[Message],
        encoding: Encoding,
        cancel: Cancel,
    ) -> std::result::Result<(), CondenseError> {
        let from = self.each.len().min(messages.len());
        if from == messages.len() {
            return Ok(());
        }
        let fresh = count_each_within(&messages[from..].iter().collect::<Vec<_>>(), encoding, cancel)?;
        self.total += fresh.iter().sum::<u64>();
        self.each.extend(fresh);
        Ok(())
    }
}

fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(|e| e.into_inner())
}

/// What a conversation knows of the messages a run works on: their counts and semantic view.
pub struct Held {
    counts: Arc<Mutex<Counts>>,
    views: Arc<Mutex<ViewCache>>,
    encoding: Encoding,
}

impl Held {
    /// The tokens of `messages` (counting those not counted yet) and the view cache, locked for
    /// the run.
    pub fn known(
        &self,
        messages: &[Message],
        abort: &AtomicBool,
    ) -> std::result::Result<(u64, MutexGuard<'_, ViewCache>), CondenseError> {
        let mut counts = lock(&self.counts);
        counts.catch_up(messages, self.encoding, Cancel::new(abort))?;
        Ok((counts.total, lock(&self.views)))
    }
}

/// A history held in the engine between calls; see the module doc.
#[napi]
pub struct Conversation {
    messages: Arc<Vec<Message>>,
    counts: Arc<Mutex<Counts>>,
    views: Arc<Mutex<ViewCache>>,
    encoding: Encoding,
    abort: Arc<AtomicBool>,
    run: Option<Run>,
    /// The changes of the last successful run, until `adopt` applies them.
    result: Arc<Mutex<Option<Changes>>>,
}

const BUSY: &str = "the conversation is busy: a condense or a count is still running on it";

#[napi]
impl Conversation {
    #[napi(constructor)]
    pub fn new(encoding_name: Option<String>) -> Result<Conversation> {
        Ok(Conversation {
            messages: Arc::new(Vec::new()),
            counts: Arc::new(Mutex::new(Counts::default())),
            views: Arc::new(Mutex::new(ViewCache::new())),
            encoding: encoding(encoding_name)?,
            abort: Arc::new(AtomicBool::new(false)),
            run: None,
            result: Arc::new(Mutex::new(None)),
        })
    }

    /// The messages, to change them: a result waiting for `adopt` no longer fits them.
    fn messages_mut(&mut self) -> Result<&mut Vec<Message>> {
        *self.result.lock().unwrap_or_else(|e| e.into_inner()) = None;
        Arc::get_mut(&mut self.messages).ok_or_else(|| Error::new(Status::GenericFailure, BUSY))
    }

    fn counts(&self) -> MutexGuard<'_, Counts> {
        lock(&self.counts)
    }

    fn views(&self) -> MutexGuard<'_, ViewCache> {
        lock(&self.views)
    }

    /// Messages held.
    #[napi(getter)]
    pub fn length(&self) -> u32 {
        self.messages.len() as u32
    }

    /// Adds messages at the end. Answers the positions (within `chunk`) of those holding U+FFFD
    /// or U+FDD0, as `Session.push` does: JavaScript replaces those needing it by their escaped form.
    #[napi]
    pub fn push(&mut self, chunk: Vec<crate::json::Value>) -> Result<Vec<u32>> {
        let flagged = chunk.iter().enumerate().filter(|(_, m)| may_need_escaping(m)).map(|(i, _)| i as u32).collect();
        let n = chunk.len();
        let messages = self.messages_mut()?;
        crate::memory::reserve_modestly(messages, n);
        messages.extend(chunk);
        self.views().pushed(n);
        Ok(flagged)
    }

    /// Replaces the message at `index`.
    #[napi]
    pub fn set(&mut self, index: u32, message: crate::json::Value) -> Result<()> {
        let i = index as usize;
        let slot = self
            .messages_mut()?
            .get_mut(i)
            .ok_or_else(|| Error::new(Status::InvalidArg, format!("set: no message at {index}")))?;
        *slot = message;
        self.views().changed(i);
        self.recount(i)
    }

    /// Moves the last message to `index`, in place of the message there (a replacement pushed
    /// at the end first, so it crosses and is escaped as any new message).
    #[napi]
    pub fn move_last(&mut self, index: u32) -> Result<()> {
        let i = index as usize;
        let messages = self.messages_mut()?;
        if i + 1 >= messages.len() {
            return Err(Error::new(Status::InvalidArg, format!("moveLast: no message at {index} before the last")));
        }
        if let Some(last) = messages.pop() {
            messages[i] = last;
        }
        let len = self.messages.len();
        let mut views = self.views();
        views.truncated(len);
        views.changed(i);
        drop(views);
        self.counts().cut(len);
        self.recount(i)
    }

    /// Counts message `i` again, when it was counted.
    fn recount(&self, i: usize) -> Result<()> {
        let mut counts = self.counts();
        if i < counts.each.len() {
            let n = count_each_within(&[&self.messages[i]], self.encoding, Cancel::NEVER).map_err(to_napi)?[0];
            counts.total = counts.total - counts.each[i] + n;
            counts.each[i] = n;
        }
        Ok(())
    }

    /// Keeps the first `length` messages.
    #[napi]
    pub fn truncate(&mut self, length: u32) -> Result<()> {
        self.messages_mut()?.truncate(length as usize);
        self.counts().cut(length as usize);
        self.views().truncated(length as usize);
        Ok(())
    }

    /// Tokens of the messages held, counting only those not counted yet.
    #[napi]
    pub fn tokens(&self) -> Result<f64> {
        let mut counts = self.counts();
        counts.catch_up(&self.messages, self.encoding, Cancel::NEVER).map_err(to_napi)?;
        Ok(counts.total as f64)
    }

    /// Tokens of message `index`.
    #[napi]
    pub fn tokens_of(&self, index: u32) -> Result<f64> {
        let mut counts = self.counts();
        counts.catch_up(&self.messages, self.encoding, Cancel::NEVER).map_err(to_napi)?;
        counts
            .each
            .get(index as usize)
            .map(|n| *n as f64)
            .ok_or_else(|| Error::new(Status::InvalidArg, format!("tokensOf: no message at {index}")))
    }

    /// Counts what is not counted yet off the JavaScript thread.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn count(&self) -> AsyncTask<CountTask> {
        AsyncTask::new(CountTask {
            messages: self.messages.clone(),
            counts: self.counts.clone(),
            encoding: self.encoding,
        })
    }

    /// What fills the context, off the JavaScript thread.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn analyze(&self) -> AsyncTask<AnalyzeTask> {
        AsyncTask::new(AnalyzeTask { messages: self.messages.clone(), encoding: self.encoding })
    }

    /// Starts a condensation of the messages held (options as `Session` takes them; the
    /// encoding is the conversation's). `with_summarizer` says whether JavaScript answers
    /// summary requests.
    #[napi]
    pub fn start(&mut self, options: Value, with_summarizer: bool) -> Result<()> {
        if self.run.as_ref().is_some() && Arc::strong_count(&self.messages) > 1 {
            return Err(Error::new(Status::GenericFailure, BUSY));
        }
        let options = guarded(|| Options::from_value(&options))?;
        if options.encoding != self.encoding {
            return Err(Error::new(
                Status::InvalidArg,
                format!(
                    "options.encoding: the conversation counts in {}, not {}",
                    self.encoding.name(),
                    options.encoding.name()
                ),
            ));
        }
        self.abort = Arc::new(AtomicBool::new(false));
        *self.result.lock().unwrap_or_else(|e| e.into_inner()) = None;
        let held = Held { counts: self.counts.clone(), views: self.views.clone(), encoding: self.encoding };
        let spec =
            RunSpec { options, rejected: None, with_summarizer, keep: Some(self.result.clone()), held: Some(held) };
        self.run = Some(spawn_run(self.messages.clone(), spec, self.abort.clone())?);
        Ok(())
    }

    #[napi]
    pub fn next(&self) -> Result<AsyncTask<NextTask>> {
        next_event(self.run.as_ref(), &self.abort, "no condense was started on this conversation")
    }

    #[napi]
    pub fn read_part(&self, max_bytes: u32) -> Option<String> {
        read_part(self.run.as_ref(), max_bytes)
    }

    #[napi]
    pub fn reply(&self, results: Value) -> Result<()> {
        reply_run(self.run.as_ref(), results, "no condense was started on this conversation")
    }

    #[napi]
    pub fn abort(&self) {
        abort_run(&self.abort, self.run.as_ref());
    }

    /// Takes on the result of the last successful condensation: the messages become the
    /// condensed ones. Answers, per message now held, its index before (-1 for a written one)
    /// or, when its text changed, `-2 - index`.
    #[napi]
    pub fn adopt(&mut self) -> Result<Int32Array> {
        let Some(changes) = self.result.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return Err(Error::new(Status::GenericFailure, "adopt: no condensed result is waiting"));
        };
        self.run = None;
        let (counts, encoding) = (self.counts.clone(), self.encoding);
        let messages = Arc::get_mut(&mut self.messages).ok_or_else(|| Error::new(Status::GenericFailure, BUSY))?;
        let origin = apply_in_place(messages, changes);
        lock(&self.views).rearranged(&origin);
        let old = std::mem::take(&mut *counts.lock().unwrap_or_else(|e| e.into_inner()));
        // Messages kept as they were keep their counts; edited and written ones are counted.
        let known = |at: &Option<usize>, edited: bool| at.filter(|_| !edited).and_then(|i| old.each.get(i).copied());
        let fresh: Vec<&Message> =
            origin.iter().zip(messages.iter()).filter(|((at, e), _)| known(at, *e).is_none()).map(|(_, m)| m).collect();
        let mut fresh = count_each_within(&fresh, encoding, Cancel::NEVER).map_err(to_napi)?.into_iter();
        let each: Vec<u64> =
            origin.iter().map(|(at, e)| known(at, *e).unwrap_or_else(|| fresh.next().unwrap_or(0))).collect();
        *self.counts() = Counts { total: each.iter().sum(), each };
        // One typed array: a plain array would cross element by element.
        Ok(Int32Array::new(
            origin
                .iter()
                .map(|(at, edited)| match (at, edited) {
                    (None, _) => -1,
                    (Some(i), false) => *i as i32,
                    (Some(i), true) => -2 - *i as i32,
                })
                .collect(),
        ))
    }

    /// Lets go of the messages (memory goes back to the system at once for a large history, after
    /// the engine's idle delay otherwise; a later call finds the conversation empty).
    #[napi]
    pub fn close(&mut self) {
        abort_run(&self.abort, self.run.as_ref());
        drop_parts(self.run.as_ref());
        *self.counts() = Counts::default();
        self.views().clear();
        *self.result.lock().unwrap_or_else(|e| e.into_inner()) = None;
        free_history(std::mem::take(&mut self.messages));
    }
}

pub struct CountTask {
    messages: Arc<Vec<Message>>,
    counts: Arc<Mutex<Counts>>,
    encoding: Encoding,
}

#[napi]
impl Task for CountTask {
    type Output = f64;
    type JsValue = f64;

    fn compute(&mut self) -> Result<f64> {
        let mut counts = self.counts.lock().unwrap_or_else(|e| e.into_inner());
        let messages = self.messages.clone();
        let encoding = self.encoding;
        let total = match catch_unwind(AssertUnwindSafe(|| counts.catch_up(&messages, encoding, Cancel::NEVER))) {
            Ok(r) => r.map(|_| counts.total as f64).map_err(to_napi),
            Err(p) => Err(to_napi(CondenseError::Internal(panic_message(p)))),
        };
        // The conversation may change as soon as this task resolves.
        self.messages = Arc::new(Vec::new());
        total
    }

    fn resolve(&mut self, _env: Env, total: f64) -> Result<f64> {
        Ok(total)
    }
}
