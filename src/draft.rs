//! The working state of a condensation: the caller's messages (never modified) plus what has
//! been changed so far: new texts of string slots, new tool_use inputs, and the message layout
//! (which original messages remain, where summaries were inserted). Passes read the current
//! state through it and record changes in it; at the end it becomes the changes handed back.
//!
//! Token accounting is exact and incremental: what a draft saves is the tokens of what it
//! replaced or removed minus the tokens of what it put instead, counted through the cache.

use std::borrow::Cow;
use std::collections::BTreeMap;

use crate::json::Value;

use crate::model::{set_slot_text, slot_text, slot_texts, Slot, TextRef};
use crate::provenance::{Act, Action, Content, Origin};
use crate::tokens::{count_many, count_message, Encoding};

/// One message of the current layout.
#[derive(Debug, Clone, PartialEq)]
pub enum Item {
    /// The original message at this index (with any text changes).
    Keep(usize),
    /// A message the condensation wrote (a summary).
    New(Value),
}

#[derive(Debug, Clone)]
pub struct Draft<'a> {
    pub original: &'a [Value],
    texts: BTreeMap<TextRef, String>,
    /// New `input` of the tool_use at (message, block).
    inputs: BTreeMap<(usize, usize), Value>,
    pub layout: Vec<Item>,
    /// What the passes did so far, in order (undone with the draft when a pass is rolled back).
    pub acts: Vec<Act>,
    /// The pass now writing acts (its index in the metrics' passes).
    pub pass: usize,
    /// Messages a pass of this run selected to shorten (whatever it then did to each).
    pub selected: std::collections::BTreeSet<usize>,
}

/// The changes a draft hands back.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Changes {
    pub texts: Vec<(TextRef, String)>,
    pub inputs: Vec<((usize, usize), Value)>,
    /// `None` when the messages are the original ones, in order.
    pub layout: Option<Vec<Item>>,
}

