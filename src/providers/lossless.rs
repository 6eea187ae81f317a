//! The Lossless provider (FR-LC-004): removes only what is repeated or superseded. Passes run
//! in this order, each switchable: deduplicate file reads, consolidate tool results (identical
//! results; older reruns of a command or listing only when obsolete state may go too), remove
//! obsolete state (restated environment details, older versions of re-read files).
//!
//! It proposes edits and applies them once; it never removes, adds or reorders messages, and
//! never touches what the user typed or a summary.

use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Instant;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use crate::edit::{apply, Applied, EditSet, Op};
use crate::error::CondenseError;
use crate::parse::View;
use crate::passes::{consolidate, dedup_reads, obsolete_state, Keep};
use crate::tokens::{Cancel, Encoding};

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

/// What the passes did, before it is turned into metrics.
#[derive(Debug)]
pub struct LosslessRun {
    pub applied: Applied,
    /// Time each operation spent proposing edits, in ms.
    pub op_ms: Vec<(Op, f64)>,
}

pub fn run(
    messages: &[Value],
    config: &LosslessConfig,
    encoding: Encoding,
    abort: &AtomicBool,
) -> Result<LosslessRun, CondenseError> {
    run_on(messages, &View::build(messages), config, encoding, abort)
}

/// `run` with the semantic view already built (the Smart prelude shares its view).
pub fn run_on(
    messages: &[Value],
    view: &View,
    config: &LosslessConfig,
    encoding: Encoding,
    abort: &AtomicBool,
) -> Result<LosslessRun, CondenseError> {
    let mut edits = EditSet::new(&view.protected);
    let mut op_ms = Vec::new();
    let check = || {
        if abort.load(Ordering::Relaxed) {
            Err(CondenseError::Aborted)
        } else {
            Ok(())
        }
    };
    check()?;

    let t = Instant::now();
    if config.deduplicate_file_reads {
        dedup_reads::run(messages, view, config.keep, &mut edits);
        op_ms.push((Op::DeduplicateFileReads, ms(t)));
    }
    check()?;
    let t = Instant::now();
    if config.consolidate_tool_results {
        consolidate::run_identical(messages, view, config.keep, &mut edits);
        if config.remove_obsolete_state {
            consolidate::run_superseded_reruns(messages, view, &mut edits);
        }
        op_ms.push((Op::ConsolidateToolResults, ms(t)));
    }
    check()?;
    let t = Instant::now();
    if config.remove_obsolete_state {
        obsolete_state::run_file_versions(messages, view, &mut edits);
        obsolete_state::run_env(view, &mut edits);
        op_ms.push((Op::RemoveObsoleteState, ms(t)));
    }
    check()?;
    let applied = apply(messages, &edits, encoding, Cancel::new(abort))?;
    check()?;
    Ok(LosslessRun { applied, op_ms })
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
