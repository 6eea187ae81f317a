//! Deduplicate file reads (FR-LC-001). Takes every file shown by a tool result (legacy
//! `<files>`, `--- path ---` and native `File:` reads, one file of a multi-file result at a
//! time) and replaces a repeated one by a reference to the copy that stays: identical content
//! becomes `content of 'p' identical to message #N`; a read of some lines equal to the same
//! lines shown in a read that covers them becomes `lines a-b of 'p' unchanged from message #N`.
//!
//! Only the numbered lines are replaced: path, notices, errors and any user feedback in the
//! same result are never touched. Every reference is checked by resolving it the way
//! `expandReferences` will, so it always expands back to the exact bytes.

use std::collections::HashMap;

use serde_json::Value;
use xxhash_rust::xxh3::xxh3_128;

use super::{Keep, MIN_REFERENCED_BYTES};
use crate::edit::{Edit, EditSet, Kind, Op};
use crate::model::slot_text;
use crate::parse::reads::render_lines;
use crate::parse::{FileRead, View};
use crate::reference::{file_reference, lines_reference};

pub fn run(messages: &[Value], view: &View, keep: Keep, edits: &mut EditSet) {
    let reads: Vec<&FileRead> = view.results.iter().flat_map(|r| r.reads.iter()).collect();
    let text_of = |r: &FileRead| slot_text(&messages[r.at.msg], r.at.slot).unwrap_or("");
    let region_of = |r: &FileRead| &text_of(r)[r.read.region.clone()];

    let order: Vec<usize> = match keep {
        Keep::First => (0..reads.len()).collect(),
        Keep::Latest => (0..reads.len()).rev().collect(),
    };
    // Kept copies per path, in processing order, with the hash of their lines.
    let mut kept: HashMap<&str, Vec<(usize, u128)>> = HashMap::new();
    let mut is_target = vec![false; reads.len()];
    let mut is_reference = vec![false; reads.len()];

    for &i in &order {
        let r = reads[i];
        let region = region_of(r);
        let hash = xxh3_128(region.as_bytes());
        let candidates = kept.entry(r.read.path.as_str()).or_default();
        let made = region.len() >= MIN_REFERENCED_BYTES
            && candidates.iter().any(|&(k, h)| {
                let target = reads[k];
                let replacement = if h == hash && region_of(target) == region {
                    file_reference(&r.read.path, target.at.msg, region)
                } else if let Some(lines) = covered_lines(text_of(target), target, r) {
                    if lines != region {
                        return false;
                    }
                    lines_reference(
                        &r.read.path,
                        r.read.first,
                        r.read.last,
                        target.at.msg,
                        keep == Keep::Latest,
                        region,
                    )
                } else {
                    return false;
                };
                let added = edits.add(Edit {
                    span: r.span(),
                    replacement,
                    op: Op::DeduplicateFileReads,
                    kind: Kind::Reversible,
                    target: Some(target.span()),
                });
                if added {
                    is_target[k] = true;
                }
                added
            });
        if made {
            is_reference[i] = true;
        } else {
            candidates.push((i, hash));
        }
    }

    // A partial read that stayed, whose lines a read on the other side shows again: point to that.
    for &i in order.iter().rev() {
        let r = reads[i];
        if is_reference[i] || is_target[i] || region_of(r).len() < MIN_REFERENCED_BYTES {
            continue;
        }
        let later = keep == Keep::First;
        let covering = order.iter().copied().filter(|&k| {
            let ahead = if later { k > i } else { k < i };
            ahead && !is_reference[k] && reads[k].read.path == r.read.path
        });
        for k in covering {
            let target = reads[k];
            let Some(lines) = covered_lines(text_of(target), target, r) else {
                continue;
            };
            if lines != region_of(r) {
                continue;
            }
            let replacement = lines_reference(
                &r.read.path,
                r.read.first,
                r.read.last,
                target.at.msg,
                later,
                &lines,
            );
            if edits.add(Edit {
                span: r.span(),
                replacement,
                op: Op::DeduplicateFileReads,
                kind: Kind::Reversible,
                target: Some(target.span()),
            }) {
                is_reference[i] = true;
                is_target[k] = true;
                break;
            }
        }
    }
}

/// The lines of `read` as `target` shows them, rendered the way `read` lays them out; None when
/// `target` does not cover them or `read` is not in the canonical layout.
fn covered_lines(target_text: &str, target: &FileRead, read: &FileRead) -> Option<String> {
    if !read.read.canonical || target.read.path != read.read.path {
        return None;
    }
    render_lines(target_text, &target.read, read.read.first, read.read.last)
}