impl<'a> Draft<'a> {
    pub fn new(original: &'a [Value]) -> Draft<'a> {
        Draft {
            original,
            texts: BTreeMap::new(),
            inputs: BTreeMap::new(),
            layout: (0..original.len()).map(Item::Keep).collect(),
            acts: Vec::new(),
            pass: 0,
            selected: std::collections::BTreeSet::new(),
        }
    }

    /// Records a change the current pass made.
    pub fn record(&mut self, action: Action, content: Content, message: usize, tokens_saved: i64) {
        self.acts.push(Act { pass: self.pass, action, content, message, refers_to: None, tokens_saved });
    }

    /// The current text of a slot of an original message.
    pub fn text(&self, at: TextRef) -> Option<&str> {
        match self.texts.get(&at) {
            Some(t) => Some(t.as_str()),
            None => slot_text(self.original.get(at.msg)?, at.slot),
        }
    }

    /// The current text of every text slot of original message `msg`, in document order.
    pub fn texts_of(&self, msg: usize) -> Vec<(Slot, &str)> {
        let Some(m) = self.original.get(msg) else { return Vec::new() };
        let mut out = slot_texts(m);
        let start = TextRef { msg, slot: Slot::Content };
        for (at, t) in self.texts.range(start..).take_while(|(at, _)| at.msg == msg) {
            if let Some(x) = out.iter_mut().find(|(slot, _)| *slot == at.slot) {
                x.1 = t.as_str();
            }
        }
        out
    }

    /// The text at `at` when this draft set it.
    pub fn changed_text(&self, at: TextRef) -> Option<&str> {
        self.texts.get(&at).map(String::as_str)
    }

    /// Whether the text at `at` is the original one (not set by this draft).
    pub fn is_original(&self, at: TextRef) -> bool {
        !self.texts.contains_key(&at)
    }

    pub fn set_text(&mut self, at: TextRef, text: String) {
        if slot_text(&self.original[at.msg], at.slot) == Some(text.as_str()) {
            self.texts.remove(&at);
        } else {
            self.texts.insert(at, text);
        }
    }

    /// The changed texts, in document order.
    pub fn changed_texts(&self) -> impl Iterator<Item = (TextRef, &str)> {
        self.texts.iter().map(|(at, t)| (*at, t.as_str()))
    }

    /// True when any string or tool input of original message `i` changed.
    pub fn is_message_changed(&self, i: usize) -> bool {
        self.texts.range(TextRef { msg: i, slot: Slot::Content }..).next().is_some_and(|(at, _)| at.msg == i)
            || self.inputs.range((i, 0)..).next().is_some_and(|((m, _), _)| *m == i)
    }

    pub fn is_text_changed(&self, at: TextRef) -> bool {
        self.texts.contains_key(&at)
    }

    /// The first original message whose tool input this draft changed.
    pub fn first_changed_input(&self) -> Option<usize> {
        self.inputs.keys().next().map(|(m, _)| *m)
    }

    /// The current input of the tool_use block `block` of message `msg`.
    pub fn input(&self, msg: usize, block: usize) -> Option<&Value> {
        self.inputs.get(&(msg, block)).or_else(|| self.original.get(msg)?.get("content")?.get(block)?.get("input"))
    }

    /// Whether the input of the tool_use at (`msg`, `block`) is the original one.
    pub fn is_input_original(&self, msg: usize, block: usize) -> bool {
        !self.inputs.contains_key(&(msg, block))
    }

    pub fn set_input(&mut self, msg: usize, block: usize, input: Value) {
        self.inputs.insert((msg, block), input);
    }

    /// An original message as it currently is.
    pub fn message(&self, i: usize) -> Cow<'a, Value> {
        let changed_text =
            self.texts.range(TextRef { msg: i, slot: Slot::Content }..).next().is_some_and(|(at, _)| at.msg == i);
        let changed_input = self.inputs.range((i, 0)..).next().is_some_and(|((m, _), _)| *m == i);
        if !changed_text && !changed_input {
            return Cow::Borrowed(&self.original[i]);
        }
        let mut m = self.original[i].clone();
        for (at, t) in self.texts.range(TextRef { msg: i, slot: Slot::Content }..).take_while(|(at, _)| at.msg == i) {
            set_slot_text(&mut m, at.slot, t.clone());
        }
        for ((_, block), input) in self.inputs.range((i, 0)..).take_while(|((mm, _), _)| *mm == i) {
            if let Some(b) = m.get_mut("content").and_then(|c| c.get_mut(*block)) {
                b["input"] = input.clone();
            }
        }
        Cow::Owned(m)
    }

