//! What counts in a message (the one definition the engine and the JavaScript side share): text,
//! thinking, a tool_use's name and input JSON, tool_result text, images by Roo Code's estimate.
//! Reads messages; never changes them.

use crate::json::Value;

use crate::error::CondenseError;

use super::*;

/// Roo Code's image estimate: ceil(sqrt(base64 length)), or 300 without inline data.
pub fn image_tokens(block: &Value) -> usize {
    match block.pointer("/source/data").and_then(Value::as_str) {
        Some(data) => (data.len() as f64).sqrt().ceil() as usize,
        None => 300,
    }
}

/// The countable pieces of one message: texts to run through the BPE, plus a fixed amount
/// (images). Both the message counter and the analyzer use this one walk.
pub fn countable_parts<'a>(message: &'a Value, mut text: impl FnMut(Part<'a>)) {
    match message.get("content") {
        Some(Value::String(s)) => text(Part::Text(s)),
        Some(Value::Array(blocks)) => {
            for block in blocks {
                block_parts(block, &mut text);
            }
        }
        _ => {}
    }
}

/// One countable piece of a message.
pub enum Part<'a> {
    Text(&'a str),
    /// A tool_use: its name and the JSON of its input, counted as one text.
    ToolCall(String),
    Fixed(usize),
}

pub(super) fn block_parts<'a>(block: &'a Value, text: &mut impl FnMut(Part<'a>)) {
    match block.get("type").and_then(Value::as_str) {
        Some("text") => {
            if let Some(s) = block.get("text").and_then(Value::as_str) {
                text(Part::Text(s));
            }
        }
        Some("thinking") => {
            if let Some(s) = block.get("thinking").and_then(Value::as_str) {
                text(Part::Text(s));
            }
        }
        Some("tool_use") => {
            let name = block.get("name").and_then(Value::as_str).unwrap_or("");
            let input = block.get("input").map(|v| serde_json::to_string(v).unwrap_or_default()).unwrap_or_default();
            text(Part::ToolCall(format!("{name}{input}")));
        }
        Some("tool_result") => match block.get("content") {
            Some(Value::String(s)) => text(Part::Text(s)),
            Some(Value::Array(inner)) => {
                for b in inner {
                    block_parts(b, text);
                }
            }
            _ => {}
        },
        Some("image") => text(Part::Fixed(image_tokens(block))),
        _ => {}
    }
}

/// Tokens of one message.
pub fn count_message(message: &Value, encoding: Encoding) -> usize {
    count_messages(std::slice::from_ref(message), encoding)
}

/// Tokens of each message, every text through the cache, misses counted in parallel; the sum is
/// [`count_messages_within`] of the same messages.
pub fn count_each_within(messages: &[&Value], encoding: Encoding, cancel: Cancel) -> Result<Vec<u64>, CondenseError> {
    let mut owned: Vec<(usize, String)> = Vec::new();
    let mut borrowed: Vec<(usize, &str)> = Vec::new();
    let mut out = vec![0u64; messages.len()];
    for (i, m) in messages.iter().enumerate() {
        countable_parts(m, |p| match p {
            Part::Text(s) => borrowed.push((i, s)),
            Part::ToolCall(s) => owned.push((i, s)),
            Part::Fixed(n) => out[i] += n as u64,
        });
    }
    let owners: Vec<usize> = borrowed.iter().map(|(i, _)| *i).chain(owned.iter().map(|(i, _)| *i)).collect();
    let texts: Vec<&str> = borrowed.iter().map(|(_, s)| *s).chain(owned.iter().map(|(_, s)| s.as_str())).collect();
    for (i, n) in owners.into_iter().zip(count_many_within(&texts, encoding, cancel)?) {
        out[i] += n as u64;
    }
    Ok(out)
}

/// Tokens of a whole history, every text through the cache, misses counted in parallel.
pub fn count_messages(messages: &[Value], encoding: Encoding) -> usize {
    unstoppable(count_messages_within(messages, encoding, Cancel::NEVER))
}

/// [`count_messages`], stopped when `cancel` says so.
pub fn count_messages_within(messages: &[Value], encoding: Encoding, cancel: Cancel) -> Result<usize, CondenseError> {
    let mut owned: Vec<String> = Vec::new();
    let mut borrowed: Vec<&str> = Vec::new();
    let mut fixed = 0usize;
    for m in messages {
        countable_parts(m, |p| match p {
            Part::Text(s) => borrowed.push(s),
            Part::ToolCall(s) => owned.push(s),
            Part::Fixed(n) => fixed += n,
        });
    }
    borrowed.extend(owned.iter().map(String::as_str));
    Ok(fixed + count_many_within(&borrowed, encoding, cancel)?.iter().sum::<usize>())
}
