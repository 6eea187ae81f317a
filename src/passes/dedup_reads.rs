//! Deduplicate file reads (FR-LC-001). Takes every file shown by a tool result (legacy
//! `<files>`, `--- path ---` and native `File:` reads, one file of a multi-file result at a
//! time) and replaces a repeated one by a reference to the copy that stays: identical content
//! becomes `content of 'p' identical to message #N`; lines equal to the same lines of a read
//! that covers them become `lines a-b of 'p' unchanged from message #N` (or `shown again in`,
//! when the covering read comes later: a read of the whole file makes earlier partial reads of
//! the same, unchanged lines redundant).
//!
//! Only the numbered lines are replaced: path, notices, errors and any user feedback in the
//! same result are never touched. Every reference is checked by rebuilding the bytes the way
//! `expandReferences` will, so it always expands back exactly.

use std::collections::HashMap;

use serde_json::Value;

use super::{Keep, MIN_REFERENCED_BYTES};
use crate::edit::{Edit, EditSet, Kind, Op};
use crate::model::slot_text;
use crate::parse::reads::{render_lines, same_lines};
use crate::parse::{FileRead, View};
use crate::reference::{file_reference, lines_reference};

pub fn run(messages: &[Value], view: &View, keep: Keep, edits: &mut EditSet) {
    let reads: Vec<&FileRead> = view.results.iter().flat_map(|r| r.reads.iter()).collect();
    let text_of = |r: &FileRead| slot_text(&messages[r.at.msg], r.at.slot).unwrap_or("");
    let region_of = |r: &FileRead| &text_of(r)[r.read.region.clone()];
    // The bytes `read` would be rebuilt to from `target`, if `target` shows the same lines.
    let rebuilt = |target: &FileRead, read: &FileRead| -> Option<String> {
        if target.read.path != read.read.path || region_of(read).len() < MIN_REFERENCED_BYTES {
            return None;
        }
        if target.read.first == read.read.first && region_of(target) == region_of(read) {
            return Some(region_of(read).to_string());
        }
        let layout = read.read.layout?;
        let (from, to) = (read.read.first, read.read.last);
        if !same_lines(text_of(target), &target.read, text_of(read), &read.read, from, to) {
            return None;
        }
        render_lines(text_of(target), &target.read, from, to, layout).filter(|b| b == region_of(read))
    };

    // Processing order: the copy that stays comes first in it.
    let order: Vec<usize> = match keep {
        Keep::First => (0..reads.len()).collect(),
        Keep::Latest => (0..reads.len()).rev().collect(),
    };
    let mut by_path: HashMap<&str, Vec<usize>> = HashMap::new();
    // Which read each read points to, if any; a target never points anywhere.
    let mut points_to: Vec<Option<usize>> = vec![None; reads.len()];

    // 1. A read whose lines an earlier-in-order copy already shows points to that copy.
    for &i in &order {
        let copies = by_path.entry(reads[i].read.path.as_str()).or_default();
        match copies.iter().copied().find(|&k| rebuilt(reads[k], reads[i]).is_some()) {
            Some(k) => points_to[i] = Some(k),
            None => copies.push(i),
        }
    }
    // 2. A copy that stayed, whose lines a later-in-order copy shows again (typically partial
    //    reads followed by a read of the whole file): it points there, and so do its referrers.
    let position: HashMap<usize, usize> = order.iter().enumerate().map(|(p, &i)| (i, p)).collect();
    for &i in order.iter().rev() {
        if points_to[i].is_some() {
            continue;
        }
        let copies = &by_path[reads[i].read.path.as_str()];
        let ahead = copies.iter().rev().copied().find(|&j| {
            position[&j] > position[&i]
                && points_to[j].is_none()
                && covers(reads[j], reads[i])
                && rebuilt(reads[j], reads[i]).is_some()
        });
        if let Some(j) = ahead {
            let referrers: Vec<usize> = (0..reads.len()).filter(|&x| points_to[x] == Some(i)).collect();
            if referrers.iter().all(|&x| rebuilt(reads[j], reads[x]).is_some()) {
                points_to[i] = Some(j);
                for x in referrers {
                    points_to[x] = Some(j);
                }
            }
        }
    }
    // 3. The references, each checked against the bytes it replaces.
    for (i, target) in points_to.iter().enumerate() {
        let Some(k) = *target else { continue };
        let (r, t) = (reads[i], reads[k]);
        let Some(bytes) = rebuilt(t, r) else { continue };
        let replacement = if t.read.first == r.read.first && t.read.last == r.read.last && region_of(t) == bytes {
            file_reference(&r.read.path, t.at.msg, r.at.msg, &bytes)
        } else {
            lines_reference(&r.read.path, r.read.first, r.read.last, t.at.msg, r.at.msg, &bytes)
        };
        edits.add(Edit {
            span: r.span(),
            replacement,
            op: Op::DeduplicateFileReads,
            kind: Kind::Reversible,
            target: Some(t.span()),
        });
    }
}

fn covers(outer: &FileRead, inner: &FileRead) -> bool {
    outer.read.first <= inner.read.first && outer.read.last >= inner.read.last
}
