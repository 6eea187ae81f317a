//! Per-pass cases: for each pass, small histories and the exact output the pass must give,
//! readable as the pass's specification (what it changes, what it leaves alone, its edge cases,
//! both tool formats). Each pass is run alone through the public `condense` entry, with a
//! provider configured to run only that pass (Lossless's switches; Truncation and Native are one
//! pass each; Smart's `passes`). Expected texts, markers and seals are written out here
//! (`history::seal` computes a seal from its definition), never produced by the code under test.
//!
//! Adding a pass: a module here named after its file in `src/passes/` (or its provider), built
//! with the helpers in `history.rs`; each case should fail under some plausible change to the
//! pass (a flipped comparison, a forgotten exception).

#[path = "../common/mod.rs"]
mod common;
mod history;

mod consolidate;
mod content_ops;
mod dedup_reads;
mod native;
mod obsolete_state;
mod smart;