    /// The current messages, in order.
    pub fn messages(&self) -> Vec<Cow<'_, Value>> {
        self.layout
            .iter()
            .map(|item| match item {
                Item::Keep(i) => self.message(*i),
                Item::New(v) => Cow::Borrowed(v),
            })
            .collect()
    }

    /// Original indices still in the layout, in order.
    pub fn kept(&self) -> Vec<usize> {
        self.layout.iter().filter_map(|i| if let Item::Keep(k) = i { Some(*k) } else { None }).collect()
    }

    /// Per original message, whether it is still in the layout.
    fn kept_mask(&self) -> Vec<bool> {
        let mut mask = vec![false; self.original.len()];
        for item in &self.layout {
            if let Item::Keep(k) = item {
                if let Some(m) = mask.get_mut(*k) {
                    *m = true;
                }
            }
        }
        mask
    }

    /// Tokens saved so far against the original messages: exact, counting only what changed.
    pub fn saved_tokens(&self, encoding: Encoding) -> i64 {
        let kept = self.kept_mask();
        let kept = |i: &usize| kept.get(*i).copied().unwrap_or(false);
        let mut texts: Vec<&str> = Vec::new();
        let mut signs: Vec<i64> = Vec::new();
        for (at, new) in &self.texts {
            if !kept(&at.msg) {
                continue;
            }
            if let Some(old) = slot_text(&self.original[at.msg], at.slot) {
                texts.extend([old, new.as_str()]);
                signs.extend([1, -1]);
            }
        }
        let mut fixed: i64 = 0;
        for ((m, b), input) in &self.inputs {
            if !kept(m) {
                continue;
            }
            let name = self.original[*m]["content"][*b]["name"].as_str().unwrap_or("");
            let old = self.original[*m]["content"][*b]
                .get("input")
                .map(|v| serde_json::to_string(v).unwrap_or_default())
                .unwrap_or_default();
            let new = serde_json::to_string(input).unwrap_or_default();
            fixed += crate::tokens::count(&format!("{name}{old}"), encoding) as i64
                - crate::tokens::count(&format!("{name}{new}"), encoding) as i64;
        }
        for (i, m) in self.original.iter().enumerate() {
            if !kept(&i) {
                fixed += count_message(m, encoding) as i64;
            }
        }
        for item in &self.layout {
            if let Item::New(v) = item {
                fixed -= count_message(v, encoding) as i64;
            }
        }
        let counts = count_many(&texts, encoding);
        fixed + counts.iter().zip(&signs).map(|(n, s)| *n as i64 * s).sum::<i64>()
    }

    pub fn changes(&self) -> Changes {
        let kept = self.kept_mask();
        let kept = |i: &usize| kept.get(*i).copied().unwrap_or(false);
        let identity = self.layout.len() == self.original.len()
            && self.layout.iter().enumerate().all(|(i, it)| *it == Item::Keep(i));
        Changes {
            texts: self.texts.iter().filter(|(at, _)| kept(&at.msg)).map(|(at, t)| (*at, t.clone())).collect(),
            inputs: self.inputs.iter().filter(|((m, _), _)| kept(m)).map(|(k, v)| (*k, v.clone())).collect(),
            layout: (!identity).then(|| self.layout.clone()),
        }
    }
}

/// The messages a set of changes produces (for tests and the CLI; JavaScript applies them itself).
pub fn materialize_changes(original: &[Value], changes: &Changes) -> Vec<Value> {
    let mut draft = Draft::new(original);
    for (at, t) in &changes.texts {
        draft.set_text(*at, t.clone());
    }
    for ((m, b), v) in &changes.inputs {
        draft.set_input(*m, *b, v.clone());
    }
    if let Some(layout) = &changes.layout {
        draft.layout = layout.clone();
    }
    draft.messages().into_iter().map(Cow::into_owned).collect()
}

/// Applies `changes` to `messages` in place, as the messages a condensation produced (kept
/// messages are moved, not copied). Answers, for each message now in `messages`, where it was
/// before (`None` for a written one) and whether its text or a tool input changed.
pub fn apply_in_place(messages: &mut Vec<Value>, changes: Changes) -> Vec<(Option<usize>, bool)> {
    let mut edited = vec![false; messages.len()];
    for (at, t) in changes.texts {
        if let Some(m) = messages.get_mut(at.msg) {
            edited[at.msg] |= set_slot_text(m, at.slot, t);
        }
    }
    for ((i, block), input) in changes.inputs {
        if let Some(b) = messages.get_mut(i).and_then(|m| m.get_mut("content")).and_then(|c| c.get_mut(block)) {
            b["input"] = input;
            edited[i] = true;
        }
    }
    let Some(layout) = changes.layout else {
        return edited.into_iter().enumerate().map(|(i, e)| (Some(i), e)).collect();
    };
    let mut old: Vec<Option<Value>> = std::mem::take(messages).into_iter().map(Some).collect();
    let mut origin = Vec::with_capacity(layout.len());
    for item in layout {
        match item {
            Item::Keep(i) => {
                // A layout names each original message at most once; a copy covers any other case.
                let m = old.get_mut(i).and_then(Option::take).unwrap_or_else(|| Value::Null);
                messages.push(m);
                origin.push((Some(i), edited.get(i).copied().unwrap_or(true)));
            }
            Item::New(v) => {
                messages.push(v);
                origin.push((None, true));
            }
        }
    }
    origin
}

