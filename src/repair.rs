//! Repairs tool pairing in a native-format history, as newer Roo Code does before sending one:
//! duplicate tool_use ids are renamed (with the result that answers them), a tool_use whose next
//! message does not answer it gets a synthetic error result, a tool_result that answers no call
//! becomes plain text (its content kept, only the pairing is dropped), and tool_results are moved
//! before the other blocks of their message. A tool_use in the last message is a call still
//! running and is left alone; a user message answering calls with plain text gets its synthetic
//! results first and keeps its text as a block. Reads the messages; answers only the messages it
//! changed or adds (and `apply` puts them in place in the engine's own copy).

use std::collections::HashSet;

use crate::{json, json::Value};
use serde::Serialize;

pub const SYNTHETIC_RESULT: &str =
    "No result was recorded for this tool call (it was interrupted or its result was lost).";

/// One repair: where (a path into the input) and what was done.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Repair {
    pub path: String,
    pub action: String,
}

/// What a repair changes: new messages by index of the input, messages to insert before an
/// index of the input (in order), and the repairs in the order they were made.
#[derive(Debug, Default, Serialize)]
pub struct Repaired {
    pub changed: Vec<(usize, Value)>,
    pub inserted: Vec<(usize, Value)>,
    pub repairs: Vec<Repair>,
}

fn blocks(m: &Value) -> &[Value] {
    m.get("content").and_then(Value::as_array).map_or(&[], Vec::as_slice)
}

fn role(m: &Value) -> Option<&str> {
    m.as_object()?.get("role")?.as_str()
}

fn use_id(b: &Value) -> Option<&str> {
    (b.get("type")?.as_str()? == "tool_use").then(|| b.get("id")?.as_str())?
}

fn result_id(b: &Value) -> Option<&str> {
    (b.get("type")?.as_str()? == "tool_result").then(|| b.get("tool_use_id")?.as_str())?
}

fn synthetic(id: &str) -> Value {
    json!({"type": "tool_result", "tool_use_id": id, "content": SYNTHETIC_RESULT, "is_error": true})
}

/// The text of a tool_result's content, and its other parts, for turning an orphan into text.
fn result_text(block: &Value) -> (String, Vec<Value>) {
    match block.get("content") {
        Some(Value::String(s)) => (s.to_string(), Vec::new()),
        Some(Value::Array(parts)) => {
            let mut texts = Vec::new();
            let mut rest = Vec::new();
            for p in parts {
                match (p.get("type").and_then(Value::as_str), p.get("text").and_then(Value::as_str)) {
                    (Some("text"), Some(t)) if p.is_object() => texts.push(t),
                    _ => rest.push(p.clone()),
                }
            }
            (texts.join("\n"), rest)
        }
        _ => (String::new(), Vec::new()),
    }
}

/// The history as repaired so far: the input with the messages changed.
struct Work<'m> {
    input: &'m [Value],
    changed: Vec<Option<Value>>,
}

impl<'m> Work<'m> {
    fn get(&self, i: usize) -> Option<&Value> {
        self.changed.get(i)?.as_ref().or_else(|| self.input.get(i))
    }

    /// The message to change (a copy of the input's, with its content as an array, the first time).
    fn own(&mut self, i: usize) -> &mut Value {
        let input = self.input;
        self.changed[i].get_or_insert_with(|| {
            let mut m = input[i].clone();
            m["content"] = Value::Array(blocks(&input[i]).to_vec());
            m
        })
    }
}

