//! Smart's passes and the policy the runner (`src/passes/runner.rs`) applies for it
//! (`src/providers/smart/mod.rs`, `policy`): configured passes run in order, each only over its
//! selection (never the first message); a conditional pass is skipped at or under its token
//! threshold; once the target is met the run stops, inside a pass and before the next one.
//! A batch pass summarizes the span between its kept head and tail. No preset here, so no
//! lossless prelude and no working set: only the passes written in each case run.

use context_condense::{json, json::Value};

use crate::history::*;

fn tabs() -> String {
    (0..20).map(|i| format!("src/feature{i}/index.ts")).collect::<Vec<_>>().join(",")
}

fn env_block(time: &str) -> String {
    env(&[("VSCode Visible Files", &tabs()), ("Current Time", time)])
}

const ENV_SUPPRESSED: &str = "⟨ Content suppressed: environment details, 7 lines ⟩";

/// The task with its environment details, then three rounds of a command and its output.
fn history() -> Vec<Value> {
    let mut h = vec![json!({"role": "user", "content": [
        {"type": "text", "text": "<task>\nMake the tests pass\n</task>"},
        {"type": "text", "text": env_block("t0")},
    ]})];
    for (i, name) in ["a", "b", "c"].iter().enumerate() {
        h.push(assistant(&format!("<execute_command>\n<command>npm test -- {name}</command>\n</execute_command>")));
        let output = command_output(0, &format!("PASS src/{name}.test.ts\n").repeat(30));
        h.push(xml_result(
            "execute_command",
            &format!("npm test -- {name}"),
            &output,
            &[&env_block(&format!("t{}", i + 1))],
        ));
    }
    h
}

fn individual(id: &str, selection: Value, defaults: Value) -> Value {
    json!({"id": id, "mode": "individual", "selection": selection, "individualConfig": {"defaults": defaults}})
}

fn suppressed_output(name: &str) -> String {
    format!("⟨ Content suppressed: execute_command result for 'npm test -- {name}', 32 lines ⟩\n")
}

#[test]
fn a_pass_touches_only_its_selection_and_never_the_first_message() {
    let h = history();
    let pass = individual(
        "pick",
        json!({"type": "custom", "messageIndices": [0, 4]}),
        json!({"toolResults": "suppress", "environmentDetails": "suppress"}),
    );
    let (_, out) = run("smart", json!({"passes": [pass]}), &h);
    assert_eq!(text(&out, 4, 1), suppressed_output("b"));
    assert_eq!(text(&out, 4, 2), ENV_SUPPRESSED);
    let mut expected = h.clone();
    expected[4] = out[4].clone();
    assert_eq!(out, expected, "message 0 was listed but is never selected; the others were not listed");
}

#[test]
fn passes_run_in_order_and_the_run_stops_once_the_target_is_met() {
    let h = history();
    let recent = json!({"type": "preserve_recent", "keepRecentCount": 1});
    let passes = json!([
        individual("env", recent.clone(), json!({"environmentDetails": "suppress"})),
        individual("results", recent, json!({"toolResults": "suppress"})),
    ]);
    let (all, out) = run("smart", json!({"passes": passes}), &h);
    for (msg, name) in [(2, "a"), (4, "b")] {
        assert_eq!(text(&out, msg, 1), suppressed_output(name));
        assert_eq!(text(&out, msg, 2), ENV_SUPPRESSED);
    }
    assert_eq!(out[6], h[6], "the most recent message stays");
    assert_eq!(all.metrics.passes.len(), 2);
    // One token under the history: met by the first change of the first pass.
    let target = all.prev_context_tokens - 1;
    let (o, out) = run("smart", json!({"passes": passes, "targetTokens": target}), &h);
    assert_eq!(text(&out, 2, 2), ENV_SUPPRESSED);
    let mut expected = h.clone();
    expected[2] = out[2].clone();
    assert_eq!(out, expected, "nothing after the oldest environment details");
    assert_eq!(o.metrics.passes.len(), 1, "the second pass never ran");
}

#[test]
fn a_conditional_pass_is_skipped_at_or_under_its_threshold() {
    let h = history();
    let mut pass =
        individual("big", json!({"type": "preserve_recent", "keepRecentCount": 1}), json!({"toolResults": "suppress"}));
    pass["execution"] = json!({"type": "conditional", "condition": {"tokenThreshold": 1_000_000}});
    let (o, out) = run("smart", json!({"passes": [pass.clone()]}), &h);
    assert_eq!(out, h);
    let why = format!("context {} tokens, at or under the pass's threshold 1000000", o.prev_context_tokens);
    assert_eq!(o.metrics.passes[0].skipped.as_deref(), Some(why.as_str()));
    pass["execution"]["condition"]["tokenThreshold"] = json!(o.prev_context_tokens);
    let (_, out) = run("smart", json!({"passes": [pass.clone()]}), &h);
    assert_eq!(out, h, "at the threshold it is skipped");
    pass["execution"]["condition"]["tokenThreshold"] = json!(o.prev_context_tokens - 1);
    let (_, out) = run("smart", json!({"passes": [pass]}), &h);
    assert_eq!(text(&out, 2, 1), suppressed_output("a"), "above the threshold it runs");
}

#[test]
fn a_batch_pass_summarizes_between_its_kept_head_and_tail() {
    let h = history();
    let pass = json!({"id": "sum", "mode": "batch", "batchConfig": {"summarizationConfig": {"keepLast": 2}}});
    let mut model = Fixed::new("Three test runs passed.");
    let (_, out) = run_with("smart", json!({"passes": [pass]}), &h, Some(&mut model));
    let summary = json!({"role": "assistant", "content": "Three test runs passed.", "isSummary": true});
    assert_eq!(out, vec![h[0].clone(), summary, h[5].clone(), h[6].clone()]);
    // Without a callback a batch summary cannot fall back: the messages stay.
    let pass = json!({"id": "sum", "mode": "batch"});
    let (o, out) = run("smart", json!({"passes": [pass]}), &h);
    assert_eq!(out, h);
    assert_eq!(
        o.metrics.passes[0].skipped.as_deref(),
        Some("no summarize callback: a batch summary cannot fall back to truncation, the messages stay")
    );
}
