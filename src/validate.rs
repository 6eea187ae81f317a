//! The one structural checker: would the provider APIs accept this history? Tool pairing
//! (every tool_use answered by a tool_result in the very next user message, no orphan
//! tool_result, results first in their message), unique tool_use ids, no empty content,
//! first message from the user, well-formed messages and blocks. Unknown block types and
//! unknown keys are allowed: they pass through untouched.
//!
//! Reads only. Every condensing test asserts its output has no problem here.

use std::collections::{HashMap, HashSet};

use crate::json::Value;
use serde::Serialize;

/// One thing an API would reject, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Problem {
    /// `messages[12].content[3]`
    pub path: String,
    /// A stable machine-readable code.
    pub code: &'static str,
    pub message: String,
}

impl Problem {
    fn new(path: String, code: &'static str, message: impl Into<String>) -> Problem {
        Problem { path, code, message: message.into() }
    }

    /// Problems of shape: the engine cannot read a history that has one.
    pub fn is_structural(&self) -> bool {
        matches!(self.code, "not_an_array" | "invalid_message" | "invalid_role" | "invalid_content" | "invalid_block")
    }
}

impl std::fmt::Display for Problem {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.path, self.message)
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "a boolean",
        Value::Number(_) => "a number",
        Value::String(_) => "a string",
        Value::Array(_) => "an array",
        Value::Object(_) => "an object",
    }
}

/// Every problem of a history given as a JSON value (anything, as JavaScript may pass).
pub fn validate_value(history: &Value) -> Vec<Problem> {
    match history {
        Value::Array(messages) => validate(messages),
        other => vec![Problem::new(
            "messages".into(),
            "not_an_array",
            format!("expected an array of messages, got {}", kind(other)),
        )],
    }
}

/// Only the structural problems, stopping at the first one.
pub fn first_structural_problem(messages: &[Value]) -> Option<Problem> {
    messages.iter().enumerate().find_map(|(i, m)| structural_problem(i, m))
}

/// The first structural problem of message `i`.
pub fn structural_problem(i: usize, m: &Value) -> Option<Problem> {
    let mut problems = Vec::new();
    check_message(i, m, &mut problems);
    problems.into_iter().find(Problem::is_structural)
}

pub fn validate(messages: &[Value]) -> Vec<Problem> {
    let mut problems = Vec::new();
    for (i, m) in messages.iter().enumerate() {
        check_message(i, m, &mut problems);
    }
    if problems.iter().any(Problem::is_structural) {
        return problems;
    }
    if let Some(first) = messages.first() {
        if first.get("role").and_then(Value::as_str) != Some("user") {
            problems.push(Problem::new(
                "messages[0].role".into(),
                "first_not_user",
                "the first message must come from the user",
            ));
        }
    }
    check_tool_pairing(messages, &mut problems);
    problems
}

fn check_message(i: usize, m: &Value, problems: &mut Vec<Problem>) {
    let at = format!("messages[{i}]");
    let Value::Object(obj) = m else {
        problems.push(Problem::new(at, "invalid_message", format!("expected a message object, got {}", kind(m))));
        return;
    };
    match obj.get("role") {
        Some(Value::String(r)) if r == "user" || r == "assistant" => {}
        Some(Value::String(r)) => problems.push(Problem::new(
            format!("{at}.role"),
            "invalid_role",
            format!("expected \"user\" or \"assistant\", got \"{r}\""),
        )),
        Some(other) => problems.push(Problem::new(
            format!("{at}.role"),
            "invalid_role",
            format!("expected \"user\" or \"assistant\", got {}", kind(other)),
        )),
        None => problems.push(Problem::new(format!("{at}.role"), "invalid_role", "missing role")),
    }
    match obj.get("content") {
        Some(Value::String(s)) => {
            if s.is_empty() {
                problems.push(Problem::new(format!("{at}.content"), "empty_content", "content is an empty string"));
            }
        }
        Some(Value::Array(blocks)) => {
            if blocks.is_empty() {
                problems.push(Problem::new(format!("{at}.content"), "empty_content", "content is an empty array"));
            }
            for (j, b) in blocks.iter().enumerate() {
                check_block(&format!("{at}.content[{j}]"), b, problems);
            }
        }
        Some(other) => problems.push(Problem::new(
            format!("{at}.content"),
            "invalid_content",
            format!("expected a string or an array of blocks, got {}", kind(other)),
        )),
        None => problems.push(Problem::new(format!("{at}.content"), "invalid_content", "missing content")),
    }
}

