//! Values across the boundary: JSON text for results too big for one Node-API conversion, summary
//! requests as lines of JSON, packed changes, the outcome's JSON summary. Every text leaving here
//! is unescaped for JavaScript (`text`). Converts only.

use napi::bindgen_prelude::*;
use napi_derive::napi;
use serde_json::{json, Value};

use super::text::{value_to_js, JsText};
use super::Message;
use context_condense::condense::Outcome;
use context_condense::draft::Item;
use context_condense::error::CondenseError;
use context_condense::llm::SummarizeRequest;
use context_condense::model::{Slot, TextRef};

/// A value as JSON text, for results that may hold more values than one Node-API conversion
/// takes (about a million): JavaScript parses the text instead. Its strings are unescaped (a lone
/// surrogate written as JSON's `\uD8xx`), so what `JSON.parse` gives is the host's text.
pub(super) fn json_text<T: serde::Serialize>(value: &T) -> std::result::Result<String, CondenseError> {
    context_condense::escape::unescaped_json(value)
        .map_err(|e| CondenseError::Internal(format!("could not write the result: {e}")))
}

/// A batch of summary requests as lines of JSON, so JavaScript can parse a request of a million
/// messages a slice at a time: the first line is the requests with `messages` replaced by how
/// many there are, then one line per message, request after request. (JSON text never holds a
/// raw line break.) The messages are written as JavaScript reads them (see [`Parts`]).
pub(super) fn requests_parts(batch: Vec<SummarizeRequest>) -> std::result::Result<Parts, CondenseError> {
    let heads: Vec<Value> = batch
        .iter()
        .map(|r| {
            let mut head = serde_json::to_value(r.clone_head()).unwrap_or(Value::Null);
            head["messages"] = json!(r.messages.len());
            head
        })
        .collect();
    let head = json_text(&heads)?;
    // Strings of messages JavaScript holds unchanged cross as their paths (see `Part::Held`).
    let messages: Vec<Message> = batch.into_iter().flat_map(|r| r.messages).map(|m| m.into_line()).collect();
    Ok(Parts::Lines { head: Some(head), messages: messages.into_iter() })
}

#[cfg(feature = "probes")]
pub(super) fn as_array(messages: &Message) -> std::result::Result<&[Message], CondenseError> {
    messages
        .as_array()
        .map(Vec::as_slice)
        .ok_or_else(|| CondenseError::InvalidOptions("messages: expected an array of messages".into()))
}

/// Changes packed for a cheap crossing: four numbers per change in `codes`
/// (message, block + 1, part + 1, field: 0 = `text`, 1 = `content`) and every new text
/// concatenated in `text` (unescaped), cut by `ends` (UTF-16 offsets into the unescaped text, as
/// JavaScript indexes strings).
/// Creating one string and two typed arrays costs a few napi calls, where an object per
/// change cost thousands.
#[napi(object, object_from_js = false)]
pub struct PackedChanges {
    pub codes: Uint32Array,
    pub ends: Uint32Array,
    #[napi(ts_type = "string")]
    pub text: JsText,
}

/// The plain-data form of `PackedChanges`, built off the JavaScript thread.
pub struct Packed {
    codes: Vec<u32>,
    ends: Vec<u32>,
    text: String,
    /// Where each change's text ends in `text`, in bytes.
    byte_ends: Vec<usize>,
}

impl Packed {
    pub(super) fn new(changes: Vec<(TextRef, String)>) -> Packed {
        let mut p = Packed {
            codes: Vec::with_capacity(changes.len() * 4),
            ends: Vec::with_capacity(changes.len()),
            text: String::new(),
            byte_ends: Vec::with_capacity(changes.len()),
        };
        let mut end = 0u32;
        for (at, t) in changes {
            let (block, part, field) = match at.slot {
                Slot::Content => (0, 0, 1),
                Slot::Text(j) => (j as u32 + 1, 0, 0),
                Slot::ResultString(j) => (j as u32 + 1, 0, 1),
                Slot::ResultPart(j, k) => (j as u32 + 1, k as u32 + 1, 0),
            };
            p.codes.extend([at.msg as u32, block, part, field]);
            end += context_condense::escape::utf16_len(&t) as u32;
            p.ends.push(end);
            p.text.push_str(&t);
            p.byte_ends.push(p.text.len());
        }
        p
    }

    pub(super) fn into_js(self) -> PackedChanges {
        PackedChanges {
            codes: Uint32Array::new(self.codes),
            ends: Uint32Array::new(self.ends),
            text: JsText(self.text),
        }
    }

    /// Takes the new texts out, as parts to be read one at a time, each holding whole changes'
    /// texts: the changes then cross with an empty `text`.
    pub(super) fn take_text(&mut self) -> Parts {
        Parts::Texts { text: std::mem::take(&mut self.text), pos: 0, cuts: std::mem::take(&mut self.byte_ends) }
    }
}

