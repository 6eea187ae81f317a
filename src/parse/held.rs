//! The semantic view of a history held between calls (`ViewCache`): what each message adds to the
//! view is kept, with the fields that decide which messages are sent, the ids of its tool calls
//! and whether its structure was found sound, so a conversation that grows by a message or two
//! works again only on the messages that are new or changed. What it answers is what
//! `View::build` and `first_structural_problem` answer on the same messages.
//!
//! The holder says what changed (`pushed`, `changed`, `truncated`, `rearranged`); every message
//! version gets a stamp, and a piece whose native results were matched with tool calls is built
//! again when any of those calls now lives in another message version. It reads the messages,
//! never changes them.

use std::collections::HashMap;
use std::sync::Arc;

use crate::json::Value;

use super::tool_calls::XmlCall;
use super::{tool_uses_in, Env, Piece, ToolResult, ToolUse, View};
use crate::model::{active_by_marks, Marks, Slot, Span, TextRef};
use crate::reference::{locate, references_in, ParsedRef};
use crate::validate::{structural_problem, Problem};

/// What decides, for a message, which messages are sent and where tool calls are.
#[derive(Debug)]
struct Meta {
    /// `None` for a message without marks (most of them).
    marks: Option<Box<Marks>>,
    /// (id, block index) of its tool_use blocks.
    uses: Box<[(Box<str>, usize)]>,
    /// The reference markers in its texts (an earlier condensing's).
    refs: Box<[ParsedRef]>,
}

impl Meta {
    fn of(m: &Value) -> Meta {
        let marks = Marks::of(m);
        Meta {
            marks: (marks != NO_MARKS).then(|| Box::new(marks)),
            uses: tool_uses_in(m).map(|(j, id, _)| (Box::from(id), j)).collect(),
            refs: references_in(m).into(),
        }
    }

    fn marks(&self) -> &Marks {
        self.marks.as_deref().unwrap_or(&NO_MARKS)
    }
}

const NO_MARKS: Marks = Marks {
    condense_id: None,
    truncation_id: None,
    condense_parent: None,
    truncation_parent: None,
    condensed_by: None,
    summary: false,
    truncation_marker: false,
};

/// One thing a message adds to the view (its `Piece`), or a tool call it was read with.
#[derive(Debug)]
enum Part {
    Result(Arc<ToolResult>),
    Env(Env),
    Protected(Span),
    Call(TextRef, Option<Arc<XmlCall>>),
    /// A tool_use id its native results were matched with, and the stamp of the message it was
    /// found in.
    Use(Box<str>, Option<u64>),
}

/// What a message adds to the view and the tool calls it was read with, in one list at its
/// exact size (one allocation a message, where a `Piece` holds five lists).
#[derive(Debug)]
struct Built(Box<[Part]>);

impl Built {
    fn new(piece: Piece, stamps: &[u64]) -> Built {
        let Piece { results, env, protected, uses, calls } = piece;
        let mut parts = Vec::with_capacity(results.len() + env.len() + protected.len() + calls.len() + uses.len());
        parts.extend(results.into_iter().map(Part::Result));
        parts.extend(env.into_iter().map(Part::Env));
        parts.extend(protected.into_iter().map(Part::Protected));
        parts.extend(calls.into_iter().map(|(at, call)| Part::Call(at, call)));
        parts.extend(uses.into_iter().map(|(id, at)| Part::Use(id.into_boxed_str(), at.map(|j| stamps[j]))));
        Built(parts.into_boxed_slice())
    }

    /// The tool_use ids it was read with, and the stamps of the messages they were found in.
    fn uses(&self) -> impl Iterator<Item = (&str, Option<u64>)> {
        self.0.iter().filter_map(|p| match p {
            Part::Use(id, stamp) => Some((&**id, *stamp)),
            _ => None,
        })
    }

    /// Adds a copy of what the message holds to `view` (messages in order; the results and
    /// blocks are shared).
    fn add_to(&self, view: &mut View) {
        for part in self.0.iter() {
            match part {
                Part::Result(r) => view.results.push(r.clone()),
                Part::Env(e) => view.env.push(e.clone()),
                Part::Protected(s) => view.protected.push(s.clone()),
                Part::Call(at, call) => view.calls.push((*at, call.clone())),
                Part::Use(..) => {}
            }
        }
    }

