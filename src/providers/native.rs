//! The Native provider: Roo Code's summarization. Keeps the first message and the last
//! `N_MESSAGES_TO_KEEP` (3), asks the host's model for a summary of what lies between since the
//! last summary, and puts one `isSummary: true` message in its place. Answers with an error and
//! the messages unchanged when there is too little to summarize, when it condensed recently, when
//! no callback is given, when the callback fails, or when the result would not be smaller.
//!
//! Told the allowed size (`allowedTokens`: a caller gives it when a sliding window cuts whatever
//! is past that size, as the manager's does), it asks no summary that window would cut away: when
//! the messages it keeps (the first, the kept tail, and whatever else the host counts in
//! `prevContextTokens`, such as the system prompt) are by themselves past that size, the request
//! stays past it whatever the summary says, the window then cuts it, and its cut removes the
//! message right after the first, which is where the summary goes. Roo Code asks anyway; so does
//! Native when no size is given.
//!
//! Differences from Roo, on purpose: the kept tail never starts with a tool_result whose tool_use
//! would be summarized away (the boundary moves back one message so the pair stays whole), and the
//! engine appends to the summary the files read and modified in the summarized span, taken from
//! the history itself, because model-written summaries are known to lose exactly that.

use std::borrow::Cow;
use std::collections::HashSet;

use crate::{json, json::Value};
use serde::{Deserialize, Serialize};

use crate::config::parse_config;
use crate::cost::{reply_cost, Pricing};
use crate::draft::{Draft, Item};
use crate::error::{CondenseError, Refusal};
use crate::llm::{render, Purpose, RequestMessage, SummarizeRequest, Summarizer};
use crate::model::{is_summary, role};
use crate::parse::View;
use crate::passes::{Pass, PassCx, Ran, Stop};
use crate::provenance::{Action, Content};
use crate::providers::{Capabilities, Provider, CONFIG_AT};
use crate::tokens::Encoding;

/// The provider's id, as hosts name it.
pub const ID: &str = "native";

/// Roo Code's own summary: one pass, which asks the host's summarizer.
pub struct Native;

impl Provider for Native {
    type Config = NativeConfig;
    const ID: &'static str = ID;
    const NAME: &'static str = "Native";
    const DESCRIPTION: &'static str =
        "Roo Code's summarization: the first message and the last 3 kept, one LLM summary of what lies between.";
    const TAKES_TARGET: bool = false;
    const CAPABILITIES: Capabilities = Capabilities {
        supports_lossless: false,
        supports_batch_mode: true,
        supports_individual_mode: false,
        supports_multi_pass: false,
        supports_llm_summarization: true,
        estimated_speed: "slow",
    };

    fn read(config: &serde_json::Value) -> Result<NativeConfig, CondenseError> {
        let c: NativeConfig = parse_config(config, CONFIG_AT)?;
        if let Some(pricing) = &c.pricing {
            pricing.check("options.config.pricing")?;
        }
        Ok(c)
    }

    fn passes(config: &NativeConfig) -> Vec<Box<dyn Pass + '_>> {
        vec![Box::new(NativePass { config })]
    }
}

pub const N_MESSAGES_TO_KEEP: usize = 3;

/// The default instructions for a conversation summary (the project's own words).
pub const SUMMARY_PROMPT: &str = "\
You are condensing the history of a software task that a coding agent is carrying out with a user, \
so that the agent can continue the work from your summary alone. Write a structured summary with \
these sections:

1. User requests: every request, instruction and correction the user gave, quoted verbatim when short.
2. Work done: what was built or changed, file by file, and the state it is in now.
3. Pending: what remains to do, in order, including anything started but not finished.
4. Decisions: choices made and the reasons given for them, constraints discovered.
5. Errors: errors met, their causes and how they were fixed (or that they are not yet fixed).
6. Next step: exactly what the agent was about to do next, with the relevant file paths, names and commands.

Be precise and concrete: keep file paths, function and variable names, commands, versions and values. \
Leave out pleasantries and anything the agent will not need. Answer with the summary only.";

const FINAL_REQUEST: &str = "Summarize the conversation so far, as described in the prompt instructions.";

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct NativeConfig {
    /// Replaces the default summary prompt when not blank (Roo's customCondensingPrompt).
    pub custom_prompt: Option<String>,
    /// Messages kept whole at the end. @default 3
    pub keep_last: usize,
    /// Prices used when the callback reports tokens but no cost.
    pub pricing: Option<Pricing>,
    /// Passed to the callback with each request.
    pub task_id: Option<String>,
    /// Upper bound asked of the model for the summary.
    pub max_tokens: Option<u32>,
}

impl Default for NativeConfig {
    fn default() -> Self {
        NativeConfig {
            custom_prompt: None,
            keep_last: N_MESSAGES_TO_KEEP,
            pricing: None,
            task_id: None,
            max_tokens: None,
        }
    }
}

