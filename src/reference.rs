//! The markers condensing leaves behind, and `expandReferences`.
//!
//! A reference reads naturally to a model and carries what is needed to restore the bytes it
//! replaced: the index of the message holding them and a short seal,
//! e.g. `⟨ Reference: content of 'src/a.ts' identical to message #4 · sha256:3f2a9c1b7d0e ⟩`.
//! A reference to some lines adds them: `⟨ Reference: lines 10-40 of 'src/a.ts' unchanged from
//! message #4 · sha256:… ⟩`. Expansion looks in that message for a string, a file's numbered
//! lines, or those lines re-rendered, whose seal matches, and puts the bytes back. A marker
//! whose seal matches nothing is text, left as it is (and counted). Superseded markers
//! (`⟨ Superseded: … ⟩`) are not references: what they replaced is gone on purpose.
//!
//! The seal is the first 12 hex digits of the sha256 of the marker's place relative to its
//! target (its own message index minus the target's) and the bytes: a marker is a reference only
//! in the message it was written into. The same text anywhere else (a user pasting it, the model
//! repeating it, a file or a command output showing it, a hand-written one) stays text, so
//! condensing a history that contains such text and expanding it back gives the history exactly.
//! When condensing moves a marker and its target apart, the marker is renumbered and sealed again.
//!
//! Message indexes are 0-based positions in the array the marker is in.
//! Never touches the messages: it reads them and returns changes.

use std::collections::HashMap;
use std::ops::Range;

use crate::json::Value;
use sha2::{Digest, Sha256};

use crate::model::{slot_text, text_slots, Slot, TextRef};
use crate::parse::reads::{find_reads, render_lines, Layout};

const OPEN: &str = "⟨ Reference: ";
const CLOSE: &str = " ⟩";
const HASH_TAG: &str = " · sha256:";
const HASH_LEN: usize = 12;

