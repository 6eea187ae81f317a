//! The per-content-type operations of the three-level content model: in the
//! selected messages, each piece of content — message text, tool parameters, tool results (and
//! environment details, which are neither) — is kept, suppressed, truncated or summarized as its
//! type's operation says. Truncation is this pass once; Smart's individual mode runs it per pass.
//!
//! Never touches: messages outside the selection, summaries and other messages the condensation
//! wrote, error results and what the user typed (unless the config says so in so many words),
//! message order, tool pairing (blocks are shortened, never removed). A change that would not
//! make its content smaller is not made. Oldest content goes first, so a token target stops it
//! with the most recent content intact. With a working-set guard (Smart's `workingSet`), the
//! latest state of the files in it stays whole or gives way to its outline, whatever the
//! operation (other files shown in the same result are shortened as the operation says).

use std::borrow::Cow;
use std::collections::HashMap;
use std::sync::Arc;

use crate::json::Value;

pub use super::op_spec::{OpSpec, Operation, SummarizeParams};
use super::shorten::{suppress, truncate};
use crate::draft::Draft;
use crate::llm::{Purpose, RequestMessage, SummarizeRequest, Summarizer};
use crate::model::{is_summary, role, slot_text, TextRef};
use crate::parse::tool_calls::{find_xml_call, XmlCall};
use crate::parse::{ToolResult, View};
use crate::provenance::{Action, Content};
use crate::tokens::{count, count_many, Encoding};
use crate::working_set::{rewrite_reads, Guard};

/// The kinds of content a message holds.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    MessageText,
    ToolParameters,
    ToolResults,
    EnvironmentDetails,
}

impl Kind {
    fn content(self) -> Content {
        match self {
            Kind::MessageText => Content::MessageText,
            Kind::ToolParameters => Content::ToolParameters,
            Kind::ToolResults => Content::ToolResults,
            Kind::EnvironmentDetails => Content::EnvironmentDetails,
        }
    }

    fn purpose(self) -> Purpose {
        match self {
            Kind::MessageText | Kind::EnvironmentDetails => Purpose::MessageText,
            Kind::ToolParameters => Purpose::ToolParameters,
            Kind::ToolResults => Purpose::ToolResult,
        }
    }
}

/// Operations per content type, with the size below which content is left alone (tokens).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ContentOps {
    pub message_text: OpSpec,
    pub tool_parameters: OpSpec,
    pub tool_results: OpSpec,
    pub environment_details: OpSpec,
    pub min_tokens: HashMap<&'static str, usize>,
    pub preserve_user_text: bool,
    pub preserve_errors: bool,
}

impl ContentOps {
    fn spec(&self, kind: Kind) -> &OpSpec {
        match kind {
            Kind::MessageText => &self.message_text,
            Kind::ToolParameters => &self.tool_parameters,
            Kind::ToolResults => &self.tool_results,
            Kind::EnvironmentDetails => &self.environment_details,
        }
    }

    fn min(&self, kind: Kind) -> usize {
        let key = match kind {
            Kind::MessageText => "messageText",
            Kind::ToolParameters => "toolParameters",
            Kind::ToolResults => "toolResults",
            Kind::EnvironmentDetails => "environmentDetails",
        };
        self.min_tokens.get(key).copied().unwrap_or(0)
    }
}

/// Where a piece of content lives, so its current text can be read and replaced.
#[derive(Debug, Clone, PartialEq)]
enum Place {
    /// A string slot from byte `start` on (a legacy result keeps its header line before it).
    Slot { at: TextRef, start: usize },
    /// Assistant prose: a text slot up to its XML tool call, if any.
    Prose { at: TextRef },
    /// The value of a long parameter of the XML tool call in a text slot.
    XmlParam { at: TextRef, name: String },
    /// A string inside a native tool_use input.
    Input { msg: usize, block: usize, pointer: String },
}

impl Place {
    fn msg(&self) -> usize {
        match self {
            Place::Slot { at, .. } | Place::Prose { at } | Place::XmlParam { at, .. } => at.msg,
            Place::Input { msg, .. } => *msg,
        }
    }
}

#[derive(Debug, Clone)]
struct Unit {
    kind: Kind,
    place: Place,
    label: Label,
}

