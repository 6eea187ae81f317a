//! A history handed to the engine to be asked about (`History`): the messages arrive in chunks
//! (`push`, long strings in parts), and then one query answers over them (references expanded or
//! made to follow a summary, a cut or another numbering, the pairing repaired, problems, what fills
//! the context, the working set) or one run condenses them (`run::Run` takes them over). It holds
//! no options and never condenses: what a run needs it is given by the run. `Intake`, the one path
//! by which messages come in from JavaScript, is shared with the held conversation.

use std::sync::Arc;

use napi_derive::napi;
use serde_json::Value;

use super::codec::*;
use super::tasks::*;
use super::text::{JsMessages, LongStrings};
use super::*;
use context_condense::escape::{Deferred, Incoming};

/// The one way messages come in from JavaScript, for a history and a held conversation alike: a
/// chunk converted to the engine's escaped form (see `text`), added at the end, and the strings
/// it left out (longer than `longUnits`) put in place as their parts arrive (`textPart`, then
/// `setText`).
#[derive(Default)]
pub struct Intake {
    incoming: Incoming,
}

/// A chunk converted, not yet added.
pub struct Chunk {
    messages: Vec<Message>,
    deferred: Vec<Deferred>,
    strings: LongStrings,
}

impl Intake {
    /// Converts `chunk`; a chunk that cannot be read is the caller's argument (napi's text kept),
    /// and nothing is added.
    pub fn read(chunk: &JsMessages, long_units: Option<u32>) -> Result<Chunk> {
        let (messages, deferred, strings) = chunk.convert(long_units).map_err(unreadable)?;
        Ok(Chunk { messages, deferred, strings })
    }

    /// Adds `chunk` at the end of `messages`; answers how many messages it held and the strings it
    /// left out, for JavaScript to send in parts before it pushes more.
    pub fn add(&mut self, messages: &mut Vec<Message>, chunk: Chunk) -> (usize, LongStrings) {
        let Chunk { messages: new, deferred, strings } = chunk;
        let (n, base) = (new.len(), messages.len());
        context_condense::memory::reserve_modestly(messages, n);
        messages.extend(new);
        self.incoming.expect(deferred, base);
        (n, strings)
    }

    /// The next part (UTF-16, any length) of a string the last push left out; with its first
    /// part, the whole string's length.
    pub fn text_part(&mut self, part: &[u16], whole: Option<u32>) {
        self.incoming.part(part, whole.map(|n| n as usize));
    }

    /// Puts the string sent since the last `set_text` in place of string `j` the last push left
    /// out, in `messages`; answers the index of the message it went into.
    pub fn set_text(&mut self, messages: &mut [Message], j: u32) -> Result<usize> {
        self.incoming.put_into(messages, j as usize).map_err(|e| coded(ErrorCode::Internal, format!("setText: {e}")))
    }
}

/// Messages pushed to be asked about once: by one query, or by the run that takes them over. No
/// provider, no options: a query that needs an encoding or a config is given it.
#[napi]
pub struct History {
    messages: Vec<Message>,
    intake: Intake,
    /// Set when the history could not cross the boundary: a run over it then refuses with it.
    rejected: Option<String>,
    /// Set once a query or a run has taken the messages: a history answers once.
    spent: bool,
}

/// What a history that already answered says when asked again.
const SPENT: &str = "this history was already handed to a query or a run: push the messages into a new one";

impl History {
    /// The error of a call on a history that already answered, named by the call.
    fn spent_error(at: &str) -> Error {
        coded(ErrorCode::InvalidState, format!("{at}: {SPENT}"))
    }

    /// Refuses a call on a history that already answered.
    fn usable(&self, at: &str) -> Result<()> {
        if self.spent {
            return Err(History::spent_error(at));
        }
        Ok(())
    }

    /// Takes the messages for the one query or run that answers over them (`at` names it).
    fn take(&mut self, at: &str) -> Result<Vec<Message>> {
        self.usable(at)?;
        self.spent = true;
        Ok(std::mem::take(&mut self.messages))
    }