/// A marker's seal: the first 12 hex digits of the sha256 of its offset from its target
/// (`own - target`, in messages) and the bytes it stands for.
pub fn seal(own: usize, target: usize, bytes: &str) -> String {
    let delta = own as i64 - target as i64;
    let mut hasher = Sha256::new();
    hasher.update(format!("{delta}\n").as_bytes());
    hasher.update(bytes.as_bytes());
    let digest = hasher.finalize();
    let mut s = String::with_capacity(HASH_LEN);
    for b in digest.iter().take(HASH_LEN / 2) {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// Keeps descriptions short: long commands and arguments are cut with an ellipsis.
fn clip(s: &str, max: usize) -> String {
    let one_line = s.lines().next().unwrap_or("");
    if one_line.chars().count() <= max && one_line.len() == s.len() {
        return s.to_string();
    }
    let cut: String = one_line.chars().take(max).collect();
    format!("{cut}…")
}

/// A whole tool result (in message `own`) identical to one kept in message `msg`.
pub fn result_reference(tool: &str, arg: Option<&str>, msg: usize, own: usize, replaced: &str) -> String {
    let what = match arg {
        Some(a) => format!("same {tool} result for '{}' as", clip(a, 60)),
        None => format!("same {tool} result as"),
    };
    finish(format!("{OPEN}{what} message #{msg}{HASH_TAG}{}{CLOSE}", seal(own, msg, replaced)), replaced)
}

/// A reference to bytes that end with a line ending is followed by a newline, which it stands
/// for too: the text around it keeps its line structure.
fn finish(mut marker: String, replaced: &str) -> String {
    if replaced.ends_with('\n') {
        marker.push('\n');
    }
    marker
}

/// A file's content (in message `own`) identical to a copy kept in message `msg`.
pub fn file_reference(path: &str, msg: usize, own: usize, replaced: &str) -> String {
    finish(
        format!("{OPEN}content of '{path}' identical to message #{msg}{HASH_TAG}{}{CLOSE}", seal(own, msg, replaced)),
        replaced,
    )
}

/// Some lines of a file (in message `own`), equal to the same lines shown in message `msg`
/// (before or after).
pub fn lines_reference(path: &str, first: u32, last: u32, msg: usize, own: usize, replaced: &str) -> String {
    let relation = if msg > own { "shown again in" } else { "unchanged from" };
    let marker = format!(
        "{OPEN}lines {first}-{last} of '{path}' {relation} message #{msg}{HASH_TAG}{}{CLOSE}",
        seal(own, msg, replaced)
    );
    finish(marker, replaced)
}

/// An older version of a file, superseded by a later read.
pub fn superseded_file(path: &str, msg: usize) -> String {
    format!("⟨ Superseded: '{path}' was read again in message #{msg}; this older version is omitted ⟩\n")
}

/// An older run of the same command or listing.
pub fn superseded_run(tool: &str, arg: Option<&str>, msg: usize) -> String {
    match arg {
        Some(a) => format!(
            "⟨ Superseded: {tool} '{}' ran again in message #{msg}; this older output is omitted ⟩",
            clip(a, 60)
        ),
        None => format!("⟨ Superseded: {tool} ran again in message #{msg}; this older output is omitted ⟩"),
    }
}

/// Environment-details sections restated by a later block.
pub fn superseded_env(titles: &[&str], msg: usize) -> String {
    format!("⟨ Superseded by the environment details in message #{msg}: {} ⟩\n", titles.join(", "))
}

/// A reference found in a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ParsedRef {
    pub range: Range<usize>,
    pub msg: usize,
    pub hash: String,
    /// For line references: first line, last line, path.
    pub lines: Option<(u32, u32, String)>,
}

/// Every well-formed reference marker in `text`.
pub fn find_references(text: &str) -> Vec<ParsedRef> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = text[pos..].find(OPEN) {
        let start = pos + i;
        pos = start + OPEN.len();
        // A marker is one line.
        let line_end = text[start..].find('\n').map_or(text.len(), |j| start + j);
        let Some(close) = text[start..line_end].rfind(CLOSE).map(|j| start + j) else {
            continue;
        };
        let inner = &text[start + OPEN.len()..close];
        let Some(h) = inner.rfind(HASH_TAG) else {
            continue;
        };
        let hash = &inner[h + HASH_TAG.len()..];
        if hash.len() != HASH_LEN || !hash.bytes().all(|b| b.is_ascii_hexdigit()) {
            continue;
        }
        let desc = &inner[..h];
        let Some(m) = desc.rfind("message #") else {
            continue;
        };
        let Ok(msg) = desc[m + "message #".len()..].parse::<usize>() else {
            continue;
        };
        let lines = desc.strip_prefix("lines ").and_then(|rest| {
            let (range, tail) = rest.split_once(" of '")?;
            let (a, b) = range.split_once('-')?;
            let q = tail.rfind("' ")?;
            Some((a.parse().ok()?, b.parse().ok()?, tail[..q].to_string()))
        });
        let end = close + CLOSE.len();
        out.push(ParsedRef { range: start..end, msg, hash: hash.to_string(), lines });
        pos = end;
    }
    out
}

/// The bytes a reference found in message `own` stands for, found in the message it names, if
/// their seal matches.
pub fn resolve(messages: &[Value], own: usize, r: &ParsedRef) -> Option<String> {
    resolve_in(messages.get(r.msg)?, own, r)
}

/// The bytes a reference found in message `own` stands for, looked for in its target `m`.
pub fn resolve_in(m: &Value, own: usize, r: &ParsedRef) -> Option<String> {
    let short_hash = |bytes: &str| seal(own, r.msg, bytes);
    for slot in text_slots(m) {
        let text = slot_text(m, slot)?;
        if let Some((first, last, path)) = &r.lines {
            for read in find_reads(text).iter().filter(|x| &x.path == path) {
                for layout in [Layout::Padded, Layout::Plain] {
                    if let Some(lines) = render_lines(text, read, *first, *last, layout) {
                        if short_hash(&lines) == r.hash {
                            return Some(lines);
                        }
                    }
                }
            }
            continue;
        }
        if short_hash(text) == r.hash {
            return Some(text.to_string());
        }
        for read in find_reads(text) {
            let region = &text[read.region.clone()];
            if short_hash(region) == r.hash {
                return Some(region.to_string());
            }
        }
    }
    None
}

