//! The Node-API binding, and nothing else: the addon `npm run build` makes (a cdylib over the
//! engine crate, `context_condense`, which knows nothing of Node). Converts values at the boundary,
//! runs heavy work off the JavaScript thread, turns errors into JavaScript errors and panics into
//! errors too (`catch_unwind` on every export and inside every task). Never holds a condensing
//! rule. The public API is `lib/index.js`, which calls these functions through
//! `lib/internal/native.js`; they are not meant to be used directly.
//!
//! By concern: `attempt` (one manager call's course and the loop guard's state per task),
//! `cache_model` (the prompt-cache model's state, `PromptCache`), `codec` (values across the
//! boundary), `conversation` (a history held between calls), `exports` (the small stateless
//! functions), `history` (a history pushed to be asked about once, and the one intake of messages
//! from JavaScript), `manager` (the manager's decisions), `policy` (the cache-aware policy's calls
//! and per-task state), `run` (one condensing: the engine on its own thread over a history or a
//! conversation's messages), `tasks` (work run off the JavaScript thread), `text` (strings in the
//! engine's escaped form and back), `trim` (giving memory back when the engine goes idle).

mod attempt;
mod cache_model;
mod codec;
mod conversation;
mod exports;
mod history;
mod manager;
mod policy;
mod run;
mod tasks;
mod text;
mod trim;

use std::panic::{catch_unwind, AssertUnwindSafe};

use napi::bindgen_prelude::*;

use context_condense::condense::parse_encoding;
use context_condense::error::CondenseError;
pub use context_condense::error::ErrorCode;
use context_condense::tokens::Encoding;

/// What an export returns: its value, or an error whose status is its [`ErrorCode`] (napi-rs
/// throws it with that as the JavaScript error's `code`; lib/internal/errors.js copies it to
/// `errorCode`). Shadows napi's `Result` and `Error` in this module and the ones that `use super::*`.
type Result<T, S = ErrorCode> = napi::Result<T, S>;
type Error<S = ErrorCode> = napi::Error<S>;

/// An error the binding throws, with its code.
fn coded(code: ErrorCode, message: impl Into<String>) -> Error {
    Error::new(code, message.into())
}

/// A history argument that could not be read from JavaScript (not an array, nested or sized
/// beyond what the engine takes): the caller's argument. Keeps napi's text.
fn unreadable(e: napi::Error) -> Error {
    coded(ErrorCode::InvalidArgument, e.reason)
}

/// `e` as napi-rs rejects an async task's promise: the JavaScript error, with its `code`, made
/// here on the JavaScript thread (a task's own error type is fixed to napi's `Status`).
fn rejection(env: &Env, e: Error) -> napi::Error {
    // SAFETY: `env` is the live environment of the JavaScript thread `resolve` runs on, and the
    // value is the error object just created in it.
    unsafe {
        let value = JsError::from(e).into_value(env.raw());
        napi::Error::from(Unknown::from_raw_unchecked(env.raw(), value))
    }
}

/// A message as the engine holds it. (An export that takes any JSON value takes a serde_json
/// `Value`, with its TypeScript type written out: the type generator writes `any` for a type named
/// `Value`.)
type Message = context_condense::json::Value;

fn to_napi(e: CondenseError) -> Error {
    coded(e.code(), e.to_string())
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
#[cfg(feature = "probes")]
fn panic_probe(stage: &str) {
    if std::env::var("CONTEXT_CONDENSE_PANIC_PROBE").is_ok_and(|v| v == stage) {
        panic!("panic probe: {stage}");
    }
}

/// Without the `probes` feature (release builds) the switch does not exist.
#[cfg(not(feature = "probes"))]
#[inline(always)]
fn panic_probe(_stage: &str) {}

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
