//! The Node-API binding, and nothing else: converts values at the boundary, runs heavy work
//! off the JavaScript thread, turns errors into JavaScript errors and panics into errors too
//! (`catch_unwind` on every export and inside every task). The public API is `lib/index.js`,
//! which calls these functions; they are not meant to be used directly.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};

use crate::condense::{condense, parse_encoding, Options, Outcome};
use crate::error::CondenseError;
use crate::model::{Slot, TextRef};
use crate::tokens::{self, Encoding};

fn to_napi(e: CondenseError) -> Error {
    let status = match e {
        CondenseError::InvalidOptions(_) | CondenseError::NotBuilt(_) | CondenseError::UnknownProvider(_) => {
            Status::InvalidArg
        }
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

fn as_array(messages: &Value) -> std::result::Result<&[Value], CondenseError> {
    messages
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| CondenseError::InvalidOptions("messages: expected an array of messages".into()))
}

/// One change as JavaScript applies it: `{ message, block, part, field, text }`.
fn change_json(at: &TextRef, text: String) -> Value {
    let (block, part, field) = match at.slot {
        Slot::Content => (-1i64, -1i64, "content"),
        Slot::Text(j) => (j as i64, -1, "text"),
        Slot::ResultString(j) => (j as i64, -1, "content"),
        Slot::ResultPart(j, k) => (j as i64, k as i64, "text"),
    };
    json!({ "message": at.msg, "block": block, "part": part, "field": field, "text": text })
}

fn outcome_json(o: Outcome) -> Value {
    let changes: Vec<Value> = o.changes.into_iter().map(|(at, t)| change_json(&at, t)).collect();
    json!({
        "changes": changes,
        "prevContextTokens": o.prev_context_tokens,
        "newContextTokens": o.new_context_tokens,
        "error": o.error,
        "metrics": o.metrics,
        "report": o.report,
    })
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

/// Every problem the provider APIs would reject, with its path.
#[napi(catch_unwind)]
pub fn validate_conversation(messages: Value) -> Result<Value> {
    guarded(|| Ok(serde_json::to_value(crate::validate::validate_value(&messages)).unwrap_or(Value::Null)))
}

/// The changes that restore every reference.
#[napi(catch_unwind)]
pub fn expand_references(messages: Value) -> Result<Value> {
    guarded(|| {
        let x = crate::reference::expand(as_array(&messages)?);
        let changes: Vec<Value> = x.changes.into_iter().map(|(at, t)| change_json(&at, t)).collect();
        Ok(json!({ "changes": changes, "expanded": x.expanded, "unresolved": x.unresolved }))
    })
}

/// What fills the context.
#[napi(catch_unwind)]
pub fn analyze(messages: Value, encoding_name: Option<String>) -> Result<Value> {
    let enc = encoding(encoding_name)?;
    guarded(|| Ok(serde_json::to_value(crate::analyze::analyze(as_array(&messages)?, enc)).unwrap_or(Value::Null)))
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

/// A condensation in three steps, so no step holds the JavaScript thread long: the options are
/// checked when it is made, the messages arrive in chunks (`push`), and `run` works off the
/// thread. `abort` stops a run in progress.
#[napi]
pub struct Session {
    options: Options,
    messages: Vec<Value>,
    abort: Arc<AtomicBool>,
}

#[napi]
impl Session {
    #[napi(constructor)]
    pub fn new(options: Value) -> Result<Session> {
        let options = guarded(|| Options::from_value(&options))?;
        Ok(Session { options, messages: Vec::new(), abort: Arc::new(AtomicBool::new(false)) })
    }

    /// Adds the next messages of the history.
    #[napi]
    pub fn push(&mut self, chunk: Vec<Value>) {
        self.messages.extend(chunk);
    }

    #[napi]
    pub fn abort(&self) {
        self.abort.store(true, Ordering::Relaxed);
    }

    /// Condenses the pushed messages off the JavaScript thread; the session is emptied.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn run(&mut self) -> AsyncTask<CondenseTask> {
        AsyncTask::new(CondenseTask {
            messages: std::mem::take(&mut self.messages),
            options: self.options.clone(),
            abort: self.abort.clone(),
        })
    }

    /// Same as `run`, for the analyzer.
    #[napi(ts_return_type = "Promise<unknown>")]
    pub fn analyze(&mut self, encoding_name: Option<String>) -> Result<AsyncTask<AnalyzeTask>> {
        Ok(AsyncTask::new(AnalyzeTask {
            messages: std::mem::take(&mut self.messages),
            encoding: encoding(encoding_name)?,
        }))
    }
}

pub struct CondenseTask {
    messages: Vec<Value>,
    options: Options,
    abort: Arc<AtomicBool>,
}

#[napi]
impl Task for CondenseTask {
    type Output = Value;
    type JsValue = Json;

    fn compute(&mut self) -> Result<Value> {
        guarded(|| condense(&self.messages, &self.options, &self.abort).map(outcome_json))
    }

    fn resolve(&mut self, _env: Env, output: Value) -> Result<Json> {
        Ok(Json(output))
    }
}
