//! Shared by the integration tests: finding and loading the real Roo Code histories (the folder in
//! CONTEXT_CONDENSE_FIXTURES, else ../shared/fixtures/roo-pr8743 beside the clone; the suites that
//! need them are skipped, saying so, when they are absent) and asserting the invariants every
//! condensation keeps. Never writes to the fixtures.
#![allow(dead_code)]

use std::path::PathBuf;
use std::sync::atomic::AtomicBool;

use context_condense::condense::{condense, Options, Outcome};
use context_condense::draft::materialize_changes;
use context_condense::draft::Item;
use context_condense::edit::materialize;
use context_condense::json::Value;
use context_condense::llm::Summarizer;
use context_condense::model::{slot_text, text_slots};
use context_condense::parse::View;
use context_condense::reference::expand;
use context_condense::tokens::{count_messages, Encoding};
use context_condense::validate::validate;

pub const FIXTURES: [&str; 7] = [
    "heavy-uncondensed",
    "natural-already-condensed",
    "natural-mini-uncondensed",
    "synthetic-1-heavy-write",
    "synthetic-2-heavy-read",
    "synthetic-3-tool-dedup",
    "synthetic-4-mixed-ops",
];

/// The environment variable naming the folder of the real histories. When it is set, they are
/// required (CI sets it): a folder without them fails the suites instead of skipping them.
pub const FIXTURES_ENV: &str = "CONTEXT_CONDENSE_FIXTURES";

pub fn fixture_dir() -> PathBuf {
    match std::env::var_os(FIXTURES_ENV) {
        Some(dir) if !dir.is_empty() => PathBuf::from(dir),
        // The manifest folder cargo gives the running test (the one compiled in can be another
        // clone's: cargo reuses test binaries across folders that share a target directory).
        _ => PathBuf::from(std::env::var_os("CARGO_MANIFEST_DIR").unwrap_or_else(|| env!("CARGO_MANIFEST_DIR").into()))
            .join("../shared/fixtures/roo-pr8743"),
    }
}

fn fixture_file(name: &str) -> PathBuf {
    fixture_dir().join(name).join("api_conversation_history.json")
}

/// Whether the seven real histories are here. When they are not and the environment variable is
/// unset, says on the terminal (past the test harness's capture) that `suite` is skipped and why.
pub fn real_histories(suite: &str) -> bool {
    let missing: Vec<&str> = FIXTURES.iter().copied().filter(|n| !fixture_file(n).is_file()).collect();
    if missing.is_empty() {
        return true;
    }
    if std::env::var_os(FIXTURES_ENV).is_some_and(|d| !d.is_empty()) {
        panic!("{FIXTURES_ENV}={}: {} not found there", fixture_dir().display(), missing.join(", "));
    }
    use std::io::Write;
    // Written to the process's stderr directly: `eprintln!` would be captured and never shown.
    let _ = writeln!(
        std::io::stderr(),
        "SKIPPED: {suite}: no real Roo Code histories at {} (set {FIXTURES_ENV} to their folder to run it)",
        fixture_dir().display()
    );
    false
}

pub fn load(name: &str) -> Vec<Value> {
    let path = fixture_file(name);
    let text = std::fs::read_to_string(&path)
        .unwrap_or_else(|e| panic!("{}: {e} (set {FIXTURES_ENV} to the folder of the real histories)", path.display()));
    serde_json::from_str(&text).expect("fixture is JSON")
}

pub fn options(json: Value) -> Options {
    Options::from_value(&json.into()).expect("valid options")
}

pub fn run(messages: &[Value], opts: &Options) -> (Outcome, Vec<Value>) {
    run_with(messages, opts, None)
}

pub fn run_with(messages: &[Value], opts: &Options, summarizer: Option<&mut dyn Summarizer>) -> (Outcome, Vec<Value>) {
    let outcome = condense(messages, opts, &AtomicBool::new(false), summarizer).expect("condense runs");
    let output = materialize_changes(messages, &outcome.changes);
    (outcome, output)
}

/// A message with every string slot blanked: what must not change when only text is edited.
fn skeleton(m: &Value) -> Value {
    let mut s = m.clone();
    for slot in text_slots(m) {
        context_condense::model::set_slot_text(&mut s, slot, String::new());
    }
    s
}

/// `skeleton` with tool_use inputs blanked too.
fn skeleton_inputs(m: &Value) -> Value {
    let mut s = skeleton(m);
    if let Some(Value::Array(blocks)) = s.get_mut("content") {
        for b in blocks {
            if b.get("type").and_then(Value::as_str) == Some("tool_use") {
                b["input"] = Value::Null;
            }
        }
    }
    s
}

