//! The errors the engine reports. Invalid options and unbuilt providers are the caller's
//! mistakes and are thrown in JavaScript; problems in the data, and a provider declining, come
//! back in the result as a `Refusal`, with a stable code a host can branch on.

use thiserror::Error;

#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum CondenseError {
    /// An option with an unknown key, a wrong type or a value out of range.
    #[error("invalid options: {0}")]
    InvalidOptions(String),
    /// `expected`: the ids there are, listed by the registry that refused `name`.
    #[error("unknown provider \"{name}\"; expected {expected}")]
    UnknownProvider { name: String, expected: String },
    #[error("condensing was aborted")]
    Aborted,
    /// A panic caught at the boundary: a bug, reported instead of crashing the host.
    #[error("internal error (please report it): {0}")]
    Internal(String),
}

/// Why a provider left the history as it was: the result's `error` (its text) and `errorCode`.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum Refusal {
    /// The history cannot be condensed as it is (its structure, or a value the engine cannot take).
    #[error("{0}; the messages were left unchanged")]
    InvalidHistory(String),
    #[error("Not enough messages to condense")]
    NotEnoughMessages,
    #[error("Context was condensed recently")]
    CondensedRecently,
    #[error("No summarize callback was given: the native provider summarizes with the host's model")]
    NoSummarizer,
    /// The summarize callback failed (rejected, threw, timed out, answered with an error).
    #[error("Failed to condense context: {0}")]
    SummarizeFailed(String),
    #[error("Failed to condense context: the summarize callback returned an empty summary")]
    EmptySummary,
    #[error("Context size increased during condensing; skipping this attempt")]
    ContextGrew,
}

impl Refusal {
    /// The stable code of the cause (`errorCode` in JavaScript).
    pub fn code(&self) -> &'static str {
        match self {
            Refusal::InvalidHistory(_) => "invalid-history",
            Refusal::NotEnoughMessages => "not-enough-messages",
            Refusal::CondensedRecently => "condensed-recently",
            Refusal::NoSummarizer => "no-summarizer",
            Refusal::SummarizeFailed(_) => "summarize-failed",
            Refusal::EmptySummary => "empty-summary",
            Refusal::ContextGrew => "context-grew",
        }
    }

    /// Whether the summarize callback was called before the refusal.
    pub fn called_summarizer(&self) -> bool {
        matches!(self, Refusal::SummarizeFailed(_) | Refusal::EmptySummary | Refusal::ContextGrew)
    }
}