/// What expanding a history did.
#[derive(Debug, Default)]
pub struct Expansion {
    pub changes: Vec<(TextRef, String)>,
    pub expanded: usize,
    pub unresolved: usize,
}

/// Restores every reference whose bytes can be found; targets are read from `messages` as they
/// are (a reference never points at another reference).
pub fn expand(messages: &[Value]) -> Expansion {
    let mut out = Expansion::default();
    for (i, m) in messages.iter().enumerate() {
        for slot in text_slots(m) {
            let Some(text) = slot_text(m, slot) else {
                continue;
            };
            if !text.contains(OPEN) {
                continue;
            }
            let refs = find_references(text);
            let mut new = String::with_capacity(text.len());
            let mut pos = 0;
            let mut changed = false;
            for r in refs {
                match resolve(messages, i, &r) {
                    Some(bytes) => {
                        new.push_str(&text[pos..r.range.start]);
                        // The newline after the marker stands for the bytes' own last line ending.
                        let mut end = r.range.end;
                        if bytes.ends_with('\n') && text[end..].starts_with('\n') {
                            end += 1;
                        }
                        new.push_str(&bytes);
                        pos = end;
                        changed = true;
                        out.expanded += 1;
                    }
                    None => out.unresolved += 1,
                }
            }
            if changed {
                new.push_str(&text[pos..]);
                out.changes.push((TextRef { msg: i, slot }, new));
            }
        }
    }
    out
}

/// After the messages at positions `1..keep_start` were replaced by one summary (the layout
/// `[0, summary, keep_start..]`), the references in the kept messages `only` names point at old
/// positions. A message whose references all keep their offset to their target has them
/// renumbered (the seals still hold: a seal binds the offset); one with a reference into the
/// replaced part, or to the first message from elsewhere (or the reverse), has its references
/// expanded back to the bytes they stand for, then whatever cannot be expanded renumbered.
/// Answers the new texts.
pub fn follow_summary(messages: &[Value], keep_start: usize, only: &[bool]) -> Vec<(TextRef, String)> {
    let now = |k: usize| {
        if k == 0 {
            0
        } else if k >= keep_start {
            k + 2 - keep_start
        } else {
            k
        }
    };
    let mut expanded: Option<HashMap<TextRef, String>> = None;
    let mut out = Vec::new();
    let kept = std::iter::once(0).chain(keep_start.max(1)..messages.len());
    for j in kept.filter(|&j| only.get(j).copied().unwrap_or(false)) {
        let m = &messages[j];
        let slots: Vec<(Slot, &str)> = text_slots(m)
            .into_iter()
            .filter_map(|s| Some((s, slot_text(m, s)?)))
            .filter(|(_, t)| t.contains(OPEN))
            .collect();
        let refs: Vec<usize> = slots.iter().flat_map(|(_, t)| find_references(t)).map(|r| r.msg).collect();
        if refs.is_empty() {
            continue;
        }
        let expand_all = refs.iter().any(|&k| (1..keep_start).contains(&k) || (k == 0) != (j == 0));
        for (slot, text) in slots {
            let at = TextRef { msg: j, slot };
            let source = if expand_all {
                let map = expanded.get_or_insert_with(|| expand(messages).changes.into_iter().collect());
                map.get(&at).map_or(text, String::as_str)
            } else {
                text
            };
            let mut new = String::with_capacity(source.len());
            let mut pos = 0;
            for r in find_references(source) {
                let marker = &source[r.range.clone()];
                let Some(tag) = marker.rfind(" · sha256:").and_then(|h| marker[..h].rfind("message #")) else {
                    continue;
                };
                let digits = tag + "message #".len();
                let end = digits + marker[digits..].bytes().take_while(u8::is_ascii_digit).count();
                new.push_str(&source[pos..r.range.start + digits]);
                new.push_str(&now(r.msg).to_string());
                pos = r.range.start + end;
            }
            new.push_str(&source[pos..]);
            if new != text {
                out.push((at, new));
            }
        }
    }
    out
}

