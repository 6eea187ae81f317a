//! The Node-API binding, and nothing else: converts values at the boundary, runs heavy work
//! off the JavaScript thread, turns errors into JavaScript errors and panics into errors too
//! (`catch_unwind` on every export and inside every task). The public API is `lib/index.js`,
//! which calls these functions; they are not meant to be used directly.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{channel, Receiver, Sender};
use std::sync::{Arc, Mutex};

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};

use crate::condense::{condense, parse_encoding, Options, Outcome};
use crate::draft::Item;
use crate::error::CondenseError;
use crate::llm::{SummarizeRequest, Summarizer, SummaryReply};
use crate::model::{Slot, TextRef};
use crate::tokens::{self, Encoding};

fn to_napi(e: CondenseError) -> Error {
    let status = match e {
        CondenseError::InvalidOptions(_) | CondenseError::UnknownProvider(_) => Status::InvalidArg,
        CondenseError::Aborted => Status::Cancelled,
        CondenseError::Internal(_) => Status::GenericFailure,
    };
    Error::new(status, e.to_string())
}

fn panic_message(p: Box<dyn std::any::Any + Send>) -> String {
    p.downcast_ref::<&str>()
        .map(|s| s.to_string())
        .or_else(|| p.downcast_ref::<String>().cloned())
        .unwrap_or_else(|| "unknown panic".into())
}

/// The test-only panic switch: with `CONTEXT_CONDENSE_PANIC_PROBE` set to `sync`, `task` or
/// `callback`, the engine panics on purpose inside a sync export (`validateConversation`), inside
/// the engine's own thread, or when a summary reply comes back from JavaScript. The tests use it
/// to show that each panic reaches JavaScript as an error and the process lives on. Unset in
/// normal use; reading it costs one environment lookup at each of those three points.
fn panic_probe(stage: &str) {
    if std::env::var("CONTEXT_CONDENSE_PANIC_PROBE").is_ok_and(|v| v == stage) {
        panic!("panic probe: {stage}");
    }
}

/// Engine runs in progress, and how many have started so far. When the engine has been idle for
/// `TRIM_AFTER`, glibc is asked to give freed memory back to the system: a burst of concurrent
/// condensations otherwise leaves the process tens of MB larger (each engine thread's allocations
/// land in arenas glibc keeps). Waiting first, as jemalloc's decay does, keeps back-to-back calls
/// from giving memory back only to ask for it again.
static RUNNING: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
static STARTED: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
/// Messages from which a finished run gives freed memory back at once (see `Session::start`).
const LARGE_HISTORY: usize = 50_000;
const TRIM_AFTER: std::time::Duration = std::time::Duration::from_millis(1000);

fn run_started() {
    RUNNING.fetch_add(1, Ordering::AcqRel);
    STARTED.fetch_add(1, Ordering::AcqRel);
}

fn run_ended() {
    if RUNNING.fetch_sub(1, Ordering::AcqRel) == 1 {
        let (pending, wake) = idle_trimmer();
        *pending.lock().unwrap_or_else(|e| e.into_inner()) = true;
        wake.notify_one();
    }
}

type Wake = (Mutex<bool>, std::sync::Condvar);

/// The thread that trims once the engine has stayed idle (started on first use), and the flag
/// that says the engine went idle since it last looked.
fn idle_trimmer() -> &'static Wake {
    static WAKE: std::sync::OnceLock<&'static Wake> = std::sync::OnceLock::new();
    WAKE.get_or_init(|| {
        let wake: &'static Wake = Box::leak(Box::new((Mutex::new(false), std::sync::Condvar::new())));
        let _ = std::thread::Builder::new().name("context-condense-trim".into()).spawn(move || loop {
            let (pending, cv) = wake;
            let mut went_idle = pending.lock().unwrap_or_else(|e| e.into_inner());
            while !*went_idle {
                went_idle = cv.wait(went_idle).unwrap_or_else(|e| e.into_inner());
            }
            *went_idle = false;
            drop(went_idle);
            // Idle for TRIM_AFTER with nothing started meanwhile: give the memory back.
            let seen = STARTED.load(Ordering::Acquire);
            std::thread::sleep(TRIM_AFTER);
            if RUNNING.load(Ordering::Acquire) == 0 && STARTED.load(Ordering::Acquire) == seen {
                trim();
            }
        });
        wake
    })
}

