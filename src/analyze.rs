//! `analyze`: what fills the context. Tokens by content type, by tool and by file, and what the
//! Lossless provider finds (run, not guessed). Reads only.

use std::collections::BTreeMap;
use std::sync::atomic::AtomicBool;

use crate::json::Value;
use serde::Serialize;

use crate::error::CondenseError;
use crate::model::{is_summary, role, slot_text, text_slots};
use crate::parse::View;
use crate::providers::lossless::{self, LosslessConfig};
use crate::tokens::{count_many_within, image_tokens, Cancel, Encoding};

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ByContentType {
    pub user_text: u64,
    pub assistant_text: u64,
    pub thinking: u64,
    pub tool_calls: u64,
    pub tool_results: u64,
    pub environment_details: u64,
    pub images: u64,
    pub summaries: u64,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ToolUsage {
    pub tool: String,
    pub results: usize,
    pub result_tokens: u64,
    pub errors: usize,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct FileUsage {
    pub path: String,
    pub reads: usize,
    pub tokens: u64,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Findings {
    pub operation: String,
    pub edits: usize,
    pub tokens: i64,
}

#[derive(Debug, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Analysis {
    pub messages: usize,
    pub total_tokens: u64,
    pub by_content_type: ByContentType,
    pub by_tool: Vec<ToolUsage>,
    pub by_file: Vec<FileUsage>,
    /// What Lossless (default config) removes, by operation.
    pub lossless: Vec<Findings>,
    pub lossless_tokens_saved: i64,
}

/// Where the text of a slot goes: (range, bucket) pieces that cover it.
enum Bucket {
    User,
    Assistant,
    Result(usize),
    Env,
    Summary,
}

pub fn analyze(messages: &[Value], encoding: Encoding) -> Analysis {
    // Nothing sets this flag, so the analysis cannot be stopped and always comes back.
    analyze_within(messages, encoding, &AtomicBool::new(false)).unwrap_or_default()
}

/// [`analyze`], stopped with [`CondenseError::Aborted`] once `abort` is set (counting looks at it
/// between texts and within long ones).
pub fn analyze_within(messages: &[Value], encoding: Encoding, abort: &AtomicBool) -> Result<Analysis, CondenseError> {
    let cancel = Cancel::new(abort);
    let view = View::build(messages);
    let mut pieces: Vec<(&str, Bucket)> = Vec::new();
    let mut a = Analysis { messages: messages.len(), ..Default::default() };
    let mut tool_texts: Vec<(String, String)> = Vec::new();

    for (i, m) in messages.iter().enumerate() {
        let summary = is_summary(m);
        let user = role(m) == Some("user");
        for slot in text_slots(m) {
            let Some(text) = slot_text(m, slot) else {
                continue;
            };
            if summary {
                pieces.push((text, Bucket::Summary));
                continue;
            }
            // Cut the slot into tool-result bodies, env blocks and the rest.
            let mut cuts: Vec<(usize, usize, Bucket)> = Vec::new();
            let first = view.results.partition_point(|r| r.msg < i);
            for (k, r) in view.results_of(i).iter().enumerate() {
                for s in r.body.iter().filter(|s| s.at.slot == slot) {
                    cuts.push((s.range.start, s.range.end, Bucket::Result(first + k)));
                }
            }
            for e in view.env_of(i).iter().filter(|e| e.at.slot == slot) {
                cuts.push((e.block.range.start, e.block.range.end, Bucket::Env));
            }
            cuts.sort_by_key(|c| c.0);
            let mut pos = 0;
            for (start, end, bucket) in cuts {
                if start < pos || end > text.len() {
                    continue;
                }
                if start > pos {
                    pieces.push((&text[pos..start], if user { Bucket::User } else { Bucket::Assistant }));
                }
                pieces.push((&text[start..end], bucket));
                pos = end;
            }
            if pos < text.len() {
                pieces.push((&text[pos..], if user { Bucket::User } else { Bucket::Assistant }));
            }
        }
        if let Some(Value::Array(blocks)) = m.get("content") {
            for b in blocks {
                match b.get("type").and_then(Value::as_str) {
                    Some("thinking") => tool_texts
                        .push(("\u{0}thinking".into(), b.get("thinking").and_then(Value::as_str).unwrap_or("").into())),
                    Some("tool_use") => {
                        let name = b.get("name").and_then(Value::as_str).unwrap_or("");
                        let input =
                            b.get("input").map(|v| serde_json::to_string(v).unwrap_or_default()).unwrap_or_default();
                        tool_texts.push((name.to_string(), format!("{name}{input}")));
                    }
                    Some("image") => a.by_content_type.images += image_tokens(b) as u64,
                    Some("tool_result") => {
                        if let Some(Value::Array(parts)) = b.get("content") {
                            for p in parts.iter().filter(|p| p.get("type").and_then(Value::as_str) == Some("image")) {
                                a.by_content_type.images += image_tokens(p) as u64;
                            }
                        }
                    }
                    _ => {}
                }
            }
        }
    }

    let mut texts: Vec<&str> = pieces.iter().map(|p| p.0).collect();
    texts.extend(tool_texts.iter().map(|t| t.1.as_str()));
    let counts = count_many_within(&texts, encoding, cancel)?;
    let mut by_tool: BTreeMap<String, ToolUsage> = BTreeMap::new();
    for ((_, bucket), n) in pieces.iter().zip(&counts) {
        let n = *n as u64;
        let t = &mut a.by_content_type;
        match bucket {
            Bucket::User => t.user_text += n,
            Bucket::Assistant => t.assistant_text += n,
            Bucket::Env => t.environment_details += n,
            Bucket::Summary => t.summaries += n,
            Bucket::Result(k) => {
                t.tool_results += n;
                let r = &view.results[*k];
                by_tool
                    .entry(r.tool.to_string())
                    .or_insert_with(|| ToolUsage { tool: r.tool.to_string(), ..Default::default() })
                    .result_tokens += n;
            }
        }
    }
    for r in &view.results {
        let u = by_tool
            .entry(r.tool.to_string())
            .or_insert_with(|| ToolUsage { tool: r.tool.to_string(), ..Default::default() });
        u.results += 1;
        u.errors += usize::from(r.is_error);
    }
    for ((name, _), n) in tool_texts.iter().zip(&counts[pieces.len()..]) {
        if name == "\u{0}thinking" {
            a.by_content_type.thinking += *n as u64;
        } else {
            a.by_content_type.tool_calls += *n as u64;
        }
    }
    a.by_tool = by_tool.into_values().collect();
    a.by_tool.sort_by_key(|x| std::cmp::Reverse(x.result_tokens));

    let file_texts: Vec<&str> = view
        .results
        .iter()
        .flat_map(|r| r.reads.iter())
        .map(|f| &slot_text(&messages[f.at.msg], f.at.slot).unwrap_or("")[f.read.region.clone()])
        .collect();
    let file_counts = count_many_within(&file_texts, encoding, cancel)?;
    let mut by_file: BTreeMap<&str, FileUsage> = BTreeMap::new();
    for (f, n) in view.results.iter().flat_map(|r| r.reads.iter()).zip(file_counts) {
        let u = by_file
            .entry(f.read.path.as_str())
            .or_insert_with(|| FileUsage { path: f.read.path.clone(), ..Default::default() });
        u.reads += 1;
        u.tokens += n as u64;
    }
    a.by_file = by_file.into_values().collect();
    a.by_file.sort_by_key(|x| std::cmp::Reverse(x.tokens));

    let t = &a.by_content_type;
    a.total_tokens = t.user_text
        + t.assistant_text
        + t.thinking
        + t.tool_calls
        + t.tool_results
        + t.environment_details
        + t.images
        + t.summaries;

    match lossless::run(messages, &view, &LosslessConfig::default(), encoding, abort) {
        Ok((draft, run)) => {
            for (i, pass) in run.passes.iter().enumerate() {
                let acts = draft.acts.iter().filter(|x| x.pass == i);
                let (edits, tokens) = acts.fold((0, 0), |(n, t), x| (n + 1, t + x.tokens_saved));
                a.lossless.push(Findings { operation: pass.id.clone(), edits, tokens });
            }
            a.lossless_tokens_saved = run.exact_saving.unwrap_or(0);
        }
        Err(CondenseError::Aborted) => return Err(CondenseError::Aborted),
        Err(_) => {}
    }
    Ok(a)
}
