//! Addresses into a history kept as JSON values (`json::Value`): which string of which message a piece
//! of text lives in (`Slot`), byte ranges inside it (`Span`), reading and replacing that string.
//!
//! Messages stay `Value`s end to end so unknown fields, unknown block types and key order come
//! back exactly as they came in. This module never interprets what the text means.

use std::ops::Range;

use crate::json::Value;

/// Which string of a message holds a text.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    /// `content` itself is a string.
    Content,
    /// `content[j].text` (text blocks).
    Text(usize),
    /// `content[j].content` is a string (tool_result).
    ResultString(usize),
    /// `content[j].content[k].text` (text parts of a tool_result).
    ResultPart(usize, usize),
}

/// A string inside the history: message index plus slot.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct TextRef {
    pub msg: usize,
    pub slot: Slot,
}

/// A byte range inside one string of the history.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct Span {
    pub at: TextRef,
    pub range: Range<usize>,
}

impl Span {
    pub fn overlaps(&self, other: &Span) -> bool {
        self.at == other.at && self.range.start < other.range.end && other.range.start < self.range.end
    }
}

impl Slot {
    /// JSON path segments of this slot below the message, for error messages and edit lists.
    pub fn path(self) -> String {
        match self {
            Slot::Content => "content".to_string(),
            Slot::Text(j) => format!("content[{j}].text"),
            Slot::ResultString(j) => format!("content[{j}].content"),
            Slot::ResultPart(j, k) => format!("content[{j}].content[{k}].text"),
        }
    }
}

/// The string a slot points at, if the message has that shape.
pub fn slot_text(message: &Value, slot: Slot) -> Option<&str> {
    let content = field(message, "content")?;
    match slot {
        Slot::Content => content.as_str(),
        Slot::Text(j) => content.get(j).and_then(|b| field(b, "text"))?.as_str(),
        Slot::ResultString(j) => field(content.get(j)?, "content")?.as_str(),
        Slot::ResultPart(j, k) => field(field(content.get(j)?, "content")?.get(k)?, "text")?.as_str(),
    }
}

/// Replaces the string a slot points at; false when the message does not have that shape.
pub fn set_slot_text(message: &mut Value, slot: Slot, text: String) -> bool {
    let Some(content) = message.get_mut("content") else {
        return false;
    };
    let target = match slot {
        Slot::Content => Some(content),
        Slot::Text(j) => content.get_mut(j).and_then(|b| b.get_mut("text")),
        Slot::ResultString(j) => content.get_mut(j).and_then(|b| b.get_mut("content")),
        Slot::ResultPart(j, k) => content
            .get_mut(j)
            .and_then(|b| b.get_mut("content"))
            .and_then(|c| c.get_mut(k))
            .and_then(|p| p.get_mut("text")),
    };
    match target {
        Some(v @ Value::String(_)) => {
            *v = Value::from(text);
            true
        }
        _ => false,
    }
}

/// Every string slot of a message, in document order.
pub fn text_slots(message: &Value) -> Vec<Slot> {
    slot_texts(message).into_iter().map(|(slot, _)| slot).collect()
}

/// Every text slot of `message` with its text, in document order, in one walk.
pub fn slot_texts(message: &Value) -> Vec<(Slot, &str)> {
    let mut out = Vec::new();
    match field(message, "content") {
        Some(Value::String(s)) => out.push((Slot::Content, s.as_str())),
        Some(Value::Array(blocks)) => {
            for (j, b) in blocks.iter().enumerate() {
                match field(b, "type").and_then(Value::as_str) {
                    Some("text") => {
                        if let Some(Value::String(t)) = field(b, "text") {
                            out.push((Slot::Text(j), t.as_str()));
                        }
                    }
                    Some("tool_result") => match field(b, "content") {
                        Some(Value::String(t)) => out.push((Slot::ResultString(j), t.as_str())),
                        Some(Value::Array(parts)) => {
                            for (k, p) in parts.iter().enumerate() {
                                if field(p, "type").and_then(Value::as_str) == Some("text") {
                                    if let Some(Value::String(t)) = field(p, "text") {
                                        out.push((Slot::ResultPart(j, k), t.as_str()));
                                    }
                                }
                            }
                        }
                        _ => {}
                    },
                    _ => {}
                }
            }
        }
        _ => {}
    }
    out
}

pub fn role(message: &Value) -> Option<&str> {
    field(message, "role").and_then(Value::as_str)
}

pub fn is_summary(message: &Value) -> bool {
    field(message, "isSummary").and_then(Value::as_bool) == Some(true)
}

