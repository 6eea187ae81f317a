//! The summarizer the engine asks for LLM summaries. The engine never knows who answers: in
//! Node it is the host's JavaScript `summarize` callback (driven from `lib/index.js`, which owns
//! concurrency, timeouts, retries and cancellation); in tests it is a closure. Requests go out
//! in batches so the host can run them concurrently; each answer is a reply or an error text.
//!
//! Also renders messages for a summary request: tool blocks become plain text, so the host can
//! send them to any model without tool definitions.

use std::borrow::Cow;

use crate::{json, json::Value};
use serde::{Deserialize, Serialize};

/// Why a summary is asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub enum Purpose {
    Conversation,
    ToolResult,
    ToolParameters,
    MessageText,
}

/// One summary request, as the callback receives it.
#[derive(Debug, Clone, PartialEq, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct SummarizeRequest<'a> {
    pub purpose: Purpose,
    pub system_prompt: String,
    /// The messages, each `{ role, content: string }` to the callback.
    pub messages: Vec<RequestMessage<'a>>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
}

impl SummarizeRequest<'_> {
    /// The request without its messages.
    pub fn clone_head(&self) -> SummarizeRequest<'static> {
        SummarizeRequest {
            purpose: self.purpose,
            system_prompt: self.system_prompt.clone(),
            messages: Vec::new(),
            max_tokens: self.max_tokens,
            task_id: self.task_id.clone(),
        }
    }
}

/// What the callback answered.
#[derive(Debug, Clone, PartialEq, Default, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct SummaryReply {
    pub text: String,
    pub cost: Option<f64>,
    pub input_tokens: Option<f64>,
    pub output_tokens: Option<f64>,
    pub cache_write_tokens: Option<f64>,
    pub cache_read_tokens: Option<f64>,
}

/// Answers batches of summary requests, one result per request, in order. An `Err` is a
/// readable reason (the callback threw, rejected, timed out, answered the wrong type).
pub trait Summarizer {
    fn summarize(&mut self, batch: Vec<SummarizeRequest<'_>>) -> Vec<Result<SummaryReply, String>>;
}

impl<F> Summarizer for F
where
    F: FnMut(Vec<SummarizeRequest<'_>>) -> Vec<Result<SummaryReply, String>>,
{
    fn summarize(&mut self, batch: Vec<SummarizeRequest<'_>>) -> Vec<Result<SummaryReply, String>> {
        self(batch)
    }
}

/// One step of the path from the history to a string in one of its messages: an array index or
/// an object key.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(untagged)]
pub enum Step {
    Index(usize),
    Key(&'static str),
}

/// A piece of a request message's text.
#[derive(Debug, Clone, PartialEq)]
pub enum Part<'a> {
    /// Text written for the request (a tool call's header, a separator), or read from a message
    /// the host does not hold as it is.
    Text(Cow<'a, str>),
    /// A string of a message the host holds unchanged, at `path` from the history
    /// (`[message, "content", block, "text"]`): a host holding the history reads it there
    /// instead of receiving a copy.
    Held { path: Vec<Step>, text: &'a str },
}

impl Part<'_> {
    pub fn as_str(&self) -> &str {
        match self {
            Part::Text(t) => t,
            Part::Held { text, .. } => text,
        }
    }
}

/// One message of a summary request: a role and its text, in parts.
#[derive(Debug, Clone, PartialEq)]
pub struct RequestMessage<'a> {
    pub role: Cow<'a, str>,
    pub parts: Vec<Part<'a>>,
}

impl<'a> RequestMessage<'a> {
    /// A message of text written for the request.
    pub fn text(role: &'static str, content: impl Into<Cow<'a, str>>) -> RequestMessage<'a> {
        RequestMessage { role: Cow::Borrowed(role), parts: vec![Part::Text(content.into())] }
    }

    /// The whole text, as the callback receives it.
    pub fn content(&self) -> String {
        self.parts.iter().map(Part::as_str).collect()
    }

    /// The same message owning its texts (held parts stay named by path).
    pub fn into_owned(self) -> RequestMessage<'static> {
        RequestMessage {
            role: Cow::Owned(self.role.into_owned()),
            parts: self
                .parts
                .into_iter()
                .map(|p| match p {
                    Part::Held { text, .. } | Part::Text(Cow::Borrowed(text)) => {
                        Part::Text(Cow::Owned(text.to_string()))
                    }
                    Part::Text(Cow::Owned(t)) => Part::Text(Cow::Owned(t)),
                })
                .collect(),
        }
    }

