//! The semantic view of a history over both tool formats: tool results (tool, argument, body,
//! error or not, the files they show), environment-details blocks, and the spans that must never
//! be edited (what the user typed, summaries). Every piece records where it lives
//! (message, slot, byte range), so an edit can touch it and nothing else.
//!
//! Legacy XML results are user text blocks: a `[tool for 'arg'] Result:` header, the body blocks
//! after it, then environment details. Native results are `tool_result` blocks whose tool is
//! found through the `tool_use` with the same id. Messages the model is not sent (hidden by a
//! newer-Roo `condenseParent`) and summaries are skipped. The view only reads.

pub mod env;
pub mod held;
pub mod reads;
pub mod tool_calls;

use crate::json::Value;
use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use xxhash_rust::xxh3::xxh3_128;

use crate::model::{active_messages, is_summary, role, slot_text, text_slots, Slot, Span, TextRef};
pub use env::{EnvBlock, EnvSection};
pub use reads::NumberedRead;
use tool_calls::{find_xml_call, XmlCall, XML_TOOLS};

/// One tool result.
#[derive(Debug, Clone)]
pub struct ToolResult {
    pub msg: usize,
    /// Not a copy when it is a tool Roo writes as XML (`tool_name`).
    pub tool: Cow<'static, str>,
    /// What the tool was run on: the path, the command, the header's argument.
    pub arg: Option<String>,
    /// Tool + arguments, for the tools whose reruns describe changing state (`RERUN_TOOLS`): two
    /// results with the same key are runs of the same operation. Empty for other tools (their
    /// keys are never compared, and a native call's input may be a whole file).
    pub key: String,
    /// The body, slot by slot (a legacy header block is not part of it).
    pub body: Vec<Span>,
    pub is_error: bool,
    /// Files shown in the body.
    pub reads: Vec<FileRead>,
    /// When the body is one whole string worth a reference (at least `MIN_REFERENCED_BYTES`,
    /// not a marker): its hash, so identical results are found without reading them again.
    pub whole: Option<u128>,
}

/// A file's numbered lines inside a tool result.
#[derive(Debug, Clone)]
pub struct FileRead {
    pub at: TextRef,
    pub read: NumberedRead,
}

impl FileRead {
    pub fn span(&self) -> Span {
        Span { at: self.at, range: self.read.region.clone() }
    }
}

/// An environment-details block and where it lives.
#[derive(Debug, Clone)]
pub struct Env {
    pub at: TextRef,
    pub block: Arc<EnvBlock>,
}

/// The semantic view of a whole history.
#[derive(Debug, Default)]
pub struct View {
    pub active: Vec<bool>,
    pub results: Vec<Arc<ToolResult>>,
    pub env: Vec<Env>,
    /// Spans no operation may change: user-typed text and summaries.
    pub protected: Vec<Span>,
    /// The XML tool call of each assistant text, in order, when a holder keeps them (`ViewCache`);
    /// empty otherwise.
    pub calls: Vec<(TextRef, Option<Arc<XmlCall>>)>,
    /// Where what the references already in the history stand for is, when a holder keeps them
    /// located from one run to the next (`ViewCache`); `None` otherwise (a run then locates what
    /// it needs: `reference::Targets`).
    pub earlier_targets: Option<Vec<Span>>,
    /// The messages whose texts hold a reference marker, in order, when a holder keeps track
    /// (`ViewCache`); `None` otherwise (whoever needs them looks at every text).
    pub referring: Option<Vec<usize>>,
}

impl View {
    /// The results of message `msg` (results are built in message order).
    pub fn results_of(&self, msg: usize) -> &[Arc<ToolResult>] {
        let a = self.results.partition_point(|r| r.msg < msg);
        let b = self.results.partition_point(|r| r.msg <= msg);
        &self.results[a..b]
    }

    /// The environment-details blocks of message `msg`.
    pub fn env_of(&self, msg: usize) -> &[Env] {
        let a = self.env.partition_point(|e| e.at.msg < msg);
        let b = self.env.partition_point(|e| e.at.msg <= msg);
        &self.env[a..b]
    }

    /// The XML tool call of the assistant text at `at`: `None` when the view does not know.
    pub fn call_at(&self, at: TextRef) -> Option<Option<&XmlCall>> {
        let i = self.calls.binary_search_by(|(t, _)| t.cmp(&at)).ok()?;
        Some(self.calls[i].1.as_deref())
    }

    /// The protected spans of message `msg`.
    pub fn protected_of(&self, msg: usize) -> &[Span] {
        let a = self.protected.partition_point(|p| p.at.msg < msg);
        let b = self.protected.partition_point(|p| p.at.msg <= msg);
        &self.protected[a..b]
    }

