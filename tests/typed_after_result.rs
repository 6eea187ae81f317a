//! What the user typed in a text block after a native `tool_result` (Roo Code puts the message a
//! resumed task starts with there: "New instructions for task continuation: <user_message>…")
//! is theirs, not the tool's output: every provider that shortens old tool output keeps it
//! verbatim, while the result before it is shortened (that a legacy result still owns the text
//! blocks after its header is src/parse/tests.rs's). Touches nothing outside the engine.

mod common;

use common::*;
use context_condense::tokens::{count_messages, Encoding};
use context_condense::{json, json::Value};

const TYPED: &str = "\n\nNew instructions for task continuation:\n<user_message>\nStop editing the tests for now and focus on the build errors.\n</user_message>";

fn file(lines: usize) -> String {
    (1..=lines).map(|i| format!("{i:>3} | const value{i} = compute({i}) // line {i} of the config\n")).collect()
}

/// A native-format task: a large read, then the user's resumed-task message after its result, then
/// enough turns for the read to be old.
fn native_history() -> Vec<Value> {
    let mut h = vec![json!({"role": "user", "content": [{"type": "text", "text": "<task>\nFix the build\n</task>"}]})];
    h.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": "r1", "name": "read_file", "input": {"path": "src/config.ts"}}]}));
    h.push(json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": "r1", "content": format!("File: src/config.ts\nLines 1-200:\n{}", file(200))},
        {"type": "text", "text": TYPED},
    ]}));
    for i in 0..8 {
        let id = format!("c{i}");
        h.push(json!({"role": "assistant", "content": [{"type": "tool_use", "id": id, "name": "execute_command", "input": {"command": format!("npm run step{i}")}}]}));
        h.push(json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": id, "content": format!("Command executed. Exit code: 0\nOutput:\n{}", file(40))}]}));
    }
    h
}

fn text_of(h: &[Value]) -> String {
    h.iter().map(|m| m.to_string()).collect::<Vec<_>>().join("\n")
}

fn typed_json() -> String {
    // As it appears in the serialized messages.
    json!(TYPED).to_string().trim_matches('"').to_string()
}

#[test]
fn every_provider_that_shortens_old_output_keeps_the_text_after_a_native_result() {
    let h = native_history();
    let before = count_messages(&h, Encoding::default());
    for config in [
        json!({"provider": "smart", "config": {"passes": [{"id": "p", "name": "suppress", "mode": "individual",
            "selection": {"type": "preserve_recent", "keepRecentCount": 4},
            "individualConfig": {"defaults": {"toolResults": "suppress", "toolParameters": "suppress", "environmentDetails": "suppress"}}}]}}),
        json!({"provider": "smart", "config": {"preset": "aggressive"}}),
        json!({"provider": "truncation", "config": {}}),
    ] {
        let (outcome, out) = run(&h, &options(config.clone()));
        assert!(outcome.error_code.is_none(), "{config}: {:?}", outcome.error_code);
        assert_invariants(&h, &out, &outcome, Encoding::default());
        let text = text_of(&out);
        assert!(
            text.contains(&typed_json()),
            "{config}: the user's message is gone:\n{}",
            &text[..text.len().min(2000)]
        );
        assert!(!text.contains("line 150 of the config"), "{config}: the old read was not shortened");
        assert!(count_messages(&out, Encoding::default()) < before, "{config}: nothing removed");
    }
}
