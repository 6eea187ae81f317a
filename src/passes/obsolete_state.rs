//! Remove obsolete state. Two kinds of content describe a past that a later message restates:
//! environment-details sections (visible files, open tabs, time, cost, mode, reminders...) that
//! a later block repeats, and older versions of a file that a later read shows again over the
//! same lines differently (identical lines are the read deduplication's, kept reversible).
//! Each is replaced by a short marker naming the message that supersedes it.
//!
//! Never touches the latest copy of anything, a section no later block restates (such as the
//! workspace listing of the first message), or content a live reference points at. A reference
//! that is itself an older version is turned into a superseded marker first, which releases
//! its target.

use std::collections::HashMap;

use crate::json::Value;

use super::Pass;
use crate::draft::Draft;
use crate::edit::{Edit, EditSet, Kind};
use crate::model::{slot_text, Span};
use crate::parse::reads::same_lines;
use crate::parse::{EnvSection, FileRead, View};
use crate::provenance::Content;
use crate::reference::{superseded_env, superseded_file};

const ID: &str = "removeObsoleteState";

/// The pass: older versions of re-read files and restated environment details become markers.
pub struct RemoveObsoleteState;

impl Pass for RemoveObsoleteState {
    fn id(&self) -> String {
        ID.into()
    }

    fn name(&self) -> String {
        "Obsolete state removed".into()
    }

    fn proposes(&self) -> bool {
        true
    }

    fn propose(&self, draft: &Draft, view: &View, edits: &mut EditSet) {
        run_file_versions(draft.original, view, edits);
        run_env(view, edits);
    }
}

pub fn run_env(view: &View, edits: &mut EditSet) {
    let envs = &view.env;
    for (k, env) in envs.iter().enumerate() {
        let sections: Vec<EnvSection> = env.block.sections().collect();
        // For each section: the message of the nearest later block restating it.
        let restated: Vec<Option<usize>> = sections
            .iter()
            .map(|s| envs[k + 1..].iter().find(|e| e.block.sections().any(|t| t.title == s.title)).map(|e| e.at.msg))
            .collect();
        let mut i = 0;
        while i < restated.len() {
            let Some(by) = restated[i] else {
                i += 1;
                continue;
            };
            // A run of adjacent sections superseded by the same message becomes one marker.
            let mut j = i;
            while j + 1 < restated.len() && restated[j + 1] == Some(by) {
                j += 1;
            }
            let sections = &sections[i..=j];
            let titles: Vec<&str> = sections.iter().map(|s| s.title).collect();
            edits.add(Edit {
                span: Span { at: env.at, range: sections[0].range.start..sections[j - i].range.end },
                replacement: superseded_env(&titles, by),
                kind: Kind::Superseded,
                target: None,
                content: Content::EnvironmentDetails,
                refers_to: by,
            });
            i = j + 1;
        }
    }
}

pub fn run_file_versions(messages: &[Value], view: &View, edits: &mut EditSet) {
    let reads: Vec<&FileRead> = view.results.iter().flat_map(|r| r.reads.iter()).collect();
    let text_of = |r: &FileRead| slot_text(&messages[r.at.msg], r.at.slot).unwrap_or("");
    let mut by_path: HashMap<&str, Vec<usize>> = HashMap::new();
    for (i, r) in reads.iter().enumerate() {
        by_path.entry(r.read.path.as_str()).or_default().push(i);
    }
    // For each read: the message of the latest later read of the same file that covers the same
    // lines, when it shows them differently (a newer version). Same lines are no newer version:
    // the read deduplication references them, reversibly.
    let superseded_by: Vec<Option<usize>> = reads
        .iter()
        .map(|r| {
            let latest = by_path[r.read.path.as_str()]
                .iter()
                .rev()
                .map(|&k| reads[k])
                .find(|l| l.at.msg > r.at.msg && l.read.first <= r.read.first && l.read.last >= r.read.last)?;
            let same = same_lines(text_of(r), &r.read, text_of(latest), &latest.read, r.read.first, r.read.last);
            (!same).then_some(latest.at.msg)
        })
        .collect();
    let marker = |r: &FileRead, by: usize| Edit {
        span: r.span(),
        replacement: superseded_file(&r.read.path, by),
        kind: Kind::Superseded,
        target: None,
        content: Content::ToolResults,
        refers_to: by,
    };
    // A reference to a copy that is itself an older version is superseded too, which releases
    // that copy; a reference to a current copy stays (it is reversible and costs nothing more).
    let stale = |target: &Span| reads.iter().zip(&superseded_by).any(|(t, by)| by.is_some() && t.span() == *target);
    for (r, by) in reads.iter().zip(&superseded_by) {
        let Some(by) = *by else { continue };
        let Some(e) = edits.edit_exactly_at(&r.span()) else {
            continue;
        };
        let is_stale_reference =
            edits.get(e).is_some_and(|x| x.kind == Kind::Reversible && x.target.as_ref().is_some_and(stale));
        if is_stale_reference {
            edits.replace(e, marker(r, by));
        }
    }
    for (r, by) in reads.iter().zip(&superseded_by) {
        if let Some(by) = *by {
            edits.add(marker(r, by));
        }
    }
}
