//! The pass model: one `Pass` trait, one file per pass, and one runner (`runner.rs`) that runs
//! a provider's ordered list of passes over a draft. A pass reads the semantic view and the
//! draft, changes the draft, and records one act per change; the runner numbers the passes,
//! times and measures them, skips, undoes or stops as the provider's policy says, and turns
//! what they did into the metrics.
//!
//! A pass works in one of two ways. A lossless operation proposes byte-span edits
//! (`Pass::propose`): consecutive proposing passes share one `EditSet`, applied once after the
//! last of them (so no two edits overlap and every string is measured once), in the order the
//! provider lists them — the reversible operations first, so content that can be referenced is
//! referenced before anything is declared superseded. The other passes change the draft
//! directly (`Pass::run`): content operations per unit, summaries of a span.

pub mod consolidate;
pub mod content_ops;
pub mod dedup_reads;
pub mod obsolete_state;
pub mod op_spec;
pub mod runner;
pub mod shorten;

use std::sync::atomic::{AtomicBool, Ordering};

use serde::{Deserialize, Serialize};

use crate::draft::Draft;
use crate::edit::EditSet;
use crate::error::{CondenseError, Refusal};
use crate::llm::Summarizer;
use crate::parse::View;
use crate::tokens::Encoding;
use crate::working_set::{FileState, WorkingSetConfig};

/// What every pass of a run sees besides the draft.
pub struct PassCx<'a, 's> {
    pub view: &'a View,
    pub encoding: Encoding,
    pub abort: &'a AtomicBool,
    pub summarizer: Option<&'a mut (dyn Summarizer + 's)>,
    /// The history's tokens before the run.
    pub tokens_before: u64,
    /// The context's tokens as the current pass starts (the runner keeps it).
    pub tokens_now: u64,
    /// The size past which the host's sliding window cuts the request, counted as
    /// `tokens_before` is, when the caller gave it.
    pub allowed_tokens: Option<u64>,
    /// The working set of the history, found once per run for every pass that asks with the
    /// same settings (see [`PassCx::working_set`]).
    pub working_set: Option<(WorkingSetConfig, std::rc::Rc<Vec<FileState>>)>,
}

impl PassCx<'_, '_> {
    /// The working set of `messages` (the history this run's view was built on) under `config`:
    /// found once, then shared.
    pub fn working_set(
        &mut self,
        messages: &[crate::json::Value],
        config: &WorkingSetConfig,
    ) -> std::rc::Rc<Vec<FileState>> {
        match &self.working_set {
            Some((c, files)) if c == config => files.clone(),
            _ => {
                let files = std::rc::Rc::new(crate::working_set::find(
                    messages,
                    self.view,
                    config,
                    self.encoding,
                    usize::try_from(self.tokens_before).unwrap_or(usize::MAX),
                ));
                self.working_set = Some((*config, files.clone()));
                files
            }
        }
    }

    pub fn check(&self) -> Result<(), Stop> {
        if self.abort.load(Ordering::Relaxed) {
            Err(Stop::Error(CondenseError::Aborted))
        } else {
            Ok(())
        }
    }
}

/// What a pass did besides its acts (which it records in the draft).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct Ran {
    pub callback_calls: usize,
    /// What its summaries cost, in dollars.
    pub cost: f64,
    /// A summary it wrote, for the result's `summary`.
    pub summary: Option<String>,
    /// Summaries asked for that were truncated instead.
    pub summarize_fallbacks: usize,
    /// Why it did nothing, if so.
    pub skipped: Option<String>,
    pub errors: Vec<String>,
}

/// Why a run stops before its end.
#[derive(Debug)]
pub enum Stop {
    /// Aborted, or a fault: the condensation throws.
    Error(CondenseError),
    /// The provider declines: nothing is changed and the result says why.
    Refused(Refusal),
}

impl From<CondenseError> for Stop {
    fn from(e: CondenseError) -> Stop {
        Stop::Error(e)
    }
}

/// One pass of a provider.
pub trait Pass {
    /// Its id in `metrics.passes`.
    fn id(&self) -> String;
    /// What it is called in the reports.
    fn name(&self) -> String;
    /// Why it does not run at this context size, if it does not.
    fn skip(&self, _tokens_now: u64) -> Option<String> {
        None
    }
    /// Whether it reads the semantic view (the runner's caller builds it only then).
    fn needs_view(&self) -> bool {
        true
    }
    /// True for a pass that works by proposing edits (`propose`), false for one that changes the
    /// draft itself (`run`).
    fn proposes(&self) -> bool {
        false
    }
    /// Adds the edits of a proposing pass.
    fn propose(&self, _draft: &Draft, _view: &View, _edits: &mut EditSet) {}
    /// Changes the draft, recording an act per change.
    fn run(&self, _cx: &mut PassCx, _draft: &mut Draft) -> Result<Ran, Stop> {
        Ok(Ran::default())
    }
}

/// Which copy of repeated content stays whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Keep {
    /// The first occurrence stays; later ones point back to it.
    #[default]
    First,
    /// The latest occurrence stays; earlier ones point forward to it.
    Latest,
}
