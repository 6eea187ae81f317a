//! Consolidate tool results. Identical results of any tool become a reference to the
//! copy that stays (reversible). With `removeObsoleteState` also on, older runs of the same
//! command, listing or search (same tool, same arguments) are superseded by the latest run:
//! only the newest output describes the present.
//!
//! Never touches an error result (failed tool, non-zero exit code), a result holding text the
//! user typed, a body that already is a marker, or a result whose files the read deduplication
//! handles: `EditSet` refuses edits over protected text, other edits and reference targets.

use std::collections::HashMap;

use crate::json::Value;

use super::Keep;
use super::Pass;
use crate::draft::Draft;
use crate::edit::{Edit, EditSet, Kind};
use crate::model::Span;
use crate::parse::{self, ToolResult, View, RERUN_TOOLS};
use crate::provenance::Content;
use crate::reference::{result_reference, superseded_run};

const ID: &str = "consolidateToolResults";

/// The pass: identical tool results become references; with `superseded_reruns`, older runs of
/// the same command are superseded by the latest.
pub struct ConsolidateToolResults {
    pub keep: Keep,
    pub superseded_reruns: bool,
}

impl Pass for ConsolidateToolResults {
    fn id(&self) -> String {
        ID.into()
    }

    fn name(&self) -> String {
        "Tool results consolidated".into()
    }

    fn proposes(&self) -> bool {
        true
    }

    fn propose(&self, draft: &Draft, view: &View, edits: &mut EditSet) {
        run_identical(draft.original, view, self.keep, edits);
        if self.superseded_reruns {
            run_superseded_reruns(draft.original, view, edits);
        }
    }
}

/// The result's body when it is one whole string worth referencing (see `parse::whole_body`).
fn whole_body<'a>(messages: &'a [Value], r: &ToolResult) -> Option<(&'a str, Span)> {
    r.whole?;
    let span = r.body.first()?;
    Some((parse::whole_body(messages.get(span.at.msg)?, &r.body)?, span.clone()))
}

pub fn run_identical(messages: &[Value], view: &View, keep: Keep, edits: &mut EditSet) {
    let order: Vec<usize> = match keep {
        Keep::First => (0..view.results.len()).collect(),
        Keep::Latest => (0..view.results.len()).rev().collect(),
    };
    let mut kept: HashMap<u128, Vec<usize>> = HashMap::new();
    for i in order {
        let r = &view.results[i];
        let (Some(hash), Some(span), false) = (r.whole, r.body.first(), r.is_error) else {
            continue;
        };
        if !edits.is_free(span) {
            continue;
        }
        let copies = kept.entry(hash).or_default();
        if copies.is_empty() {
            copies.push(i);
            continue;
        }
        let Some((body, span)) = whole_body(messages, r) else {
            continue;
        };
        let target = copies.iter().copied().find(|&k| {
            whole_body(messages, &view.results[k]).is_some_and(|(b, t)| b == body && edits.edit_at(&t).is_none())
        });
        match target {
            Some(k) => {
                let t = &view.results[k];
                let Some((_, target_span)) = whole_body(messages, t) else {
                    continue;
                };
                edits.add(Edit {
                    span,
                    replacement: result_reference(&r.tool, r.arg.as_deref(), t.msg, r.msg, body),
                    kind: Kind::Reversible,
                    target: Some(target_span),
                    content: Content::ToolResults,
                    refers_to: t.msg,
                });
            }
            None => copies.push(i),
        }
    }
}

pub fn run_superseded_reruns(messages: &[Value], view: &View, edits: &mut EditSet) {
    let mut latest: HashMap<&str, usize> = HashMap::new();
    for (i, r) in view.results.iter().enumerate() {
        if RERUN_TOOLS.contains(&&*r.tool) {
            latest.insert(r.key.as_str(), i);
        }
    }
    for (i, r) in view.results.iter().enumerate() {
        let Some(&last) = latest.get(r.key.as_str()) else {
            continue;
        };
        if last == i || r.is_error {
            continue;
        }
        let Some((_, span)) = whole_body(messages, r) else {
            continue;
        };
        edits.add(Edit {
            span,
            replacement: superseded_run(&r.tool, r.arg.as_deref(), view.results[last].msg),
            kind: Kind::Superseded,
            target: None,
            content: Content::ToolResults,
            refers_to: view.results[last].msg,
        });
    }
}