    /// As the callback receives it: `{ role, content }`.
    pub fn to_value(&self) -> Value {
        json!({ "role": self.role, "content": self.content() })
    }

    /// For a host holding the history: `{ role, content }` when no part is held, else
    /// `{ role, parts }`, each part a text or the path of a held string.
    pub fn into_line(self) -> Value {
        if !self.parts.iter().any(|p| matches!(p, Part::Held { .. })) {
            let content = match <[Part; 1]>::try_from(self.parts) {
                Ok([Part::Text(t)]) => t.into_owned(),
                Ok([p]) => p.as_str().to_string(),
                Err(parts) => parts.iter().map(Part::as_str).collect(),
            };
            return json!({ "role": self.role, "content": content });
        }
        let parts: Vec<Value> = self
            .parts
            .into_iter()
            .map(|p| match p {
                Part::Text(t) => Value::from(t.into_owned()),
                Part::Held { path, .. } => json!(path),
            })
            .collect();
        json!({ "role": self.role, "parts": parts })
    }
}

impl Serialize for RequestMessage<'_> {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        self.to_value().serialize(s)
    }
}

/// Builds a request message's parts; strings of a held message are named by path.
struct Render<'a> {
    at: Option<usize>,
    parts: Vec<Part<'a>>,
}

impl<'a> Render<'a> {
    fn lit(&mut self, s: &str) {
        if let Some(Part::Text(Cow::Owned(t))) = self.parts.last_mut() {
            t.push_str(s);
        } else {
            self.parts.push(Part::Text(Cow::Owned(s.to_string())));
        }
    }

    fn string(&mut self, path: &[Step], s: &'a str) {
        if s.is_empty() {
            return;
        }
        match self.at {
            Some(k) => {
                let mut full = Vec::with_capacity(path.len() + 1);
                full.push(Step::Index(k));
                full.extend_from_slice(path);
                self.parts.push(Part::Held { path: full, text: s });
            }
            None => self.parts.push(Part::Text(Cow::Borrowed(s))),
        }
    }

    /// The blocks that render (text, tool calls and results, images), joined by `sep`.
    fn blocks(&mut self, blocks: &'a [Value], path: &[Step], sep: &str) {
        let mut first = true;
        for (j, b) in blocks.iter().enumerate() {
            if !renders(b) {
                continue;
            }
            if !first {
                self.lit(sep);
            }
            first = false;
            let mut at = path.to_vec();
            at.push(Step::Index(j));
            self.block(b, &mut at);
        }
    }

    /// One block as plain text (`renders(block)` holds).
    fn block(&mut self, block: &'a Value, path: &mut Vec<Step>) {
        match block.get("type").and_then(Value::as_str) {
            Some("text") => {
                if let Some(s) = block.get("text").and_then(Value::as_str) {
                    path.push(Step::Key("text"));
                    self.string(path, s);
                }
            }
            Some("tool_use") => {
                let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
                let input = block.get("input").map(|v| serde_json::to_string_pretty(v).unwrap_or_default());
                self.lit(&format!("[Tool call: {name}]\n{}", input.unwrap_or_default()));
            }
            Some("tool_result") => {
                let error = if block.get("is_error").and_then(Value::as_bool) == Some(true) { " (error)" } else { "" };
                self.lit(&format!("[Tool result{error}]\n"));
                path.push(Step::Key("content"));
                match block.get("content") {
                    Some(Value::String(s)) => self.string(path, s),
                    Some(Value::Array(parts)) => self.blocks(parts, path, "\n"),
                    _ => {}
                }
            }
            _ => self.lit("[Image]"),
        }
    }
}