    pub fn build(messages: &[Value]) -> View {
        let active = active_messages(messages);
        let tool_uses = tool_use_index(messages);
        let mut view = View { active, ..View::default() };
        for (i, m) in messages.iter().enumerate() {
            if view.active[i] {
                view.add(Piece::of(i, m, &|id| tool_uses.get(id).copied(), false));
            }
        }
        view
    }

    /// Adds what one message holds (messages in order).
    pub(crate) fn add(&mut self, piece: Piece) {
        self.results.extend(piece.results);
        self.env.extend(piece.env);
        self.protected.extend(piece.protected);
        self.calls.extend(piece.calls);
    }
}

/// What one message adds to the view, and which tool calls it was read with.
#[derive(Debug, Default, Clone)]
pub(crate) struct Piece {
    pub results: Vec<Arc<ToolResult>>,
    pub env: Vec<Env>,
    pub protected: Vec<Span>,
    /// The tool_use ids its native results were matched with, and the message each was found in.
    pub uses: Vec<(String, Option<usize>)>,
    /// The XML tool call of each text of an assistant message (when asked for).
    pub calls: Vec<(TextRef, Option<Arc<XmlCall>>)>,
}

impl Piece {
    /// The piece of message `i`: the texts of a summary, the results, environment details and
    /// typed text of a user message; with `calls`, the XML tool calls of an assistant message.
    pub fn of<'a>(i: usize, m: &Value, tool_uses: &dyn Fn(&str) -> Option<ToolUse<'a>>, calls: bool) -> Piece {
        let mut piece = Piece::default();
        if is_summary(m) {
            for slot in text_slots(m) {
                let len = slot_text(m, slot).map_or(0, str::len);
                piece.protected.push(Span { at: TextRef { msg: i, slot }, range: 0..len });
            }
        } else if role(m) == Some("user") {
            piece.parse_user(i, m, tool_uses);
        } else if calls {
            for slot in text_slots(m) {
                if let Some(text) = slot_text(m, slot) {
                    piece.calls.push((TextRef { msg: i, slot }, find_xml_call(text).map(Arc::new)));
                }
            }
        }
        piece
    }

    fn parse_user<'a>(&mut self, i: usize, m: &Value, tool_uses: &dyn Fn(&str) -> Option<ToolUse<'a>>) {
        let mut open: Option<ToolResult> = None;
        for slot in text_slots(m) {
            let Some(text) = slot_text(m, slot) else {
                continue;
            };
            let at = TextRef { msg: i, slot };
            match slot {
                Slot::ResultString(j) | Slot::ResultPart(j, _) => {
                    // Native tool_result: one result per block, possibly several text parts.
                    let block = &m["content"][j];
                    let same_block =
                        matches!(&open, Some(r) if r.body.first().is_some_and(|s| block_of(s.at.slot) == Some(j)));
                    if !same_block {
                        self.close(m, open.take());
                        let id = block.get("tool_use_id").and_then(Value::as_str).unwrap_or("");
                        let found = tool_uses(id);
                        self.uses.push((id.to_string(), found.map(|u| u.msg)));
                        let (tool, input) = found.map_or(("unknown", &Value::Null), |u| (u.name, u.input));
                        open = Some(native_result(i, tool, input, block));
                    }
                    if let Some(r) = open.as_mut() {
                        r.is_error |= looks_like_error(text);
                        r.body.push(Span { at, range: 0..text.len() });
                    }
                    self.protect_user_text_in_result(at, text, 0);
                }
                Slot::Text(_) | Slot::Content => {
                    // Roo writes environment details as a block of their own. The same tag inside
                    // a tool's output (a dumped conversation, a log) is that output, not state.
                    if text.trim_start().starts_with("<environment_details>") {
                        // Environment details end the body of the result before them.
                        self.close(m, open.take());
                        for block in env::find_env_blocks(text) {
                            self.env.push(Env { at, block: Arc::new(block) });
                        }
                    } else if let Some((tool, arg, body_start)) = legacy_header(text) {
                        self.close(m, open.take());
                        let key = rerun_key(&tool, || arg.as_deref().unwrap_or("").to_string());
                        let mut r = ToolResult {
                            msg: i,
                            tool: tool_name(&tool),
                            arg,
                            key,
                            body: vec![],
                            is_error: false,
                            reads: vec![],
                            whole: None,
                        };
                        if !text[body_start..].trim().is_empty() {
                            r.is_error |= looks_like_error(&text[body_start..]);
                            r.body.push(Span { at, range: body_start..text.len() });
                            self.protect_user_text_in_result(at, text, body_start);
                        }
                        open = Some(r);
                    } else if let Some(r) = open.as_mut().filter(|r| matches!(slot, Slot::Text(_)) && legacy(r)) {
                        r.is_error |= looks_like_error(text);
                        r.body.push(Span { at, range: 0..text.len() });
                        self.protect_user_text_in_result(at, text, 0);
                    } else {
                        // Text the user typed, or a system notice: never edited.
                        self.protected.push(Span { at, range: 0..text.len() });
                    }
                }
            }
        }
        self.close(m, open);
    }

    fn close(&mut self, m: &Value, result: Option<ToolResult>) {
        let Some(mut r) = result else { return };
        if r.body.is_empty() {
            return;
        }
        // Reads are parsed in error results too: a file shown beside an error for another file
        // is still a file shown.
        for span in &r.body {
            let Some(text) = slot_text(m, span.at.slot) else {
                continue;
            };
            let base = span.range.start;
            for mut read in reads::find_reads(&text[span.range.clone()]) {
                read.region = read.region.start + base..read.region.end + base;
                r.reads.push(FileRead { at: span.at, read });
            }
        }
        r.whole = whole_body(m, &r.body).map(|body| xxh3_128(body.as_bytes()));
        // Held as long as the view of the message: no spare capacity.
        r.body.shrink_to_fit();
        r.reads.shrink_to_fit();
        self.results.push(Arc::new(r));
    }

    /// What the user typed inside a tool result: the `<feedback>` or `<answer>` Roo Code puts at
    /// the head of a result ("The user approved this operation and provided the following
    /// context:"). Tags further in are the tool's output (a dumped conversation, a file), not
    /// something the user typed here.
    fn protect_user_text_in_result(&mut self, at: TextRef, text: &str, body_start: usize) {
        const HEAD: usize = 400;
        for (open, close) in [("<feedback>", "</feedback>"), ("<answer>", "</answer>")] {
            // Only a tag starting within the head counts: the search need not look further.
            let head_end = floor_char_boundary(text, body_start + HEAD + open.len());
            let mut pos = body_start;
            while let Some(i) = text.get(pos..head_end).and_then(|h| h.find(open)) {
                let start = pos + i;
                let end = text[start..].find(close).map_or(text.len(), |j| start + j + close.len());
                self.protected.push(Span { at, range: start..end });
                pos = end.max(start + 1);
            }
        }
    }
}

