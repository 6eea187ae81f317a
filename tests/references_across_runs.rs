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