fn check_block(at: &str, b: &Value, problems: &mut Vec<Problem>) {
    let Value::Object(obj) = b else {
        problems.push(Problem::new(
            at.into(),
            "invalid_block",
            format!("expected a content block object, got {}", kind(b)),
        ));
        return;
    };
    let Some(Value::String(t)) = obj.get("type") else {
        problems.push(Problem::new(format!("{at}.type"), "invalid_block", "a content block needs a string \"type\""));
        return;
    };
    let need_string = |key: &str, problems: &mut Vec<Problem>| match obj.get(key) {
        Some(Value::String(_)) => true,
        other => {
            let got = other.map_or("nothing", kind);
            problems.push(Problem::new(
                format!("{at}.{key}"),
                "invalid_block",
                format!("a {t} block needs a string \"{key}\", got {got}"),
            ));
            false
        }
    };
    match t.as_str() {
        "text" if need_string("text", problems) && obj.get("text").and_then(Value::as_str) == Some("") => {
            problems.push(Problem::new(format!("{at}.text"), "empty_text", "text blocks must not be empty"));
        }
        "tool_use" => {
            need_string("id", problems);
            need_string("name", problems);
            if !matches!(obj.get("input"), Some(Value::Object(_))) {
                problems.push(Problem::new(
                    format!("{at}.input"),
                    "invalid_block",
                    "a tool_use block needs an object \"input\"",
                ));
            }
        }
        "tool_result" => {
            need_string("tool_use_id", problems);
            match obj.get("content") {
                None | Some(Value::String(_)) => {}
                Some(Value::Array(parts)) => {
                    for (k, p) in parts.iter().enumerate() {
                        check_block(&format!("{at}.content[{k}]"), p, problems);
                    }
                }
                Some(other) => problems.push(Problem::new(
                    format!("{at}.content"),
                    "invalid_block",
                    format!("tool_result content must be a string or an array, got {}", kind(other)),
                )),
            }
        }
        "thinking" => {
            need_string("thinking", problems);
        }
        "image" if !matches!(obj.get("source"), Some(Value::Object(_))) => {
            problems.push(Problem::new(
                format!("{at}.source"),
                "invalid_block",
                "an image block needs an object \"source\"",
            ));
        }
        // Unknown block types pass through untouched.
        _ => {}
    }
}

