//! The working set: the files the agent touched (read, wrote, edited) in its latest turns, and
//! where the latest state of each lives in the history, so a lossy step can leave it in context
//! and the agent does not read again what it was editing.
//!
//! "Recent" is the last `turns` assistant messages the model is sent (counted after the latest
//! summary, if any). A file is touched by a read shown in a tool result, or by a successful
//! write or edit call (`write_to_file`, `apply_diff`, `insert_content`, `search_and_replace`,
//! `edit_file`, `apply_patch`, in XML or native form). Its latest state is, walking back from the
//! end, the latest read or whole-file write (the base) and the edits made after it. The files
//! are ordered most recently touched first; a token budget decides which stay whole, and the
//! others are given an outline of their definitions (`crate::outline`) in place of the base's
//! text, when their language has one.
//!
//! The budget, unless the config names one in tokens, is a third of the context being condensed
//! (`DEFAULT_BUDGET_SHARE`). The rule is that the files the agent is working on stay verbatim, so
//! the default budget must cover the working set of ordinary histories, whatever their size: a
//! working set is what ten turns can touch, a few files, typically a few percent of the context
//! (about 7% on generated tasks, at most a quarter on the smallest of them), far under a third.
//! A working set larger than a third of the context means the agent read or wrote files that
//! outweigh the rest of its conversation (a 20,000-token file in a 40,000-token history): kept
//! whole, they alone would hold the condensed context above a third of the original whatever else
//! is given up, so there the files that do not fit, the least recently touched first, get their
//! outline. A fixed number of tokens cannot say this: too small, it outlines the working set of
//! every long task; too large, it keeps a small history's one huge file whole.
//!
//! Reads only: finding the working set never changes a message. `Guard` tells the content
//! operations which texts to leave whole or to replace by the outline; it never touches what the
//! user typed, messages before the latest summary, failed calls or tool pairing.

use std::collections::{HashMap, HashSet};
use std::ops::Range;

use crate::{json, json::Value};
use serde::{Deserialize, Serialize};

use crate::draft::Draft;
use crate::model::{is_summary, role, slot_text, slot_texts, Slot, TextRef};
use crate::parse::reads::{find_reads, NumberedRead};
use crate::parse::tool_calls::find_xml_call;
use crate::parse::{looks_like_error, View};
use crate::reference::find_references;
use crate::tokens::{count, Encoding};

/// Which files make the working set and how much of it stays whole.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct WorkingSetConfig {
    /// The files touched (read, written, edited) in this many of the latest assistant turns
    /// (after the latest summary) make the working set. @default 10
    pub turns: usize,
    /// Tokens of the files kept whole, the most recently touched first; the others keep an
    /// outline of their definitions. Absent (or null): a third of the context being condensed.
    pub budget_tokens: Option<usize>,
}

impl Default for WorkingSetConfig {
    fn default() -> Self {
        WorkingSetConfig { turns: 10, budget_tokens: None }
    }
}

/// The share of the context being condensed that the working set may keep whole when the config
/// names no budget in tokens (numerator, denominator): a third. Why a share, and why this one, is
/// in the module's comment.
pub const DEFAULT_BUDGET_SHARE: (usize, usize) = (1, 3);

impl WorkingSetConfig {
    /// The tokens of the working set kept whole for a context of `context_tokens`: the config's
    /// budget, or the default share of the context.
    pub fn budget(&self, context_tokens: usize) -> usize {
        self.budget_tokens
            .unwrap_or_else(|| context_tokens.saturating_mul(DEFAULT_BUDGET_SHARE.0) / DEFAULT_BUDGET_SHARE.1)
    }
}

/// Tools that write a whole file: (name, the parameter holding the content).
const WRITE_TOOLS: [&str; 1] = ["write_to_file"];
/// Tools that change part of a file.
const EDIT_TOOLS: [&str; 5] = ["apply_diff", "insert_content", "search_and_replace", "edit_file", "apply_patch"];

/// Where a piece of a file's state lives in the history.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Where {
    /// The numbered lines of a read inside a tool result (bytes of the slot's text).
    Read { at: TextRef, region: Range<usize>, read: NumberedRead },
    /// A parameter value of the XML tool call in an assistant text (bytes of the text).
    XmlParam { at: TextRef, range: Range<usize> },
    /// The whole XML tool call of an assistant text (an edit: all its parameters).
    XmlCall { at: TextRef, range: Range<usize> },
    /// A native tool_use input: the string at `pointer`, or the whole input when it is empty.
    Input { msg: usize, block: usize, pointer: String },
}

impl Where {
    pub fn msg(&self) -> usize {
        match self {
            Where::Read { at, .. } | Where::XmlParam { at, .. } | Where::XmlCall { at, .. } => at.msg,
            Where::Input { msg, .. } => *msg,
        }
    }

    /// The content block it is in (`None` for a message whose content is one string).
    pub fn block(&self) -> Option<usize> {
        match self {
            Where::Read { at, .. } | Where::XmlParam { at, .. } | Where::XmlCall { at, .. } => match at.slot {
                Slot::Text(j) | Slot::ResultString(j) | Slot::ResultPart(j, _) => Some(j),
                Slot::Content => None,
            },
            Where::Input { block, .. } => Some(*block),
        }
    }