/// What a unit is called in markers and summary requests, written out only when one is made.
#[derive(Debug, Clone)]
enum Label {
    Fixed(&'static str),
    /// "read_file result for 'src/a.ts'"
    Result(Arc<ToolResult>),
    Made(String),
}

impl std::fmt::Display for Label {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Label::Fixed(s) => f.write_str(s),
            Label::Result(r) => match &r.arg {
                Some(a) => write!(f, "{} result for '{}'", r.tool, a.chars().take(80).collect::<String>()),
                None => write!(f, "{} result", r.tool),
            },
            Label::Made(s) => f.write_str(s),
        }
    }
}

/// Values of native tool inputs shorter than this are never worth a unit.
const MIN_INPUT_CHARS: usize = 200;

fn units_of(draft: &Draft, view: &View, msg: usize, ops: &ContentOps) -> Vec<Unit> {
    let m = &draft.original[msg];
    let mut out = Vec::new();
    if is_summary(m) || !view.active.get(msg).copied().unwrap_or(false) {
        return out;
    }
    // Units of a kind the operations keep are not made at all.
    let wanted = |kind: Kind| ops.spec(kind).operation != Operation::Keep;
    let is_user = role(m) == Some("user");
    if is_user {
        for r in view.results_of(msg).iter().filter(|_| wanted(Kind::ToolResults)) {
            if r.is_error && ops.preserve_errors {
                continue;
            }
            for s in &r.body {
                // What the user typed at the head of a result (feedback, an answer) stays whole:
                // the unit starts after it.
                let start = view
                    .protected_of(msg)
                    .iter()
                    .filter(|p| p.at == s.at && p.range.end > s.range.start)
                    .map(|p| p.range.end)
                    .fold(s.range.start, usize::max);
                out.push(Unit {
                    kind: Kind::ToolResults,
                    place: Place::Slot { at: s.at, start },
                    label: Label::Result(r.clone()),
                });
            }
        }
        for e in view.env_of(msg).iter().filter(|_| wanted(Kind::EnvironmentDetails)) {
            out.push(Unit {
                kind: Kind::EnvironmentDetails,
                place: Place::Slot { at: e.at, start: 0 },
                label: Label::Fixed("environment details"),
            });
        }
        if !ops.preserve_user_text && wanted(Kind::MessageText) {
            for span in view.protected_of(msg).iter().filter(|s| s.range.start == 0) {
                out.push(Unit {
                    kind: Kind::MessageText,
                    place: Place::Slot { at: span.at, start: 0 },
                    label: Label::Fixed("user text"),
                });
            }
        }
        return out;
    }
    // Assistant: prose and tool parameters. Thinking blocks are never touched (the signed
    // thinking of a turn must go back as it was).
    for (slot, text) in draft.texts_of(msg) {
        let at = TextRef { msg, slot };
        if wanted(Kind::MessageText) {
            out.push(Unit {
                kind: Kind::MessageText,
                place: Place::Prose { at },
                label: Label::Fixed("assistant text"),
            });
        }
        if !wanted(Kind::ToolParameters) {
            continue;
        }
        if let Some(call) = xml_call(draft, view, at, text) {
            for (name, _) in &call.params {
                out.push(Unit {
                    kind: Kind::ToolParameters,
                    place: Place::XmlParam { at, name: name.to_string() },
                    label: Label::Made(format!("<{name}> of {}", call.tool)),
                });
            }
        }
    }
    if let Some(Value::Array(blocks)) = m.get("content").filter(|_| wanted(Kind::ToolParameters)) {
        for (j, b) in blocks.iter().enumerate() {
            if b.get("type").and_then(Value::as_str) != Some("tool_use") {
                continue;
            }
            let name = b.get("name").and_then(Value::as_str).unwrap_or("tool");
            let mut pointers = Vec::new();
            if let Some(input) = draft.input(msg, j) {
                long_strings(input, &mut String::new(), &mut pointers);
            }
            for p in pointers {
                let label = Label::Made(format!("{} of {name}", p.trim_start_matches('/')));
                out.push(Unit { kind: Kind::ToolParameters, place: Place::Input { msg, block: j, pointer: p }, label });
            }
        }
    }
    out
}