fn blocks(m: &Value) -> &[Value] {
    m.get("content").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn check_tool_pairing(messages: &[Value], problems: &mut Vec<Problem>) {
    let mut seen_ids: HashMap<String, usize> = HashMap::new();
    for (i, m) in messages.iter().enumerate() {
        let role = m.get("role").and_then(Value::as_str);
        let content = blocks(m);
        if role == Some("assistant") {
            let mut uses: Vec<(usize, String)> = Vec::new();
            for (j, b) in content.iter().enumerate() {
                if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                    let id = b.get("id").and_then(Value::as_str).unwrap_or("").to_string();
                    if let Some(prev) = seen_ids.insert(id.clone(), i) {
                        problems.push(Problem::new(
                            format!("messages[{i}].content[{j}].id"),
                            "duplicate_tool_use_id",
                            format!("tool_use id \"{id}\" was already used in messages[{prev}]"),
                        ));
                    }
                    uses.push((j, id));
                }
            }
            if uses.is_empty() {
                continue;
            }
            let next = messages.get(i + 1);
            let answered: HashSet<String> = match next {
                Some(n) if n.get("role").and_then(Value::as_str) == Some("user") => blocks(n)
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_result"))
                    .filter_map(|b| b.get("tool_use_id").and_then(Value::as_str).map(str::to_string))
                    .collect(),
                _ => HashSet::new(),
            };
            for (j, id) in uses {
                if !answered.contains(&id) {
                    problems.push(Problem::new(
                        format!("messages[{i}].content[{j}]"),
                        "missing_tool_result",
                        format!("tool_use \"{id}\" has no tool_result in the next user message"),
                    ));
                }
            }
        } else if role == Some("user") {
            let previous_uses: HashSet<String> = match i.checked_sub(1).map(|p| &messages[p]) {
                Some(p) if p.get("role").and_then(Value::as_str) == Some("assistant") => blocks(p)
                    .iter()
                    .filter(|b| b.get("type").and_then(Value::as_str) == Some("tool_use"))
                    .filter_map(|b| b.get("id").and_then(Value::as_str).map(str::to_string))
                    .collect(),
                _ => HashSet::new(),
            };
            let mut seen_other = false;
            let mut answered = HashSet::new();
            for (j, b) in content.iter().enumerate() {
                if b.get("type").and_then(Value::as_str) == Some("tool_result") {
                    let id = b.get("tool_use_id").and_then(Value::as_str).unwrap_or("").to_string();
                    if !previous_uses.contains(&id) {
                        problems.push(Problem::new(
                            format!("messages[{i}].content[{j}]"),
                            "orphan_tool_result",
                            format!("tool_result for \"{id}\" has no tool_use in the previous assistant message"),
                        ));
                    } else if !answered.insert(id.clone()) {
                        problems.push(Problem::new(
                            format!("messages[{i}].content[{j}]"),
                            "duplicate_tool_result",
                            format!("tool_use \"{id}\" is answered twice"),
                        ));
                    }
                    if seen_other {
                        problems.push(Problem::new(
                            format!("messages[{i}].content[{j}]"),
                            "tool_result_not_first",
                            "tool_result blocks must come before any other block in their message",
                        ));
                    }
                } else {
                    seen_other = true;
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    fn codes(v: Value) -> Vec<(String, &'static str)> {
        validate_value(&v).into_iter().map(|p| (p.path, p.code)).collect()
    }

    #[test]
    fn a_valid_native_history_has_no_problem() {
        let h = json!([
            {"role":"user","content":"hi"},
            {"role":"assistant","content":[{"type":"text","text":"x"},{"type":"tool_use","id":"a","name":"read_file","input":{}}]},
            {"role":"user","content":[{"type":"tool_result","tool_use_id":"a","content":"ok"},{"type":"text","text":"env"}],"ts":1},
            {"role":"assistant","content":[{"type":"future_block","x":1}]}
        ]);
        assert_eq!(codes(h), vec![]);
    }

    #[test]
    fn pairing_problems_are_named_with_their_place() {
        let h = json!([
            {"role":"assistant","content":[{"type":"tool_use","id":"a","name":"n","input":{}},{"type":"tool_use","id":"a","name":"n","input":{}}]},
            {"role":"user","content":[{"type":"text","text":"t"},{"type":"tool_result","tool_use_id":"a"},{"type":"tool_result","tool_use_id":"zz"}]},
            {"role":"user","content":""}
        ]);
        assert_eq!(
            codes(h),
            vec![
                ("messages[2].content".to_string(), "empty_content"),
                ("messages[0].role".to_string(), "first_not_user"),
                ("messages[0].content[1].id".to_string(), "duplicate_tool_use_id"),
                ("messages[1].content[1]".to_string(), "tool_result_not_first"),
                ("messages[1].content[2]".to_string(), "orphan_tool_result"),
                ("messages[1].content[2]".to_string(), "tool_result_not_first"),
            ]
        );
    }

    #[test]
    fn shape_problems() {
        assert_eq!(codes(json!({"a":1})), vec![("messages".to_string(), "not_an_array")]);
        assert_eq!(
            codes(json!([null, {"role":"system","content":[]}, {"role":"user","content":[{"text":"x"}, 3]}])),
            vec![
                ("messages[0]".to_string(), "invalid_message"),
                ("messages[1].role".to_string(), "invalid_role"),
                ("messages[1].content".to_string(), "empty_content"),
                ("messages[2].content[0].type".to_string(), "invalid_block"),
                ("messages[2].content[1]".to_string(), "invalid_block"),
            ]
        );
    }
}