    /// Its text in `messages` (an input's whole value as JSON when it is not one string).
    pub fn text(&self, messages: &[Value]) -> Option<String> {
        match self {
            Where::Read { at, region, .. } => slot(messages, *at)?.get(region.clone()).map(str::to_string),
            Where::XmlParam { at, range } | Where::XmlCall { at, range } => {
                slot(messages, *at)?.get(range.clone()).map(str::to_string)
            }
            Where::Input { msg, block, pointer } => {
                let input = messages.get(*msg)?.get("content")?.get(*block)?.get("input")?;
                match input.pointer(pointer)? {
                    Value::String(s) => Some(s.to_string()),
                    v => serde_json::to_string(v).ok(),
                }
            }
        }
    }

    /// The tokens of [`Where::text`], read in place when it is a string of the history.
    fn tokens(&self, messages: &[Value], encoding: Encoding) -> Option<usize> {
        let borrowed = match self {
            Where::Read { at, region, .. } => slot(messages, *at)?.get(region.clone()),
            Where::XmlParam { at, range } | Where::XmlCall { at, range } => slot(messages, *at)?.get(range.clone()),
            Where::Input { .. } => None,
        };
        match borrowed {
            Some(text) => Some(count(text, encoding)),
            None => self.text(messages).map(|t| count(&t, encoding)),
        }
    }
}

fn slot(messages: &[Value], at: TextRef) -> Option<&str> {
    slot_text(messages.get(at.msg)?, at.slot)
}

/// What a piece of state is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum PieceKind {
    Read,
    Write,
    Edit,
}

impl PieceKind {
    fn name(self) -> &'static str {
        match self {
            PieceKind::Read => "read",
            PieceKind::Write => "write",
            PieceKind::Edit => "edit",
        }
    }
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Piece {
    pub kind: PieceKind,
    pub at: Where,
    pub tokens: usize,
}

/// How a file of the working set is kept.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Keep {
    /// Its latest state stays whole.
    Full,
    /// Beyond the budget: the base's text gives way to the outline of its definitions.
    Outline,
    /// Beyond the budget and no outline can be made (an unknown language, no base to outline):
    /// left to the passes.
    None,
}

/// One file of the working set.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FileState {
    pub path: String,
    /// The latest message that touched it.
    pub touched: usize,
    /// The latest read or whole-file write, if the history has one.
    pub base: Option<Piece>,
    /// Edits after the base, oldest first.
    pub edits: Vec<Piece>,
    /// Tokens of the base and the edits.
    pub tokens: usize,
    pub keep: Keep,
    /// The outline that replaces the base's text (when `keep` is `Outline`).
    pub outline: Option<String>,
}

/// One touch of a file in a message. A read is made a piece only when the scan keeps it (its
/// line offsets are copied then).
struct Event<'v> {
    path: String,
    kind: PieceKind,
    at: EventAt<'v>,
}

enum EventAt<'v> {
    Read(&'v crate::parse::FileRead),
    Other(Where),
}

impl EventAt<'_> {
    fn into_where(self) -> Where {
        match self {
            EventAt::Read(fr) => Where::Read { at: fr.at, region: fr.read.region.clone(), read: fr.read.clone() },
            EventAt::Other(w) => w,
        }
    }

    fn tokens(&self, messages: &[Value], encoding: Encoding) -> Option<usize> {
        match self {
            EventAt::Read(fr) => Some(count(slot(messages, fr.at)?.get(fr.read.region.clone())?, encoding)),
            EventAt::Other(w) => w.tokens(messages, encoding),
        }
    }
}

