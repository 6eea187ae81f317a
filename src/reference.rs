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
//!
//! It also owns the rules that keep every marker honest (expandable to what it stood for, or an
//! `⟨ Omitted: … ⟩` note) across runs and formats: what the edit set must leave alone
//! (`targets`), after a lossy run (`fixup_references`), a cut (`follow_cut`), a summary
//! (`follow_summary`), and in another numbering of the messages (`renumber`).
//! Never touches the messages: it reads them and returns changes (or records them in a draft).

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
    locate_in(m, own, r).map(|(_, _, bytes)| bytes)
}

/// Where in its target `m` what a reference found in message `own` stands for is: the text slot
/// and the byte range (see `locate_in`).
pub fn locate(m: &Value, own: usize, r: &ParsedRef) -> Option<(Slot, Range<usize>)> {
    locate_in(m, own, r).map(|(slot, range, _)| (slot, range))
}

/// The reference markers in the texts of `m` (none without one: one scan for the opening).
pub fn references_in(m: &Value) -> Vec<ParsedRef> {
    let open = memchr::memmem::Finder::new(OPEN);
    crate::model::slot_texts(m)
        .into_iter()
        .filter(|(_, text)| open.find(text.as_bytes()).is_some())
        .flat_map(|(_, text)| find_references(text))
        .collect()
}

/// Where in its target `m` the bytes a reference found in message `own` stands for are: the
/// text slot, the byte range holding them (for some lines of a file, the read showing them) and
/// the bytes.
fn locate_in(m: &Value, own: usize, r: &ParsedRef) -> Option<(Slot, Range<usize>, String)> {
    let short_hash = |bytes: &str| seal(own, r.msg, bytes);
    for slot in text_slots(m) {
        let text = slot_text(m, slot)?;
        if let Some((first, last, path)) = &r.lines {
            for read in find_reads(text).iter().filter(|x| &x.path == path) {
                for layout in [Layout::Padded, Layout::Plain] {
                    if let Some(lines) = render_lines(text, read, *first, *last, layout) {
                        if short_hash(&lines) == r.hash {
                            return Some((slot, read.region.clone(), lines));
                        }
                    }
                }
            }
            continue;
        }
        if short_hash(text) == r.hash {
            return Some((slot, 0..text.len(), text.to_string()));
        }
        for read in find_reads(text) {
            let region = &text[read.region.clone()];
            if short_hash(region) == r.hash {
                return Some((slot, read.region.clone(), region.to_string()));
            }
        }
    }
    None
}

/// The places holding what the references already in a history stand for (an earlier
/// condensing's markers): a run that edits one of them would leave its reference pointing at
/// nothing, so the edit set keeps them as they are, as it keeps the targets of the references
/// the run itself writes. Finding the markers is one scan of the texts; locating what one stands
/// for (its bytes, checked against its seal) costs a hash of its target, so it is done only for a
/// message an edit would touch, once (`spans_in`): a run on a history full of references then
/// pays for the few messages it edits, not for every reference again.
#[derive(Debug)]
pub struct Targets<'a> {
    messages: &'a [Value],
    /// Per message a reference points at: the references (the message holding each, the marker).
    by_target: HashMap<usize, Vec<(usize, ParsedRef)>>,
    /// The spans located so far, per target message.
    located: std::cell::RefCell<HashMap<usize, Vec<crate::model::Span>>>,
}

