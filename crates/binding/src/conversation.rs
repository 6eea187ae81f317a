//! A history kept in the engine between calls (`Conversation`): the messages as the engine holds
//! them, their token counts message by message, and runs of the engine over them. A host adds
//! what is new (`push`), rewrites (`moveLast`, `truncate`), and after a condensation the
//! conversation takes on its result (`adopt`), so the next call crosses only the new messages, and
//! is neither counted nor parsed again: the counts and the semantic view (`ViewCache`) are kept
//! message by message. What changed is counted when asked, off the JavaScript thread (`count`)
//! unless the synchronous `tokens` asks. It never sees the host's objects: `lib/conversation.js`
//! keeps those beside it.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Mutex, MutexGuard};

use napi_derive::napi;

use super::history::Intake;
use super::run::*;
use super::tasks::*;
use super::text::{JsMessages, LongStrings};
use super::trim::*;
use super::*;
use context_condense::draft::{apply_in_place, Changes};
use context_condense::error::CondenseError;
use context_condense::parse::held::ViewCache;
use context_condense::tokens::{count_each_within, Cancel};

/// Token counts of the conversation's messages: one per message for the first `each.len()`, less
/// those changed since they were counted (`stale`, whose entries are 0 and out of `total`). What
/// is not counted is counted when asked: off the JavaScript thread by `count`, or by a run before
/// it starts; only the synchronous `tokens` and `tokensOf` count on the calling thread.
#[derive(Default)]
struct Counts {
    each: Vec<u64>,
    stale: Vec<usize>,
    total: u64,
}

/// The messages a count must count: those changed since counted, and all from `from` on.
#[derive(Clone, PartialEq)]
struct Todo {
    stale: Vec<usize>,
    from: usize,
}

impl Counts {
    /// Forgets the counts from message `from` on.
    fn cut(&mut self, from: usize) {
        if from < self.each.len() {
            self.total -= self.each[from..].iter().sum::<u64>();
            self.each.truncate(from);
            self.stale.retain(|&i| i < from);
        }
    }

    /// Message `i` is another one now: counted again with the next count.
    fn changed(&mut self, i: usize) {
        if i < self.each.len() && !self.stale.contains(&i) {
            self.total -= self.each[i];
            self.each[i] = 0;
            self.stale.push(i);
        }
    }

    /// Messages not counted, of `len`.
    fn uncounted(&self, len: usize) -> usize {
        len.saturating_sub(self.each.len()) + self.stale.len()
    }

    fn todo(&self) -> Todo {
        Todo { stale: self.stale.clone(), from: self.each.len() }
    }

    /// Counts the messages `todo` names (without changing anything).
    fn count(
        todo: &Todo,
        messages: &[Message],
        encoding: Encoding,
        cancel: Cancel,
    ) -> std::result::Result<Vec<u64>, CondenseError> {
        let from = todo.from.min(messages.len());
        let which: Vec<&Message> =
            todo.stale.iter().filter_map(|&i| messages.get(i)).chain(&messages[from..]).collect();
        count_each_within(&which, encoding, cancel)
    }

    /// Takes the counts of what `todo` named, when nothing changed since it was made (`todo` is
    /// still `self.todo()`); answers whether it did.
    fn record(&mut self, todo: &Todo, counted: Vec<u64>) -> bool {
        if *todo != self.todo() {
            return false;
        }
        let mut counted = counted.into_iter();
        for &i in &todo.stale {
            let n = counted.next().unwrap_or(0);
            if let Some(slot) = self.each.get_mut(i) {
                *slot = n;
                self.total += n;
            }
        }
        self.stale.clear();
        for n in counted {
            self.each.push(n);
            self.total += n;
        }
        true
    }

    /// Counts the messages not counted yet.
    fn catch_up(
        &mut self,
        messages: &[Message],
        encoding: Encoding,
        cancel: Cancel,
    ) -> std::result::Result<(), CondenseError> {
        if self.uncounted(messages.len()) == 0 {
            return Ok(());
        }
        let todo = self.todo();
        let counted = Counts::count(&todo, messages, encoding, cancel)?;
        self.record(&todo, counted);
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

impl HeldMessages for Held {
    fn known(
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
    /// What stops the run started over the messages (the last one), for `close`.
    run: Option<Stop>,
    /// The changes of the result waiting to be adopted (the last successful run JavaScript
    /// kept, `keepResult`), until `adopt` applies them or the messages change.
    result: Arc<Mutex<Option<Changes>>>,
    /// The changes the run in progress (or the last one) made, until JavaScript keeps them: a run
    /// that fails or is stopped after the engine finished leaves the waiting result as it was.
    made: Arc<Mutex<Option<Changes>>>,
    /// Messages coming in from JavaScript (the strings the last push left out arrive in parts).
    intake: Intake,
    /// Set by `close` (or `stopCount` before it): a count running off the JavaScript thread stops.
    closed: Arc<AtomicBool>,
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
            run: None,
            result: Arc::new(Mutex::new(None)),
            made: Arc::new(Mutex::new(None)),
            intake: Intake::default(),
            closed: Arc::new(AtomicBool::new(false)),
        })
    }