/// The working set of a history, most recently touched first. `context_tokens` is the size of
/// the context being condensed (the default budget is a share of it).
pub fn find(
    messages: &[Value],
    view: &View,
    config: &WorkingSetConfig,
    encoding: Encoding,
    context_tokens: usize,
) -> Vec<FileState> {
    let n = messages.len().min(view.active.len());
    let active = |i: usize| view.active.get(i).copied().unwrap_or(false);
    let start = (0..n).rev().find(|&i| active(i) && is_summary(&messages[i])).map_or(0, |i| i + 1);
    let turns: Vec<usize> = (start..n)
        .filter(|&i| active(i) && role(&messages[i]) == Some("assistant") && !is_summary(&messages[i]))
        .collect();
    if config.turns == 0 || turns.is_empty() {
        return Vec::new();
    }
    let from = turns[turns.len().saturating_sub(config.turns)];
    let mut files: Vec<FileState> = Vec::new();
    let mut index: HashMap<String, usize> = HashMap::new();
    let mut done: Vec<bool> = Vec::new();
    let mut open = 0usize;
    for i in (start..n).rev() {
        if i < from && open == 0 {
            break;
        }
        if !active(i) {
            continue;
        }
        for ev in events_of(messages, view, i).into_iter().rev() {
            let known = index.get(&ev.path).copied();
            if (known.is_none() && i < from) || known.is_some_and(|k| done[k]) {
                continue;
            }
            // Counted only now: most touches a scan passes are of files it does not track.
            let Some(tokens) = ev.at.tokens(messages, encoding) else { continue };
            let piece = Piece { kind: ev.kind, at: ev.at.into_where(), tokens };
            let k = match known {
                Some(k) => k,
                None => {
                    index.insert(ev.path.clone(), files.len());
                    files.push(FileState {
                        path: ev.path.clone(),
                        touched: i,
                        base: None,
                        edits: Vec::new(),
                        tokens: 0,
                        keep: Keep::None,
                        outline: None,
                    });
                    done.push(false);
                    open += 1;
                    files.len() - 1
                }
            };
            let f = &mut files[k];
            f.tokens += piece.tokens;
            if piece.kind == PieceKind::Edit {
                f.edits.push(piece);
            } else {
                f.base = Some(piece);
                done[k] = true;
                open -= 1;
            }
        }
    }
    let budget = config.budget(context_tokens);
    let mut used = 0usize;
    for f in &mut files {
        f.edits.reverse();
        if used + f.tokens <= budget {
            used += f.tokens;
            f.keep = Keep::Full;
            continue;
        }
        let outline = f.base.as_ref().and_then(|b| outline_of(messages, &f.path, b, encoding));
        match outline {
            // An outline no smaller than the text it stands for is not worth it.
            Some((_, t)) if t >= f.base.as_ref().map_or(0, |b| b.tokens) => f.keep = Keep::Full,
            Some((text, _)) => {
                f.keep = Keep::Outline;
                f.outline = Some(text);
            }
            None => f.keep = Keep::None,
        }
    }
    files
}

/// The outline that stands for a base's text, and its tokens.
fn outline_of(messages: &[Value], path: &str, base: &Piece, encoding: Encoding) -> Option<(String, usize)> {
    let text = base.at.text(messages)?;
    let (defs, first, last) = match &base.at {
        Where::Read { read, region, .. } => {
            let mut shifted = read.clone();
            shifted.region = 0..region.len();
            let lines = shifted.lines(&text);
            (crate::outline::outline(path, lines)?, read.first, read.last)
        }
        _ => {
            let body = text.strip_prefix('\n').unwrap_or(&text);
            let lines: Vec<(u32, &str)> = body.lines().enumerate().map(|(i, l)| (i as u32 + 1, l)).collect();
            let last = lines.len() as u32;
            (crate::outline::outline(path, lines)?, 1, last)
        }
    };
    if defs.is_empty() {
        return None;
    }
    let outline = format!(
        "⟨ Outline of '{path}', lines {first}-{last}: its definitions only, the rest left out to save context ({} tokens) ⟩\n{}",
        base.tokens,
        crate::outline::render(&defs)
    );
    let tokens = count(&outline, encoding);
    Some((outline, tokens))
}

/// The touches of message `i`, in order: reads shown in its tool results, successful writes and
/// edits in its tool calls.
fn events_of<'v>(messages: &[Value], view: &'v View, i: usize) -> Vec<Event<'v>> {
    let m = &messages[i];
    let mut out = Vec::new();
    // Tokens are counted by `find`, for the touches it keeps.
    let other = |path: &str, kind: PieceKind, at: Where| Event { path: normalize(path), kind, at: EventAt::Other(at) };
    match role(m) {
        Some("user") => {
            for r in view.results_of(i) {
                for fr in &r.reads {
                    out.push(Event { path: normalize(&fr.read.path), kind: PieceKind::Read, at: EventAt::Read(fr) });
                }
            }
        }
        Some("assistant") => {
            for (s, text) in slot_texts(m) {
                // The view's call when it knows it (a conversation keeps them), else found here.
                let known = view.call_at(TextRef { msg: i, slot: s });
                let found;
                let call = match known {
                    Some(Some(c)) => c,
                    Some(None) => continue,
                    None => match find_xml_call(text) {
                        Some(c) => {
                            found = c;
                            &found
                        }
                        None => continue,
                    },
                };
                let kind = if WRITE_TOOLS.contains(&call.tool) {
                    PieceKind::Write
                } else if EDIT_TOOLS.contains(&call.tool) {
                    PieceKind::Edit
                } else {
                    continue;
                };
                if xml_call_failed(messages, view, i, call.tool) {
                    continue;
                }
                let at = TextRef { msg: i, slot: s };
                let params = &call.params;
                let outside = |p: usize| !params.iter().any(|(_, r)| r.contains(&p));
                let paths = tag_values(text, call.range.clone(), "path", &outside);
                let content = params.iter().find(|(name, _)| *name == "content").map(|(_, r)| r.clone());
                for path in paths {
                    let at = match (kind, &content) {
                        (PieceKind::Write, Some(r)) => Where::XmlParam { at, range: r.clone() },
                        _ => Where::XmlCall { at, range: call.range.clone() },
                    };
                    out.push(other(&path, kind, at));
                }
            }
            let Some(Value::Array(blocks)) = m.get("content") else { return out };
            for (j, b) in blocks.iter().enumerate() {
                if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                    continue;
                }
                let name = b.get("name").and_then(Value::as_str).unwrap_or("");
                let input = b.get("input").unwrap_or(&Value::Null);
                let write = WRITE_TOOLS.contains(&name) && input.get("content").is_some_and(Value::is_string);
                if !write && !EDIT_TOOLS.contains(&name) {
                    continue;
                }
                let id = b.get("id").and_then(Value::as_str).unwrap_or("");
                if native_call_failed(messages.get(i + 1), id) {
                    continue;
                }
                let (kind, pointer) = if write { (PieceKind::Write, "/content") } else { (PieceKind::Edit, "") };
                for path in native_paths(input) {
                    let at = Where::Input { msg: i, block: j, pointer: pointer.to_string() };
                    out.push(other(&path, kind, at));
                }
            }
        }
        _ => {}
    }
    out
}