fn trim() {
    #[cfg(all(target_os = "linux", target_env = "gnu"))]
    // SAFETY: malloc_trim only releases free memory; it is thread-safe in glibc.
    unsafe {
        libc::malloc_trim(0);
    }
}

/// Runs `f`, turning a panic into an `Internal` error.
fn guarded<T>(f: impl FnOnce() -> std::result::Result<T, CondenseError>) -> Result<T> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r.map_err(to_napi),
        Err(p) => Err(to_napi(CondenseError::Internal(panic_message(p)))),
    }
}

fn encoding(name: Option<String>) -> Result<Encoding> {
    parse_encoding(name.as_deref(), "options.encoding").map_err(to_napi)
}

/// A value as JSON text, for results that may hold more values than one Node-API conversion
/// takes (about a million): JavaScript parses the text instead.
fn json_text<T: serde::Serialize>(value: &T) -> std::result::Result<String, CondenseError> {
    serde_json::to_string(value).map_err(|e| CondenseError::Internal(format!("could not write the result: {e}")))
}

/// A batch of summary requests as lines of JSON, so JavaScript can parse a request of a million
/// messages a slice at a time: the first line is the requests with `messages` replaced by how
/// many there are, then one line per message, request after request. (JSON text never holds a
/// raw line break.)
fn requests_text(batch: &[SummarizeRequest]) -> std::result::Result<String, CondenseError> {
    let mut out = String::new();
    let heads: Vec<Value> = batch
        .iter()
        .map(|r| {
            let mut head = serde_json::to_value(r.clone_head()).unwrap_or(Value::Null);
            head["messages"] = json!(r.messages.len());
            head
        })
        .collect();
    out.push_str(&json_text(&heads)?);
    for m in batch.iter().flat_map(|r| r.messages.iter()) {
        out.push('\n');
        out.push_str(&json_text(m)?);
    }
    Ok(out)
}

/// Whether a string of `value` (or a key) holds U+FFFD (EF BF BD) or U+FDD0 (EF B7 90).
fn may_need_escaping(value: &Value) -> bool {
    fn text(s: &str) -> bool {
        let b = s.as_bytes();
        memchr::memchr_iter(0xEF, b).any(|i| matches!(b.get(i + 1..i + 3), Some([0xBF, 0xBD]) | Some([0xB7, 0x90])))
    }
    match value {
        Value::String(s) => text(s),
        Value::Array(a) => a.iter().any(may_need_escaping),
        Value::Object(o) => o.iter().any(|(k, v)| text(k) || may_need_escaping(v)),
        _ => false,
    }
}

fn as_array(messages: &Value) -> std::result::Result<&[Value], CondenseError> {
    messages
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| CondenseError::InvalidOptions("messages: expected an array of messages".into()))
}

/// Changes packed for a cheap crossing: four numbers per change in `codes`
/// (message, block + 1, part + 1, field: 0 = `text`, 1 = `content`) and every new text
/// concatenated in `text`, cut by `ends` (UTF-16 offsets, as JavaScript indexes strings).
/// Creating one string and two typed arrays costs a few napi calls, where an object per
/// change cost thousands.
#[napi(object)]
pub struct PackedChanges {
    pub codes: Uint32Array,
    pub ends: Uint32Array,
    pub text: String,
}

/// The plain-data form of `PackedChanges`, built off the JavaScript thread.
pub struct Packed {
    codes: Vec<u32>,
    ends: Vec<u32>,
    text: String,
}

impl Packed {
    fn new(changes: Vec<(TextRef, String)>) -> Packed {
        let mut p = Packed {
            codes: Vec::with_capacity(changes.len() * 4),
            ends: Vec::with_capacity(changes.len()),
            text: String::new(),
        };
        let mut end = 0u32;
        for (at, t) in changes {
            let (block, part, field) = match at.slot {
                Slot::Content => (0, 0, 1),
                Slot::Text(j) => (j as u32 + 1, 0, 0),
                Slot::ResultString(j) => (j as u32 + 1, 0, 1),
                Slot::ResultPart(j, k) => (j as u32 + 1, k as u32 + 1, 0),
            };
            p.codes.extend([at.msg as u32, block, part, field]);
            end += t.encode_utf16().count() as u32;
            p.ends.push(end);
            p.text.push_str(&t);
        }
        p
    }

    fn into_js(self) -> PackedChanges {
        PackedChanges { codes: Uint32Array::new(self.codes), ends: Uint32Array::new(self.ends), text: self.text }
    }
}