/// Repairs the tool pairing of `messages` (see the module's doc).
pub fn repair(messages: &[Value]) -> Repaired {
    let n = messages.len();
    let mut w = Work { input: messages, changed: vec![None; n] };
    let mut out = Repaired::default();
    let mut seen: HashSet<String> = HashSet::new();
    let push = |out: &mut Repaired, path: String, action: String| out.repairs.push(Repair { path, action });
    for i in 0..n {
        let Some(m) = w.get(i).filter(|m| m.is_object() && role(m) == Some("assistant")).cloned() else {
            continue;
        };
        // 1. Duplicate ids: a fresh id for the call, and for the first result answering the old one.
        let mut renames: Vec<(String, String)> = Vec::new();
        for (j, b) in blocks(&m).iter().enumerate() {
            let Some(id) = use_id(b) else { continue };
            if seen.insert(id.to_string()) {
                continue;
            }
            let mut k = 2;
            while seen.contains(&format!("{id}_{k}")) {
                k += 1;
            }
            let fresh = format!("{id}_{k}");
            seen.insert(fresh.clone());
            let mut renamed = b.clone();
            renamed["id"] = Value::from(fresh.as_str());
            w.own(i)["content"][j] = renamed;
            push(
                &mut out,
                format!("messages[{i}].content[{j}].id"),
                format!("renamed duplicate tool_use id \"{id}\" to \"{fresh}\""),
            );
            renames.push((id.to_string(), fresh));
        }
        let uses: Vec<String> =
            w.get(i).map(blocks).unwrap_or(&[]).iter().filter_map(use_id).map(str::to_string).collect();
        if uses.is_empty() || i == n - 1 {
            continue;
        }
        let Some(next) = w.get(i + 1).filter(|x| x.is_object() && role(x) == Some("user")).cloned() else {
            // Nobody answered: a user message with a synthetic result for each call goes in between.
            let content: Vec<Value> = uses.iter().map(|u| synthetic(u)).collect();
            let count = content.len();
            out.inserted.push((i + 1, json!({"role": "user", "content": content})));
            push(
                &mut out,
                format!("messages[{i}]"),
                format!("added a user message with {count} synthetic tool_result(s) after it"),
            );
            continue;
        };
        let mut claimed: HashSet<usize> = HashSet::new();
        for (from, to) in &renames {
            // The call keeps its answer: the first result for the old id when no other call of
            // this message still has that id (a repeat from an earlier message), else the next one.
            let same_message = w.get(i).map(blocks).unwrap_or(&[]).iter().any(|b| use_id(b) == Some(from.as_str()));
            let answers: Vec<usize> = blocks(&next)
                .iter()
                .enumerate()
                .filter(|(x, b)| result_id(b) == Some(from.as_str()) && !claimed.contains(x))
                .map(|(x, _)| x)
                .collect();
            let Some(&x) = answers.get(usize::from(same_message)) else { continue };
            claimed.insert(x);
            let mut answer = blocks(&next)[x].clone();
            answer["tool_use_id"] = Value::from(to.as_str());
            w.own(i + 1)["content"][x] = answer;
            push(
                &mut out,
                format!("messages[{}].content[{x}].tool_use_id", i + 1),
                format!("now answers the renamed call \"{to}\""),
            );
        }
    }
    for i in 0..n {
        let Some(m) = w.get(i).filter(|m| m.is_object() && role(m) == Some("user")).cloned() else {
            continue;
        };
        let mut ids: Vec<String> = Vec::new();
        if let Some(prev) =
            i.checked_sub(1).and_then(|p| w.get(p)).filter(|p| p.is_object() && role(p) == Some("assistant"))
        {
            for id in blocks(prev).iter().filter_map(use_id) {
                if !ids.iter().any(|x| x == id) {
                    ids.push(id.to_string());
                }
            }
        }
        if let Some(text) = m.get("content").and_then(Value::as_str) {
            // A plain-text answer to calls: the synthetic results first, then the user's text as a
            // block (an empty text block is one the provider APIs refuse, so an empty string adds none).
            if ids.is_empty() {
                continue;
            }
            let mut content: Vec<Value> = ids.iter().map(|id| synthetic(id)).collect();
            for id in &ids {
                push(&mut out, format!("messages[{i}]"), format!("added a synthetic tool_result for \"{id}\""));
            }
            if !text.is_empty() {
                content.push(json!({"type": "text", "text": text}));
            }
            let mut copy = w.get(i).cloned().unwrap_or(Value::Null);
            copy["content"] = Value::Array(content);
            w.changed[i] = Some(copy);
            continue;
        }
        let Some(content) = m.get("content").and_then(Value::as_array) else { continue };
        let mut answered: Vec<&str> = Vec::new();
        let mut results: Vec<Value> = Vec::new();
        let mut others: Vec<Value> = Vec::new();
        let (mut orphans, mut misplaced) = (false, false);
        for (j, b) in content.iter().enumerate() {
            let Some(tid) = result_id(b).filter(|_| b.is_object()) else {
                others.push(b.clone());
                continue;
            };
            let called = ids.iter().any(|x| x == tid);
            if called && !answered.contains(&tid) {
                answered.push(tid);
                misplaced |= !others.is_empty();
                results.push(b.clone());
                continue;
            }
            // An orphan (or a second answer): its content stays, as text.
            let (text, rest) = result_text(b);
            let why = if called { "a second result" } else { "a result" };
            others.push(json!({"type": "text", "text": format!("[{why} for tool call \"{tid}\", which is not in the previous message]\n{text}")}));
            others.extend(rest);
            orphans = true;
            push(
                &mut out,
                format!("messages[{i}].content[{j}]"),
                format!("turned {why} for \"{tid}\" with no matching call into text"),
            );
        }
        // Calls of the previous message left unanswered get a synthetic result.
        let missing: Vec<&String> = ids.iter().filter(|id| !answered.contains(&id.as_str())).collect();
        for id in &missing {
            results.push(synthetic(id));
            push(&mut out, format!("messages[{i}]"), format!("added a synthetic tool_result for \"{id}\""));
        }
        if misplaced {
            push(&mut out, format!("messages[{i}]"), "moved tool_result blocks before the other blocks".into());
        }
        if orphans || misplaced || !missing.is_empty() {
            results.extend(others);
            w.own(i)["content"] = Value::Array(results);
        }
    }
    out.changed = w.changed.into_iter().enumerate().filter_map(|(i, m)| Some((i, m?))).collect();
    out
}

/// Applies `repaired` to the messages it was made from (the engine's copy, so a condensation can
/// run on the repaired history without it crossing again).
pub fn apply(messages: &mut Vec<Value>, repaired: Repaired) {
    for (i, m) in repaired.changed {
        if let Some(x) = messages.get_mut(i) {
            *x = m;
        }
    }
    if repaired.inserted.is_empty() {
        return;
    }
    let old = std::mem::take(messages);
    let mut inserted = repaired.inserted.into_iter().peekable();
    for (i, m) in old.into_iter().enumerate() {
        while let Some((_, x)) = inserted.next_if(|(at, _)| *at == i) {
            messages.push(x);
        }
        messages.push(m);
    }
    messages.extend(inserted.map(|(_, x)| x));
}
