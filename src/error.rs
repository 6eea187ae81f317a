//! The errors the engine reports. Invalid options and unbuilt providers are the caller's
//! mistakes and are thrown in JavaScript; problems in the data come back in the result.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CondenseError {
    /// An option with an unknown key, a wrong type or a value out of range.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    #[error("unknown provider \"{0}\"; expected one of \"lossless\", \"truncation\", \"smart\", \"native\"")]
    UnknownProvider(String),
    #[error("condensing was aborted")]
    Aborted,
    /// A panic caught at the boundary: a bug, reported instead of crashing the host.
    #[error("internal error (please report it): {0}")]
    Internal(String),
}