/// Paths as one file is written in every place: no leading `./`, forward slashes.
fn normalize(path: &str) -> String {
    let p = path.trim().replace('\\', "/");
    p.strip_prefix("./").unwrap_or(&p).to_string()
}

/// The values of `<tag>` inside `range` of `text`, at positions `outside` accepts.
fn tag_values(text: &str, range: Range<usize>, tag: &str, outside: &dyn Fn(usize) -> bool) -> Vec<String> {
    let (open, close) = (format!("<{tag}>"), format!("</{tag}>"));
    let mut out = Vec::new();
    let mut pos = range.start;
    while let Some(i) = text.get(pos..range.end).and_then(|t| t.find(&open)) {
        let s = pos + i + open.len();
        let Some(e) = text.get(s..range.end).and_then(|t| t.find(&close)).map(|j| s + j) else { break };
        if outside(pos + i) {
            let v = text[s..e].trim();
            if !v.is_empty() && !out.iter().any(|x| x == v) {
                out.push(v.to_string());
            }
        }
        pos = e + close.len();
    }
    out
}

/// True when the result of the XML call of assistant message `i` (in the next message the model
/// is sent) is an error result of that tool.
fn xml_call_failed(messages: &[Value], view: &View, i: usize, tool: &str) -> bool {
    let next = (i + 1..messages.len()).find(|&j| view.active.get(j).copied().unwrap_or(false));
    next.is_some_and(|j| view.results_of(j).iter().find(|r| r.tool == tool).is_some_and(|r| r.is_error))
}

/// True when the tool_result answering `id` in `next` says the call failed.
fn native_call_failed(next: Option<&Value>, id: &str) -> bool {
    let Some(Value::Array(blocks)) = next.and_then(|m| m.get("content")) else { return false };
    let Some(b) = blocks.iter().find(|b| {
        b.get("type").and_then(Value::as_str) == Some("tool_result")
            && b.get("tool_use_id").and_then(Value::as_str) == Some(id)
    }) else {
        return false;
    };
    if b.get("is_error").and_then(Value::as_bool) == Some(true) {
        return true;
    }
    match b.get("content") {
        Some(Value::String(s)) => looks_like_error(s),
        Some(Value::Array(parts)) => {
            parts.iter().find_map(|p| p.get("text").and_then(Value::as_str)).is_some_and(looks_like_error)
        }
        _ => false,
    }
}

/// The files a native write or edit names: `path` (or `file_path`, `target_file`), the `files`
/// of a multi-file call, or the files an `apply_patch` patch adds, updates or moves to.
fn native_paths(input: &Value) -> Vec<String> {
    let mut out: Vec<String> = Vec::new();
    for key in ["path", "file_path", "target_file"] {
        if let Some(p) = input.get(key).and_then(Value::as_str) {
            out.push(p.to_string());
            return out;
        }
    }
    if let Some(Value::Array(files)) = input.get("files") {
        out.extend(files.iter().filter_map(|f| f.get("path").and_then(Value::as_str)).map(str::to_string));
    }
    for key in ["patch", "input"] {
        let Some(patch) = input.get(key).and_then(Value::as_str) else { continue };
        for line in patch.lines() {
            for prefix in ["*** Update File: ", "*** Add File: ", "*** Move to: "] {
                if let Some(p) = line.strip_prefix(prefix) {
                    out.push(p.trim().to_string());
                }
            }
        }
    }
    out
}

/// What the content operations must do to the working set: leave some texts whole, replace the
/// base of others by its outline.
#[derive(Debug, Default, Clone, PartialEq, Eq)]
pub struct Guard {
    /// Per result slot, the files whose read there stays: whole (`None`) or as an outline.
    reads: HashMap<TextRef, Vec<(String, Option<String>)>>,
    /// Assistant texts whose XML call is kept.
    texts: HashSet<TextRef>,
    /// Native tool_use blocks whose input is kept.
    blocks: HashSet<(usize, usize)>,
    /// Assistant texts whose XML `<content>` gives way to an outline.
    outline_texts: HashMap<TextRef, String>,
    /// Native tool_use blocks whose `/content` gives way to an outline.
    outline_blocks: HashMap<(usize, usize), String>,
}

