//! A reference left by an earlier condensing keeps what it stands for when a later, lossy one
//! shortens the message it points at: the bytes come back at the reference (the newer place)
//! rather than being lost, so the latest state of a file is never a marker pointing at nothing.
//! Within one Smart run, the copy a reference stands in for is the older one.

mod common;

use common::*;
use context_condense::model::{slot_text, Slot};
use context_condense::tokens::Encoding;
use context_condense::{json, json::Value};

fn file_body(path: &str, salt: &str) -> String {
    let numbered: String = (1..=40)
        .map(|i| format!("{i:>2} | export function step{i}{salt}(x: number): number {{ return x * {i}; }}\n"))
        .collect();
    format!("<files>\n<file><path>{path}</path>\n<content lines=\"1-40\">\n{numbered}</content>\n</file>\n</files>")
}

fn result(tool: &str, arg: &str, body: &str) -> Value {
    json!({"role": "user", "content": [
        {"type": "text", "text": format!("[{tool} for '{arg}'] Result:")},
        {"type": "text", "text": body},
    ]})
}

fn call(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
}

fn text_of(messages: &[Value], msg: usize, block: usize) -> String {
    slot_text(&messages[msg], Slot::Text(block)).unwrap_or_default().to_string()
}

/// A task that reads `src/a.ts`, other files, then `src/a.ts` again unchanged, then goes on.
fn history() -> (Vec<Value>, String) {
    let a = file_body("src/a.ts", "");
    let mut h = vec![json!({"role": "user", "content": [{"type": "text", "text": "<task>\nRefactor\n</task>"}]})];
    h.push(call("<read_file><path>src/a.ts</path></read_file>"));
    h.push(result("read_file", "src/a.ts", &a)); // 2
    for i in 0..4 {
        h.push(call(&format!("<read_file><path>src/b{i}.ts</path></read_file>")));
        h.push(result("read_file", &format!("src/b{i}.ts"), &file_body(&format!("src/b{i}.ts"), &format!("b{i}"))));
    }
    h.push(call("<read_file><path>src/a.ts</path></read_file>"));
    h.push(result("read_file", "src/a.ts", &a)); // 12
    h.push(call("<attempt_completion><result>done</result></attempt_completion>"));
    h.push(json!({"role": "user", "content": [{"type": "text", "text": "<feedback>\nthanks\n</feedback>"}]}));
    (h, a)
}

fn suppress_old(keep: u32) -> Value {
    json!({ "provider": "smart", "config": { "passes": [{
        "id": "old", "name": "old", "mode": "individual",
        "selection": { "type": "preserve_recent", "keepRecentCount": keep },
        "individualConfig": { "defaults": { "toolResults": "suppress" } }
    }]}})
}

#[test]
fn a_later_lossy_run_brings_back_what_an_earlier_reference_stood_for() {
    let (h, a) = history();
    let (o, first) = run(&h, &options(json!({"provider": "lossless"})));
    assert_invariants(&h, &first, &o, Encoding::O200kBase);
    assert_eq!(text_of(&first, 2, 1), a);
    assert!(
        text_of(&first, 12, 1).contains("⟨ Reference: content of 'src/a.ts' identical to message #2"),
        "the set-up"
    );
    for second in [suppress_old(6), json!({"provider": "truncation", "config": {"preserveRecentCount": 6}})] {
        let (o, out) = run(&first, &options(second.clone()));
        assert_invariants(&first, &out, &o, Encoding::O200kBase);
        assert_ne!(text_of(&out, 2, 1), a, "{second}: the older copy was shortened");
        assert_eq!(text_of(&out, 12, 1), a, "{second}: the newer copy holds the file again");
    }
}

#[test]
fn within_one_smart_run_the_recent_copy_keeps_the_file() {
    let (h, a) = history();
    for preset in ["conservative", "balanced", "aggressive", "speed", "quality", "cost"] {
        // Without the working set, which would keep the file whole on its own.
        let opts = json!({"provider": "smart", "config": {"preset": preset, "workingSet": null}});
        let (o, out) = run(&h, &options(opts));
        assert_invariants(&h, &out, &o, Encoding::O200kBase);
        assert_eq!(text_of(&out, 12, 1), a, "{preset}: the recent copy holds the file");
    }
}

