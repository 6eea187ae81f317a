//! The summarizer the engine asks for LLM summaries. The engine never knows who answers: in
//! Node it is the host's JavaScript `summarize` callback (driven from `lib/index.js`, which owns
//! concurrency, timeouts, retries and cancellation); in tests it is a closure. Requests go out
//! in batches so the host can run them concurrently; each answer is a reply or an error text.
//!
//! Also renders messages for a summary request: tool blocks become plain text, so the host can
//! send them to any model without tool definitions.

use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

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
pub struct SummarizeRequest {
    pub purpose: Purpose,
    pub system_prompt: String,
    /// Plain `{ role, content: string }` messages.
    pub messages: Vec<Value>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_tokens: Option<u32>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub task_id: Option<String>,
}

impl SummarizeRequest {
    /// The request without its messages.
    pub fn clone_head(&self) -> SummarizeRequest {
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
    fn summarize(&mut self, batch: Vec<SummarizeRequest>) -> Vec<Result<SummaryReply, String>>;
}

impl<F> Summarizer for F
where
    F: FnMut(Vec<SummarizeRequest>) -> Vec<Result<SummaryReply, String>>,
{
    fn summarize(&mut self, batch: Vec<SummarizeRequest>) -> Vec<Result<SummaryReply, String>> {
        self(batch)
    }
}

/// One block as plain text for a summary request.
fn block_text(block: &Value) -> Option<String> {
    let t = block.get("type").and_then(Value::as_str)?;
    match t {
        "text" => block.get("text").and_then(Value::as_str).map(str::to_string),
        "tool_use" => {
            let name = block.get("name").and_then(Value::as_str).unwrap_or("tool");
            let input =
                block.get("input").map(|v| serde_json::to_string_pretty(v).unwrap_or_default()).unwrap_or_default();
            Some(format!("[Tool call: {name}]\n{input}"))
        }
        "tool_result" => {
            let body = match block.get("content") {
                Some(Value::String(s)) => s.clone(),
                Some(Value::Array(parts)) => parts.iter().filter_map(block_text).collect::<Vec<_>>().join("\n"),
                _ => String::new(),
            };
            let error = if block.get("is_error").and_then(Value::as_bool) == Some(true) { " (error)" } else { "" };
            Some(format!("[Tool result{error}]\n{body}"))
        }
        "image" => Some("[Image]".to_string()),
        // Thinking is the model's own scratchpad: not part of what is summarized.
        _ => None,
    }
}

/// A message as `{ role, content: string }` with tool blocks rendered as text.
pub fn render_message(message: &Value) -> Value {
    let role = message.get("role").and_then(Value::as_str).unwrap_or("user");
    let content = match message.get("content") {
        Some(Value::String(s)) => s.clone(),
        Some(Value::Array(blocks)) => blocks.iter().filter_map(block_text).collect::<Vec<_>>().join("\n\n"),
        _ => String::new(),
    };
    json!({ "role": role, "content": content })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tool_blocks_render_as_text() {
        let m = json!({"role":"assistant","content":[
            {"type":"thinking","thinking":"secret","signature":"s"},
            {"type":"text","text":"Reading."},
            {"type":"tool_use","id":"t","name":"read_file","input":{"path":"a.ts"}}]});
        let r = render_message(&m);
        assert_eq!(r["role"], "assistant");
        let c = r["content"].as_str().unwrap_or("");
        assert!(c.starts_with("Reading.\n\n[Tool call: read_file]\n{\n  \"path\": \"a.ts\"\n}"));
        assert!(!c.contains("secret"));
        let u = render_message(
            &json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","is_error":true,"content":[{"type":"text","text":"boom"}]}]}),
        );
        assert_eq!(u["content"], "[Tool result (error)]\nboom");
    }
}