impl Guard {
    /// The guard of `files` over the draft as it is now: a read that an earlier pass turned into
    /// a reference is kept where the reference points.
    pub fn build(draft: &Draft, view: &View, files: &[FileState]) -> Guard {
        let mut g = Guard::default();
        for f in files {
            let outline = match f.keep {
                Keep::Full => None,
                Keep::Outline => f.outline.clone(),
                Keep::None => continue,
            };
            let pieces: Vec<&Piece> = match f.keep {
                Keep::Full => f.base.iter().chain(&f.edits).collect(),
                _ => f.base.iter().collect(),
            };
            for p in pieces {
                match (&p.at, &outline) {
                    (Where::Read { at, .. }, _) => {
                        // Where the read is still shown, and where the references an earlier pass
                        // left in it point (a whole copy, or some of its lines): a file kept whole
                        // keeps both, an outline goes where the lines are.
                        let shown =
                            draft.text(*at).is_some_and(|t| find_reads(t).iter().any(|r| normalize(&r.path) == f.path));
                        let mut places = if shown { vec![*at] } else { Vec::new() };
                        if outline.is_none() || !shown {
                            places.extend(referred(draft, view, *at, &f.path));
                        }
                        for t in places {
                            g.reads.entry(t).or_default().push((f.path.clone(), outline.clone()));
                        }
                    }
                    (Where::XmlParam { at, .. } | Where::XmlCall { at, .. }, None) => {
                        g.texts.insert(*at);
                    }
                    (Where::Input { msg, block, .. }, None) => {
                        g.blocks.insert((*msg, *block));
                    }
                    (Where::XmlParam { at, .. }, Some(o)) => {
                        g.outline_texts.insert(*at, o.clone());
                    }
                    (Where::Input { msg, block, .. }, Some(o)) => {
                        g.outline_blocks.insert((*msg, *block), o.clone());
                    }
                    (Where::XmlCall { .. }, Some(_)) => {}
                }
            }
        }
        g
    }

    /// The files of the working set read in the result slot `at`: (path, `None` to keep the
    /// read whole or the outline that replaces it).
    pub fn reads_in(&self, at: TextRef) -> Option<&[(String, Option<String>)]> {
        self.reads.get(&at).map(Vec::as_slice)
    }

    pub fn keeps_text(&self, at: TextRef) -> bool {
        self.texts.contains(&at)
    }

    pub fn keeps_block(&self, msg: usize, block: usize) -> bool {
        self.blocks.contains(&(msg, block))
    }

    pub fn outline_text(&self, at: TextRef) -> Option<&str> {
        self.outline_texts.get(&at).map(String::as_str)
    }

    pub fn outline_block(&self, msg: usize, block: usize) -> Option<&str> {
        self.outline_blocks.get(&(msg, block)).map(String::as_str)
    }
}

/// The result slots holding the reads of `path` that the references now in `at` point to.
fn referred(draft: &Draft, view: &View, at: TextRef, path: &str) -> Vec<TextRef> {
    let Some(text) = draft.text(at) else { return Vec::new() };
    let mut out = Vec::new();
    for r in find_references(text) {
        for res in view.results_of(r.msg) {
            out.extend(res.reads.iter().filter(|fr| normalize(&fr.read.path) == path).map(|fr| fr.at));
        }
    }
    out
}

/// A result text holding files of the working set, rewritten: their reads stay whole or give way
/// to their outline, the reads of other files are rewritten by `other` (the operation the pass
/// applies to the result), and what lies between reads stays. `None` when the text shows none
/// of the working set's files (an outline already in place is kept as it is).
pub fn rewrite_reads(
    text: &str,
    files: &[(String, Option<String>)],
    other: &dyn Fn(&str, &str) -> Option<String>,
) -> Option<String> {
    let reads = find_reads(text);
    let ws = |path: &str| files.iter().find(|(p, _)| *p == normalize(path));
    let in_place = files.iter().any(|(_, o)| o.as_ref().is_some_and(|o| text.contains(o.lines().next().unwrap_or(o))));
    if !in_place && !reads.iter().any(|r| ws(&r.path).is_some()) {
        return None;
    }
    let mut out = String::with_capacity(text.len());
    let mut pos = 0;
    // A file may be shown more than once in a result (two line ranges): its outline takes the
    // place of the first, the others go.
    let mut outlined: HashSet<&str> = HashSet::new();
    for r in &reads {
        if r.region.start < pos {
            continue;
        }
        out.push_str(&text[pos..r.region.start]);
        let region = &text[r.region.clone()];
        match ws(&r.path) {
            Some((_, None)) => out.push_str(region),
            Some((p, Some(outline))) => {
                if outlined.insert(p.as_str()) {
                    out.push_str(outline);
                }
            }
            None => out.push_str(other(&r.path, region).as_deref().unwrap_or(region)),
        }
        pos = r.region.end;
    }
    out.push_str(&text[pos..]);
    Some(out)
}