/// Smart with a Lossless prelude that keeps the first of identical copies (the newer points at
/// the older) and one pass suppressing old tool output.
fn keep_first_then(pass: Value) -> Value {
    json!({ "provider": "smart", "config": {
        "losslessPrelude": { "enabled": true, "operations": { "deduplicateFileReads": true, "consolidateToolResults": true, "removeObsoleteState": true } },
        "passes": [pass]
    }})
}

/// A pass suppressing every tool result but those of the last `keep` messages.
fn suppress_results(keep: u32) -> Value {
    json!({
        "id": "old", "name": "old", "mode": "individual",
        "selection": { "type": "preserve_recent", "keepRecentCount": keep },
        "individualConfig": { "defaults": { "toolResults": "suppress" } }
    })
}

/// `keep_first_then(pass)` on `h`, with provenance; the invariants checked.
fn run_keep_first(h: &[Value], pass: Value) -> (context_condense::condense::Outcome, Vec<Value>) {
    let mut opts = options(keep_first_then(pass));
    opts.provenance = true;
    let (o, out) = run(h, &opts);
    // The invariants include that every reference expands to the bytes it was made against.
    assert_invariants(h, &out, &o, Encoding::O200kBase);
    (o, out)
}

#[test]
fn within_one_run_a_reference_to_a_copy_the_run_shortened_gets_its_bytes_back() {
    let (h, a) = history();
    let (o, out) = run_keep_first(&h, suppress_results(6));
    assert_ne!(text_of(&out, 2, 1), a, "the older copy was suppressed");
    // The recent copy, which the pass kept, holds the file: it is the caller's message again.
    assert_eq!(text_of(&out, 12, 1), a);
    assert!(!o.changes.texts.iter().any(|(at, _)| at.msg == 12), "message 12 is unchanged");
    let acts = &o.provenance.as_ref().expect("provenance").acts;
    assert!(!acts.iter().any(|x| x.message == 12), "no act claims message 12: {acts:?}");
    assert_eq!(o.metrics.actions.omitted, 0);
    // The passes' tokens still chain to the result's.
    let passes = &o.metrics.passes;
    assert_eq!(passes[0].tokens_before, o.metrics.tokens_before);
    for w in passes.windows(2) {
        assert_eq!(w[1].tokens_before, w[0].tokens_after);
    }
    assert!(
        passes.last().expect("passes").tokens_after.abs_diff(o.metrics.tokens_after) <= 2,
        "{passes:?} vs {}",
        o.metrics.tokens_after
    );
}

#[test]
fn within_one_run_a_reference_in_a_message_the_run_selected_is_not_filled_in() {
    let (h, a) = history();
    // Every tool result but the last two messages' truncated to ten lines: both copies of
    // src/a.ts are old. The older is shortened; the newer, a one-line reference by then, is left
    // as it is by the truncation, but the run chose to shorten it: the file does not come back.
    let pass = json!({
        "id": "old", "name": "old", "mode": "individual",
        "selection": { "type": "preserve_recent", "keepRecentCount": 2 },
        "individualConfig": { "defaults": { "toolResults": { "operation": "truncate", "params": { "truncate": { "maxLines": 10, "maxChars": 1000 } } } } }
    });
    let (o, out) = run_keep_first(&h, pass);
    assert_ne!(text_of(&out, 2, 1), a, "the older copy was truncated");
    let newer = text_of(&out, 12, 1);
    assert!(newer.contains("⟨ Omitted: content of 'src/a.ts' identical to message #2, since shortened ⟩"), "{newer}");
    assert!(!newer.contains("step20"), "{newer}");
    assert_eq!(o.metrics.actions.omitted, 1);
}