/// The JSON pointers (below `at`, a buffer given back as it came) of the long strings in `v`.
fn long_strings(v: &Value, at: &mut String, out: &mut Vec<String>) {
    use std::fmt::Write;
    let base = at.len();
    match v {
        Value::String(s) if s.len() >= MIN_INPUT_CHARS => out.push(at.clone()),
        Value::Array(xs) => {
            for (i, x) in xs.iter().enumerate() {
                let _ = write!(at, "/{i}");
                long_strings(x, at, out);
                at.truncate(base);
            }
        }
        Value::Object(map) => {
            for (k, x) in map {
                at.push('/');
                for c in k.chars() {
                    match c {
                        '~' => at.push_str("~0"),
                        '/' => at.push_str("~1"),
                        c => at.push(c),
                    }
                }
                long_strings(x, at, out);
                at.truncate(base);
            }
        }
        _ => {}
    }
}

/// The XML tool call in the current text of `at` (the view may know it when the text is the
/// original one).
fn xml_call<'v>(draft: &Draft, view: &'v View, at: TextRef, text: &str) -> Option<Cow<'v, XmlCall>> {
    match view.call_at(at).filter(|_| draft.is_original(at)) {
        Some(known) => known.map(Cow::Borrowed),
        None => find_xml_call(text).map(Cow::Owned),
    }
}

/// The current text of a unit, when it is at least `min_len` bytes long (a shorter text has
/// fewer than `min_len` tokens: no operation applies to it). A text still as it was in the
/// history is borrowed from the history, which the draft never changes: only changed texts are
/// copied, so reading every unit of a large history up front costs no second copy of it.
fn read<'a>(draft: &Draft<'a>, view: &View, place: &Place, min_len: usize) -> Option<Cow<'a, str>> {
    let original: &'a [Value] = draft.original;
    let long = |s: &str| s.len() >= min_len;
    // `text` is the current text of `at`; its part `range` is borrowed from the history when
    // `at` is unchanged there.
    let part = |at: TextRef, text: &str, range: std::ops::Range<usize>| -> Option<Cow<'a, str>> {
        let current = text.get(range.clone()).filter(|t| long(t))?;
        if draft.is_original(at) {
            slot_text(original.get(at.msg)?, at.slot)?.get(range).map(Cow::Borrowed)
        } else {
            Some(Cow::Owned(current.to_string()))
        }
    };
    match place {
        Place::Slot { at, start } => {
            let first = slot_text(original.get(at.msg)?, at.slot)?;
            match draft.changed_text(*at) {
                None => first.get(*start..).filter(|t| long(t)).map(Cow::Borrowed),
                // The prefix (a legacy header) must be unchanged for the range to mean the same.
                Some(text) => (text.get(..*start) == first.get(..*start))
                    .then(|| text.get(*start..).filter(|t| long(t)).map(|t| Cow::Owned(t.to_string())))?,
            }
        }
        Place::Prose { at } => {
            let text = draft.text(*at)?;
            let end = xml_call(draft, view, *at, text).map_or(text.len(), |c| c.range.start);
            part(*at, text, 0..end)
        }
        Place::XmlParam { at, name } => {
            let text = draft.text(*at)?;
            let call = xml_call(draft, view, *at, text)?;
            let range = call.params.iter().find(|(n, _)| *n == name.as_str()).map(|(_, r)| r.clone())?;
            part(*at, text, range)
        }
        Place::Input { msg, block, pointer } => {
            let current = draft.input(*msg, *block)?.pointer(pointer)?.as_str().filter(|t| long(t))?;
            if draft.is_input_original(*msg, *block) {
                let first = original.get(*msg)?.get("content")?.get(*block)?.get("input")?;
                first.pointer(pointer)?.as_str().map(Cow::Borrowed)
            } else {
                Some(Cow::Owned(current.to_string()))
            }
        }
    }
}