/// After a lossy pass or a summary, a reference may point at content that was since shortened,
/// summarized or moved. Each reference that may be affected (in a changed text, or in any text
/// after the first message changed or dropped: references point back) is checked against the
/// message it names (by its position now): renumbered when the message moved; when its bytes are
/// gone there, replaced by those bytes (what it stood for moves to it, the newer place, and is
/// not lost) if an earlier condensing wrote it, or if this run wrote it in a message no pass of
/// the run selected to shorten (the run kept that message; the copy it pointed at is what the
/// run shortened: this run's deduplication is then undone, and its act removed and returned),
/// once: a later reference to the same bytes then points at the message they came back to;
/// else turned into a plain `⟨ Omitted: … ⟩` note, so no marker claims what cannot be expanded
/// (a reference in a message the run selected was part of what it chose to shorten, whether or
/// not the reference was short enough to be left as it was).
pub fn fixup_references(draft: &mut crate::draft::Draft) -> Vec<crate::provenance::Act> {
    use crate::draft::Item;
    use crate::provenance::Action;
    use std::collections::{HashMap, HashSet};
    // Messages this run selected to shorten, or shortened.
    let shortened: HashSet<usize> = draft
        .acts
        .iter()
        .filter(|a| matches!(a.action, Action::Suppressed | Action::Truncated | Action::Summarized))
        .map(|a| a.message)
        .chain(draft.selected.iter().copied())
        .collect();
    let position: HashMap<usize, usize> = draft
        .layout
        .iter()
        .enumerate()
        .filter_map(|(p, it)| if let Item::Keep(k) = it { Some((*k, p)) } else { None })
        .collect();
    let open = memchr::memmem::Finder::new(OPEN);
    let mut slots: Vec<TextRef> = draft
        .changed_texts()
        .filter(|(at, t)| position.contains_key(&at.msg) && open.find(t.as_bytes()).is_some())
        .map(|(at, _)| at)
        .collect();
    let first_changed = draft.changed_texts().next().map(|(at, _)| at.msg);
    let first_dropped = (0..draft.original.len()).find(|i| !position.contains_key(i));
    let first_input = draft.first_changed_input();
    if let Some(first) = [first_changed, first_dropped, first_input].into_iter().flatten().min() {
        let original = draft.original;
        for (msg, m) in original.iter().enumerate().skip(first + 1).filter(|(i, _)| position.contains_key(i)) {
            for slot in text_slots(m) {
                let at = TextRef { msg, slot };
                if !draft.is_text_changed(at) && slot_text(m, slot).is_some_and(|t| open.find(t.as_bytes()).is_some()) {
                    slots.push(at);
                }
            }
        }
        slots.sort_unstable();
    }
    // The bytes each (own message, target, seal, lines) stands for, if they are still there:
    // several references often share a target.
    type Target = (usize, usize, String, Option<(u32, u32, String)>);
    let mut found: HashMap<Target, Option<String>> = HashMap::new();
    let mut omitted: Vec<(usize, usize)> = Vec::new();
    let mut undone: Vec<(usize, usize)> = Vec::new();
    // Where the bytes of a shortened copy were put back (by target and bytes): a later reference
    // to the same bytes points there rather than holding another copy of them.
    let mut homes: HashMap<(usize, String), usize> = HashMap::new();
    let mut repointed: Vec<(usize, usize, usize)> = Vec::new();
    for at in slots {
        let Some(text) = draft.text(at).map(str::to_string) else { continue };
        let own_now = position.get(&at.msg).copied().unwrap_or(at.msg);
        let mut out = String::with_capacity(text.len());
        let mut pos = 0;
        for r in find_references(&text) {
            let now = position.get(&r.msg).copied();
            let moved = now.is_some_and(|p| p as i64 - own_now as i64 != r.msg as i64 - at.msg as i64);
            // A target nothing changed still holds the bytes the reference was made against;
            // they are looked up only when needed (a changed target, or a new seal to make).
            let bytes = match now {
                None => None,
                Some(_) if !moved && !draft.is_message_changed(r.msg) => Some(None),
                Some(_) => {
                    let key = (at.msg, r.msg, r.hash.clone(), r.lines.clone());
                    let b = found.entry(key).or_insert_with(|| resolve_in(&draft.message(r.msg), at.msg, &r));
                    b.clone().map(Some)
                }
            };
            // In a text this draft did not write, a marker whose target neither moved nor changed stays.
            let written = draft.is_text_changed(at);
            if !written && matches!(bytes, Some(None)) {
                continue;
            }
            // When its bytes are gone from where it points now: those the history held, for a
            // reference an earlier condensing wrote (in the history's text already); one this run
            // wrote was its choice against them.
            let earlier = || {
                !written
                    || draft
                        .original
                        .get(at.msg)
                        .and_then(|m| slot_text(m, at.slot))
                        .is_some_and(|t| t.contains(&text[r.range.clone()]))
            };
            let from_earlier = bytes.is_none() && earlier();
            let restored = match bytes {
                None if r.msg < at.msg && (from_earlier || !shortened.contains(&at.msg)) => {
                    draft.original.get(r.msg).and_then(|m| resolve_in(m, at.msg, &r))
                }
                _ => None,
            };
            // In a text this draft did not write, a marker that was no reference in the history
            // (text that looks like one) stays.
            if !written && bytes.is_none() && restored.is_none() {
                continue;
            }
            let mut end = r.range.end;
            out.push_str(&text[pos..r.range.start]);
            let marker = &text[r.range.clone()];
            match (bytes, now) {
                (Some(_), Some(p)) if !moved && p == r.msg => out.push_str(marker),
                (Some(bytes), Some(p)) => {
                    let mut m = marker.replace(&format!("message #{}", r.msg), &format!("message #{p}"));
                    if let Some(bytes) = bytes.filter(|_| moved) {
                        m = m.replace(
                            &format!("{HASH_TAG}{}", r.hash),
                            &format!("{HASH_TAG}{}", seal(own_now, p, &bytes)),
                        );
                    }
                    out.push_str(&m);
                }
                // The bytes are gone from the message named: those the history held come back here
                // (the newline after the marker standing for their last line ending, as `expand` reads it).
                _ if restored.is_some() => {
                    let bytes = restored.unwrap_or_default();
                    // Already put back in an earlier message: a reference to them there, when it
                    // finds them (checked, as `expandReferences` would look).
                    let again = homes.get(&(r.msg, bytes.clone())).copied().filter(|h| *h < at.msg).and_then(|h| {
                        let p = position.get(&h).copied()?;
                        let hash = seal(own_now, p, &bytes);
                        let probe = ParsedRef { range: 0..0, msg: p, hash: hash.clone(), lines: r.lines.clone() };
                        let found = resolve_in(&draft.message(h), own_now, &probe);
                        (found.as_deref() == Some(bytes.as_str())).then(|| {
                            let m = marker.replace(
                                &format!("message #{}{HASH_TAG}{}", r.msg, r.hash),
                                &format!("message #{p}{HASH_TAG}{hash}"),
                            );
                            (h, m)
                        })
                    });
                    if let Some((h, m)) = again {
                        out.push_str(&m);
                        repointed.push((at.msg, r.msg, h));
                    } else {
                        homes.entry((r.msg, bytes.clone())).or_insert(at.msg);
                        if !from_earlier {
                            undone.push((at.msg, r.msg));
                        }
                        if bytes.ends_with('\n') && text[end..].starts_with('\n') {
                            end += 1;
                        }
                        out.push_str(&bytes);
                    }
                }
                _ => {
                    let desc = marker.trim_start_matches(OPEN).split(HASH_TAG).next().unwrap_or("");
                    let desc = desc.rsplit_once(" message #").map_or(desc, |(d, _)| d);
                    let place = match now {
                        Some(p) => format!("message #{p}, since shortened"),
                        None => "a part of the conversation since summarized".to_string(),
                    };
                    out.push_str(&format!("⟨ Omitted: {desc} {place} ⟩"));
                    omitted.push((at.msg, r.msg));
                }
            }
            pos = end;
        }
        out.push_str(&text[pos..]);
        if out != text {
            draft.set_text(at, out);
        }
    }
    // The deduplication that made each reference now omitted is recorded as omitted: it saves
    // the same tokens, but nothing can expand it any more.
    let deduplication = |acts: &[crate::provenance::Act], msg: usize, target: usize| {
        acts.iter().position(|a| a.message == msg && a.refers_to == Some(target) && a.action == Action::Deduplicated)
    };
    for (msg, target) in omitted {
        if let Some(i) = deduplication(&draft.acts, msg, target) {
            draft.acts[i].action = Action::Omitted;
        }
    }
    // A reference this run wrote that now points at the bytes put back elsewhere says so.
    for (msg, target, home) in repointed {
        if let Some(i) = deduplication(&draft.acts, msg, target) {
            draft.acts[i].refers_to = Some(home);
        }
    }
    // One undone saves nothing: its act goes.
    let mut removed = Vec::new();
    for (msg, target) in undone {
        if let Some(i) = deduplication(&draft.acts, msg, target) {
            removed.push(draft.acts.remove(i));
        }
    }
    removed
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn references_follow_a_summary_renumbered_or_expanded() {
        use crate::json;
        let body = "line of output\n".repeat(30);
        let other = "another output\n".repeat(30);
        let text = |t: &str| json!({"role": "user", "content": [{"type": "text", "text": t}]});
        let messages = vec![
            text("task"),
            text(&other),
            text("b"),
            text(&body),
            text("x"),
            text(&result_reference("execute_command", Some("ls"), 3, 5, &body)),
            text(&result_reference("execute_command", Some("cat"), 1, 6, &other)),
        ];
        let only = vec![false, false, false, false, false, true, true];
        let changes = follow_summary(&messages, 3, &only);
        assert_eq!(changes.len(), 2);
        let mut after: Vec<Value> = vec![messages[0].clone(), text("summary")];
        after.extend(messages[3..].iter().cloned());
        for (at, t) in &changes {
            crate::model::set_slot_text(&mut after[at.msg + 2 - 3], at.slot, t.clone());
        }
        // Message 5 (now 4) points at 3 (now 2): renumbered, and its seal still holds there.
        let moved = slot_text(&after[4], Slot::Text(0)).unwrap_or_default();
        assert!(moved.contains("as message #2 · sha256:"), "{moved}");
        let restored = expand(&after);
        assert_eq!(restored.expanded, 1);
        assert_eq!(restored.changes[0].1, body);
        // Message 6 pointed into the summarized part: expanded back to its bytes.
        assert_eq!(slot_text(&after[5], Slot::Text(0)), Some(other.as_str()));
        // Messages not flagged are left alone.
        assert!(follow_summary(&messages, 3, &[false; 7]).is_empty());
    }

    #[test]
    fn markers_parse_back() {
        let r = lines_reference("src/it's.ts", 10, 40, 4, 7, "abc");
        let found = find_references(&format!("x{r}y"));
        assert_eq!(found.len(), 1);
        assert_eq!(found[0].msg, 4);
        assert_eq!(found[0].lines, Some((10, 40, "src/it's.ts".to_string())));
        assert_eq!(found[0].hash, seal(7, 4, "abc"));
        assert_ne!(seal(7, 4, "abc"), seal(8, 4, "abc"), "the seal binds the marker's place");
        let r = result_reference("execute_command", Some("npm test"), 12, 14, "out");
        let found = find_references(&r);
        assert_eq!((found[0].msg, found[0].lines.clone()), (12, None));
        assert!(find_references("⟨ Reference: made up by a user ⟩").is_empty());
    }
}