/// Which messages the model is sent, as newer Roo decides it (see [`visible`]).
pub fn active_messages(messages: &[Value]) -> Vec<bool> {
    let marks: Vec<Marks> = messages.iter().map(Marks::of).collect();
    active_by_marks(&marks)
}

/// The fields of a message that decide which messages are sent (see [`visible`]).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Marks {
    pub condense_id: Option<String>,
    pub truncation_id: Option<String>,
    pub condense_parent: Option<String>,
    pub truncation_parent: Option<String>,
    pub condensed_by: Option<String>,
    pub summary: bool,
    pub truncation_marker: bool,
}

impl Marks {
    pub fn of(m: &Value) -> Marks {
        let field = |key: &str| m.get(key).and_then(Value::as_str).filter(|s| !s.is_empty()).map(str::to_string);
        let flag = |key: &str| m.get(key).and_then(Value::as_bool) == Some(true);
        Marks {
            condense_id: field("condenseId"),
            truncation_id: field("truncationId"),
            condense_parent: field("condenseParent"),
            truncation_parent: field("truncationParent"),
            condensed_by: field("condensedBy"),
            summary: flag("isSummary"),
            truncation_marker: flag("isTruncationMarker"),
        }
    }

    fn keys(&self) -> MarkKeys<&str> {
        MarkKeys {
            condense_id: self.condense_id.as_deref(),
            truncation_id: self.truncation_id.as_deref(),
            condense_parent: self.condense_parent.as_deref(),
            truncation_parent: self.truncation_parent.as_deref(),
            condensed_by: self.condensed_by.as_deref(),
            summary: self.summary,
            truncation_marker: self.truncation_marker,
        }
    }
}

/// [`active_messages`] from each message's marks.
pub fn active_by_marks<'a>(marks: impl IntoIterator<Item = &'a Marks>) -> Vec<bool> {
    let keys: Vec<MarkKeys<&str>> = marks.into_iter().map(Marks::keys).collect();
    visible(&keys)
}

/// A message's marks with its ids as keys of any kind (strings here, numbers from JavaScript).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct MarkKeys<K> {
    pub condense_id: Option<K>,
    pub truncation_id: Option<K>,
    pub condense_parent: Option<K>,
    pub truncation_parent: Option<K>,
    pub condensed_by: Option<K>,
    pub summary: bool,
    pub truncation_marker: bool,
}

/// Which messages the model is sent, as newer Roo decides it (see [`tag_states`]).
pub fn visible<K: Copy + Eq + std::hash::Hash>(marks: &[MarkKeys<K>]) -> Vec<bool> {
    tag_states(marks).into_iter().map(|s| s & VISIBLE != 0).collect()
}

/// [`tag_states`]: the model is sent the message.
pub const VISIBLE: u8 = 1;
/// [`tag_states`]: its `condenseParent` names a summary (`isSummary` with that `condenseId`) in
/// the history, wherever it is (as Roo Code filters: the summary stands for it).
pub const SUMMARY_HIDES: u8 = 2;
/// [`tag_states`]: its `truncationParent` names a truncation marker still in the history.
pub const TRUNCATION_PARENT_LIVE: u8 = 4;
/// [`tag_states`]: it is a shortened copy (`condensedBy`) right after the message it stands in for.
pub const COPY_IN_PLACE: u8 = 8;
/// [`tag_states`]: its shortened copy (the next message, `condensedBy` its `condenseParent`)
/// stands in for it.
pub const COPY_HIDES: u8 = 16;

/// Per message, what its Roo tags do (the one implementation of the rule; the Roo entry asks it
/// through `visibleMessages`, the semantic view through [`active_messages`]). A message is sent
/// unless its summary, its shortened copy or a truncation marker hides it, or it is a shortened
/// copy not in place. A tag that hides nothing (its summary, marker or copy is gone) is what a
/// cleanup clears; today's Roo, which starts from its last summary, reads the bits one by one.
pub fn tag_states<K: Copy + Eq + std::hash::Hash>(marks: &[MarkKeys<K>]) -> Vec<u8> {
    use std::collections::HashSet;
    let mut summaries: HashSet<K> = HashSet::new();
    let mut markers: HashSet<K> = HashSet::new();
    for m in marks {
        if let (true, Some(id)) = (m.summary, m.condense_id) {
            summaries.insert(id);
        }
        if let (true, Some(id)) = (m.truncation_marker, m.truncation_id) {
            markers.insert(id);
        }
    }
    marks
        .iter()
        .enumerate()
        .map(|(i, m)| {
            let summary_hides = m.condense_parent.is_some_and(|p| summaries.contains(&p));
            let copy_hides =
                m.condense_parent.is_some_and(|p| marks.get(i + 1).is_some_and(|next| next.condensed_by == Some(p)));
            let truncation_live = m.truncation_parent.is_some_and(|p| markers.contains(&p));
            let copy_in_place = m.condensed_by.is_some_and(|by| i > 0 && marks[i - 1].condense_parent == Some(by));
            let visible =
                !summary_hides && !copy_hides && !truncation_live && (m.condensed_by.is_none() || copy_in_place);
            let bit = |on: bool, b: u8| if on { b } else { 0 };
            bit(visible, VISIBLE)
                | bit(summary_hides, SUMMARY_HIDES)
                | bit(truncation_live, TRUNCATION_PARENT_LIVE)
                | bit(copy_in_place, COPY_IN_PLACE)
                | bit(copy_hides, COPY_HIDES)
        })
        .collect()
}