    /// Takes the messages over for a run (`at` names the call): them, and the refusal the history
    /// was marked with, if any.
    pub(super) fn hand_over(&mut self, at: &str) -> Result<(Vec<Message>, Option<String>)> {
        let messages = self.take(at)?;
        Ok((messages, self.rejected.take()))
    }
}

#[napi]
impl History {
    #[napi(constructor)]
    #[allow(clippy::new_without_default)]
    pub fn new() -> History {
        History { messages: Vec::new(), intake: Intake::default(), rejected: None, spent: false }
    }

    /// Adds the next messages of the history, in the engine's escaped form (see `text`), so edited
    /// text comes back exactly. With `longUnits`, strings longer than that are left out and
    /// answered: JavaScript sends each in parts (`textPart`, then `setText`) before it pushes more.
    #[napi(ts_args_type = "chunk: object[], longUnits?: number | undefined | null", ts_return_type = "string[]")]
    pub fn push(&mut self, chunk: JsMessages, long_units: Option<u32>) -> Result<LongStrings> {
        self.usable("push")?;
        let chunk = Intake::read(&chunk, long_units)?;
        Ok(self.intake.add(&mut self.messages, chunk).1)
    }

    /// The next part (UTF-16, any length) of a string the last `push` left out; with its first
    /// part, the whole string's length.
    #[napi]
    pub fn text_part(&mut self, part: Utf16String, whole: Option<u32>) {
        self.intake.text_part(&part, whole);
    }

    /// Puts the string sent since the last `setText` in place of string `j` the last `push` left out.
    #[napi]
    pub fn set_text(&mut self, j: u32) -> Result<()> {
        self.intake.set_text(&mut self.messages, j).map(|_| ())
    }

    /// Marks the history as one the engine cannot take (`problem` names where): a run over it
    /// then answers with a refusal that leaves the messages unchanged.
    #[napi]
    pub fn reject(&mut self, problem: String) {
        self.messages.clear();
        self.rejected = Some(problem);
    }

    /// The changes that restore every reference in the pushed messages.
    #[napi]
    pub fn expand(&mut self) -> Result<RawExpansion> {
        let messages = self.take("expand")?;
        guarded(|| {
            let x = context_condense::reference::expand(&messages);
            Ok(RawExpansion {
                changes: Packed::new(x.changes).into_js(),
                expanded: x.expanded as u32,
                unresolved: x.unresolved as u32,
            })
        })
    }

    /// The changes that make the references in the pushed messages follow a summary that
    /// replaced positions `1..keep_start` (see `reference::follow_summary`); `only` flags the
    /// messages to look at.
    #[napi]
    pub fn follow_summary(&mut self, keep_start: u32, only: Vec<bool>) -> Result<RawExpansion> {
        let messages = self.take("followSummary")?;
        guarded(|| {
            let changes = context_condense::reference::follow_summary(&messages, keep_start as usize, &only);
            let n = changes.len() as u32;
            Ok(RawExpansion { changes: Packed::new(changes).into_js(), expanded: n, unresolved: 0 })
        })
    }

    /// The changes that rewrite the references in the pushed messages from one numbering of
    /// them to another (see `reference::renumber`): `from[i]` and `to[i]` are message `i`'s
    /// index in each, negative for a message outside it.
    #[napi]
    pub fn renumber(&mut self, from: Vec<i64>, to: Vec<i64>) -> Result<RawExpansion> {
        let messages = self.take("renumber")?;
        let index = |v: Vec<i64>| v.into_iter().map(|i| usize::try_from(i).ok()).collect::<Vec<_>>();
        let (from, to) = (index(from), index(to));
        guarded(|| {
            let changes = context_condense::reference::renumber(&messages, &from, &to);
            let n = changes.len() as u32;
            Ok(RawExpansion { changes: Packed::new(changes).into_js(), expanded: n, unresolved: 0 })
        })
    }