    /// The same parts for the same message at index `msg`.
    fn moved_to(&mut self, msg: usize) {
        for part in self.0.iter_mut() {
            match part {
                Part::Result(r) => {
                    let r = Arc::make_mut(r);
                    r.msg = msg;
                    for s in &mut r.body {
                        s.at.msg = msg;
                    }
                    for f in &mut r.reads {
                        f.at.msg = msg;
                    }
                }
                Part::Env(e) => e.at.msg = msg,
                Part::Protected(s) => s.at.msg = msg,
                Part::Call(at, _) => at.msg = msg,
                Part::Use(..) => {}
            }
        }
    }
}

/// The view of the messages a holder keeps, message by message; see the module doc.
/// A reference's place in the located cache: the stamps of its own message and of its target, and
/// its place among its message's references.
type LocatedKey = (u64, u64, usize);

#[derive(Debug, Default)]
pub struct ViewCache {
    stamps: Vec<u64>,
    sound: Vec<bool>,
    // Per message, once known (`None` until then). Shorter than `stamps` until a view is asked
    // for: a holder that never asks keeps no room for them.
    metas: Vec<Option<Meta>>,
    pieces: Vec<Option<Built>>,
    /// Where each reference in the history was located, by the stamps of its own message and of
    /// its target and its place among its message's references: kept while both are unchanged.
    located: HashMap<LocatedKey, Option<(Slot, std::ops::Range<usize>)>>,
    next: u64,
}

impl ViewCache {
    pub fn new() -> Self {
        Self::default()
    }

    fn stamp(&mut self) -> u64 {
        self.next += 1;
        self.next
    }

    /// `n` messages were added at the end.
    pub fn pushed(&mut self, n: usize) {
        use crate::memory::reserve_modestly;
        reserve_modestly(&mut self.stamps, n);
        reserve_modestly(&mut self.sound, n);
        for _ in 0..n {
            let s = self.stamp();
            self.stamps.push(s);
            self.sound.push(false);
        }
    }

    /// The message at `index` is another one now.
    pub fn changed(&mut self, index: usize) {
        if index < self.stamps.len() {
            self.stamps[index] = self.stamp();
            self.sound[index] = false;
            if let Some(meta) = self.metas.get_mut(index) {
                *meta = None;
            }
            if let Some(piece) = self.pieces.get_mut(index) {
                *piece = None;
            }
        }
    }

    /// Only the first `length` messages stay.
    pub fn truncated(&mut self, length: usize) {
        self.stamps.truncate(length);
        self.sound.truncate(length);
        self.metas.truncate(length);
        self.pieces.truncate(length);
    }

    /// The messages were rearranged: per message now held, its index before and whether it was
    /// edited (no index: a new message).
    pub fn rearranged(&mut self, origin: &[(Option<usize>, bool)]) {
        let n = origin.len();
        let old_stamps = std::mem::replace(&mut self.stamps, Vec::with_capacity(n));
        let old_sound = std::mem::replace(&mut self.sound, Vec::with_capacity(n));
        let mut old_metas = std::mem::replace(&mut self.metas, Vec::with_capacity(n));
        let mut old_pieces = std::mem::replace(&mut self.pieces, Vec::with_capacity(n));
        let mut taken = vec![false; old_stamps.len()];
        for (i, (at, edited)) in origin.iter().enumerate() {
            // A message kept as it was, once: it keeps what is known of it.
            let kept = at.filter(|&j| !edited && j < taken.len() && !std::mem::replace(&mut taken[j], true));
            let stamp = match kept {
                Some(j) => {
                    self.sound.push(old_sound[j]);
                    self.metas.push(old_metas.get_mut(j).and_then(Option::take));
                    let mut piece = old_pieces.get_mut(j).and_then(Option::take);
                    if let (Some(b), true) = (piece.as_mut(), j != i) {
                        b.moved_to(i);
                    }
                    self.pieces.push(piece);
                    old_stamps[j]
                }
                None => {
                    self.sound.push(false);
                    self.metas.push(None);
                    self.pieces.push(None);
                    self.stamp()
                }
            };
            self.stamps.push(stamp);
        }
    }

