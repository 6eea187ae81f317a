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
