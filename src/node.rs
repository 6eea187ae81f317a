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

/// What a condensation hands to JavaScript.
#[napi(object)]
pub struct RawOutcome {
    pub changes: PackedChanges,
    #[napi(
        ts_type = "{ prevContextTokens: number; newContextTokens: number; error?: string; metrics: object; report: string }"
    )]
    pub summary: Value,
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
pub fn expand_references(messages: Value) -> Result<RawExpansion> {
    guarded(|| {
        let x = crate::reference::expand(as_array(&messages)?);
        Ok(RawExpansion {
            changes: Packed::new(x.changes).into_js(),
            expanded: x.expanded as u32,
            unresolved: x.unresolved as u32,
        })
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
    #[napi]
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
    type Output = (Packed, Value);
    type JsValue = RawOutcome;

    fn compute(&mut self) -> Result<(Packed, Value)> {
        guarded(|| {
            let o: Outcome = condense(&self.messages, &self.options, &self.abort)?;
            let summary = json!({
                "prevContextTokens": o.prev_context_tokens,
                "newContextTokens": o.new_context_tokens,
                "error": o.error,
                "metrics": o.metrics,
                "report": o.report,
            });
            Ok((Packed::new(o.changes), summary))
        })
    }

    fn resolve(&mut self, _env: Env, (packed, summary): (Packed, Value)) -> Result<RawOutcome> {
        Ok(RawOutcome { changes: packed.into_js(), summary })
    }
}