impl<'a> Targets<'a> {
    /// The references in `messages`, by the message each points at (none located yet).
    pub fn scan(messages: &'a [Value]) -> Targets<'a> {
        let mut by_target: HashMap<usize, Vec<(usize, ParsedRef)>> = HashMap::new();
        for (own, m) in messages.iter().enumerate() {
            for r in references_in(m) {
                by_target.entry(r.msg).or_default().push((own, r));
            }
        }
        Targets { messages, by_target, located: Default::default() }
    }

    /// Whether what a reference stands for overlaps `span`.
    pub fn overlaps(&self, span: &crate::model::Span) -> bool {
        let msg = span.at.msg;
        let Some(refs) = self.by_target.get(&msg) else {
            return false;
        };
        let mut located = self.located.borrow_mut();
        let spans = located.entry(msg).or_insert_with(|| {
            let Some(target) = self.messages.get(msg) else {
                return Vec::new();
            };
            refs.iter()
                .filter_map(|(own, r)| locate(target, *own, r))
                .map(|(slot, range)| crate::model::Span { at: TextRef { msg, slot }, range })
                .collect()
        });
        spans.iter().any(|s| s.overlaps(span))
    }
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

/// The references in `messages` made to follow a cut that keeps only the messages `kept` (in
/// order; a host's sliding window drops the oldest after the first): by the rule a condensing
/// follows (`fixup_references`), a kept reference whose bytes were cut away gets them back, one
/// whose copy moved names its place now. Answers the new texts, by index in `messages`.
pub fn follow_cut(messages: &[Value], kept: &[usize]) -> Vec<(TextRef, String)> {
    let mut draft = crate::draft::Draft::new(messages);
    draft.layout = kept.iter().copied().filter(|&k| k < messages.len()).map(crate::draft::Item::Keep).collect();
    fixup_references(&mut draft, None);
    draft.changes().texts
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

/// The references in `messages` written in one numbering of its messages, rewritten in another
/// (a history converted between formats, where one message of one format is several of the
/// other: an Anthropic user message with several tool results is one OpenAI `tool` message each).
/// `from[q]` is message `q`'s index in the numbering its markers are written in, `to[q]` its
/// index in the numbering they are to be read in; `None` in either: a message outside it (an
/// OpenAI system message set aside), whose markers stay. Several messages may share an index of
/// `from`: a marker names the one of them that holds its bytes, and is sealed again for its new
/// distance. A marker whose bytes are not found (text that only looks like a reference) stays.
/// Answers the new texts.
pub fn renumber(messages: &[Value], from: &[Option<usize>], to: &[Option<usize>]) -> Vec<(TextRef, String)> {
    let mut holding: HashMap<usize, Vec<usize>> = HashMap::new();
    for (q, f) in from.iter().enumerate() {
        if let Some(f) = f {
            holding.entry(*f).or_default().push(q);
        }
    }
    let open = memchr::memmem::Finder::new(OPEN);
    let mut out = Vec::new();
    for (q, m) in messages.iter().enumerate() {
        let (Some(own_from), Some(own_to)) = (from.get(q).copied().flatten(), to.get(q).copied().flatten()) else {
            continue;
        };
        for (slot, text) in crate::model::slot_texts(m) {
            if open.find(text.as_bytes()).is_none() {
                continue;
            }
            let mut new = String::with_capacity(text.len());
            let mut pos = 0;
            for r in find_references(text) {
                let found = holding.get(&r.msg).into_iter().flatten().find_map(|&t| {
                    let target_to = to.get(t).copied().flatten()?;
                    Some((target_to, resolve_in(messages.get(t)?, own_from, &r)?))
                });
                let Some((target_to, bytes)) = found else { continue };
                new.push_str(&text[pos..r.range.start]);
                new.push_str(&retarget(&text[r.range.clone()], own_to, target_to, &seal(own_to, target_to, &bytes)));
                pos = r.range.end;
            }
            new.push_str(&text[pos..]);
            if new != text {
                out.push((TextRef { msg: q, slot }, new));
            }
        }
    }
    out
}

/// `marker`, a reference found in message `own`, naming message `target` instead and sealed with
/// `hash`; a reference to some lines says whether they are shown again later or unchanged from
/// earlier by where its target now is.
fn retarget(marker: &str, own: usize, target: usize, hash: &str) -> String {
    let Some(h) = marker.rfind(HASH_TAG) else { return marker.to_string() };
    let Some(m) = marker[..h].rfind("message #") else { return marker.to_string() };
    let mut head = &marker[..m];
    let mut relation = "";
    if marker.starts_with(&format!("{OPEN}lines ")) {
        for r in ["shown again in ", "unchanged from "] {
            if let Some(rest) = head.strip_suffix(r) {
                head = rest;
                relation = if target > own { "shown again in " } else { "unchanged from " };
            }
        }
    }
    let tail = marker.get(h + HASH_TAG.len() + HASH_LEN..).unwrap_or(CLOSE);
    format!("{head}{relation}message #{target}{HASH_TAG}{hash}{tail}")
}

/// After a lossy run (a pass that shortened, suppressed or summarized, a summary that replaced
/// messages), every reference marker in the result still expands to exactly the bytes it stood
/// for, or says they were omitted. The rule holds for every marker in every message the result
/// keeps: those this run wrote and those earlier condensings left in the history, pointing back
/// (the newer copy is the marker) or forward (`keep: latest`: the older copy is), in messages the
/// run changed and in messages it left alone (a message the run kept may point at one it
/// shortened, summarized away or moved). Each marker is checked against the message it names:
/// - a marker whose seal names no bytes in the history's message (text that only looks like a
///   reference: a user pasting one, a file showing one) is left as it is;
/// - when the bytes are still in the message named: the marker names it by its position now,
///   sealed again when the distance between them changed;
/// - when they are gone from it (shortened, summarized away): the bytes the history held come
///   back in place of the marker when the run did not select the marker's message to shorten
///   (the run kept that message, and so what it stands for) or when an earlier condensing wrote
///   it pointing back (its message is the newer copy: the latest state of a file is not lost),
///   once: a later reference to the same bytes then points at the message they came back to;
///   otherwise it becomes a plain `⟨ Omitted: … ⟩` note (a marker in a message the run selected
///   was part of what it chose to shorten, whether or not the marker was short enough to be left).
///
/// A deduplication of this run whose bytes came back is undone (its act removed and returned: the
/// caller gives its saving back to the passes); one whose marker was omitted is recorded as omitted.
/// `referring`, when the caller knows it (a held conversation's view), lists the messages whose
/// texts held a marker before the run: only those and the messages the run changed are read.
pub fn fixup_references(draft: &mut crate::draft::Draft, referring: Option<&[usize]>) -> Vec<crate::provenance::Act> {
    use crate::draft::Item;
    use crate::provenance::Action;
    use std::collections::{HashMap, HashSet};
    let identity = draft.layout.len() == draft.original.len()
        && draft.layout.iter().enumerate().all(|(i, it)| *it == Item::Keep(i));
    if identity && draft.changed_texts().next().is_none() && draft.first_changed_input().is_none() {
        return Vec::new();
    }
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
    // Every text of a kept message that holds a marker, in the history's order.
    let open = memchr::memmem::Finder::new(OPEN);
    let mut kept: Vec<usize> = position.keys().copied().collect();
    kept.sort_unstable();
    let mut slots: Vec<TextRef> = Vec::new();
    for &msg in &kept {
        // A message holds a marker only when its text held one (`referring`, when known) or changed.
        if referring.is_some_and(|r| r.binary_search(&msg).is_err()) && !draft.is_message_changed(msg) {
            continue;
        }
        for (slot, t) in draft.texts_of(msg) {
            if open.find(t.as_bytes()).is_some() {
                slots.push(TextRef { msg, slot });
            }
        }
    }
    // What each (own message, target, seal, lines) stands for, and whether its target still
    // holds it: several references often share a target, and a changed target is built once.
    type Target = (usize, usize, String, Option<(u32, u32, String)>);
    let mut stood: HashMap<Target, (Option<String>, bool)> = HashMap::new();
    let mut current: HashMap<usize, Value> = HashMap::new();
    let mut omitted: Vec<(usize, usize)> = Vec::new();
    let mut undone: Vec<(usize, usize)> = Vec::new();
    // Where the bytes of a shortened copy were put back (by target and bytes): a later reference
    // to the same bytes points there rather than holding another copy of them.
    let mut homes: HashMap<(usize, String), usize> = HashMap::new();
    let mut repointed: Vec<(usize, usize, usize)> = Vec::new();
    for at in slots {
        let Some(text) = draft.text(at).map(str::to_string) else { continue };
        let written = draft.is_text_changed(at);
        let own_now = position.get(&at.msg).copied().unwrap_or(at.msg);
        let mut out = String::with_capacity(text.len());
        let mut pos = 0;
        for r in find_references(&text) {
            let now = position.get(&r.msg).copied();
            let moved = now.is_some_and(|p| p as i64 - own_now as i64 != r.msg as i64 - at.msg as i64);
            let target_changed = draft.is_message_changed(r.msg);
            // A target that neither moved nor changed still holds whatever the marker was made
            // against, and it names it rightly.
            if now == Some(r.msg) && !moved && !target_changed {
                continue;
            }
            // The bytes it stands for: found in its target as it is now (the seal matches them
            // there: they are still there), else in the history's (both this run's passes and
            // earlier condensings sealed their markers against the history's bytes).
            let key = (at.msg, r.msg, r.hash.clone(), r.lines.clone());
            let (bytes, still) = stood
                .entry(key)
                .or_insert_with(|| {
                    let original = draft.original.get(r.msg);
                    let now_there = match now {
                        None => None,
                        Some(_) if !target_changed => original.and_then(|m| resolve_in(m, at.msg, &r)),
                        Some(_) => {
                            let m = current.entry(r.msg).or_insert_with(|| draft.message(r.msg).into_owned());
                            resolve_in(m, at.msg, &r)
                        }
                    };
                    match now_there {
                        Some(b) => (Some(b), true),
                        None if target_changed || now.is_none() => {
                            (original.and_then(|m| resolve_in(m, at.msg, &r)), false)
                        }
                        None => (None, false),
                    }
                })
                .clone();
            let Some(bytes) = bytes else { continue };
            out.push_str(&text[pos..r.range.start]);
            let marker = &text[r.range.clone()];
            let mut end = r.range.end;
            // An earlier condensing's marker is in the history's text already.
            let earlier = !written
                || draft.original.get(at.msg).and_then(|m| slot_text(m, at.slot)).is_some_and(|t| t.contains(marker));
            match now {
                Some(p) if still => {
                    let hash = if moved { seal(own_now, p, &bytes) } else { r.hash.clone() };
                    out.push_str(&retarget(marker, own_now, p, &hash));
                }
                _ if !shortened.contains(&at.msg) || (earlier && r.msg < at.msg) => {
                    // Already put back in an earlier message: a reference to them there, when it
                    // finds them (checked, as `expandReferences` would look).
                    let again = homes.get(&(r.msg, bytes.clone())).copied().filter(|h| *h < at.msg).and_then(|h| {
                        let p = position.get(&h).copied()?;
                        let hash = seal(own_now, p, &bytes);
                        let probe = ParsedRef { range: 0..0, msg: p, hash: hash.clone(), lines: r.lines.clone() };
                        let found = resolve_in(&draft.message(h), own_now, &probe);
                        (found.as_deref() == Some(bytes.as_str())).then(|| (h, retarget(marker, own_now, p, &hash)))
                    });
                    if let Some((h, m)) = again {
                        out.push_str(&m);
                        repointed.push((at.msg, r.msg, h));
                    } else {
                        homes.entry((r.msg, bytes.clone())).or_insert(at.msg);
                        if !earlier {
                            undone.push((at.msg, r.msg));
                        }
                        // The newline after the marker stands for the bytes' last line ending, as
                        // `expand` reads it.
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
    fn references_follow_a_message_split_into_several() {
        use crate::json;
        let body = "line of output\n".repeat(30);
        let text = |t: &str| json!({"role": "user", "content": t});
        // Numbered as [task, results, reference]: the reference (2) names the results (1). Laid out
        // with the results split in two messages and a message outside the numbering first.
        let marker = result_reference("execute_command", Some("ls"), 1, 2, &body);
        let fake = format!("{OPEN}same ls result as message #1{HASH_TAG}{}{CLOSE}", "0".repeat(HASH_LEN));
        let laid = vec![
            text("system prompt"),
            text("task"),
            text("other output"),
            text(&body),
            text(&format!("{marker}{fake}")),
        ];
        let from = [None, Some(0), Some(1), Some(1), Some(2)];
        let to = [None, Some(1), Some(2), Some(3), Some(4)];
        let changes = renumber(&laid, &from, &to);
        assert_eq!(changes.len(), 1);
        let mut after = laid.clone();
        crate::model::set_slot_text(&mut after[4], changes[0].0.slot, changes[0].1.clone());
        let now = slot_text(&after[4], Slot::Content).unwrap_or_default().to_string();
        assert!(now.starts_with("⟨ Reference: same execute_command result for 'ls' as message #3 · sha256:"), "{now}");
        assert!(now.ends_with(&fake), "a marker whose bytes are nowhere stays: {now}");
        let restored = expand(&after);
        assert_eq!((restored.expanded, restored.unresolved), (1, 1));
        assert_eq!(restored.changes[0].1, format!("{body}{fake}"));
        // And back: the same rule the other way round gives the first numbering's marker again.
        let back = renumber(&after, &to, &from);
        assert_eq!(back.len(), 1);
        assert_eq!(back[0].1, format!("{marker}{fake}"));
    }

    #[test]
    fn references_follow_a_cut() {
        use crate::json;
        let body = "line of output\n".repeat(30);
        let other = "another output\n".repeat(30);
        let text = |t: &str| json!({"role": "user", "content": t});
        let messages = vec![
            text("task"),
            text(&body),
            text("x"),
            text(&other),
            text(&result_reference("execute_command", Some("ls"), 1, 4, &body)),
            text(&result_reference("execute_command", Some("cat"), 3, 5, &other)),
        ];
        // Messages 1 and 2 cut: the reference into them gets its bytes back, the other follows
        // its copy (from message 3 to 1).
        let kept = [0, 3, 4, 5];
        let changes = follow_cut(&messages, &kept);
        let mut after: Vec<Value> = messages.clone();
        for (at, t) in &changes {
            crate::model::set_slot_text(&mut after[at.msg], at.slot, t.clone());
        }
        let after: Vec<Value> = kept.iter().map(|&k| after[k].clone()).collect();
        assert_eq!(slot_text(&after[2], Slot::Content), Some(body.as_str()));
        assert!(slot_text(&after[3], Slot::Content).unwrap_or_default().contains("as message #1 · sha256:"));
        let restored = expand(&after);
        assert_eq!((restored.expanded, restored.unresolved), (1, 0));
        assert_eq!(restored.changes[0].1, other);
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