/// Where each message of `layout` came from. A written message stands for the caller's
/// messages missing between the kept ones around it (a summary replaces one contiguous run;
/// when several written messages share a gap, the last one takes the run).
pub fn origins(layout: &[Item], original_len: usize, changed: impl Fn(usize) -> bool) -> Vec<Origin> {
    let mut out = Vec::with_capacity(layout.len());
    for (p, item) in layout.iter().enumerate() {
        match item {
            Item::Keep(i) => out.push(Origin::Kept { from: *i, changed: changed(*i) }),
            Item::New(_) => {
                let prev = layout[..p].iter().rev().find_map(|it| if let Item::Keep(k) = it { Some(*k) } else { None });
                let next = layout[p + 1..].iter().find_map(|it| if let Item::Keep(k) = it { Some(*k) } else { None });
                let last_in_gap = !matches!(layout.get(p + 1), Some(Item::New(_)));
                let first = prev.map_or(0, |k| k + 1);
                let end = next.unwrap_or(original_len);
                let covers = (last_in_gap && first < end).then(|| [first, end - 1]);
                out.push(Origin::Summary { covers, summary: true });
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use crate::tokens::count_messages;

    #[test]
    fn saved_tokens_is_the_exact_difference() {
        let original = vec![
            json!({"role":"user","content":[{"type":"text","text":"first message with some words"}]}),
            json!({"role":"assistant","content":[{"type":"text","text":"a long answer ".repeat(50)},{"type":"tool_use","id":"t","name":"write_to_file","input":{"path":"a","content":"x ".repeat(300)}}]}),
            json!({"role":"user","content":[{"type":"tool_result","tool_use_id":"t","content":"ok ".repeat(80)}]}),
            json!({"role":"assistant","content":"done"}),
        ];
        let mut d = Draft::new(&original);
        d.set_text(TextRef { msg: 1, slot: Slot::Text(0) }, "short".into());
        d.set_input(1, 1, json!({"path":"a","content":"x"}));
        d.layout = vec![
            Item::Keep(0),
            Item::Keep(1),
            Item::Keep(2),
            Item::New(json!({"role":"user","content":"summary","isSummary":true})),
            Item::Keep(3),
        ];
        d.layout.remove(2);
        let now: Vec<Value> = d.messages().into_iter().map(Cow::into_owned).collect();
        let expected =
            count_messages(&original, Encoding::O200kBase) as i64 - count_messages(&now, Encoding::O200kBase) as i64;
        assert_eq!(d.saved_tokens(Encoding::O200kBase), expected);
        assert_eq!(materialize_changes(&original, &d.changes()), now);
        let mut in_place = original.clone();
        let origin = apply_in_place(&mut in_place, d.changes());
        assert_eq!(in_place, now);
        assert_eq!(origin, vec![(Some(0), false), (Some(1), true), (None, true), (Some(3), false)]);
        assert_eq!(
            original[1]["content"][1]["input"]["content"].as_str().map(str::len),
            Some(600),
            "the original is untouched"
        );
    }

    #[test]
    fn a_summary_covers_the_messages_missing_around_it() {
        let layout = vec![Item::Keep(0), Item::New(json!({})), Item::Keep(5), Item::Keep(6)];
        let o = origins(&layout, 7, |i| i == 6);
        assert_eq!(
            o,
            vec![
                Origin::Kept { from: 0, changed: false },
                Origin::Summary { covers: Some([1, 4]), summary: true },
                Origin::Kept { from: 5, changed: false },
                Origin::Kept { from: 6, changed: true },
            ]
        );
        let tail = vec![Item::Keep(0), Item::New(json!({})), Item::New(json!({}))];
        assert_eq!(
            origins(&tail, 3, |_| false)[1..],
            [Origin::Summary { covers: None, summary: true }, Origin::Summary { covers: Some([1, 2]), summary: true }]
        );
    }
}