/// A custom prompt when it is not blank, else the default one.
pub fn prompt_or_default(custom: Option<&str>) -> &str {
    custom.map(str::trim).filter(|p| !p.is_empty()).unwrap_or(SUMMARY_PROMPT)
}

/// What a batch summary did.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct BatchOutcome {
    pub summary: String,
    pub cost: f64,
    pub callback_calls: usize,
}

/// Summarizes the positions `from..to` of the current layout into one message placed after
/// position `keep_head - 1`; positions `keep_head..from` are dropped (older, already summarized).
/// A span to summarize: which positions of the current layout, and how to ask for the summary.
pub struct SummarySpan<'a> {
    /// The summary goes after position `keep_head - 1`; positions `keep_head..from` are dropped.
    pub keep_head: usize,
    pub from: usize,
    pub to: usize,
    pub prompt: &'a str,
    pub max_tokens: Option<u32>,
    pub task_id: Option<String>,
    pub pricing: Option<&'a Pricing>,
    /// Text appended to the summary after the files section (Smart's working set); empty for none.
    pub appendix: String,
}

pub fn summarize_span(
    draft: &mut Draft<'_>,
    span: SummarySpan,
    summarizer: &mut dyn Summarizer,
    encoding: Encoding,
) -> Result<BatchOutcome, Refusal> {
    let SummarySpan { keep_head, from, to, prompt, max_tokens, task_id, pricing, appendix } = span;
    let current = draft.messages();
    let mut request_messages: Vec<RequestMessage> = Vec::new();
    if current.get(from).is_some_and(|m| role(m) == Some("assistant")) {
        // Some providers need the first message to be the user's.
        request_messages.push(RequestMessage::text("user", "Please continue from the following summary:"));
    }
    // A message kept as it came is named by its place, so a host holding the history sends its
    // own strings instead of copies of them; one a pass changed is rendered from the draft.
    for item in &draft.layout[from..to] {
        request_messages.push(match item {
            Item::Keep(k) => match draft.message(*k) {
                Cow::Borrowed(m) => render(m, Some(*k)),
                Cow::Owned(m) => render(&m, None).into_owned(),
            },
            Item::New(m) => render(m, None).into_owned(),
        });
    }
    request_messages.push(RequestMessage::text("user", FINAL_REQUEST));
    let request = SummarizeRequest {
        purpose: Purpose::Conversation,
        system_prompt: prompt.to_string(),
        messages: request_messages,
        max_tokens,
        task_id,
    };
    let reply = summarizer
        .summarize(vec![request])
        .into_iter()
        .next()
        .unwrap_or_else(|| Err("the summarize callback gave no answer".into()));
    let reply = reply.map_err(Refusal::SummarizeFailed)?;
    let cost = reply_cost(&reply, pricing);
    let text = reply.text.trim();
    if text.is_empty() {
        return Err(Refusal::EmptySummary);
    }
    let originals: Vec<usize> =
        draft.layout[from..to].iter().filter_map(|i| if let Item::Keep(k) = i { Some(*k) } else { None }).collect();
    let summary = format!("{text}{}{appendix}", files_section(draft, &originals));
    let kept_first = current.get(to).cloned();
    drop(current);
    // Roo's shape: an assistant message (the APIs join it with an assistant turn after it).
    let mut message = json!({"role": "assistant", "content": summary, "isSummary": true});
    if let Some(ts) = kept_first.as_ref().and_then(|m| m.get("ts")).cloned() {
        message["ts"] = ts;
    }
    let before = draft.layout.clone();
    let acts = draft.acts.len();
    // What leaves the layout is replaced by the summary (the first message, when summarized
    // along, stays where it is).
    let replaced: Vec<usize> =
        before[keep_head..to].iter().filter_map(|i| if let Item::Keep(k) = i { Some(*k) } else { None }).collect();
    for k in replaced {
        let tokens = crate::tokens::count_message(&draft.original[k], encoding) as i64;
        draft.record(Action::Summarized, Content::Message, k, tokens);
    }
    let mut layout: Vec<Item> = before[..keep_head].to_vec();
    layout.push(Item::New(message));
    layout.extend(before[to..].iter().cloned());
    draft.layout = layout;
    if draft.saved_tokens(encoding) <= 0 {
        draft.layout = before;
        draft.acts.truncate(acts);
        return Err(Refusal::ContextGrew);
    }
    Ok(BatchOutcome { summary, cost, callback_calls: 1 })
}

/// Paths in first-seen order, each once.
#[derive(Default)]
struct Paths {
    list: Vec<String>,
    seen: HashSet<String>,
}

impl Paths {
    fn add(&mut self, p: &str) {
        if !p.is_empty() && self.seen.insert(p.to_string()) {
            self.list.push(p.to_string());
        }
    }

    fn is_empty(&self) -> bool {
        self.list.is_empty()
    }
}

