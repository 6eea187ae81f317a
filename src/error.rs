//! The errors the engine reports. Invalid options and unbuilt providers are the caller's
//! mistakes and are thrown in JavaScript; problems in the data, and a provider declining, come
//! back in the result as a `Refusal`, with a stable code a host can branch on.

use thiserror::Error;

/// The code every error the library throws carries (`errorCode` in JavaScript), stable where the
/// text may change. This enum is the one place that says which codes there are and which engine
/// error has which: the binding throws its errors with it as their `code`, and the TypeScript
/// union `ErrorCode` (lib/names.d.ts) is generated from [`ErrorCode::ALL`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ErrorCode {
    /// An argument the caller gave that cannot be used: a JavaScript check's TypeError or
    /// RangeError, or Node-API refusing an argument's type.
    InvalidArgument,
    /// Options the engine refused: an unknown key, a wrong type or range, an unknown provider.
    InvalidOptions,
    /// A call the object cannot take now: a closed or busy conversation, a run already started, a
    /// history already asked, a result that no longer fits it.
    InvalidState,
    /// A call stopped because its conversation was closed while it ran.
    Closed,
    /// A bug caught at the boundary (a panic, or the engine failing where it cannot): please report it.
    Internal,
}

impl ErrorCode {
    /// Every code, in the order the generated types list them.
    pub const ALL: [ErrorCode; 5] = [
        ErrorCode::InvalidArgument,
        ErrorCode::InvalidOptions,
        ErrorCode::InvalidState,
        ErrorCode::Closed,
        ErrorCode::Internal,
    ];

    /// The code as JavaScript sees it.
    pub fn as_str(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => "invalid-argument",
            ErrorCode::InvalidOptions => "invalid-options",
            ErrorCode::InvalidState => "invalid-state",
            ErrorCode::Closed => "closed",
            ErrorCode::Internal => "internal",
        }
    }

    /// What the code means, for the generated types' doc comments.
    pub fn meaning(self) -> &'static str {
        match self {
            ErrorCode::InvalidArgument => {
                "An argument the caller gave that cannot be used (a TypeError or RangeError of a check, or Node-API refusing an argument's type)."
            }
            ErrorCode::InvalidOptions => "Options the engine refused: an unknown key, a wrong type or range, an unknown provider.",
            ErrorCode::InvalidState => {
                "A call the object cannot take now: a closed or busy conversation, a run already started, a history already asked, a result that no longer fits it."
            }
            ErrorCode::Closed => {
                "A call stopped because its conversation was closed while it ran (the error's name is AbortError)."
            }
            ErrorCode::Internal => "A bug caught at the boundary (please report it).",
        }
    }
}

/// Lets the binding use the code as the status of a Node-API error (its `code` in JavaScript).
impl AsRef<str> for ErrorCode {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

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

impl CondenseError {
    /// The code a thrown error of this kind carries. An abort reaches JavaScript as the run's
    /// `aborted` flag and then as the signal's own reason, never as a thrown code; one that did
    /// would be a bug, hence `Internal`.
    pub fn code(&self) -> ErrorCode {
        match self {
            CondenseError::InvalidOptions(_) | CondenseError::UnknownProvider { .. } => ErrorCode::InvalidOptions,
            CondenseError::Aborted | CondenseError::Internal(_) => ErrorCode::Internal,
        }
    }
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
    /// The messages a summary keeps are by themselves past the allowed size: the request stays
    /// past it whatever the summary says, and the sliding window's cut removes the summary.
    #[error(
        "No summary asked: the messages it keeps leave {kept} tokens without it, at or past the allowed size of {allowed}, so the sliding window would cut the summary away"
    )]
    WindowCutsSummary { kept: u64, allowed: u64 },
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
            Refusal::WindowCutsSummary { .. } => "window-cuts-summary",
        }
    }

    /// Whether the summarize callback was called before the refusal.
    pub fn called_summarizer(&self) -> bool {
        matches!(self, Refusal::SummarizeFailed(_) | Refusal::EmptySummary | Refusal::ContextGrew)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ALL` lists every variant once: a new variant fails to compile here until it is added.
    #[test]
    fn all_lists_every_code_once() {
        for code in ErrorCode::ALL {
            let index = match code {
                ErrorCode::InvalidArgument => 0,
                ErrorCode::InvalidOptions => 1,
                ErrorCode::InvalidState => 2,
                ErrorCode::Closed => 3,
                ErrorCode::Internal => 4,
            };
            assert_eq!(ErrorCode::ALL[index], code);
        }
        let mut names: Vec<_> = ErrorCode::ALL.iter().map(|c| c.as_str()).collect();
        names.dedup();
        assert_eq!(names.len(), ErrorCode::ALL.len());
    }
}
