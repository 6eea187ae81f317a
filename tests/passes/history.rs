//! Builds the small histories the per-pass cases read: user and assistant text, Roo's legacy XML
//! tool calls with their `[tool for 'arg'] Result:` results, native tool_use / tool_result
//! blocks, file bodies in both read formats, environment details; runs one provider on them and
//! reads back the output. Also the seal of a reference marker, computed here from its definition
//! (the first 12 hex digits of the sha256 of "<own - target>\n" followed by the bytes), so the
//! expected markers are written out without asking the engine. Never reads the disk.

use context_condense::condense::Outcome;
use context_condense::llm::{Purpose, SummarizeRequest, Summarizer, SummaryReply};
use context_condense::model::{slot_text, Slot};
use context_condense::tokens::Encoding;
use context_condense::{json, json::Value};
use sha2::{Digest, Sha256};

use crate::common;

/// A user message of one text block.
pub fn user(text: &str) -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": text}]})
}

/// The first message: the task the user typed.
pub fn task(text: &str) -> Value {
    user(&format!("<task>\n{text}\n</task>"))
}

/// An assistant message of one text block (prose, and a legacy XML call if any).
pub fn assistant(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
}

/// An assistant's prose followed by a legacy XML read of `path`.
pub fn xml_read(prose: &str, path: &str) -> Value {
    assistant(&format!("{prose}\n\n<read_file>\n<args>\n<file>\n<path>{path}</path>\n</file>\n</args>\n</read_file>"))
}

/// A legacy result: the header block, the body block, then any further blocks (environment
/// details) as they are given.
pub fn xml_result(tool: &str, arg: &str, body: &str, more: &[&str]) -> Value {
    let mut blocks = vec![
        json!({"type": "text", "text": format!("[{tool} for '{arg}'] Result:")}),
        json!({"type": "text", "text": body}),
    ];
    blocks.extend(more.iter().map(|t| json!({"type": "text", "text": t})));
    json!({"role": "user", "content": blocks})
}

/// An assistant message calling one native tool.
pub fn native_call(id: &str, name: &str, input: Value) -> Value {
    json!({"role": "assistant", "content": [
        {"type": "text", "text": "Looking."},
        {"type": "tool_use", "id": id, "name": name, "input": input}
    ]})
}

/// The user message answering `id` with one string result, then any text blocks.
pub fn native_result(id: &str, content: &str, more: &[&str]) -> Value {
    let mut blocks = vec![json!({"type": "tool_result", "tool_use_id": id, "content": content})];
    blocks.extend(more.iter().map(|t| json!({"type": "text", "text": t})));
    json!({"role": "user", "content": blocks})
}

/// `n` distinct source lines, `salt` making another version of them.
pub fn source(n: usize, salt: &str) -> Vec<String> {
    (1..=n).map(|i| format!("export function step{i}{salt}(input: number): number {{ return input * {i}; }}")).collect()
}

/// The lines as Roo numbers them, from `first` on (`"{n:>w} | {line}\n"`).
pub fn numbered(first: u32, lines: &[String]) -> String {
    let last = first + lines.len() as u32 - 1;
    let w = last.to_string().len();
    lines.iter().enumerate().map(|(i, l)| format!("{:>w$} | {l}\n", first + i as u32)).collect()
}

/// The first `n` lines of `text`, with their line endings.
pub fn first_lines(text: &str, n: usize) -> String {
    text.split_inclusive('\n').take(n).collect()
}

/// A legacy `<files>` read body of `path` showing `lines` from line `first`.
pub fn files_body(path: &str, first: u32, lines: &[String]) -> String {
    files_with(path, first, lines.len(), &numbered(first, lines))
}

/// A legacy `<files>` read body whose content region is `region` (for writing expected outputs).
pub fn files_with(path: &str, first: u32, count: usize, region: &str) -> String {
    let last = first + count as u32 - 1;
    format!(
        "<files>\n<file><path>{path}</path>\n<content lines=\"{first}-{last}\">\n{region}</content>\n</file>\n</files>"
    )
}

