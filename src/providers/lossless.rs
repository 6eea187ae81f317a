//! The Lossless provider: removes only what is repeated or superseded. Passes run
//! in this order, each switchable: deduplicate file reads, consolidate tool results (identical
//! results; older reruns of a command or listing only when obsolete state may go too), remove
//! obsolete state (restated environment details, older versions of re-read files).
//!
//! Its passes propose edits, applied once after the last; it never removes, adds or reorders
//! messages, and never touches what the user typed or a summary.

use std::sync::atomic::AtomicBool;

use crate::json::Value;
use serde::{Deserialize, Serialize};

use crate::draft::Draft;
use crate::error::CondenseError;
use crate::parse::View;
use crate::passes::consolidate::ConsolidateToolResults;
use crate::passes::dedup_reads::DeduplicateFileReads;
use crate::passes::obsolete_state::RemoveObsoleteState;
use crate::passes::runner::{self, Outcome, Policy};
use crate::passes::{Keep, Pass, PassCx, Stop};
use crate::providers::{Capabilities, Provider};
use crate::tokens::Encoding;

/// The provider's id, as hosts name it.
pub const ID: &str = "lossless";

/// Only what is repeated or superseded, with references that expand back.
pub struct Lossless;

impl Provider for Lossless {
    type Config = LosslessConfig;
    const ID: &'static str = ID;
    const NAME: &'static str = "Lossless";
    const DESCRIPTION: &'static str =
        "Removes only what is repeated or superseded, leaving references that expand back.";
    const TAKES_TARGET: bool = false;
    const CAPABILITIES: Capabilities = Capabilities {
        supports_lossless: true,
        supports_batch_mode: false,
        supports_individual_mode: true,
        supports_multi_pass: true,
        supports_llm_summarization: false,
        estimated_speed: "fast",
    };
    const ONLY_PROPOSES: bool = true;

    fn passes(config: &LosslessConfig) -> Vec<Box<dyn Pass + '_>> {
        passes(config)
    }
}

/// Lossless configuration; every operation is on by default.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct LosslessConfig {
    /// Repeated reads of a file become references to the copy that stays. @default true
    pub deduplicate_file_reads: bool,
    /// Identical tool results become references; older reruns are superseded. @default true
    pub consolidate_tool_results: bool,
    /// Restated environment details and older file versions become markers. @default true
    pub remove_obsolete_state: bool,
    /// Which copy of repeated content stays whole. @default "first"
    pub keep: Keep,
}

impl Default for LosslessConfig {
    fn default() -> Self {
        LosslessConfig {
            deduplicate_file_reads: true,
            consolidate_tool_results: true,
            remove_obsolete_state: true,
            keep: Keep::First,
        }
    }
}

/// The Lossless provider's passes, in order: each operation the config switches on.
pub fn passes(config: &LosslessConfig) -> Vec<Box<dyn Pass>> {
    let mut out: Vec<Box<dyn Pass>> = Vec::new();
    if config.deduplicate_file_reads {
        out.push(Box::new(DeduplicateFileReads { keep: config.keep }));
    }
    if config.consolidate_tool_results {
        let superseded_reruns = config.remove_obsolete_state;
        out.push(Box::new(ConsolidateToolResults { keep: config.keep, superseded_reruns }));
    }
    if config.remove_obsolete_state {
        out.push(Box::new(RemoveObsoleteState));
    }
    out
}

/// Runs the Lossless passes over `messages` (whose semantic view is `view`) on their own, for
/// `analyze`: the acts say what each operation would do, the outcome what it would save.
pub fn run<'m>(
    messages: &'m [Value],
    view: &View,
    config: &LosslessConfig,
    encoding: Encoding,
    abort: &AtomicBool,
) -> Result<(Draft<'m>, Outcome), CondenseError> {
    let mut cx = PassCx {
        view,
        encoding,
        abort,
        summarizer: None,
        tokens_before: 0,
        tokens_now: 0,
        allowed_tokens: None,
        working_set: None,
    };
    let mut draft = Draft::new(messages);
    let out = runner::run(&passes(config), &mut cx, &mut draft, &Policy::default()).map_err(|e| match e {
        Stop::Error(e) => e,
        Stop::Refused(r) => CondenseError::Internal(r.to_string()),
    })?;
    Ok((draft, out))
}