/// Whether a result was opened by a legacy header (`[tool for 'x'] Result:`), whose output Roo
/// writes in the text blocks after it. A native `tool_result` holds its output in its own block:
/// a text block after it is the user's (the message they typed when the task resumed, a notice).
fn legacy(r: &ToolResult) -> bool {
    r.body.iter().all(|s| matches!(s.at.slot, Slot::Text(_) | Slot::Content))
}

/// A tool_use: the message it is in, its name and input.
#[derive(Debug, Clone, Copy)]
pub(crate) struct ToolUse<'a> {
    pub msg: usize,
    pub name: &'a str,
    pub input: &'a Value,
}

impl<'a> ToolUse<'a> {
    /// The tool_use `block` of message `msg`.
    pub fn at(msg: usize, block: &'a Value) -> ToolUse<'a> {
        let name = block.get("name").and_then(Value::as_str).unwrap_or("unknown");
        ToolUse { msg, name, input: block.get("input").unwrap_or(&Value::Null) }
    }
}

pub(crate) type ToolUses<'a> = HashMap<&'a str, ToolUse<'a>>;

/// Where each tool_use lives, by id (the last one with an id, if an id is used twice).
pub(crate) fn tool_use_index(messages: &[Value]) -> ToolUses<'_> {
    let mut map = HashMap::new();
    for (msg, m) in messages.iter().enumerate() {
        for (_, id, block) in tool_uses_in(m) {
            map.insert(id, ToolUse::at(msg, block));
        }
    }
    map
}

/// The tool_use blocks of a message that have an id: (block index, id, block).
pub(crate) fn tool_uses_in(m: &Value) -> impl Iterator<Item = (usize, &str, &Value)> {
    let blocks = match m.get("content") {
        Some(Value::Array(blocks)) => blocks.as_slice(),
        _ => &[],
    };
    blocks.iter().enumerate().filter(|(_, b)| b.get("type").and_then(Value::as_str) == Some("tool_use")).filter_map(
        |(j, b)| {
            let id = b.get("id").and_then(Value::as_str)?;
            Some((j, id, b))
        },
    )
}

