//! Native told the allowed size: it asks no summary the host's sliding window would cut away (the
//! messages it keeps are by themselves at or past that size), and asks every other time. Each
//! test sits on the rule's edge, so moving the edge by a token, dropping the window's arithmetic
//! or counting the wrong span fails one of them. Touches nothing outside the engine.

mod common;

use common::*;
use context_condense::llm::{SummarizeRequest, SummaryReply};
use context_condense::tokens::{count_message, count_messages, Encoding};
use context_condense::{json, json::Value};

/// The first message, `middle` small turns, then three large messages (what Native keeps).
fn history(middle: usize) -> Vec<Value> {
    let mut h = vec![json!({"role": "user", "content": "<task>\nFix the parser\n</task>"})];
    for i in 0..middle {
        let role = if i % 2 == 0 { "assistant" } else { "user" };
        h.push(json!({"role": role, "content": format!("step {i}: read src/parse{i}.rs and noted its shape")}));
    }
    let big = "fn parse(input: &str) -> Result<Tree, Error> { todo!() }\n".repeat(200);
    h.push(json!({"role": "assistant", "content": format!("Reading the file.\n{big}")}));
    h.push(json!({"role": "user", "content": format!("The output:\n{big}")}));
    h.push(json!({"role": "assistant", "content": format!("Next, the tests.\n{big}")}));
    h
}

const SYSTEM: u64 = 1_000;

/// What the request holds with an empty summary: the context (system prompt included) less the
/// messages between the first and the three kept.
fn kept_tokens(h: &[Value]) -> u64 {
    let n = h.len();
    let dropped: u64 = h[1..n - 3].iter().map(|m| count_message(m, Encoding::default()) as u64).sum();
    prev(h) - dropped
}

fn prev(h: &[Value]) -> u64 {
    count_messages(h, Encoding::default()) as u64 + SYSTEM
}

/// Runs Native with `config` and `allowed`; answers the outcome's error code and the calls made.
fn native(h: &[Value], config: Value, allowed: Option<u64>) -> (Option<&'static str>, usize, usize) {
    let mut calls = 0;
    let mut summarize = |batch: Vec<SummarizeRequest>| {
        calls += batch.len();
        batch.iter().map(|_| Ok(SummaryReply { text: "Read the parser.".into(), ..Default::default() })).collect()
    };
    let mut o = json!({"provider": "native", "config": config, "prevContextTokens": prev(h)});
    if let Some(a) = allowed {
        o["allowedTokens"] = json!(a);
    }
    let (outcome, out) = run_with(h, &options(o), Some(&mut summarize));
    (outcome.error_code, calls, out.len())
}

#[test]
fn no_summary_is_asked_when_the_kept_messages_reach_the_allowed_size() {
    let h = history(6);
    let kept = kept_tokens(&h);
    let (code, calls, len) = native(&h, json!({}), Some(kept));
    assert_eq!(
        (code, calls, len),
        (Some("window-cuts-summary"), 0, h.len()),
        "at the allowed size: refused, unchanged"
    );
    let (code, calls, len) = native(&h, json!({}), Some(kept - 1));
    assert_eq!((code, calls, len), (Some("window-cuts-summary"), 0, h.len()), "past it: refused");
}

#[test]
fn a_summary_is_asked_when_the_kept_messages_leave_room() {
    let h = history(6);
    let (code, calls, len) = native(&h, json!({}), Some(kept_tokens(&h) + 1));
    assert_eq!((code, calls, len), (None, 1, 5), "a token under the allowed size: the summary may fit");
}

#[test]
fn without_an_allowed_size_it_asks_as_roo_does() {
    let h = history(6);
    assert_eq!(native(&h, json!({}), None), (None, 1, 5));
}

#[test]
fn it_asks_when_the_window_would_keep_the_summary() {
    // Keeping the last message only: the result has three messages, and the window's cut
    // (half of the two after the first, rounded down to an even number) removes none.
    let h = history(6);
    let n = h.len();
    let dropped: u64 = h[1..n - 1].iter().map(|m| count_message(m, Encoding::default()) as u64).sum();
    let kept = prev(&h) - dropped;
    assert_eq!(native(&h, json!({"keepLast": 1}), Some(kept)), (None, 1, 3));
    // Keeping the last two: four messages, the cut removes none either.
    let dropped: u64 = h[1..n - 2].iter().map(|m| count_message(m, Encoding::default()) as u64).sum();
    assert_eq!(native(&h, json!({"keepLast": 2}), Some(prev(&h) - dropped)), (None, 1, 4));
}

#[test]
fn the_allowed_size_is_a_token_count() {
    for bad in [json!(-1), json!(1.5), json!("100"), json!(null), json!(9_007_199_254_740_992.0)] {
        let o = json!({"provider": "native", "allowedTokens": bad});
        let e = context_condense::condense::Options::from_value(&o.into()).expect_err("refused");
        assert!(e.to_string().contains("allowedTokens"), "{e}");
    }
}