/// Restored references, for `expandReferences`.
#[napi(object)]
pub struct RawExpansion {
    pub changes: PackedChanges,
    pub expanded: u32,
    pub unresolved: u32,
}

/// A JSON result handed to JavaScript from a task (serde_json::Value is not a task output type).
pub struct Json(Value);

impl TypeName for Json {
    fn type_name() -> &'static str {
        "unknown"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Json {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        // SAFETY: called by napi with a live env, exactly as for a plain Value.
        unsafe { Value::to_napi_value(env, val.0) }
    }
}

/// Loads the BPE tables on a background thread so the first count does not pay for it.
#[napi]
pub fn warm_up() {
    std::thread::spawn(|| {
        let _ = catch_unwind(|| tokens::warm_up(Encoding::O200kBase));
    });
}

/// Empties the engine's token-count cache.
#[napi]
pub fn clear_token_cache() {
    tokens::clear_cache();
}

/// The JSON Schema of a provider's config.
#[napi(catch_unwind)]
pub fn config_schema(provider: String) -> Result<Value> {
    guarded(|| crate::condense::config_schema(&provider))
}

/// The configuration of a Smart preset, as JSON.
#[napi(catch_unwind)]
pub fn smart_preset(name: String) -> Result<Value> {
    guarded(|| {
        crate::providers::smart::presets::preset(&name).ok_or_else(|| {
            CondenseError::InvalidOptions(format!(
                "unknown preset \"{name}\", expected one of {}",
                crate::providers::smart::presets::NAMES.join(", ")
            ))
        })
    })
}

/// The prompts a summary is asked with when the config gives none: `conversation` (Native and
/// Smart's batch mode) and `content` (Smart's per-content summarize operation). Settings UIs show
/// them beside the custom prompt fields.
#[napi(object)]
pub struct DefaultPrompts {
    pub conversation: String,
    pub content: String,
}

#[napi]
pub fn default_prompts() -> DefaultPrompts {
    DefaultPrompts {
        conversation: crate::providers::native::SUMMARY_PROMPT.to_string(),
        content: crate::passes::content_ops::DEFAULT_SUMMARY_PROMPT.to_string(),
    }
}

/// The built-in providers, the Smart presets' names and the engine's constants (the one list every
/// JavaScript module reads).
#[napi]
pub fn provider_catalogue() -> Value {
    crate::catalogue::catalogue()
}

/// Tokens of one string.
#[napi(catch_unwind)]
pub fn count_text(text: String, encoding_name: Option<String>) -> Result<u32> {
    let enc = encoding(encoding_name)?;
    guarded(|| Ok(tokens::count(&text, enc) as u32))
}

/// Tokens of many strings (what the JavaScript cache missed).
#[napi(catch_unwind)]
pub fn count_texts(texts: Vec<String>, encoding_name: Option<String>) -> Result<Vec<u32>> {
    let enc = encoding(encoding_name)?;
    guarded(|| {
        let refs: Vec<&str> = texts.iter().map(String::as_str).collect();
        Ok(tokens::count_many(&refs, enc).into_iter().map(|n| n as u32).collect())
    })
}

pub struct CountTextsTask {
    texts: Vec<String>,
    encoding: Encoding,
}

#[napi]
impl Task for CountTextsTask {
    type Output = Vec<u32>;
    type JsValue = Vec<u32>;

    fn compute(&mut self) -> Result<Vec<u32>> {
        guarded(|| {
            let refs: Vec<&str> = self.texts.iter().map(String::as_str).collect();
            Ok(tokens::count_many(&refs, self.encoding).into_iter().map(|n| n as u32).collect())
        })
    }

    fn resolve(&mut self, _env: Env, output: Vec<u32>) -> Result<Vec<u32>> {
        Ok(output)
    }
}

/// Tokens of many strings, counted off the JavaScript thread.
#[napi]
pub fn count_texts_async(texts: Vec<String>, encoding_name: Option<String>) -> Result<AsyncTask<CountTextsTask>> {
    Ok(AsyncTask::new(CountTextsTask { texts, encoding: encoding(encoding_name)? }))
}

/// Tokens of whole messages, by the engine's own walk (used to cross-check the JavaScript one).
#[napi(catch_unwind)]
pub fn count_messages(messages: Value, encoding_name: Option<String>) -> Result<u32> {
    let enc = encoding(encoding_name)?;
    guarded(|| Ok(tokens::count_messages(as_array(&messages)?, enc) as u32))
}