    /// The changes that make the references in the pushed messages follow a cut keeping only
    /// the messages `kept` (see `reference::follow_cut`), by index in the pushed messages.
    #[napi]
    pub fn follow_cut(&mut self, kept: Vec<u32>) -> Result<RawExpansion> {
        let messages = self.take("followCut")?;
        guarded(|| {
            let kept: Vec<usize> = kept.into_iter().map(|k| k as usize).collect();
            let changes = context_condense::reference::follow_cut(&messages, &kept);
            let n = changes.len() as u32;
            Ok(RawExpansion { changes: Packed::new(changes).into_js(), expanded: n, unresolved: 0 })
        })
    }

    /// Repairs the tool pairing of the pushed messages (`repair::repair`) in place, so the run
    /// that follows condenses the repaired history; answers, as JSON text, the messages changed by
    /// index, those inserted before an index, and the repairs.
    #[napi]
    pub fn repair(&mut self) -> Result<String> {
        self.usable("repair")?;
        guarded(|| {
            let repaired = context_condense::repair::repair(&self.messages);
            let text = json_text(&repaired)?;
            context_condense::repair::apply(&mut self.messages, repaired);
            Ok(text)
        })
    }

    /// Every problem the provider APIs would reject in the pushed messages (or in `instead`,
    /// a value that is not an array), with its path, as JSON text (a list of any length crosses
    /// as one string).
    #[napi(ts_args_type = "instead?: unknown")]
    pub fn validate(&mut self, instead: Option<Value>) -> Result<String> {
        let pushed = Message::Array(self.take("validate")?);
        let messages = instead.map(Message::from).unwrap_or(pushed);
        guarded(|| {
            panic_probe("sync");
            json_text(&context_condense::validate::validate_value(&messages))
        })
    }

    /// What fills the context of the pushed messages, now, as JSON text.
    #[napi]
    pub fn analyze_now(&mut self, encoding_name: Option<String>) -> Result<String> {
        let enc = encoding(encoding_name)?;
        let messages = self.take("analyzeNow")?;
        guarded(|| json_text(&context_condense::analyze::analyze(&messages, enc)))
    }

    /// The working set of the pushed messages, now, as JSON text (`context_condense::working_set`): per
    /// file, how it is kept, where its latest state lives, its tokens; `config` is
    /// `{ turns?, budgetTokens? }`.
    #[napi(
        ts_args_type = "config: import('./lib/index').WorkingSetConfig | undefined | null, withText: boolean, encodingName?: string | undefined | null"
    )]
    pub fn working_set_now(
        &mut self,
        config: Option<Value>,
        with_text: bool,
        encoding_name: Option<String>,
    ) -> Result<String> {
        let enc = encoding(encoding_name)?;
        let messages = self.take("workingSetNow")?;
        guarded(|| {
            let config = config.unwrap_or(Value::Null);
            json_text(&context_condense::working_set::of_history(&messages, &config, with_text, enc)?)
        })
    }

    /// The working set of the pushed messages off the JavaScript thread; the history is spent.
    #[napi(
        ts_args_type = "config: import('./lib/index').WorkingSetConfig | undefined | null, withText: boolean, encodingName?: string | undefined | null",
        ts_return_type = "Promise<import('./lib/index').WorkingSetFile[]>"
    )]
    pub fn working_set(
        &mut self,
        config: Option<Value>,
        with_text: bool,
        encoding_name: Option<String>,
    ) -> Result<AsyncTask<WorkingSetTask>> {
        let encoding = encoding(encoding_name)?;
        Ok(AsyncTask::new(WorkingSetTask {
            messages: self.take("workingSet")?,
            config: config.unwrap_or(Value::Null),
            with_text,
            encoding,
        }))
    }

    /// Analyzes the pushed messages off the JavaScript thread; the history is spent.
    #[napi(ts_return_type = "Promise<import('./lib/index').Analysis>")]
    pub fn analyze(&mut self, encoding_name: Option<String>) -> Result<AsyncTask<AnalyzeTask>> {
        let encoding = encoding(encoding_name)?;
        Ok(AsyncTask::new(AnalyzeTask { messages: Arc::new(self.take("analyze")?), encoding }))
    }
}