/// Asserts every invariant that holds for any provider's output.
pub fn assert_invariants(input: &[Value], output: &[Value], outcome: &Outcome, encoding: Encoding) {
    // Valid for the APIs whenever the input was; never more problems than the input had.
    let before = validate(input);
    let after = validate(output);
    assert!(after.len() <= before.len(), "condensing added problems: {after:?}");
    // Same order; kept messages are the originals (only text and tool inputs may change).
    let changed: std::collections::HashSet<usize> = outcome
        .changes
        .texts
        .iter()
        .map(|(at, _)| at.msg)
        .chain(outcome.changes.inputs.iter().map(|((m, _), _)| *m))
        .collect();
    let kept: Vec<usize> = match &outcome.changes.layout {
        None => (0..input.len()).collect(),
        Some(layout) => layout.iter().filter_map(|i| if let Item::Keep(k) = i { Some(*k) } else { None }).collect(),
    };
    assert!(kept.windows(2).all(|w| w[0] < w[1]), "message order changed");
    let out_of = |k: usize| -> &Value {
        let pos = match &outcome.changes.layout {
            None => k,
            Some(layout) => layout.iter().position(|i| *i == Item::Keep(k)).unwrap(),
        };
        &output[pos]
    };
    for &i in &kept {
        let (a, b) = (&input[i], out_of(i));
        if changed.contains(&i) {
            assert_eq!(skeleton_inputs(a), skeleton_inputs(b), "message {i}: only text and tool inputs may change");
        } else {
            assert_eq!(a, b, "message {i} was not edited and must be deep-equal");
        }
    }
    // What the user typed survives verbatim, in the same string (outside summarized spans).
    let view = View::build(input);
    for span in view.protected.iter().filter(|s| kept.contains(&s.at.msg)) {
        let original = &slot_text(&input[span.at.msg], span.at.slot).unwrap()[span.range.clone()];
        let now = slot_text(out_of(span.at.msg), span.at.slot).unwrap();
        assert!(now.contains(original), "protected text of message {} was changed", span.at.msg);
    }
    // Tokens never go up, and the reported figures are the real ones.
    let tokens_in = count_messages(input, encoding) as u64;
    let tokens_out = count_messages(output, encoding) as u64;
    assert!(tokens_out <= tokens_in, "tokens went up: {tokens_in} -> {tokens_out}");
    if outcome.error.is_none() {
        assert_eq!(
            outcome.prev_context_tokens - outcome.new_context_tokens,
            tokens_in - tokens_out,
            "reported saving is the measured one"
        );
    }
    // Every reference the condensation wrote expands (to the bytes it replaced, checked by hash):
    // no more unresolved ones than the input carried.
    let expansion = expand(output);
    assert!(expansion.unresolved <= expand(input).unresolved, "a reference points at nothing");
}

/// Lossless with `removeObsoleteState: false` must expand back to the input exactly.
pub fn assert_reversible(input: &[Value], output: &[Value]) {
    let expansion = expand(output);
    let restored = materialize(output, &expansion.changes);
    for (i, (a, b)) in input.iter().zip(&restored).enumerate() {
        assert_eq!(a, b, "message {i} does not expand back to the input");
    }
}

/// What the fake summarizer of `check_condensation` answers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FakeLlm {
    /// No callback at all.
    Absent,
    /// A short summary for every request.
    Short,
    /// Every request fails.
    Failing,
    /// Answers longer than anything it was asked to summarize.
    Verbose,
}

/// Runs a condensation twice with the given fake summarizer and asserts everything that must hold
/// whatever the input and the options: no panic, an error or a valid result, the invariants, the
/// same output both times, and exact reversibility for a Lossless run without obsolete-state
/// removal. Options the engine refuses are fine (that is a clear error, not a crash).
pub fn check_condensation(messages: &[Value], options_json: &Value, llm: FakeLlm) {
    let Ok(opts) = Options::from_value(&options_json.into()) else { return };
    let run_once = || {
        let mut calls = 0usize;
        let mut fake = |batch: Vec<context_condense::llm::SummarizeRequest>| {
            calls += batch.len();
            batch
                .iter()
                .map(|req| match llm {
                    FakeLlm::Failing => Err("the fake model is down".to_string()),
                    FakeLlm::Verbose => Ok(context_condense::llm::SummaryReply {
                        text: "a very long summary ".repeat(50 + req.messages.len() * 200),
                        ..Default::default()
                    }),
                    _ => Ok(context_condense::llm::SummaryReply {
                        text: format!("Summary of {} messages.", req.messages.len()),
                        cost: Some(0.01),
                        ..Default::default()
                    }),
                })
                .collect()
        };
        let summarizer: Option<&mut dyn Summarizer> = if llm == FakeLlm::Absent { None } else { Some(&mut fake) };
        let outcome = condense(messages, &opts, &AtomicBool::new(false), summarizer);
        (outcome, calls)
    };
    let (first, calls) = run_once();
    let (second, _) = run_once();
    let (outcome, output) = match (first, second) {
        (Ok(a), Ok(b)) => {
            assert_eq!(a.changes, b.changes, "the same input gave two different outputs");
            assert_eq!(a.new_context_tokens, b.new_context_tokens);
            let output = materialize_changes(messages, &a.changes);
            (a, output)
        }
        (Err(a), Err(b)) => {
            assert_eq!(a.to_string(), b.to_string());
            return;
        }
        (a, b) => panic!("one run failed and the other did not: {:?} / {:?}", a.err(), b.err()),
    };
    if outcome.error.is_some() {
        assert_eq!(output, messages, "a refused condensation must leave the messages unchanged");
        return;
    }
    if llm == FakeLlm::Absent {
        assert_eq!(calls, 0);
    }
    assert_invariants(messages, &output, &outcome, opts.encoding);
    if let Some(c) = opts.provider.config::<context_condense::providers::lossless::Lossless>() {
        if !c.remove_obsolete_state {
            assert_reversible(messages, &output);
        }
    }
}