fn block_of(slot: Slot) -> Option<usize> {
    match slot {
        Slot::ResultString(j) | Slot::ResultPart(j, _) | Slot::Text(j) => Some(j),
        Slot::Content => None,
    }
}

fn native_result(msg: usize, tool: &str, input: &Value, block: &Value) -> ToolResult {
    let arg = ["path", "command", "regex", "query", "server_name"]
        .iter()
        .find_map(|k| input.get(*k).and_then(Value::as_str))
        .map(str::to_string);
    ToolResult {
        msg,
        tool: tool_name(tool),
        arg,
        key: rerun_key(tool, || serde_json::to_string(input).unwrap_or_default()),
        body: vec![],
        is_error: block.get("is_error").and_then(Value::as_bool) == Some(true),
        reads: vec![],
        whole: None,
    }
}

/// A tool's name: Roo's own (and `unknown`) are not copied.
fn tool_name(name: &str) -> Cow<'static, str> {
    match XML_TOOLS.iter().chain(&["unknown"]).find(|t| **t == name) {
        Some(t) => Cow::Borrowed(t),
        None => Cow::Owned(name.to_string()),
    }
}

/// Below this many bytes a copy is not worth a reference (a marker is ~100 bytes).
pub const MIN_REFERENCED_BYTES: usize = 200;

/// The body of a result when it is one whole string worth referencing: at least
/// `MIN_REFERENCED_BYTES`, and not a marker (`⟨ ... ⟩`) left by an earlier condensing.
pub fn whole_body<'m>(m: &'m Value, body: &[Span]) -> Option<&'m str> {
    let [span] = body else {
        return None;
    };
    let text = slot_text(m, span.at.slot)?;
    let whole = span.range.start == 0 && span.range.end == text.len();
    (whole && text.len() >= MIN_REFERENCED_BYTES && !text.trim_start().starts_with('⟨')).then_some(text)
}

/// Tools whose repeated runs describe changing state, so the latest run supersedes the others.
pub const RERUN_TOOLS: [&str; 5] =
    ["execute_command", "list_files", "search_files", "list_code_definition_names", "codebase_search"];

/// The key of a result of `tool` (see `ToolResult::key`).
fn rerun_key(tool: &str, args: impl FnOnce() -> String) -> String {
    if RERUN_TOOLS.contains(&tool) {
        format!("{tool}:{}", args())
    } else {
        String::new()
    }
}

/// `[tool for 'arg'] Result:` or `[tool] Result:` on the first line: (tool, arg, body start).
pub fn legacy_header(text: &str) -> Option<(String, Option<String>, usize)> {
    let line_end = text.find('\n').unwrap_or(text.len());
    let line = text[..line_end].trim_end();
    let inner = line.strip_prefix('[')?.strip_suffix("] Result:")?;
    let name_len = inner.bytes().take_while(|b| b.is_ascii_alphanumeric() || *b == b'_').count();
    if name_len == 0 {
        return None;
    }
    let tool = inner[..name_len].to_string();
    let rest = &inner[name_len..];
    let arg = rest.strip_prefix(" for ").map(|a| {
        let a = match a.find("'. Reading multiple files") {
            Some(i) => &a[..i + 1],
            None => a,
        };
        match (a.strip_prefix('\''), a.ends_with('\'')) {
            (Some(x), true) if !x.is_empty() => x[..x.len() - 1].to_string(),
            _ => a.to_string(),
        }
    });
    if !rest.is_empty() && arg.is_none() {
        return None;
    }
    let body_start = if line_end < text.len() { line_end + 1 } else { text.len() };
    Some((tool, arg, body_start))
}

/// Error results are never consolidated away.
pub fn looks_like_error(text: &str) -> bool {
    let head = &text[..floor_char_boundary(text, 400)];
    let t = head.trim_start();
    if t.starts_with("The tool execution failed") || t.starts_with("[ERROR]") || t.starts_with("Error:") {
        return true;
    }
    if t.starts_with("<error>")
        || t.starts_with("<files>\n<file><path>") && head.contains("<error>") && !head.contains("<content")
    {
        return true;
    }
    if let Some(i) = head.find("Exit code: ") {
        let code: String = head[i + 11..].chars().take_while(|c| c.is_ascii_digit() || *c == '-').collect();
        return !code.is_empty() && code != "0";
    }
    false
}

/// The largest index <= `at` that is a char boundary of `s`.
pub fn floor_char_boundary(s: &str, at: usize) -> usize {
    if at >= s.len() {
        return s.len();
    }
    let mut i = at;
    while !s.is_char_boundary(i) {
        i -= 1;
    }
    i
}

#[cfg(test)]
mod tests;