    /// Forgets everything (the holder let go of its messages).
    pub fn clear(&mut self) {
        *self = ViewCache { next: self.next, ..ViewCache::default() };
    }

    /// A cache out of step with `messages` (another length: the holder did not say) starts over.
    fn sync(&mut self, messages: &[Value]) {
        if self.stamps.len() != messages.len() {
            self.truncated(0);
            self.pushed(messages.len());
        }
    }

    /// Room for what is known of every message, once a view is asked for (until then a message
    /// costs its stamp and check alone).
    fn make_room(&mut self) {
        use crate::memory::reserve_modestly;
        fn fill<T>(v: &mut Vec<Option<T>>, n: usize) {
            reserve_modestly(v, n.saturating_sub(v.len()));
            v.resize_with(n, || None);
        }
        fill(&mut self.metas, self.stamps.len());
        fill(&mut self.pieces, self.stamps.len());
    }

    /// The first structural problem of `messages`, as `first_structural_problem` finds it,
    /// checking only the messages not found sound before.
    pub fn first_structural_problem(&mut self, messages: &[Value]) -> Option<Problem> {
        self.sync(messages);
        for (i, m) in messages.iter().enumerate() {
            if !self.sound[i] {
                if let Some(p) = structural_problem(i, m) {
                    return Some(p);
                }
                self.sound[i] = true;
            }
        }
        None
    }

    /// The view of `messages`, the messages this cache was told about: equal to
    /// `View::build(messages)`.
    pub fn view(&mut self, messages: &[Value]) -> View {
        self.sync(messages);
        self.make_room();
        for (meta, m) in self.metas.iter_mut().zip(messages) {
            if meta.is_none() {
                *meta = Some(Meta::of(m));
            }
        }
        let metas = &self.metas;
        let active = active_by_marks(metas.iter().map(|m| m.as_ref().map_or(&NO_MARKS, Meta::marks)));
        let mut ids: HashMap<&str, (usize, usize)> = HashMap::new();
        for (msg, meta) in metas.iter().enumerate() {
            for (id, j) in meta.iter().flat_map(|m| m.uses.iter()) {
                ids.insert(&**id, (msg, *j));
            }
        }
        let find = |id: &str| {
            let &(msg, j) = ids.get(id)?;
            Some(ToolUse::at(msg, messages[msg].get("content")?.get(j)?))
        };
        let stamps = &self.stamps;
        let current = |id: &str| ids.get(id).map(|&(msg, _)| stamps[msg]);
        let mut view = View { active, ..View::default() };
        for (i, m) in messages.iter().enumerate() {
            if !view.active[i] {
                continue;
            }
            let slot = &mut self.pieces[i];
            let fits = slot.as_ref().is_some_and(|b| b.uses().all(|(id, stamp)| current(id) == stamp));
            if !fits {
                *slot = Some(Built::new(Piece::of(i, m, &find, true), stamps));
            }
            if let Some(b) = slot {
                b.add_to(&mut view);
            }
        }
        view.earlier_targets = Some(self.locate_references(messages));
        view.referring = Some(
            self.metas
                .iter()
                .enumerate()
                .filter(|(_, m)| m.as_ref().is_some_and(|m| !m.refs.is_empty()))
                .map(|(i, _)| i)
                .collect(),
        );
        view
    }