pub struct EstimateTask {
    messages: Vec<Value>,
    options: Options,
    pricing: Option<crate::cost::Pricing>,
    with_model: bool,
}

#[napi]
impl Task for EstimateTask {
    type Output = Value;
    type JsValue = Json;

    fn compute(&mut self) -> Result<Value> {
        guarded(|| {
            let e = crate::manager::estimate(
                &self.messages,
                &self.options,
                self.pricing.as_ref(),
                self.options.encoding,
                self.with_model,
            );
            Ok(serde_json::to_value(e).unwrap_or(Value::Null))
        })
    }

    fn resolve(&mut self, _env: Env, output: Value) -> Result<Json> {
        Ok(Json(output))
    }
}

// --- The manager's decisions (src/manager.rs); lib/manager.js runs providers and fallbacks. ---

fn manager_config(config: &Value) -> std::result::Result<crate::manager::ManagerConfig, CondenseError> {
    crate::manager::read_config(config).map_err(|problems| {
        CondenseError::InvalidOptions(problems.iter().map(ToString::to_string).collect::<Vec<_>>().join("; "))
    })
}

/// Every problem of a manager config, with paths.
#[napi(catch_unwind)]
pub fn manager_validate_config(config: Value) -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(crate::manager::validate_config(&config)).unwrap_or(Value::Null)))
}

/// The config with defaults filled in and Roo's earlier keys mapped; throws with every problem.
#[napi(catch_unwind)]
pub fn manager_read_config(config: Value) -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(manager_config(&config)?).unwrap_or(Value::Null)))
}

/// The trigger threshold of a profile (and where it came from, with a warning when invalid).
#[napi(catch_unwind)]
pub fn manager_threshold(config: Value, provider: Option<String>, profile_id: Option<String>) -> Result<Value> {
    guarded(|| {
        let c = manager_config(&config)?;
        let provider = provider.unwrap_or_else(|| c.provider.clone());
        let t = crate::manager::effective_threshold(&c, &provider, profile_id.as_deref());
        Ok(serde_json::to_value(t).unwrap_or(Value::Null))
    })
}

/// Whether to condense now, with the figures behind the answer.
#[napi(catch_unwind)]
pub fn manager_decide(config: Value, situation: Value) -> Result<Value> {
    guarded(|| {
        let c = manager_config(&config)?;
        let s: crate::manager::Situation = crate::condense::parse_config(&situation, "situation")?;
        Ok(serde_json::to_value(crate::manager::should_condense(&c, &s)).unwrap_or(Value::Null))
    })
}

/// The loop guard: `null` when the task may try now, else why not.
#[napi(catch_unwind)]
pub fn manager_guard_allows(state: Value, now_ms: f64) -> Result<Option<String>> {
    guarded(|| {
        let s: crate::manager::GuardState = crate::condense::parse_config(&state, "state")?;
        Ok(crate::manager::guard_allows(&s, now_ms.max(0.0) as u64).err())
    })
}

/// The loop guard's state after an attempt.
#[napi(catch_unwind)]
pub fn manager_guard_record(config: Value, state: Value, progressed: bool, now_ms: f64) -> Result<Value> {
    guarded(|| {
        let c = manager_config(&config)?;
        let s: crate::manager::GuardState = crate::condense::parse_config(&state, "state")?;
        let next = crate::manager::guard_record(&c, &s, progressed, now_ms.max(0.0) as u64);
        Ok(serde_json::to_value(next).unwrap_or(Value::Null))
    })
}

/// The JSON Schema of the manager config, for settings UIs.
#[napi(catch_unwind)]
pub fn manager_config_schema() -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(schemars::schema_for!(crate::manager::ManagerConfig)).unwrap_or(Value::Null)))
}

pub struct AnalyzeTask {
    messages: Vec<Value>,
    encoding: Encoding,
}

#[napi]
impl Task for AnalyzeTask {
    type Output = Value;
    type JsValue = Json;

    fn compute(&mut self) -> Result<Value> {
        guarded(|| {
            Ok(serde_json::to_value(crate::analyze::analyze(&self.messages, self.encoding)).unwrap_or(Value::Null))
        })
    }

    fn resolve(&mut self, _env: Env, output: Value) -> Result<Json> {
        Ok(Json(output))
    }
}