/// Replaces the current text of a unit; the string slot (or input) it lives in is rebuilt.
fn write(draft: &mut Draft, place: &Place, new: &str) -> bool {
    match place {
        Place::Slot { at, start } => {
            let Some(text) = draft.text(*at) else { return false };
            let rebuilt = format!("{}{new}", &text[..*start]);
            draft.set_text(*at, rebuilt);
        }
        Place::Prose { at } => {
            let Some(text) = draft.text(*at) else { return false };
            let end = find_xml_call(text).map_or(text.len(), |c| c.range.start);
            let rebuilt = format!("{new}{}", &text[end..]);
            draft.set_text(*at, rebuilt);
        }
        Place::XmlParam { at, name } => {
            let Some(text) = draft.text(*at) else { return false };
            let Some(call) = find_xml_call(text) else { return false };
            let Some((_, r)) = call.params.into_iter().find(|(n, _)| *n == name.as_str()) else { return false };
            let rebuilt = format!("{}{new}{}", &text[..r.start], &text[r.end..]);
            draft.set_text(*at, rebuilt);
        }
        Place::Input { msg, block, pointer } => {
            let Some(mut input) = draft.input(*msg, *block).cloned() else { return false };
            match input.pointer_mut(pointer) {
                Some(v @ Value::String(_)) => *v = Value::from(new),
                _ => return false,
            }
            draft.set_input(*msg, *block, input);
        }
    }
    true
}

/// What a pass of content operations did besides its acts (which the draft records).
#[derive(Debug, Default, Clone, PartialEq)]
pub struct OpsOutcome {
    /// Summaries asked for that fell back to truncation (no callback, failure, not shorter).
    pub summarize_fallbacks: usize,
    pub summarize_errors: Vec<String>,
    pub callback_calls: usize,
    pub cost: f64,
}

/// Shared parameters of a run of content operations.
pub struct OpsRun<'a, 's> {
    pub encoding: Encoding,
    pub summarizer: Option<&'a mut (dyn Summarizer + 's)>,
    pub pricing: Option<&'a crate::cost::Pricing>,
    pub task_id: Option<String>,
    /// Stop as soon as the context is at most this many tokens (needs `current_tokens`).
    pub target_tokens: Option<u64>,
    pub current_tokens: u64,
    /// The working set to leave whole (or outlined) whatever the operations say.
    pub guard: Option<&'a Guard>,
}

pub const DEFAULT_SUMMARY_PROMPT: &str = "You condense one piece of a coding agent's context so the agent can continue its task. Keep every fact the agent may need later: file paths, names of functions, types and variables, line numbers, commands and their outcome, error messages verbatim, values and decisions. Drop repetition and boilerplate. Answer with the condensed text only, no preamble.";

/// Runs the operations over the selected original messages (oldest first).
pub fn run<'a>(
    draft: &mut Draft<'a>,
    view: &View,
    selected: &[usize],
    ops: &ContentOps,
    run: &mut OpsRun,
) -> OpsOutcome {
    let mut outcome = OpsOutcome::default();
    let units: Vec<Unit> = selected.iter().flat_map(|&m| units_of(draft, view, m, ops)).collect();
    let texts: Vec<Option<Cow<'a, str>>> =
        units.iter().map(|u| read(draft, view, &u.place, ops.min(u.kind).max(1))).collect();
    let refs: Vec<&str> = texts.iter().map(|t| t.as_deref().unwrap_or("")).collect();
    let sizes = count_many(&refs, run.encoding);

    let mut pending: Vec<(usize, SummarizeRequest)> = Vec::new();
    for (i, u) in units.iter().enumerate() {
        if run.target_tokens.is_some_and(|t| run.current_tokens <= t) {
            break;
        }
        let Some(text) = &texts[i] else { continue };
        if sizes[i] < ops.min(u.kind).max(1) || text.trim_start().starts_with("⟨ Content suppressed") {
            continue;
        }
        let spec = ops.spec(u.kind);
        match run.guard.map_or(Guarded::Free, |g| guarded(g, &u.place, text, spec, &u.label)) {
            Guarded::Free => {}
            Guarded::Keep => continue,
            Guarded::Rewrite(new) if new == **text => continue,
            Guarded::Rewrite(new) => {
                apply(draft, u, text, &new, sizes[i], run, Action::Truncated);
                continue;
            }
        }
        match spec.operation {
            Operation::Keep => {}
            Operation::Suppress => {
                apply(draft, u, text, &suppress(&u.label.to_string(), text), sizes[i], run, Action::Suppressed);
            }
            Operation::Truncate => {
                if let Some(t) = truncate(text, spec.truncate) {
                    apply(draft, u, text, &t, sizes[i], run, Action::Truncated);
                }
            }
            Operation::Summarize => {
                let prompt = spec.summarize.custom_prompt.clone().unwrap_or_else(|| DEFAULT_SUMMARY_PROMPT.to_string());
                let request = SummarizeRequest {
                    purpose: u.kind.purpose(),
                    system_prompt: prompt,
                    messages: vec![RequestMessage::text("user", format!("Condense this {}:\n\n{text}", u.label))],
                    max_tokens: spec.summarize.max_tokens,
                    task_id: run.task_id.clone(),
                };
                pending.push((i, request));
            }
        }
    }
    if pending.is_empty() {
        return outcome;
    }
    let replies = match run.summarizer.as_deref_mut() {
        Some(s) => {
            outcome.callback_calls += pending.len();
            let batch: Vec<SummarizeRequest> = pending.iter().map(|(_, r)| r.clone()).collect();
            let mut replies = s.summarize(batch);
            replies.resize(pending.len(), Err("the summarize callback gave no answer for this request".into()));
            replies
        }
        None => pending.iter().map(|_| Err("no summarize callback was given".to_string())).collect(),
    };
    for ((i, _), reply) in pending.iter().zip(replies) {
        let u = &units[*i];
        let Some(text) = &texts[*i] else { continue };
        let summarized = match reply {
            Ok(r) => {
                outcome.cost += crate::cost::reply_cost(&r, run.pricing);
                let body = format!("⟨ Summary of the {} ⟩\n{}", u.label, r.text.trim());
                // A summary is kept only when it is shorter than what it replaces.
                count(&body, run.encoding) < sizes[*i]
                    && apply(draft, u, text, &body, sizes[*i], run, Action::Summarized)
            }
            Err(e) => {
                if !outcome.summarize_errors.contains(&e) {
                    outcome.summarize_errors.push(e);
                }
                false
            }
        };
        if !summarized {
            outcome.summarize_fallbacks += 1;
            if let Some(t) = truncate(text, ops.spec(u.kind).truncate) {
                apply(draft, u, text, &t, sizes[*i], run, Action::Truncated);
            }
        }
    }
    outcome
}