/// Whether a block has a plain-text form: thinking is the model's own scratchpad, not part of
/// what is summarized, and a text block without text has none.
fn renders(block: &Value) -> bool {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => block.get("text").is_some_and(Value::is_string),
        Some("tool_use" | "tool_result" | "image") => true,
        _ => false,
    }
}

/// A message with its tool blocks rendered as text, for a summary request. `at` is its index in
/// the history when the host holds it unchanged: its strings are then named by path.
pub fn render(message: &Value, at: Option<usize>) -> RequestMessage<'_> {
    let role = Cow::Borrowed(message.get("role").and_then(Value::as_str).unwrap_or("user"));
    let mut r = Render { at, parts: Vec::new() };
    match message.get("content") {
        Some(Value::String(s)) => r.string(&[Step::Key("content")], s),
        Some(Value::Array(blocks)) => r.blocks(blocks, &[Step::Key("content")], "\n\n"),
        _ => {}
    }
    RequestMessage { role, parts: r.parts }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rendered(m: &Value) -> Value {
        render(m, None).to_value()
    }

    #[test]
    fn tool_blocks_render_as_text() {
        let m = json!({"role":"assistant","content":[
            {"type":"thinking","thinking":"secret","signature":"s"},
            {"type":"text","text":"Reading."},
            {"type":"tool_use","id":"t","name":"read_file","input":{"path":"a.ts"}}]});
        let r = rendered(&m);
        assert_eq!(r["role"], "assistant");
        let c = r["content"].as_str().unwrap_or("");
        assert!(c.starts_with("Reading.\n\n[Tool call: read_file]\n{\n  \"path\": \"a.ts\"\n}"));
        assert!(!c.contains("secret"));
        let u = rendered(
            &json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"text","text":"boom"},{"type":"text"},{"type":"image"},{"type":"text","text":"bang"}]}]}),
        );
        assert_eq!(u["content"], "[Tool result (error)]\nboom\n[Image]\nbang");
    }

    /// A held message's strings are named by a path that leads to them in the history, and the
    /// parts put together are the text the callback would receive.
    #[test]
    fn held_strings_are_named_by_path() {
        let m = json!({"role":"user","content":[
            {"type":"text","text":"[read_file for 'a.ts'] Result:"},
            {"type":"tool_result","tool_use_id":"t","content":"1 | a\n2 | b"},
            {"type":"tool_result","tool_use_id":"u","content":[{"type":"text","text":"part one"},{"type":"text","text":""},{"type":"text","text":"part two"}]},
            {"type":"text","text":"<environment_details>x</environment_details>"}]});
        let history = json!([{"role":"user","content":"first"}, {"role":"assistant","content":"ok"}, m]);
        let held = render(&history[2], Some(2));
        assert_eq!(held.content(), rendered(&history[2])["content"]);
        let mut named = 0;
        for p in &held.parts {
            if let Part::Held { path, text } = p {
                let mut v = &history;
                for step in path {
                    v = match step {
                        Step::Index(i) => &v[*i],
                        Step::Key(k) => &v[*k],
                    };
                }
                assert_eq!(v.as_str(), Some(*text));
                named += 1;
            }
        }
        assert_eq!(named, 5);
        let line = held.clone().into_line();
        assert_eq!(line["parts"][0], json!([2, "content", 0, "text"]));
        assert_eq!(line["parts"][1], "\n\n[Tool result]\n");
        // Without a place in the history, the text itself.
        assert_eq!(render(&history[2], None).into_line()["content"], held.content());
        assert_eq!(render(&history[0], Some(0)).into_line(), json!({"role":"user","parts":[[0,"content"]]}));
    }
}