/// `value.get(key)` on an object.
#[inline]
pub fn field<'a>(value: &'a Value, key: &str) -> Option<&'a Value> {
    value.get(key)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;

    #[test]
    fn slots_read_and_write_every_shape() {
        let mut m = json!({"role":"user","content":[
            {"type":"tool_result","tool_use_id":"a","content":"one"},
            {"type":"tool_result","tool_use_id":"b","content":[{"type":"text","text":"two"},{"type":"image","source":{}}]},
            {"type":"text","text":"three","cache_control":{"type":"ephemeral"}}
        ]});
        let slots = text_slots(&m);
        assert_eq!(slots, vec![Slot::ResultString(0), Slot::ResultPart(1, 0), Slot::Text(2)]);
        let texts: Vec<_> = slots.iter().map(|s| slot_text(&m, *s).unwrap_or("")).collect();
        assert_eq!(texts, vec!["one", "two", "three"]);
        assert!(set_slot_text(&mut m, Slot::Text(2), "3".into()));
        assert_eq!(m["content"][2], json!({"type":"text","text":"3","cache_control":{"type":"ephemeral"}}));
        assert!(!set_slot_text(&mut m, Slot::Text(7), "x".into()));
    }

    #[test]
    fn hidden_messages_are_inactive_only_while_their_summary_exists() {
        let h = vec![
            json!({"role":"user","content":"task"}),
            json!({"role":"assistant","content":"old","condenseParent":"c1"}),
            json!({"role":"user","content":"sum","isSummary":true,"condenseId":"c1"}),
            json!({"role":"assistant","content":"orphan","condenseParent":"gone"}),
        ];
        assert_eq!(active_messages(&h), vec![true, false, true, true]);
    }

    #[test]
    fn visibility_follows_summaries_copies_and_markers_in_place() {
        let h = vec![
            json!({"role":"user","content":"task"}),
            // A summary hides what names it, wherever it is (as Roo Code filters).
            json!({"role":"user","content":"sum","isSummary":true,"condenseId":"c1"}),
            json!({"role":"assistant","content":"after","condenseParent":"c1"}),
            // A shortened copy stands in for the message right before it.
            json!({"role":"user","content":"long","condenseParent":"c2"}),
            json!({"role":"user","content":"short","condensedBy":"c2"}),
            // A copy elsewhere stands in for nothing.
            json!({"role":"assistant","content":"stray","condensedBy":"c3"}),
            // A truncation marker hides what names it; a condenseId without isSummary hides nothing.
            json!({"role":"user","content":"cut","truncationParent":"t1"}),
            json!({"role":"assistant","content":"…","isTruncationMarker":true,"truncationId":"t1"}),
            json!({"role":"user","content":"kept","condenseParent":"c4"}),
            json!({"role":"assistant","content":"not a summary","condenseId":"c4"}),
        ];
        assert_eq!(active_messages(&h), vec![true, true, false, false, true, false, false, true, true, true]);
        let ints: Vec<MarkKeys<i32>> = vec![
            MarkKeys { condense_parent: Some(1), ..Default::default() },
            MarkKeys { condensed_by: Some(1), ..Default::default() },
        ];
        assert_eq!(visible(&ints), vec![false, true]);
        // Tags that hide nothing, for a cleanup: a parent whose summary is gone, a copy out of place.
        let orphan = vec![
            MarkKeys { condense_parent: Some(7), truncation_parent: Some(8), ..Default::default() },
            MarkKeys { condensed_by: Some(9), ..Default::default() },
        ];
        assert_eq!(tag_states(&orphan), vec![VISIBLE, 0]);
        assert_eq!(tag_states(&ints), vec![COPY_HIDES, VISIBLE | COPY_IN_PLACE]);
    }
}
