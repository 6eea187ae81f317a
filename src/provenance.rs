//! The engine's record of what a condensation did: one `Act` per change (which pass, what it
//! did, to what kind of content, in which message, pointing at which other message), and where
//! each message of the result came from. Passes write acts into the draft as they change it;
//! the metrics' counts, the text report, the HTML report and the command line all read them, so
//! their numbers agree by construction. Never decides anything and never reads text.

use serde::Serialize;

/// What a pass did to a piece of content.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Action {
    /// Replaced by a reference to an identical copy kept elsewhere (expandable, byte for byte).
    Deduplicated,
    /// Replaced by a marker naming the later content that supersedes it.
    Superseded,
    /// A reference whose copy a later pass shortened or summarized away: only a marker saying
    /// where the content was is left (no longer expandable).
    Omitted,
    /// Replaced by a marker saying what was there.
    Suppressed,
    /// Shortened, keeping its beginning and end.
    Truncated,
    /// Replaced by a summary: of the piece itself, or (for a whole message) of a run of messages.
    Summarized,
}

impl Action {
    pub const ALL: [Action; 6] = [
        Action::Deduplicated,
        Action::Superseded,
        Action::Omitted,
        Action::Suppressed,
        Action::Truncated,
        Action::Summarized,
    ];

    pub fn word(self) -> &'static str {
        match self {
            Action::Deduplicated => "deduplicated",
            Action::Superseded => "superseded",
            Action::Omitted => "omitted",
            Action::Suppressed => "suppressed",
            Action::Truncated => "truncated",
            Action::Summarized => "summarized",
        }
    }
}

/// The kind of content an act changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "camelCase")]
pub enum Content {
    MessageText,
    ToolParameters,
    ToolResults,
    EnvironmentDetails,
    /// The whole message (replaced by a summary of a run of messages).
    Message,
}

/// One change, as the pass that made it recorded it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Act {
    /// Index of the pass in `metrics.passes`.
    pub pass: usize,
    pub action: Action,
    pub content: Content,
    /// The changed message's index in the caller's history.
    pub message: usize,
    /// The message holding the copy a reference points at, or the content that supersedes.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub refers_to: Option<usize>,
    /// Tokens this change removed (exact per string; a string's saving is split between its
    /// edits by the bytes each removed). For a message replaced by a summary: its own tokens.
    pub tokens_saved: i64,
}

/// Where a message of the result came from.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase", untagged)]
pub enum Origin {
    /// The caller's message at this index, `changed` when a pass changed its text or inputs.
    Kept { from: usize, changed: bool },
    /// A summary the condensation wrote in place of the caller's messages `covers[0]..=covers[1]`.
    Summary { covers: Option<[usize; 2]>, summary: bool },
}
