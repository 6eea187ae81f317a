//! The lossless passes, one operation per file. Each reads the semantic view and proposes
//! edits into the shared `EditSet`; none changes a message or counts tokens itself.
//! They run in the order `lossless.rs` calls them: deduplicate file reads, consolidate tool
//! results, remove obsolete state — the reversible operations first, so content that can be
//! referenced is referenced before anything is declared superseded.

pub mod consolidate;
pub mod content_ops;
pub mod dedup_reads;
pub mod obsolete_state;
pub mod op_spec;
pub mod shorten;

use serde::{Deserialize, Serialize};

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

/// Below this many bytes a copy is not worth a reference (a marker is ~100 bytes).
pub const MIN_REFERENCED_BYTES: usize = 200;