/// What the working set asks of a unit.
enum Guarded {
    Free,
    Keep,
    /// The unit's new text: the working set's files whole or outlined, the rest shortened.
    Rewrite(String),
}

fn guarded(g: &Guard, place: &Place, text: &str, spec: &OpSpec, label: &Label) -> Guarded {
    match place {
        Place::Slot { at, .. } => {
            let Some(files) = g.reads_in(*at) else { return Guarded::Free };
            // Other files shown in the same result are shortened as the operation says (a
            // summary falls back to truncation: one file of a result is not worth a call).
            let other = |path: &str, region: &str| match spec.operation {
                Operation::Keep => None,
                Operation::Suppress => Some(suppress(&format!("{label}: lines of '{path}'"), region)),
                Operation::Truncate | Operation::Summarize => truncate(region, spec.truncate),
            };
            rewrite_reads(text, files, &other).map_or(Guarded::Free, Guarded::Rewrite)
        }
        Place::XmlParam { at, .. } if g.keeps_text(*at) => Guarded::Keep,
        Place::XmlParam { at, name } if name == "content" => {
            g.outline_text(*at).map_or(Guarded::Free, |o| Guarded::Rewrite(format!("\n{o}")))
        }
        Place::Input { msg, block, .. } if g.keeps_block(*msg, *block) => Guarded::Keep,
        Place::Input { msg, block, pointer } if pointer == "/content" => {
            g.outline_block(*msg, *block).map_or(Guarded::Free, |o| Guarded::Rewrite(o.to_string()))
        }
        _ => Guarded::Free,
    }
}

/// Writes `new` in place of `old` when it is smaller, keeping the running token count, and
/// records what was done.
fn apply(
    draft: &mut Draft,
    u: &Unit,
    old: &str,
    new: &str,
    old_tokens: usize,
    run: &mut OpsRun,
    action: Action,
) -> bool {
    let new_tokens = count(new, run.encoding);
    if new_tokens >= old_tokens || new.len() >= old.len() {
        return false;
    }
    if !write(draft, &u.place, new) {
        return false;
    }
    run.current_tokens = run.current_tokens.saturating_sub((old_tokens - new_tokens) as u64);
    draft.record(action, u.kind.content(), u.place.msg(), (old_tokens - new_tokens) as i64);
    true
}