/// The files whose latest state lies in the `replaced` messages, as sections to append to the
/// summary that replaces them (the shape of Roo's folded file context): a file kept whole gives
/// its base's text and the edits after it that are replaced, a file beyond the budget its
/// outline. Empty when the summary replaces none of the working set.
pub fn summary_sections(messages: &[Value], files: &[FileState], replaced: &[usize]) -> String {
    let replaced: HashSet<usize> = replaced.iter().copied().collect();
    let mut out = String::new();
    for f in files {
        let base_in = f.base.as_ref().filter(|b| replaced.contains(&b.at.msg()));
        let body = match f.keep {
            Keep::Full => {
                let mut parts: Vec<String> = base_in.and_then(|b| b.at.text(messages)).into_iter().collect();
                for e in f.edits.iter().filter(|e| replaced.contains(&e.at.msg())) {
                    if let Some(t) = e.at.text(messages) {
                        parts.push(format!("Then edited:\n{t}"));
                    }
                }
                parts.join("\n")
            }
            Keep::Outline => base_in.and(f.outline.clone()).unwrap_or_default(),
            Keep::None => String::new(),
        };
        if !body.trim().is_empty() {
            out.push_str(&format!(
                "\n\n<system-reminder>\n## File Context: {} (its latest state, from the summarized messages)\n{}\n</system-reminder>",
                f.path,
                body.trim_matches('\n')
            ));
        }
    }
    out
}

/// The working set of `messages` with a config given as JSON (`{ turns?, budgetTokens? }`, null
/// for the defaults; the default budget is a share of the tokens of `messages`), as `to_json`
/// writes it; a bad config is an error naming its key.
pub fn of_history(
    messages: &[Value],
    config: &serde_json::Value,
    with_text: bool,
    encoding: Encoding,
) -> Result<Value, crate::error::CondenseError> {
    let config: WorkingSetConfig =
        if config.is_null() { WorkingSetConfig::default() } else { crate::config::parse_config(config, "options")? };
    let view = View::build(messages);
    let context = if config.budget_tokens.is_some() { 0 } else { crate::tokens::count_messages(messages, encoding) };
    Ok(to_json(messages, &find(messages, &view, &config, encoding, context), with_text, encoding))
}

