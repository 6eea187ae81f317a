//! The edits passes propose, and applying them. A pass never changes a message: it adds
//! `Edit`s (a byte range of one string, its replacement, which operation, reversible or not).
//! The set refuses an edit that overlaps protected text (what the user typed, summaries),
//! another edit, or content a reference points at. Applying rebuilds only the strings that
//! have edits, counts their tokens before and after, and undoes every edit of a string that
//! would not get smaller, so no edit can make the context grow.

use std::collections::{BTreeMap, HashMap};

use crate::json::Value;

use crate::error::CondenseError;
use crate::model::{set_slot_text, slot_text, Span, TextRef};
use crate::provenance::{Act, Action, Content};
use crate::tokens::{count_many_within, Cancel, Encoding};

/// Whether `expandReferences` can restore what an edit removed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// A reference to identical bytes kept elsewhere: expandable, byte for byte.
    Reversible,
    /// Replaced by a marker naming what supersedes it: not expandable by design.
    Superseded,
}

#[derive(Debug, Clone)]
pub struct Edit {
    pub span: Span,
    pub replacement: String,
    pub kind: Kind,
    /// For references: the span holding the bytes, which must stay as it is.
    pub target: Option<Span>,
    /// What kind of content the span is in.
    pub content: Content,
    /// The message holding the copy a reference points at, or the content that supersedes.
    pub refers_to: usize,
}

/// The edits proposed so far, indexed by the string they change.
#[derive(Debug, Default)]
pub struct EditSet<'a> {
    edits: Vec<Option<Edit>>,
    /// The pass that proposed each edit (the set's `pass` when it was added or replaced).
    pass_of: Vec<usize>,
    /// The pass now proposing (the runner sets it before each).
    pub pass: usize,
    by_text: HashMap<TextRef, Vec<usize>>,
    protected: HashMap<TextRef, Vec<std::ops::Range<usize>>>,
    /// Reference targets per string: (range, number of live references to it).
    pinned: HashMap<TextRef, Vec<(std::ops::Range<usize>, usize)>>,
    /// What the references already in the history stand for, located when an edit would touch it.
    earlier: Option<crate::reference::Targets<'a>>,
}

impl<'a> EditSet<'a> {
    pub fn new(protected: &[Span]) -> EditSet<'a> {
        let mut set = EditSet::default();
        for s in protected {
            set.protected.entry(s.at).or_default().push(s.range.clone());
        }
        set
    }

    /// Keeps what the references already in the history stand for as it is (`reference::Targets`),
    /// as the target of an edit's reference is kept.
    pub fn keep_targets(&mut self, earlier: crate::reference::Targets<'a>) {
        self.earlier = Some(earlier);
    }

    /// Keeps `span` as it is: it holds what a reference already in the history stands for.
    pub fn keep_target(&mut self, span: &Span) {
        self.pin(Some(span));
    }

    /// True when no edit, protected text or reference target overlaps `span`.
    pub fn is_free(&self, span: &Span) -> bool {
        !self.is_protected(span) && !self.is_pinned(span) && self.edit_at(span).is_none()
    }

    pub fn is_protected(&self, span: &Span) -> bool {
        self.protected
            .get(&span.at)
            .is_some_and(|rs| rs.iter().any(|r| r.start < span.range.end && span.range.start < r.end))
    }

    pub fn is_pinned(&self, span: &Span) -> bool {
        self.pinned
            .get(&span.at)
            .is_some_and(|rs| rs.iter().any(|(r, _)| r.start < span.range.end && span.range.start < r.end))
            || self.earlier.as_ref().is_some_and(|t| t.overlaps(span))
    }

    /// Index of the edit overlapping `span`, if any.
    pub fn edit_at(&self, span: &Span) -> Option<usize> {
        self.by_text
            .get(&span.at)?
            .iter()
            .copied()
            .find(|&i| self.edits[i].as_ref().is_some_and(|e| e.span.overlaps(span)))
    }

    /// Index of the edit whose span is exactly `span`.
    pub fn edit_exactly_at(&self, span: &Span) -> Option<usize> {
        self.by_text.get(&span.at)?.iter().copied().find(|&i| self.edits[i].as_ref().is_some_and(|e| e.span == *span))
    }

    pub fn get(&self, i: usize) -> Option<&Edit> {
        self.edits.get(i).and_then(Option::as_ref)
    }

    /// Adds an edit if it overlaps nothing it must not; its target must be unedited.
    pub fn add(&mut self, edit: Edit) -> bool {
        if !self.is_free(&edit.span) {
            return false;
        }
        if let Some(t) = &edit.target {
            if self.edit_at(t).is_some() || t.overlaps(&edit.span) {
                return false;
            }
        }
        self.pin(edit.target.as_ref());
        let i = self.edits.len();
        self.by_text.entry(edit.span.at).or_default().push(i);
        self.edits.push(Some(edit));
        self.pass_of.push(self.pass);
        true
    }

    /// Replaces edit `i` by another over the same span (a reference that turned out superseded).
    pub fn replace(&mut self, i: usize, edit: Edit) {
        if let Some(old) = self.edits[i].take() {
            self.unpin(old.target.as_ref());
        }
        self.pin(edit.target.as_ref());
        self.edits[i] = Some(edit);
        self.pass_of[i] = self.pass;
    }

    fn pin(&mut self, target: Option<&Span>) {
        let Some(t) = target else { return };
        let list = self.pinned.entry(t.at).or_default();
        match list.iter_mut().find(|(r, _)| *r == t.range) {
            Some((_, n)) => *n += 1,
            None => list.push((t.range.clone(), 1)),
        }
    }

    fn unpin(&mut self, target: Option<&Span>) {
        let Some(t) = target else { return };
        if let Some(list) = self.pinned.get_mut(&t.at) {
            if let Some(k) = list.iter().position(|(r, _)| *r == t.range) {
                list[k].1 -= 1;
                if list[k].1 == 0 {
                    list.swap_remove(k);
                }
            }
        }
    }

    pub fn len(&self) -> usize {
        self.edits.iter().flatten().count()
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub fn iter(&self) -> impl Iterator<Item = &Edit> {
        self.edits.iter().flatten()
    }

    /// Each edit with the pass that proposed it.
    fn iter_with_pass(&self) -> impl Iterator<Item = (&Edit, usize)> {
        self.edits.iter().zip(&self.pass_of).filter_map(|(e, p)| Some((e.as_ref()?, *p)))
    }
}