#[test]
fn within_one_run_the_bytes_come_back_once_and_later_copies_point_at_them() {
    let (mut h, a) = history();
    // A third identical read of src/a.ts after the second (messages 13 and 14), before the end.
    let end = h.split_off(13);
    h.push(call("<read_file><path>src/a.ts</path></read_file>"));
    h.push(result("read_file", "src/a.ts", &a)); // 14
    h.extend(end);
    let (o, out) = run_keep_first(&h, suppress_results(8));
    assert_ne!(text_of(&out, 2, 1), a, "the oldest copy was suppressed");
    assert_eq!(text_of(&out, 12, 1), a, "the file came back once, in the first copy the run kept");
    let third = text_of(&out, 14, 1);
    assert!(third.contains("⟨ Reference: content of 'src/a.ts' identical to message #12"), "{third}");
    let acts = &o.provenance.as_ref().expect("provenance").acts;
    assert!(acts.iter().any(|x| x.message == 14 && x.refers_to == Some(12)), "{acts:?}");
    assert!(!acts.iter().any(|x| x.message == 12), "{acts:?}");
    let expansion = context_condense::reference::expand(&out);
    assert_eq!(expansion.unresolved, 0);
    let back =
        expansion.changes.iter().find(|(at, _)| at.msg == 14 && at.slot == Slot::Text(1)).map(|(_, t)| t.clone());
    assert_eq!(back.as_deref(), Some(a.as_str()));
}

/// Asserts the promise on a result: every reference marker in it expands (to the bytes its seal
/// names), none is left pointing at nothing; answers the "Omitted" notes in it.
fn assert_every_marker_expands(out: &[Value], what: &str) -> usize {
    let expansion = context_condense::reference::expand(out);
    assert_eq!(expansion.unresolved, 0, "{what}: a reference marker points at nothing");
    out.iter().flat_map(context_condense::model::slot_texts).map(|(_, t)| t.matches("⟨ Omitted: ").count()).sum()
}

fn lossless(keep: &str) -> Value {
    json!({"provider": "lossless", "config": {"keep": keep}})
}

#[test]
fn an_earlier_reference_to_a_later_copy_is_omitted_when_a_later_run_shortens_that_copy() {
    // Lossless keeping the latest copy makes the older read (message 2) a reference forward to
    // the newer (message 12); the later run then shortens message 12. Message 2 is older than
    // any message the run changed (its marker text is too short to shorten): it is looked at all
    // the same, and says what it stood for is omitted.
    let (h, a) = history();
    let (_, first) = run(&h, &options(lossless("latest")));
    assert!(text_of(&first, 2, 1).contains("identical to message #12"), "the set-up");
    for second in [
        json!({"provider": "truncation", "config": {"preserveRecentCount": 2}}),
        json!({"provider": "smart", "config": {"passes": [{
            "id": "old", "name": "old", "mode": "individual",
            "selection": { "type": "preserve_recent", "keepRecentCount": 2 },
            "individualConfig": { "defaults": { "toolResults": { "operation": "truncate", "params": { "truncate": { "maxLines": 10, "maxChars": 1000 } } } } }
        }]}}),
    ] {
        let (o, out) = run(&first, &options(second.clone()));
        assert_invariants(&first, &out, &o, Encoding::O200kBase);
        assert_ne!(text_of(&out, 12, 1), a, "{second}: the newer copy was shortened");
        let older = text_of(&out, 2, 1);
        assert!(
            older.contains("⟨ Omitted: content of 'src/a.ts' identical to message #12, since shortened ⟩"),
            "{second}: {older}"
        );
        assert_eq!(assert_every_marker_expands(&out, &second.to_string()), 1);
    }
}

#[test]
fn an_earlier_reference_to_a_later_copy_gets_the_bytes_back_in_a_message_the_run_kept() {
    // Only message 12 (the newer copy) is selected: message 2, the older copy's reference, is
    // kept by the run, and so is what it stands for.
    let (h, a) = history();
    let (_, first) = run(&h, &options(lossless("latest")));
    let only_12 = json!({
        "id": "one", "name": "one", "mode": "individual",
        "selection": { "type": "custom", "messageIndices": [12] },
        "individualConfig": { "defaults": { "toolResults": "suppress" } }
    });
    let (o, out) = run(&first, &options(json!({"provider": "smart", "config": {"passes": [only_12]}})));
    assert_invariants(&first, &out, &o, Encoding::O200kBase);
    assert_ne!(text_of(&out, 12, 1), a, "the newer copy was suppressed");
    assert_eq!(text_of(&out, 2, 1), a, "the older copy holds the file again");
    assert_eq!(assert_every_marker_expands(&out, "custom selection"), 0);
}