/// The working set as JavaScript reads it: per file, its path, how it is kept, where its base
/// lives (message and content block indexes) and its tokens, its edits, and with `with_text` the
/// base's text and its outline (whether Smart would use it or not; null when its language has
/// none).
pub fn to_json(messages: &[Value], files: &[FileState], with_text: bool, encoding: Encoding) -> Value {
    let place = |p: &Piece| {
        json!({
            "kind": p.kind.name(),
            "message": p.at.msg(),
            "content": p.at.block(),
            "tokens": p.tokens,
        })
    };
    let list: Vec<Value> = files
        .iter()
        .map(|f| {
            let mut v = json!({
                "path": f.path,
                "keep": match f.keep { Keep::Full => "full", Keep::Outline => "outline", Keep::None => "none" },
                "touched": f.touched,
                "tokens": f.tokens,
                "base": f.base.as_ref().map(place),
                "edits": f.edits.iter().map(place).collect::<Vec<_>>(),
            });
            if with_text {
                v["text"] = json!(f.base.as_ref().and_then(|b| b.at.text(messages)));
                let outline = f.outline.clone().or_else(|| {
                    f.base.as_ref().and_then(|b| outline_of(messages, &f.path, b, encoding)).map(|(o, _)| o)
                });
                v["outline"] = json!(outline);
            }
            v
        })
        .collect();
    Value::Array(list)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn ws(messages: &[Value], turns: usize, budget: usize) -> Vec<FileState> {
        let view = View::build(messages);
        find(messages, &view, &WorkingSetConfig { turns, budget_tokens: Some(budget) }, Encoding::O200kBase, 0)
    }

    fn ts_file(lines: usize) -> String {
        (1..=lines)
            .map(|i| {
                if i % 10 == 1 {
                    format!("export function f{i}(a: number): number {{")
                } else {
                    format!("  return a + {i}")
                }
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    fn numbered(text: &str) -> String {
        text.lines().enumerate().map(|(i, l)| format!("{} | {l}\n", i + 1)).collect()
    }

    fn xml_history() -> Vec<Value> {
        let a = ts_file(40);
        let b = ts_file(30);
        vec![
            json!({"role": "user", "content": [{"type": "text", "text": "<task>fix it</task>"}]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Reading.\n<read_file>\n<path>src/a.ts</path>\n</read_file>"}]}),
            json!({"role": "user", "content": [
                {"type": "text", "text": "[read_file for 'src/a.ts'] Result:"},
                {"type": "text", "text": format!("<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-40\">\n{}</content>\n</file>\n</files>", numbered(&a))}]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Fixing.\n<apply_diff>\n<path>src/a.ts</path>\n<diff>\n<<<<<<< SEARCH\n  return a + 2\n=======\n  return a - 2\n>>>>>>> REPLACE\n</diff>\n</apply_diff>"}]}),
            json!({"role": "user", "content": [{"type": "text", "text": "[apply_diff for 'src/a.ts'] Result:"}, {"type": "text", "text": "<file_write_result>\n<path>src/a.ts</path>\n<operation>modified</operation>\n</file_write_result>"}]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": format!("New file.\n<write_to_file>\n<path>./src/b.ts</path>\n<content>\n{b}\n</content>\n<line_count>30</line_count>\n</write_to_file>")}]}),
            json!({"role": "user", "content": [{"type": "text", "text": "[write_to_file for 'src/b.ts'] Result:"}, {"type": "text", "text": "<file_write_result>\n<path>src/b.ts</path>\n<operation>created</operation>\n</file_write_result>"}]}),
            json!({"role": "assistant", "content": [{"type": "text", "text": "Also c.\n<apply_diff>\n<path>src/c.ts</path>\n<diff>\nx\n</diff>\n</apply_diff>"}]}),
            json!({"role": "user", "content": [{"type": "text", "text": "[apply_diff for 'src/c.ts'] Result:"}, {"type": "text", "text": "The tool execution failed with the following error:\n<error>\nFile does not exist\n</error>"}]}),
        ]
    }

    #[test]
    fn finds_reads_writes_and_edits_most_recent_first() {
        let h = xml_history();
        let files = ws(&h, 10, 100_000);
        let paths: Vec<&str> = files.iter().map(|f| f.path.as_str()).collect();
        assert_eq!(paths, vec!["src/b.ts", "src/a.ts"], "the failed edit of c.ts is not a touch");
        let b = &files[0];
        assert_eq!(b.base.as_ref().map(|p| (p.kind, p.at.msg())), Some((PieceKind::Write, 5)));
        assert!(b.base.as_ref().and_then(|p| p.at.text(&h)).is_some_and(|t| t.starts_with("\nexport function f1(")));
        let a = &files[1];
        assert_eq!(a.base.as_ref().map(|p| (p.kind, p.at.msg(), p.at.block())), Some((PieceKind::Read, 2, Some(1))));
        assert_eq!(a.edits.iter().map(|p| (p.kind, p.at.msg())).collect::<Vec<_>>(), vec![(PieceKind::Edit, 3)]);
        assert!(files.iter().all(|f| f.keep == Keep::Full));
        // With its text, a file kept whole still names its outline (the Roo entry's folded context).
        let j = to_json(&h, &files, true, Encoding::O200kBase);
        assert!(j[1]["outline"].as_str().is_some_and(|o| o.contains("\n1 | export function f1(")));
        assert!(j[1]["text"].as_str().is_some_and(|t| t.starts_with("1 | export function f1(")));
    }

    #[test]
    fn without_a_budget_in_tokens_the_working_set_stays_whole_up_to_a_third_of_the_context() {
        let h = xml_history();
        let view = View::build(&h);
        let defaults = WorkingSetConfig::default();
        let all = ws(&h, 10, 100_000);
        let size: usize = all.iter().map(|f| f.tokens).sum();
        assert!(size > 0);
        // A context three times the working set's size or more keeps every file whole.
        let files = find(&h, &view, &defaults, Encoding::O200kBase, 3 * size);
        assert!(files.iter().all(|f| f.keep == Keep::Full), "{files:?}");
        // In a context where the working set is more than a third, the files that do not fit (the
        // least recently touched first) get their outline.
        let files = find(&h, &view, &defaults, Encoding::O200kBase, 3 * size - 3);
        assert_eq!(files.first().map(|f| f.keep), Some(Keep::Full));
        assert_eq!(files.last().map(|f| f.keep), Some(Keep::Outline));
        // A budget in tokens, when given, is the budget whatever the context.
        let fixed = WorkingSetConfig { turns: 10, budget_tokens: Some(1) };
        assert!(find(&h, &view, &fixed, Encoding::O200kBase, 1_000_000).iter().all(|f| f.keep == Keep::Outline));
        assert_eq!(defaults.budget(90_000), 30_000);
    }

    #[test]
    fn recent_means_the_last_turns() {
        let h = xml_history();
        // The last two assistant turns: the write of b.ts and the failed edit of c.ts.
        assert_eq!(ws(&h, 2, 100_000).iter().map(|f| f.path.as_str()).collect::<Vec<_>>(), vec!["src/b.ts"]);
        // The last three: the edit of a.ts too, whose base is the read before it.
        let three = ws(&h, 3, 100_000);
        assert_eq!(three.len(), 2);
        assert_eq!(three[1].base.as_ref().map(|p| p.at.msg()), Some(2));
        assert!(ws(&h, 0, 100_000).is_empty());
        // Nothing before the latest summary counts.
        let mut s = h.clone();
        s.insert(7, json!({"role": "assistant", "content": "summary", "isSummary": true}));
        assert!(ws(&s, 10, 100_000).is_empty());
    }

    #[test]
    fn beyond_the_budget_files_get_an_outline() {
        let h = xml_history();
        let files = ws(&h, 10, 1);
        assert!(files.iter().all(|f| f.keep == Keep::Outline));
        let o = files[1].outline.as_deref().unwrap_or("");
        assert!(o.starts_with("⟨ Outline of 'src/a.ts', lines 1-40:"), "{o}");
        assert!(o.contains("\n1 | export function f1(a: number): number {\n11 | export function f11("), "{o}");
        assert!(!o.contains("return a"));
        // A summary replacing messages 1-4 carries a.ts's outline (its read is there); b.ts's write
        // (message 5) is not replaced.
        let sections = summary_sections(&h, &files, &[1, 2, 3, 4]);
        assert!(
            sections.starts_with("\n\n<system-reminder>\n## File Context: src/a.ts (its latest state"),
            "{sections}"
        );
        assert!(sections.contains(o.lines().nth(1).unwrap_or("?")) && !sections.contains("src/b.ts"));
        let whole = summary_sections(&h, &ws(&h, 10, 100_000), &[1, 2, 3, 4, 5]);
        assert!(
            whole.contains("## File Context: src/b.ts")
                && whole.contains("Then edited:\n<apply_diff>\n<path>src/a.ts</path>"),
            "{whole}"
        );
        let b = files[0].outline.as_deref().unwrap_or("");
        assert!(b.contains("\n21 | export function f21("), "{b}");
        // The read's lines give way to the outline, the rest of the result stays.
        let text = slot_text(&h[2], Slot::Text(1)).unwrap_or("");
        let rewritten =
            rewrite_reads(text, &[("src/a.ts".into(), Some(o.to_string()))], &|_, _| None).unwrap_or_default();
        assert!(rewritten.starts_with("<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-40\">\n⟨ Outline"));
        assert!(rewritten.ends_with("</content>\n</file>\n</files>"));
    }

    #[test]
    fn a_result_keeps_its_working_set_files_and_shortens_the_others() {
        let t = "<files>\n<file><path>a.ts</path>\n<content lines=\"1-2\">\n1 | x\n2 | y\n</content>\n</file>\n<file><path>b.ts</path>\n<content lines=\"1-2\">\n1 | p\n2 | q\n</content>\n</file>\n<file><path>c.ts</path>\n<content lines=\"1-1\">\n1 | r\n⟨ ref ⟩\n3 | t\n</content>\n</file>\n</files>";
        let files = [("a.ts".to_string(), None), ("c.ts".to_string(), Some("OUTLINE\n".to_string()))];
        let out = rewrite_reads(t, &files, &|path, _| Some(format!("[{path} cut]\n"))).unwrap_or_default();
        assert_eq!(
            out,
            "<files>\n<file><path>a.ts</path>\n<content lines=\"1-2\">\n1 | x\n2 | y\n</content>\n</file>\n<file><path>b.ts</path>\n<content lines=\"1-2\">\n[b.ts cut]\n</content>\n</file>\n<file><path>c.ts</path>\n<content lines=\"1-1\">\nOUTLINE\n⟨ ref ⟩\n3 | t\n</content>\n</file>\n</files>"
        );
        // Once in place, the outline is kept as it is; a text without the working set is not touched.
        assert_eq!(rewrite_reads(&out, &files[1..], &|_, _| None).as_deref(), Some(out.as_str()));
        assert_eq!(rewrite_reads("1 | z\n", &files[1..], &|_, _| None), None);
    }

    #[test]
    fn native_calls_and_unknown_languages() {
        let py = format!("class A:\n    def run(self):\n{}", "        x = compute(1, 2, 3)\n".repeat(40));
        let h = vec![
            json!({"role": "user", "content": "<task>go</task>"}),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "t1", "name": "read_file", "input": {"path": "conf.json"}},
                {"type": "tool_use", "id": "t2", "name": "write_to_file", "input": {"path": "src/new.py", "content": py }}]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t1", "content": "File: conf.json\nLines 1-2:\n1 | {\n2 | }"},
                {"type": "tool_result", "tool_use_id": "t2", "content": "<file_write_result>\n<path>src/new.py</path>\n</file_write_result>"}]}),
            json!({"role": "assistant", "content": [
                {"type": "tool_use", "id": "t3", "name": "apply_patch", "input": {"patch": "*** Begin Patch\n*** Update File: src/new.py\n@@\n-        return 1\n+        return 2\n*** End Patch"}},
                {"type": "tool_use", "id": "t4", "name": "edit_file", "input": {"path": "gone.rs", "content": "x"}}]}),
            json!({"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": "t3", "content": "ok"},
                {"type": "tool_result", "tool_use_id": "t4", "content": "Error: no such file", "is_error": true}]}),
        ];
        let files = ws(&h, 10, 0);
        let got: Vec<(&str, Keep)> = files.iter().map(|f| (f.path.as_str(), f.keep)).collect();
        assert_eq!(got, vec![("src/new.py", Keep::Outline), ("conf.json", Keep::None)]);
        let py = &files[0];
        assert_eq!(
            py.base.as_ref().map(|p| (p.kind, p.at.clone())),
            Some((PieceKind::Write, Where::Input { msg: 1, block: 1, pointer: "/content".into() }))
        );
        assert_eq!(py.edits.len(), 1);
        assert!(py.outline.as_deref().is_some_and(|o| o.contains("\n1 | class A:\n2 |     def run(self):\n")));
        let j = to_json(&h, &files, false, Encoding::O200kBase);
        assert_eq!(j[0]["base"]["message"], json!(1));
        assert_eq!(j[0]["base"]["content"], json!(1));
        assert_eq!(j[0]["keep"], json!("outline"));
        assert_eq!(j[1]["base"]["kind"], json!("read"));
    }
}