/// A native read result body: `File: path\nLines a-b:\n` and the numbered lines.
pub fn native_read_body(path: &str, first: u32, lines: &[String]) -> String {
    native_read_with(path, first, lines.len(), &numbered(first, lines))
}

pub fn native_read_with(path: &str, first: u32, count: usize, region: &str) -> String {
    let last = first + count as u32 - 1;
    format!("File: {path}\nLines {first}-{last}:\n{region}")
}

/// An environment-details block of the given `(title, body)` sections.
pub fn env(sections: &[(&str, &str)]) -> String {
    let body: Vec<String> = sections.iter().map(|(t, b)| format!("# {t}\n{b}\n")).collect();
    format!("<environment_details>\n{}</environment_details>", body.join("\n"))
}

/// The output of a command run in Roo's terminal.
pub fn command_output(exit: i32, output: &str) -> String {
    format!("Command executed in terminal within working directory '/p'. Exit code: {exit}\nOutput:\n{output}")
}

/// The seal of a marker in message `own` standing for `bytes` kept in message `target`.
pub fn seal(own: usize, target: usize, bytes: &str) -> String {
    let mut h = Sha256::new();
    h.update(format!("{}\n", own as i64 - target as i64).as_bytes());
    h.update(bytes.as_bytes());
    h.finalize().iter().take(6).map(|b| format!("{b:02x}")).collect()
}

/// Runs `provider` with `config` on `history`; checks the invariants every condensation keeps
/// and hands back the outcome and the output messages.
pub fn run(provider: &str, config: Value, history: &[Value]) -> (Outcome, Vec<Value>) {
    run_with(provider, config, history, None)
}

pub fn run_with(
    provider: &str,
    config: Value,
    history: &[Value],
    summarizer: Option<&mut dyn Summarizer>,
) -> (Outcome, Vec<Value>) {
    let options = common::options(json!({"provider": provider, "config": config}));
    let (outcome, output) = common::run_with(history, &options, summarizer);
    assert_eq!(outcome.error, None, "the run was refused");
    common::assert_invariants(history, &output, &outcome, Encoding::O200kBase);
    (outcome, output)
}

/// Runs `provider` expecting a refusal: the outcome says why and the messages come back as
/// they were. Hands back the error text.
pub fn refused(provider: &str, config: Value, history: &[Value], summarizer: Option<&mut dyn Summarizer>) -> String {
    let options = common::options(json!({"provider": provider, "config": config}));
    let (outcome, output) = common::run_with(history, &options, summarizer);
    assert_eq!(output, history, "a refusal changes nothing");
    outcome.error.expect("the run was refused")
}

/// The text of block `block` of message `msg`.
pub fn text(messages: &[Value], msg: usize, block: usize) -> String {
    slot_text(&messages[msg], Slot::Text(block)).unwrap_or_default().to_string()
}

/// The string content of the tool_result at `block` of message `msg`.
pub fn result_text(messages: &[Value], msg: usize, block: usize) -> String {
    slot_text(&messages[msg], Slot::ResultString(block)).unwrap_or_default().to_string()
}

/// A summarizer answering every request with `reply`, keeping what it was asked: each request's
/// purpose and its messages as `(role, content)`.
pub struct Fixed {
    pub reply: String,
    pub asked: Vec<(Purpose, Vec<(String, String)>)>,
}

impl Fixed {
    pub fn new(reply: &str) -> Fixed {
        Fixed { reply: reply.into(), asked: Vec::new() }
    }
}

impl Summarizer for Fixed {
    fn summarize(&mut self, batch: Vec<SummarizeRequest<'_>>) -> Vec<Result<SummaryReply, String>> {
        let n = batch.len();
        for r in batch {
            let messages = r.messages.iter().map(|m| (m.role.to_string(), m.content())).collect();
            self.asked.push((r.purpose, messages));
        }
        (0..n).map(|_| Ok(SummaryReply { text: self.reply.clone(), ..Default::default() })).collect()
    }
}