/// The result of applying an edit set: the new strings and what they saved.
#[derive(Debug, Default)]
pub struct Applied {
    /// New text of each changed string, in document order.
    pub changes: Vec<(TextRef, String)>,
    /// Tokens saved in total (old minus new, over the changed strings).
    pub tokens_saved: i64,
    pub edits_rolled_back: usize,
    /// One act per edit applied, in document order, each with the pass that proposed it.
    pub acts: Vec<Act>,
}

/// A string rebuilt with its edits: where, the old text, the new one, the edits and their passes.
type Rebuilt<'a> = (TextRef, &'a str, String, Vec<(&'a Edit, usize)>);

/// Builds the new strings, measures them, and drops the edits of any string that would not
/// get smaller. Measuring stops when `cancel` says so.
pub fn apply(messages: &[Value], set: &EditSet, encoding: Encoding, cancel: Cancel) -> Result<Applied, CondenseError> {
    let mut grouped: BTreeMap<TextRef, Vec<(&Edit, usize)>> = BTreeMap::new();
    for (e, pass) in set.iter_with_pass() {
        grouped.entry(e.span.at).or_default().push((e, pass));
    }
    let mut rebuilt: Vec<Rebuilt> = Vec::with_capacity(grouped.len());
    for (at, mut edits) in grouped {
        let Some(old) = messages.get(at.msg).and_then(|m| slot_text(m, at.slot)) else {
            continue;
        };
        edits.sort_by_key(|(e, _)| e.span.range.start);
        let mut new = String::with_capacity(old.len() / 4);
        let mut pos = 0;
        let mut valid = true;
        for (e, _) in &edits {
            let r = &e.span.range;
            if r.start < pos || r.end > old.len() || !old.is_char_boundary(r.start) || !old.is_char_boundary(r.end) {
                valid = false;
                break;
            }
            new.push_str(&old[pos..r.start]);
            new.push_str(&e.replacement);
            pos = r.end;
        }
        if !valid {
            continue;
        }
        new.push_str(&old[pos..]);
        rebuilt.push((at, old, new, edits));
    }

    let mut texts: Vec<&str> = Vec::with_capacity(rebuilt.len() * 2);
    for (_, old, new, _) in &rebuilt {
        texts.push(old);
        texts.push(new.as_str());
    }
    let counts = count_many_within(&texts, encoding, cancel)?;

    let mut applied = Applied::default();
    for (i, (at, _old, new, edits)) in rebuilt.into_iter().enumerate() {
        let before = counts[2 * i] as i64;
        let after = counts[2 * i + 1] as i64;
        if after >= before {
            applied.edits_rolled_back += edits.len();
            continue;
        }
        let saved = before - after;
        // Split the string's exact saving between its edits by the bytes each removed.
        let weights: Vec<i64> =
            edits.iter().map(|(e, _)| (e.span.range.len() as i64 - e.replacement.len() as i64).max(1)).collect();
        let total: i64 = weights.iter().sum();
        let mut given = 0;
        for (k, ((e, pass), w)) in edits.iter().zip(&weights).enumerate() {
            let share = if k + 1 == edits.len() { saved - given } else { saved * w / total };
            given += share;
            let action = match e.kind {
                Kind::Reversible => Action::Deduplicated,
                Kind::Superseded => Action::Superseded,
            };
            applied.acts.push(Act {
                pass: *pass,
                action,
                content: e.content,
                message: at.msg,
                refers_to: Some(e.refers_to),
                tokens_saved: share,
            });
        }
        applied.tokens_saved += saved;
        applied.changes.push((at, new));
    }
    Ok(applied)
}

/// The messages with the changes applied: changed messages are copies, the others clones.
pub fn materialize(messages: &[Value], changes: &[(TextRef, String)]) -> Vec<Value> {
    let mut out = messages.to_vec();
    for (at, text) in changes {
        if let Some(m) = out.get_mut(at.msg) {
            set_slot_text(m, at.slot, text.clone());
        }
    }
    out
}
