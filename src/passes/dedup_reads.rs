//! Deduplicate file reads. Takes every file shown by a tool result (legacy
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

use crate::json::Value;
use xxhash_rust::xxh3::xxh3_128;

use super::Keep;
use super::Pass;
use crate::draft::Draft;
use crate::edit::{Edit, EditSet, Kind};
use crate::model::slot_text;
use crate::parse::reads::{render_lines, same_lines};
use crate::parse::{FileRead, View, MIN_REFERENCED_BYTES};
use crate::provenance::Content;
use crate::reference::{file_reference, lines_reference};

const ID: &str = "deduplicateFileReads";

/// The pass: repeated reads of a file become references to the copy that stays.
pub struct DeduplicateFileReads {
    pub keep: Keep,
}

impl Pass for DeduplicateFileReads {
    fn id(&self) -> String {
        ID.into()
    }

    fn name(&self) -> String {
        "File reads deduplicated".into()
    }

    fn proposes(&self) -> bool {
        true
    }

    fn propose(&self, draft: &Draft, view: &View, edits: &mut EditSet) {
        run(draft.original, view, self.keep, edits);
    }
}

/// How many copies of one path are compared line by line with a new read (see step 1).
const SCAN: usize = 64;

pub fn run(messages: &[Value], view: &View, keep: Keep, edits: &mut EditSet) {
    let reads: Vec<&FileRead> = view.results.iter().flat_map(|r| r.reads.iter()).collect();
    // Each read's text, looked up once (by index below).
    let texts: Vec<&str> = reads.iter().map(|r| slot_text(&messages[r.at.msg], r.at.slot).unwrap_or("")).collect();
    let region_of = |i: usize| &texts[i][reads[i].read.region.clone()];
    // The bytes read `r` would be rebuilt to from read `t`, if `t` shows the same lines.
    let rebuilt = |t: usize, r: usize| -> Option<String> {
        let (target, read) = (reads[t], reads[r]);
        if target.read.path != read.read.path || region_of(r).len() < MIN_REFERENCED_BYTES {
            return None;
        }
        if target.read.first == read.read.first && region_of(t) == region_of(r) {
            return Some(region_of(r).to_string());
        }
        let layout = read.read.layout?;
        let (from, to) = (read.read.first, read.read.last);
        if !same_lines(texts[t], &target.read, texts[r], &read.read, from, to) {
            return None;
        }
        render_lines(texts[t], &target.read, from, to, layout).filter(|b| b == region_of(r))
    };

    // Processing order: the copy that stays comes first in it.
    let order: Vec<usize> = match keep {
        Keep::First => (0..reads.len()).collect(),
        Keep::Latest => (0..reads.len()).rev().collect(),
    };
    let mut by_path: HashMap<&str, Vec<usize>> = HashMap::new();
    // Which read each read points to, if any; a target never points anywhere.
    let mut points_to: Vec<Option<usize>> = vec![None; reads.len()];
    // A path read many times with different content: beyond `SCAN` copies, only the latest
    // `SCAN` are compared line by line, and older ones only when identical (found by hash), so
    // the pass stays linear however long the history.
    let mut identical: HashMap<(&str, u32, u128), usize> = HashMap::new();
    let key = |i: usize| (reads[i].read.path.as_str(), reads[i].read.first, xxh3_128(region_of(i).as_bytes()));

    // 1. A read whose lines an earlier-in-order copy already shows points to that copy. A read
    //    too small to be replaced by a reference is neither a copy nor a target.
    for &i in &order {
        if region_of(i).len() < MIN_REFERENCED_BYTES {
            continue;
        }
        let copies = by_path.entry(reads[i].read.path.as_str()).or_default();
        let recent = &copies[copies.len().saturating_sub(SCAN)..];
        let older = || (copies.len() > SCAN).then(|| identical.get(&key(i)).copied()).flatten();
        match older().or_else(|| recent.iter().copied().find(|&k| rebuilt(k, i).is_some())) {
            Some(k) => points_to[i] = Some(k),
            None => {
                copies.push(i);
                identical.entry(key(i)).or_insert(i);
            }
        }
    }
    // 2. A copy that stayed, whose lines a later-in-order copy shows again (typically partial
    //    reads followed by a read of the whole file): it points there, and so do its referrers.
    let position: HashMap<usize, usize> = order.iter().enumerate().map(|(p, &i)| (i, p)).collect();
    let mut referrers: HashMap<usize, Vec<usize>> = HashMap::new();
    for (x, t) in points_to.iter().enumerate() {
        if let Some(t) = t {
            referrers.entry(*t).or_default().push(x);
        }
    }
    for &i in order.iter().rev() {
        if points_to[i].is_some() || region_of(i).len() < MIN_REFERENCED_BYTES {
            continue;
        }
        let copies = &by_path[reads[i].read.path.as_str()];
        let ahead = copies.iter().rev().take(SCAN).copied().find(|&j| {
            position[&j] > position[&i]
                && points_to[j].is_none()
                && covers(reads[j], reads[i])
                && rebuilt(j, i).is_some()
        });
        if let Some(j) = ahead {
            let mine = referrers.get(&i).cloned().unwrap_or_default();
            if mine.iter().all(|&x| rebuilt(j, x).is_some()) {
                points_to[i] = Some(j);
                for &x in &mine {
                    points_to[x] = Some(j);
                }
                referrers.remove(&i);
                let theirs = referrers.entry(j).or_default();
                theirs.push(i);
                theirs.extend(mine);
            }
        }
    }
    // 3. The references, each checked against the bytes it replaces.
    for (i, target) in points_to.iter().enumerate() {
        let Some(k) = *target else { continue };
        let (r, t) = (reads[i], reads[k]);
        let Some(bytes) = rebuilt(k, i) else { continue };
        let replacement = if t.read.first == r.read.first && t.read.last == r.read.last && region_of(k) == bytes {
            file_reference(&r.read.path, t.at.msg, r.at.msg, &bytes)
        } else {
            lines_reference(&r.read.path, r.read.first, r.read.last, t.at.msg, r.at.msg, &bytes)
        };
        edits.add(Edit {
            span: r.span(),
            replacement,
            kind: Kind::Reversible,
            target: Some(t.span()),
            content: Content::ToolResults,
            refers_to: t.at.msg,
        });
    }
}

fn covers(outer: &FileRead, inner: &FileRead) -> bool {
    outer.read.first <= inner.read.first && outer.read.last >= inner.read.last
}