    /// Where what every reference in `messages` stands for is: located once per version of the
    /// message holding it and of its target (a hash of the target each), then kept.
    fn locate_references(&mut self, messages: &[Value]) -> Vec<Span> {
        let mut located = HashMap::with_capacity(self.located.len());
        let mut out = Vec::new();
        for (own, meta) in self.metas.iter().enumerate() {
            for (k, r) in meta.iter().flat_map(|m| m.refs.iter()).enumerate() {
                let Some(target) = messages.get(r.msg) else { continue };
                let key = (self.stamps[own], self.stamps[r.msg], k);
                let at = self.located.remove(&key).unwrap_or_else(|| locate(target, own, r));
                if let Some((slot, range)) = &at {
                    out.push(Span { at: TextRef { msg: r.msg, slot: *slot }, range: range.clone() });
                }
                located.insert(key, at);
            }
        }
        self.located = located;
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::json;
    use crate::model::{is_summary, role, slot_text, text_slots, Slot, TextRef};
    use crate::parse::tool_calls::find_xml_call;
    use crate::validate::first_structural_problem;

    /// The held view is the built one, plus the XML tool call of every active assistant text.
    fn same(held: View, built: &View, messages: &[Value]) -> bool {
        let calls_fit = held.calls.iter().all(|(at, call)| {
            let text = slot_text(&messages[at.msg], at.slot).unwrap_or("");
            call.as_deref() == find_xml_call(text).as_ref()
        });
        // Every active assistant text has its entry.
        let assistant_texts: usize = messages
            .iter()
            .enumerate()
            .filter(|(i, m)| held.active[*i] && !is_summary(m) && role(m) == Some("assistant"))
            .map(|(_, m)| text_slots(m).len())
            .sum();
        let all_there = held.calls.len() == assistant_texts;
        let without = View { calls: vec![], earlier_targets: None, referring: None, ..held };
        calls_fit && all_there && format!("{without:?}") == format!("{built:?}")
    }

    fn result_msg(id: &str, text: &str) -> Value {
        json!({"role":"user","content":[{"type":"tool_result","tool_use_id":id,"content":text}]})
    }

    fn call(id: &str, path: &str) -> Value {
        json!({"role":"assistant","content":[{"type":"tool_use","id":id,"name":"read_file","input":{"path":path}}]})
    }

    #[test]
    fn the_held_view_is_the_built_view_through_every_change() {
        let read = |p: &str| {
            format!("<files>\n<file><path>{p}</path>\n<content lines=\"1-1\">\n1 | x\n</content>\n</file>\n</files>")
        };
        let mut messages = vec![
            json!({"role":"user","content":[{"type":"text","text":"<task>do</task>"}]}),
            json!({"role":"assistant","content":[{"type":"text","text":"Writing it.\n<write_to_file>\n<path>x</path>\n<content>\nbody\n</content>\n</write_to_file>"}]}),
            json!({"role":"user","content":[{"type":"text","text":"[write_to_file for 'x'] Result:"},{"type":"text","text":"done"}]}),
            call("a", "src/a.ts"),
            result_msg("a", &read("src/a.ts")),
        ];
        let mut cache = ViewCache::new();
        cache.pushed(messages.len());
        let v = cache.view(&messages);
        assert_eq!(
            v.call_at(TextRef { msg: 1, slot: Slot::Text(0) }).map(|c| c.map(|c| c.tool)),
            Some(Some("write_to_file"))
        );
        assert!(same(v, &View::build(&messages), &messages));

        // Appended messages.
        messages.push(call("b", "src/b.ts"));
        messages.push(result_msg("b", &read("src/b.ts")));
        cache.pushed(2);
        assert!(same(cache.view(&messages), &View::build(&messages), &messages));

        // The tool call a held result was read with changes: the result is read again.
        messages[3] = call("a", "src/other.ts");
        cache.changed(3);
        let v = cache.view(&messages);
        assert_eq!(v.results[1].arg.as_deref(), Some("src/other.ts"));
        assert!(same(v, &View::build(&messages), &messages));

        // A later message takes over a tool call id.
        messages.push(call("a", "src/late.ts"));
        cache.pushed(1);
        let v = cache.view(&messages);
        assert_eq!(v.results[1].arg.as_deref(), Some("src/late.ts"));
        assert!(same(v, &View::build(&messages), &messages));

        // A summary hides the messages before it once they name it.
        messages.truncate(7);
        cache.truncated(7);
        assert!(same(cache.view(&messages), &View::build(&messages), &messages));
        let mut hidden = messages[5].clone();
        hidden["condenseParent"] = json!("s1");
        let moved = vec![
            messages[0].clone(),
            hidden,
            json!({"role":"user","isSummary":true,"condenseId":"s1","content":[{"type":"text","text":"summary"}]}),
            messages[4].clone(),
            result_msg("b", "edited"),
        ];
        cache.rearranged(&[(Some(0), false), (Some(5), true), (None, false), (Some(4), false), (Some(6), true)]);
        let v = cache.view(&moved);
        assert_eq!(v.active, vec![true, false, true, true, true]);
        assert!(same(v, &View::build(&moved), &moved));

        // Out of step (the holder did not say): starts over and still answers the right view.
        let other = vec![messages[0].clone(), messages[1].clone(), messages[5].clone()];
        assert!(same(cache.view(&other), &View::build(&other), &other));
    }

    /// Where each reference in `messages` points, located afresh.
    fn located_afresh(messages: &[Value]) -> Vec<Span> {
        let mut out = Vec::new();
        for (own, m) in messages.iter().enumerate() {
            for r in references_in(m) {
                if let Some((slot, range)) = messages.get(r.msg).and_then(|t| locate(t, own, &r)) {
                    out.push(Span { at: TextRef { msg: r.msg, slot }, range });
                }
            }
        }
        out
    }

    #[test]
    fn references_are_located_once_and_again_when_their_target_changes() {
        let read = format!(
            "<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-3\">\n{}</content>\n</file>\n</files>",
            (1..=3).map(|i| format!("{i} | const line{i} = {i} // the same file read twice\n")).collect::<String>()
        );
        let history = vec![
            json!({"role":"user","content":[{"type":"text","text":"<task>read it twice</task>"}]}),
            call("a", "src/a.ts"),
            result_msg("a", &read),
            call("b", "src/a.ts"),
            result_msg("b", &read),
        ];
        let options = crate::condense::Options::from_value(&serde_json::json!({"provider":"lossless"})).unwrap();
        let outcome =
            crate::condense::condense(&history, &options, &std::sync::atomic::AtomicBool::new(false), None).unwrap();
        let mut messages = crate::draft::materialize_changes(&history, &outcome.changes);
        let expected = located_afresh(&messages);
        assert_eq!(expected.len(), 1, "the second read became a reference to the first");
        let mut cache = ViewCache::new();
        cache.pushed(messages.len());
        assert_eq!(cache.view(&messages).earlier_targets.as_deref(), Some(&expected[..]));
        // Kept while nothing changes; a change to an unrelated message keeps it too.
        messages.push(json!({"role":"assistant","content":"done"}));
        cache.pushed(1);
        assert_eq!(cache.view(&messages).earlier_targets.as_deref(), Some(&expected[..]));
        // The target changes: located again (its bytes are gone, so nothing is kept).
        messages[2] = result_msg("a", "something else");
        cache.changed(2);
        assert_eq!(cache.view(&messages).earlier_targets, Some(located_afresh(&messages)));
        assert_eq!(cache.view(&messages).earlier_targets, Some(vec![]));
    }

    #[test]
    fn changes_before_any_view_are_kept_track_of() {
        let mut messages = vec![call("a", "src/a.ts"), result_msg("a", "one"), call("b", "src/b.ts")];
        let mut cache = ViewCache::new();
        cache.pushed(3);
        messages[1] = result_msg("a", "two");
        cache.changed(1);
        messages.push(result_msg("b", "three"));
        cache.pushed(1);
        let moved = vec![messages[2].clone(), messages[3].clone(), messages[0].clone(), messages[1].clone()];
        cache.rearranged(&[(Some(2), false), (Some(3), false), (Some(0), false), (Some(1), true)]);
        assert!(same(cache.view(&moved), &View::build(&moved), &moved));
        cache.truncated(2);
        assert!(same(cache.view(&moved[..2]), &View::build(&moved[..2]), &moved[..2]));
    }

    #[test]
    fn the_held_check_finds_what_the_whole_check_finds() {
        let mut messages = vec![json!({"role":"user","content":"a"}), json!({"role":"assistant","content":"b"})];
        let mut cache = ViewCache::new();
        cache.pushed(2);
        assert_eq!(cache.first_structural_problem(&messages), None);
        messages.push(json!({"role":"robot","content":"c"}));
        cache.pushed(1);
        let found = cache.first_structural_problem(&messages);
        assert!(found.is_some());
        assert_eq!(found, first_structural_problem(&messages));
        messages[2] = json!({"role":"user","content":"c"});
        cache.changed(2);
        assert_eq!(cache.first_structural_problem(&messages), None);
        messages[0] = json!({"role":"user","content":7});
        cache.changed(0);
        assert_eq!(cache.first_structural_problem(&messages), first_structural_problem(&messages));
    }
}