/// "Files read: …\nFiles modified: …" for the summarized original messages.
fn files_section(draft: &Draft, originals: &[usize]) -> String {
    let view = View::build(draft.original);
    let originals: HashSet<usize> = originals.iter().copied().collect();
    // Each list in first-seen order, each path once.
    let (mut read, mut modified) = (Paths::default(), Paths::default());
    for r in view.results.iter().filter(|r| originals.contains(&r.msg)) {
        match &*r.tool {
            "read_file" => {
                for f in &r.reads {
                    read.add(&f.read.path);
                }
                if r.reads.is_empty() {
                    if let Some(a) = r.arg.as_deref().filter(|a| !a.contains("', '")) {
                        read.add(a);
                    }
                }
            }
            "write_to_file" | "apply_diff" | "insert_content" | "search_and_replace" | "edit_file" => {
                if let Some(a) = &r.arg {
                    modified.add(a);
                }
            }
            _ => {}
        }
    }
    if read.is_empty() && modified.is_empty() {
        return String::new();
    }
    let mut s = String::from("\n\n---\nFiles in the summarized part of the conversation (from the history itself):");
    if !read.is_empty() {
        s.push_str(&format!("\n- Read: {}", read.list.join(", ")));
    }
    if !modified.is_empty() {
        s.push_str(&format!("\n- Modified: {}", modified.list.join(", ")));
    }
    s
}

/// Native's one pass: a summary of everything between the first message and the kept tail.
pub struct NativePass<'c> {
    pub config: &'c NativeConfig,
}

impl Pass for NativePass<'_> {
    fn id(&self) -> String {
        ID.into()
    }

    fn name(&self) -> String {
        "Summarize the conversation".into()
    }

    fn needs_view(&self) -> bool {
        false
    }

    fn run(&self, cx: &mut PassCx, draft: &mut Draft) -> Result<Ran, Stop> {
        let cut_past = cx.allowed_tokens.map(|allowed| (cx.tokens_before, allowed));
        let b = run(draft, self.config, cx.encoding, cut_past, cx.summarizer.as_deref_mut()).map_err(Stop::Refused)?;
        Ok(Ran { callback_calls: b.callback_calls, cost: b.cost, summary: Some(b.summary), ..Default::default() })
    }
}

/// Roo's summarizeConversation on the draft. `cut_past`: the context's tokens and the allowed
/// size past which the host's sliding window cuts the request, when no summary that cut would
/// remove is to be asked.
pub fn run<'s>(
    draft: &mut Draft,
    config: &NativeConfig,
    encoding: Encoding,
    cut_past: Option<(u64, u64)>,
    summarizer: Option<&mut (dyn Summarizer + 's)>,
) -> Result<BatchOutcome, Refusal> {
    let current = draft.messages();
    let n = current.len();
    let mut keep_start = n.saturating_sub(config.keep_last);
    // Keep tool pairs whole: the kept part never starts with results of a summarized call.
    while keep_start > 1 && keep_start < n && starts_with_tool_result(&current[keep_start]) {
        keep_start -= 1;
    }
    let last_summary = current[..keep_start].iter().rposition(|m| is_summary(m));
    let from = last_summary.unwrap_or(0);
    // Roo counts the "Please continue from the following summary" message it puts before a
    // previous summary among the messages to summarize.
    if keep_start - from + usize::from(last_summary.is_some()) <= 1 {
        return Err(Refusal::NotEnoughMessages);
    }
    if current[keep_start..].iter().any(|m| is_summary(m)) {
        return Err(Refusal::CondensedRecently);
    }
    if let Some((tokens, allowed)) = cut_past {
        // What stays with an empty summary: all but the messages between the first and the kept
        // tail. The summary adds at least a token, so at the allowed size the request is past it.
        let dropped: u64 =
            current[1..keep_start].iter().map(|m| crate::tokens::count_message(m, encoding) as u64).sum();
        let kept = tokens.saturating_sub(dropped);
        // The result: the first message, the summary, the kept tail; the window's cut removes the
        // summary when it removes anything.
        let result_len = 2 + (n - keep_start);
        if kept >= allowed && crate::manager::window_removes(result_len) > 0 {
            return Err(Refusal::WindowCutsSummary { kept, allowed });
        }
    }
    drop(current);
    let Some(summarizer) = summarizer else { return Err(Refusal::NoSummarizer) };
    let prompt = prompt_or_default(config.custom_prompt.as_deref());
    // Roo keeps the first message, drops everything before the last summary, and summarizes
    // from that summary (or from the start) up to the kept tail.
    let span = SummarySpan {
        keep_head: 1,
        from,
        to: keep_start,
        prompt,
        max_tokens: config.max_tokens,
        task_id: config.task_id.clone(),
        pricing: config.pricing.as_ref(),
        appendix: String::new(),
    };
    summarize_span(draft, span, summarizer, encoding)
}

/// True for a user message answering tool calls: a kept span must not start with one whose
/// calls are summarized away.
pub fn starts_with_tool_result(m: &Value) -> bool {
    role(m) == Some("user")
        && m.get("content")
            .and_then(Value::as_array)
            .is_some_and(|b| b.iter().any(|x| x.get("type").and_then(Value::as_str) == Some("tool_result")))
}