/// A long text JavaScript reads a part at a time (`readPart`), so that no call makes one string
/// of it: making a string of tens of megabytes holds the JavaScript thread for as long as copying
/// them takes.
pub enum Parts {
    /// The changed texts of a result, concatenated; a part ends after a whole change's text
    /// (`cuts`: where each ends, in bytes).
    Texts { text: String, pos: usize, cuts: Vec<usize> },
    /// Lines of JSON: `head`, then one line per message, each message written when a part
    /// reaches it (a summary of the whole history never exists as one text); a part is whole
    /// lines, without the line break after the last.
    Lines { head: Option<String>, messages: std::vec::IntoIter<Message> },
}

impl Parts {
    /// The next part, of about `max_bytes` (more when one line or change is longer); `None`
    /// once all is read.
    pub fn next(&mut self, max_bytes: u32) -> Option<String> {
        let max = max_bytes.max(1) as usize;
        match self {
            Parts::Texts { text, pos, cuts } => {
                let (start, len) = (*pos, text.len());
                if start >= len {
                    return None;
                }
                let want = start.saturating_add(max).min(len);
                // The last cut within `want`, or the first one past `start` when none is.
                let first = cuts.partition_point(|&c| c <= start);
                let within = cuts.partition_point(|&c| c <= want);
                let at = if within > first { within - 1 } else { first };
                let end = cuts.get(at).copied().unwrap_or(len).min(len);
                *pos = end;
                Some(text.get(start..end).unwrap_or_default().to_string())
            }
            Parts::Lines { head, messages } => {
                let mut out = head.take().unwrap_or_default();
                while out.len() < max {
                    let Some(m) = messages.next() else { break };
                    if !out.is_empty() {
                        out.push('\n');
                    }
                    // A Value always serializes: its keys are strings, its numbers finite.
                    out.push_str(&context_condense::escape::unescaped_json(&m).unwrap_or_default());
                }
                (!out.is_empty()).then_some(out)
            }
        }
    }

    /// Whether every part has been read.
    pub fn is_done(&self) -> bool {
        match self {
            Parts::Texts { text, pos, .. } => *pos >= text.len(),
            Parts::Lines { head, messages } => head.is_none() && messages.len() == 0,
        }
    }
}

/// Restored references, for `expandReferences`.
#[napi(object, object_from_js = false)]
pub struct RawExpansion {
    pub changes: PackedChanges,
    pub expanded: u32,
    pub unresolved: u32,
}

/// A JSON result handed to JavaScript from a task (serde_json::Value is not a task output type).
pub struct Json(pub(super) Value);

impl TypeName for Json {
    fn type_name() -> &'static str {
        "unknown"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for Json {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        // SAFETY: called by napi with a live env, as for a plain Value.
        unsafe { value_to_js(env, &val.0) }
    }
}

/// What JavaScript receives of an outcome besides the packed texts, serialized once as JSON text.
#[derive(serde::Serialize)]
#[serde(rename_all = "camelCase")]
pub(super) struct OutcomeSummary<'a> {
    prev_context_tokens: u64,
    new_context_tokens: u64,
    summary: &'a str,
    cost: f64,
    error: &'a Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    error_code: Option<&'static str>,
    metrics: &'a context_condense::report::Metrics,
    report: &'a str,
    /// New tool inputs: `[message, block, input]`.
    inputs: Vec<(usize, usize, &'a Message)>,
    /// The message layout when it changed: an original index, or `{ message }` for a written one.
    layout: Option<Vec<LayoutItem<'a>>>,
    /// Every act and each result message's origin, when asked for.
    #[serde(skip_serializing_if = "Option::is_none")]
    provenance: Option<&'a context_condense::condense::Provenance>,
}

#[derive(serde::Serialize)]
#[serde(untagged)]
pub(super) enum LayoutItem<'a> {
    Keep(usize),
    New { message: &'a Message },
}

pub(super) fn outcome_summary(o: &Outcome) -> OutcomeSummary<'_> {
    OutcomeSummary {
        prev_context_tokens: o.prev_context_tokens,
        new_context_tokens: o.new_context_tokens,
        summary: &o.summary,
        cost: o.cost,
        error: &o.error,
        error_code: o.error_code,
        metrics: &o.metrics,
        report: &o.report,
        provenance: o.provenance.as_ref(),
        inputs: o.changes.inputs.iter().map(|((m, b), v)| (*m, *b, v)).collect(),
        layout: o.changes.layout.as_ref().map(|l| {
            l.iter()
                .map(|item| match item {
                    Item::Keep(i) => LayoutItem::Keep(*i),
                    Item::New(v) => LayoutItem::New { message: v },
                })
                .collect()
        }),
    }
}