/// A condensation in steps, so no step holds the JavaScript thread long: the options are checked
/// when the session is made, the messages arrive in chunks (`push`), `start` runs the engine on
/// its own thread, and `next` waits (off the JavaScript thread) for what the engine needs next:
/// a batch of summaries, which JavaScript answers with `reply`, or its result. `abort` stops a run
/// in progress, also while it waits for summaries.
#[napi]
pub struct Session {
    options: Options,
    messages: Vec<Value>,
    abort: Arc<AtomicBool>,
    events: Option<Arc<Mutex<Receiver<Event>>>>,
    replies: Option<Sender<Answer>>,
    /// Set when the history could not cross the boundary: the run then refuses with it.
    rejected: Option<String>,
}

/// What the engine thread tells JavaScript.
/// Both carry JSON text made on the engine thread, so the JavaScript thread only creates a string.
pub enum Event {
    /// A batch of summary requests.
    Summarize(String),
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
        let batch = match requests_text(&batch) {
            Ok(text) => text,
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

fn outcome_summary(o: &Outcome) -> Value {
    let layout = o.changes.layout.as_ref().map(|l| {
        l.iter()
            .map(|item| match item {
                Item::Keep(i) => json!(i),
                Item::New(v) => json!({ "message": v }),
            })
            .collect::<Vec<_>>()
    });
    let inputs: Vec<Value> = o.changes.inputs.iter().map(|((m, b), v)| json!([m, b, v])).collect();
    json!({
        "prevContextTokens": o.prev_context_tokens,
        "newContextTokens": o.new_context_tokens,
        "summary": o.summary,
        "cost": o.cost,
        "error": o.error,
        "metrics": o.metrics,
        "report": o.report,
        "inputs": inputs,
        "layout": layout,
    })
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
            events: None,
            replies: None,
            rejected: None,
        })
    }

    /// Adds the next messages of the history. Answers the positions (within `chunk`) of the
    /// messages holding U+FFFD or U+FDD0: only those can carry a lone surrogate (Node-API turns
    /// each into U+FFFD on the way in) or the escape character, and JavaScript replaces those
    /// that do by their escaped form (`set`), so edited text comes back exactly.
    #[napi]
    pub fn push(&mut self, chunk: Vec<Value>) -> Vec<u32> {
        let flagged = chunk.iter().enumerate().filter(|(_, m)| may_need_escaping(m)).map(|(i, _)| i as u32).collect();
        self.messages.extend(chunk);
        flagged
    }

    /// Replaces the pushed message at `index` (its escaped form, see `push`).
    #[napi]
    pub fn set(&mut self, index: u32, message: Value) -> Result<()> {
        match self.messages.get_mut(index as usize) {
            Some(m) => {
                *m = message;
                Ok(())
            }
            None => Err(Error::new(Status::InvalidArg, format!("set: no message at {index}"))),
        }
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

    /// Every problem the provider APIs would reject in the pushed messages (or in `instead`,
    /// a value that is not an array), with its path, as JSON text (a list of any length crosses
    /// as one string).
    #[napi]
    pub fn validate(&mut self, instead: Option<Value>) -> Result<String> {
        let pushed = Value::Array(std::mem::take(&mut self.messages));
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
        self.abort.store(true, Ordering::Relaxed);
        if let Some(r) = &self.replies {
            let _ = r.send(Answer::Aborted);
        }
    }

    /// Starts the engine on its own thread with the pushed messages; `with_summarizer` says
    /// whether JavaScript will answer summary requests.
    #[napi]
    pub fn start(&mut self, with_summarizer: bool) -> Result<()> {
        if self.events.is_some() {
            return Err(Error::new(Status::GenericFailure, "this session was already started"));
        }
        let (event_tx, event_rx) = channel::<Event>();
        let (reply_tx, reply_rx) = channel::<Answer>();
        self.events = Some(Arc::new(Mutex::new(event_rx)));
        self.replies = Some(reply_tx);
        let messages = std::mem::take(&mut self.messages);
        let options = self.options.clone();
        let abort = self.abort.clone();
        let rejected = self.rejected.take();
        run_started();
        let spawned = std::thread::Builder::new().name("context-condense".into()).spawn(move || {
            let done_tx = event_tx.clone();
            let result = catch_unwind(AssertUnwindSafe(|| {
                panic_probe("task");
                if let Some(problem) = rejected {
                    let o = crate::condense::refuse(&options, problem);
                    return Ok((Packed::new(o.changes.texts.clone()), json_text(&outcome_summary(&o))?));
                }
                let mut channel = ChannelSummarizer { events: event_tx, replies: reply_rx, abort: abort.clone() };
                let summarizer: Option<&mut dyn Summarizer> = if with_summarizer { Some(&mut channel) } else { None };
                let o = condense(&messages, &options, &abort, summarizer)?;
                let summary = json_text(&outcome_summary(&o))?;
                Ok((Packed::new(o.changes.texts), summary))
            }));
            let result = result.unwrap_or_else(|p| Err(CondenseError::Internal(panic_message(p))));
            // A large history's values were allocated on the JavaScript thread and are freed
            // here: glibc then tidies those small blocks up (malloc_consolidate) on the next
            // allocation of the JavaScript thread, a stall of a second or two after a
            // million-message run. Trimming here does that work on this thread instead.
            let large = messages.len() >= LARGE_HISTORY;
            drop(messages);
            if large {
                trim();
            }
            let _ = done_tx.send(Event::Done(result));
            run_ended();
        });
        if spawned.is_err() {
            RUNNING.fetch_sub(1, Ordering::AcqRel);
        }
        spawned
            .map(|_| ())
            .map_err(|e| Error::new(Status::GenericFailure, format!("could not start the engine thread: {e}")))
    }

    /// Waits, off the JavaScript thread, for what the engine needs next.
    #[napi]
    pub fn next(&self) -> Result<AsyncTask<NextTask>> {
        match &self.events {
            Some(rx) => Ok(AsyncTask::new(NextTask { events: rx.clone(), abort: self.abort.clone() })),
            None => Err(Error::new(Status::GenericFailure, "this session was not started")),
        }
    }

    /// Answers the batch of summaries the engine asked for: one `{ ok: true, reply }` or
    /// `{ ok: false, error }` per request, in order.
    #[napi]
    pub fn reply(&self, results: Value) -> Result<()> {
        let Some(tx) = &self.replies else {
            return Err(Error::new(Status::GenericFailure, "this session was not started"));
        };
        let Value::Array(items) = results else {
            return Err(Error::new(Status::InvalidArg, "reply: expected an array"));
        };
        let answers = items
            .into_iter()
            .map(|item| {
                if item.get("ok").and_then(Value::as_bool) == Some(true) {
                    serde_json::from_value::<SummaryReply>(item.get("reply").cloned().unwrap_or(Value::Null))
                        .map_err(|e| format!("the summarize callback's answer could not be read: {e}"))
                } else {
                    Err(item
                        .get("error")
                        .and_then(Value::as_str)
                        .unwrap_or("the summarize callback failed")
                        .to_string())
                }
            })
            .collect();
        // The engine may have stopped waiting (aborted): nothing to do then.
        let _ = tx.send(Answer::Replies(answers));
        Ok(())
    }

    /// Estimates what the session's provider would do (a run with a stand-in model, see
    /// `manager::estimate`), off the JavaScript thread; the session is emptied.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn estimate(&mut self, pricing: Option<Value>, with_model: bool) -> Result<AsyncTask<EstimateTask>> {
        let pricing = match pricing {
            None | Some(Value::Null) => None,
            Some(p) => Some(guarded(|| crate::condense::parse_config::<crate::cost::Pricing>(&p, "pricing"))?),
        };
        Ok(AsyncTask::new(EstimateTask {
            messages: std::mem::take(&mut self.messages),
            options: self.options.clone(),
            pricing,
            with_model,
        }))
    }

    /// Analyzes the pushed messages off the JavaScript thread; the session is emptied.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn analyze(&mut self, encoding_name: Option<String>) -> Result<AsyncTask<AnalyzeTask>> {
        Ok(AsyncTask::new(AnalyzeTask {
            messages: std::mem::take(&mut self.messages),
            encoding: encoding(encoding_name)?,
        }))
    }
}

/// The next event of an engine run, as JavaScript receives it.
#[napi(object)]
pub struct RawEvent {
    /// "summarize", "done" or "error".
    pub kind: String,
    /// The summary requests, as JSON text.
    pub requests: Option<String>,
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
            requests: None,
            changes: None,
            summary: None,
            error: None,
            aborted: false,
            invalid_options: false,
        };
        Ok(match event {
            Event::Summarize(batch) => RawEvent { kind: "summarize".into(), requests: Some(batch), ..empty },
            Event::Done(Ok((packed, summary))) => {
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