    /// The messages, to change them: a result waiting for `adopt` no longer fits them.
    fn messages_mut(&mut self) -> Result<&mut Vec<Message>> {
        self.forget_results();
        Arc::get_mut(&mut self.messages).ok_or_else(|| coded(ErrorCode::InvalidState, BUSY))
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

    /// Adds messages at the end, as `History.push` does, through the same intake (the strings it
    /// answers are sent in parts: `textPart`, then `setText`). Nothing is counted here.
    #[napi(ts_args_type = "chunk: object[], longUnits?: number | undefined | null", ts_return_type = "string[]")]
    pub fn push(&mut self, chunk: JsMessages, long_units: Option<u32>) -> Result<LongStrings> {
        let chunk = Intake::read(&chunk, long_units)?;
        // As `messages_mut`: a result waiting for `adopt` no longer fits (fields borrowed apart).
        self.forget_results();
        let messages = Arc::get_mut(&mut self.messages).ok_or_else(|| coded(ErrorCode::InvalidState, BUSY))?;
        let (n, strings) = self.intake.add(messages, chunk);
        self.views().pushed(n);
        Ok(strings)
    }

    /// The next part (UTF-16, any length) of a string the last `push` left out; with its first
    /// part, the whole string's length.
    #[napi]
    pub fn text_part(&mut self, part: Utf16String, whole: Option<u32>) {
        self.intake.text_part(&part, whole);
    }

    /// Puts the string sent since the last `setText` in place of string `j` the last `push` left out.
    #[napi]
    pub fn set_text(&mut self, j: u32) -> Result<()> {
        // As `messages_mut` (fields borrowed apart).
        self.forget_results();
        let messages = Arc::get_mut(&mut self.messages).ok_or_else(|| coded(ErrorCode::InvalidState, BUSY))?;
        let i = self.intake.set_text(messages, j)?;
        self.views().changed(i);
        self.counts().changed(i);
        Ok(())
    }

    /// Moves the last message to `index`, in place of the message there (a replacement pushed
    /// at the end first, so it crosses and is escaped as any new message). It is counted with
    /// the next count.
    #[napi]
    pub fn move_last(&mut self, index: u32) -> Result<()> {
        let i = index as usize;
        let messages = self.messages_mut()?;
        if i + 1 >= messages.len() {
            return Err(coded(ErrorCode::InvalidArgument, format!("moveLast: no message at {index} before the last")));
        }
        if let Some(last) = messages.pop() {
            messages[i] = last;
        }
        let len = self.messages.len();
        let mut views = self.views();
        views.truncated(len);
        views.changed(i);
        drop(views);
        let mut counts = self.counts();
        counts.cut(len);
        counts.changed(i);
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

    /// Tokens of the messages held, counting those not counted yet on this (the JavaScript)
    /// thread: `count` counts them off it.
    #[napi]
    pub fn tokens(&self) -> Result<f64> {
        let mut counts = self.counts();
        counts.catch_up(&self.messages, self.encoding, Cancel::NEVER).map_err(to_napi)?;
        Ok(counts.total as f64)
    }

    /// Tokens of message `index` (counting, as `tokens` does, what is not counted yet).
    #[napi]
    pub fn tokens_of(&self, index: u32) -> Result<f64> {
        let mut counts = self.counts();
        counts.catch_up(&self.messages, self.encoding, Cancel::NEVER).map_err(to_napi)?;
        counts
            .each
            .get(index as usize)
            .map(|n| *n as f64)
            .ok_or_else(|| coded(ErrorCode::InvalidArgument, format!("tokensOf: no message at {index}")))
    }

    /// Messages not counted yet (appended, replaced or condensed since the last count): `tokens`
    /// and `tokensOf` count nothing when there are none.
    #[napi(getter)]
    pub fn uncounted(&self) -> u32 {
        self.counts().uncounted(self.messages.len()) as u32
    }

    /// Counts what is not counted yet off the JavaScript thread (the engine's thread pool) and
    /// answers the tokens of the messages held. The conversation cannot change while it runs
    /// (its messages are shared with the count); `close` stops it.
    #[napi(ts_return_type = "Promise<number>")]
    pub fn count(&self) -> AsyncTask<CountTask> {
        AsyncTask::new(CountTask {
            messages: self.messages.clone(),
            counts: self.counts.clone(),
            encoding: self.encoding,
            closed: self.closed.clone(),
        })
    }

    /// Stops a count running off the JavaScript thread (and any later one): the conversation is
    /// being closed, and Node-API lets `close` in only once the count has settled.
    #[napi]
    pub fn stop_count(&self) {
        self.closed.store(true, Ordering::Relaxed);
    }

    /// What fills the context, off the JavaScript thread.
    #[napi(ts_return_type = "Promise<import('./lib/index').Analysis>")]
    pub fn analyze(&self) -> AsyncTask<AnalyzeTask> {
        AsyncTask::new(AnalyzeTask { messages: self.messages.clone(), encoding: self.encoding })
    }

    /// Starts `run` (a condensation, its options checked when it was made; their encoding must
    /// be the conversation's) over the messages held. `with_summarizer` says whether JavaScript
    /// answers summary requests. The run's events, replies and abort are the run's; `close` stops
    /// it too.
    #[napi]
    pub fn start(&mut self, run: &mut Run, with_summarizer: bool) -> Result<()> {
        // A closed conversation holds nothing: a run over it would condense an empty history.
        if self.closed.load(Ordering::Relaxed) {
            return Err(coded(ErrorCode::InvalidState, "start: the conversation is closed"));
        }
        if self.run.is_some() && Arc::strong_count(&self.messages) > 1 {
            return Err(coded(ErrorCode::InvalidState, BUSY));
        }
        let options = run.options();
        if options.encoding != self.encoding {
            return Err(coded(
                ErrorCode::InvalidOptions,
                format!(
                    "options.encoding: the conversation counts in {}, not {}",
                    self.encoding.name(),
                    options.encoding.name()
                ),
            ));
        }
        *lock(&self.made) = None;
        let held = Held { counts: self.counts.clone(), views: self.views.clone(), encoding: self.encoding };
        self.run = Some(run.start_held(self.messages.clone(), with_summarizer, self.made.clone(), Box::new(held))?);
        Ok(())
    }

    /// Makes the changes of the run that just succeeded the result waiting to be adopted
    /// (JavaScript calls it once it has built that result for the host).
    #[napi]
    pub fn keep_result(&self) {
        let made = lock(&self.made).take();
        if made.is_some() {
            *lock(&self.result) = made;
        }
    }

    /// Forgets the result waiting to be adopted and the changes of the last run.
    fn forget_results(&self) {
        *lock(&self.result) = None;
        *lock(&self.made) = None;
    }

    /// Takes on the result of the last successful condensation: the messages become the
    /// condensed ones. Answers, per message now held, its index before (-1 for a written one)
    /// or, when its text changed, `-2 - index`.
    #[napi]
    pub fn adopt(&mut self) -> Result<Int32Array> {
        let Some(changes) = self.result.lock().unwrap_or_else(|e| e.into_inner()).take() else {
            return Err(coded(ErrorCode::InvalidState, "adopt: no condensed result is waiting"));
        };
        self.run = None;
        let messages = Arc::get_mut(&mut self.messages).ok_or_else(|| coded(ErrorCode::InvalidState, BUSY))?;
        let origin = apply_in_place(messages, changes);
        lock(&self.views).rearranged(&origin);
        let mut counts = lock(&self.counts);
        let old = std::mem::take(&mut *counts);
        // Messages kept as they were keep their counts; edited and written ones are counted with
        // the next count (off the JavaScript thread when it is `count`).
        let mut stale = vec![false; old.each.len()];
        for &i in &old.stale {
            if let Some(s) = stale.get_mut(i) {
                *s = true;
            }
        }
        let known = |at: &Option<usize>, edited: bool| {
            at.filter(|&i| !edited && !stale.get(i).copied().unwrap_or(true)).and_then(|i| old.each.get(i).copied())
        };
        let mut fresh = Counts::default();
        for (i, (at, edited)) in origin.iter().enumerate() {
            match known(at, *edited) {
                Some(n) => {
                    fresh.each.push(n);
                    fresh.total += n;
                }
                None => {
                    fresh.each.push(0);
                    fresh.stale.push(i);
                }
            }
        }
        *counts = fresh;
        drop(counts);
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
        self.closed.store(true, Ordering::Relaxed);
        if let Some(run) = &self.run {
            run.stop();
        }
        *self.counts() = Counts::default();
        self.views().clear();
        self.forget_results();
        free_history(std::mem::take(&mut self.messages));
    }
}

pub struct CountTask {
    messages: Arc<Vec<Message>>,
    counts: Arc<Mutex<Counts>>,
    encoding: Encoding,
    closed: Arc<AtomicBool>,
}

#[napi]
impl Task for CountTask {
    type Output = Result<f64>;
    type JsValue = f64;

    fn compute(&mut self) -> napi::Result<Self::Output> {
        // Counted without holding the counts, so a `close` meanwhile does not wait for it; taken
        // while the messages are still shared, so they cannot have changed (a close empties the
        // counts: nothing is recorded then).
        let todo = lock(&self.counts).todo();
        let counted = guarded(|| Counts::count(&todo, &self.messages, self.encoding, Cancel::new(&self.closed)));
        let total = counted.map(|counted| {
            let mut counts = lock(&self.counts);
            counts.record(&todo, counted);
            counts.total as f64
        });
        // The conversation may change as soon as this task resolves.
        self.messages = Arc::new(Vec::new());
        Ok(total)
    }

    fn resolve(&mut self, env: Env, total: Self::Output) -> napi::Result<f64> {
        let total = total.map_err(|e| rejection(&env, e))?;
        Ok(total)
    }
}