/// `history()` with `n` other reads before the two copies of src/a.ts, so a summary of the
/// start can leave both copies kept (at messages `2n + 2` and `2n + 4`).
fn history_after(n: usize) -> (Vec<Value>, String) {
    let a = file_body("src/a.ts", "");
    let mut h = vec![json!({"role": "user", "content": [{"type": "text", "text": "<task>\nRefactor\n</task>"}]})];
    for i in 0..n {
        h.push(call(&format!("<read_file><path>src/c{i}.ts</path></read_file>")));
        h.push(result("read_file", &format!("src/c{i}.ts"), &file_body(&format!("src/c{i}.ts"), &format!("c{i}"))));
    }
    for _ in 0..2 {
        h.push(call("<read_file><path>src/a.ts</path></read_file>"));
        h.push(result("read_file", "src/a.ts", &a));
    }
    h.push(call("<attempt_completion><result>done</result></attempt_completion>"));
    h.push(json!({"role": "user", "content": [{"type": "text", "text": "<feedback>\nthanks\n</feedback>"}]}));
    (h, a)
}

#[test]
fn an_earlier_reference_follows_its_copy_when_a_summary_moves_both() {
    // Messages 1..8 summarized away: the reference (message 12 -> 10) and its copy both move, by
    // the same distance, in a text the summary did not touch. It names the copy's new place.
    let (h, a) = history_after(4);
    let (_, first) = run(&h, &options(lossless("first")));
    assert!(text_of(&first, 12, 1).contains("identical to message #10"), "the set-up");
    let mut summarize = |batch: Vec<context_condense::llm::SummarizeRequest>| {
        batch
            .iter()
            .map(|_| Ok(context_condense::llm::SummaryReply { text: "Read four files.".into(), ..Default::default() }))
            .collect()
    };
    let opts = options(json!({"provider": "native", "config": {"keepLast": 6}}));
    let (o, out) = run_with(&first, &opts, Some(&mut summarize));
    assert!(o.error.is_none(), "{:?}", o.error);
    assert_eq!(out.len(), first.len() - 7, "eight messages became one summary");
    let (copy, reference) = (out.len() - 5, out.len() - 3);
    assert_eq!(text_of(&out, copy, 1), a);
    assert!(
        text_of(&out, reference, 1).contains(&format!("identical to message #{copy} ")),
        "{}",
        text_of(&out, reference, 1)
    );
    assert_eq!(assert_every_marker_expands(&out, "native"), 0);
}

/// A command run three times: the first two outputs identical, the third different.
fn command_history() -> Vec<Value> {
    let output = |v: &str| {
        let lines: String = (1..=30).map(|i| format!("src/file{i}.ts: 0 problems ({v})\n")).collect();
        format!("Command executed in terminal within working directory '/w'. Exit code: 0\nOutput:\n{lines}")
    };
    let mut h = vec![json!({"role": "user", "content": [{"type": "text", "text": "<task>\nLint\n</task>"}]})];
    for v in ["first", "first", "second"] {
        h.push(call("<execute_command><command>npm run lint</command></execute_command>"));
        h.push(result("execute_command", "npm run lint", &output(v)));
    }
    h.push(call("<attempt_completion><result>done</result></attempt_completion>"));
    h.push(json!({"role": "user", "content": [{"type": "text", "text": "<feedback>\nthanks\n</feedback>"}]}));
    h
}

#[test]
fn a_later_lossless_run_leaves_what_an_earlier_reference_stands_for() {
    // The first run makes the second output a reference to the first, and keeps the first (it
    // is that reference's target) although the third run supersedes it. A second Lossless run
    // keeps it too: the history's references are targets like its own.
    let h = command_history();
    let (o, first) = run(&h, &options(lossless("first")));
    assert_invariants(&h, &first, &o, Encoding::O200kBase);
    assert!(
        text_of(&first, 4, 1).contains("⟨ Reference: same execute_command result"),
        "the set-up: {}",
        text_of(&first, 4, 1)
    );
    assert_eq!(text_of(&first, 2, 1), text_of(&h, 2, 1), "the set-up");
    for keep in ["first", "latest"] {
        let (o, again) = run(&first, &options(lossless(keep)));
        assert_invariants(&first, &again, &o, Encoding::O200kBase);
        assert_eq!(text_of(&again, 2, 1), text_of(&h, 2, 1), "keep {keep}: the reference's target is left");
        assert_eq!(assert_every_marker_expands(&again, keep), 0);
    }
}

#[test]
fn a_run_that_would_grow_the_context_by_bringing_bytes_back_is_refused() {
    // src/a.ts read twice, nothing else: Lossless makes the second read a reference to the first;
    // Truncation then shortens the first and the bytes come back at the second, a larger context
    // than it was given. The run is refused and the history left as it was.
    let (h, _) = history_after(0);
    let (_, first) = run(&h, &options(lossless("first")));
    assert!(text_of(&first, 4, 1).contains("identical to message #2"), "the set-up");
    let (o, out) = run(&first, &options(json!({"provider": "truncation", "config": {"preserveRecentCount": 4}})));
    assert_eq!(o.error_code, Some("context-grew"), "{:?}", o.error);
    assert_eq!(out, first);
    assert_eq!(o.new_context_tokens, o.prev_context_tokens);
}

/// A small seeded generator of sessions that read files again (changed or not), rerun commands
/// and give feedback, in the legacy XML format.
fn generated(seed: u64) -> Vec<Value> {
    let mut state = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
    let mut next = |n: u64| {
        state = state.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
        (state >> 33) % n
    };
    let mut versions = [0u64; 4];
    let mut h = vec![json!({"role": "user", "content": [{"type": "text", "text": "<task>\nWork\n</task>"}]})];
    let steps = 8 + next(14);
    for _ in 0..steps {
        match next(6) {
            0..=2 => {
                let f = next(4) as usize;
                if next(3) == 0 {
                    versions[f] += 1;
                }
                let path = format!("src/f{f}.ts");
                h.push(call(&format!("<read_file><path>{path}</path></read_file>")));
                h.push(result("read_file", &path, &file_body(&path, &format!("v{}", versions[f]))));
            }
            3 | 4 => {
                let v = next(2);
                let lines: String = (1..=25).map(|i| format!("line {i} of the run ({v})\n")).collect();
                h.push(call("<execute_command><command>npm test</command></execute_command>"));
                h.push(result("execute_command", "npm test", &format!("Exit code: 0\nOutput:\n{lines}")));
            }
            _ => {
                h.push(call("<ask_followup_question><question>Go on?</question></ask_followup_question>"));
                h.push(json!({"role": "user", "content": [{"type": "text", "text": "<answer>\nyes\n</answer>"}]}));
            }
        }
    }
    h.push(call("<attempt_completion><result>done</result></attempt_completion>"));
    h.push(json!({"role": "user", "content": [{"type": "text", "text": "<feedback>\nthanks\n</feedback>"}]}));
    h
}

#[test]
fn chains_of_runs_keep_every_reference_expandable_or_omitted() {
    // Lossless (either keep), then lossy runs and Lossless again in turn, over generated
    // sessions: after each run, every marker expands to what its seal names, and the result
    // keeps every invariant of a condensation.
    let runs = [
        lossless("first"),
        lossless("latest"),
        json!({"provider": "truncation", "config": {"preserveRecentCount": 4}}),
        json!({"provider": "smart", "config": {"preset": "balanced", "workingSet": null}}),
        json!({"provider": "smart", "config": {"preset": "aggressive"}}),
        json!({"provider": "smart", "config": {"passes": [suppress_results(6)]}}),
    ];
    for seed in 0..24u64 {
        let h = generated(seed);
        let mut current = h.clone();
        let chain =
            [(seed % 2) as usize, 2 + (seed % 4) as usize, (seed / 2 % 2) as usize, 2 + (seed / 4 % 4) as usize];
        for (k, &r) in chain.iter().enumerate() {
            let what = format!("seed {seed}, run {k}: {}", runs[r]);
            let (o, out) = run(&current, &options(runs[r].clone()));
            if o.error.is_some() {
                assert_eq!(out, current, "{what}: refused, unchanged");
                continue;
            }
            assert_invariants(&current, &out, &o, Encoding::O200kBase);
            assert_every_marker_expands(&out, &what);
            current = out;
        }
    }
}
