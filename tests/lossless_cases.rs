//! Lossless on small hand-made histories, one behaviour each: which copy stays, line references,
//! superseded versions, what is never touched (errors, feedback, summaries, hidden messages),
//! environment details, reruns, the native format. Every case also asserts the invariants.

mod common;

use common::*;
use context_condense::edit::materialize;
use context_condense::model::{slot_text, Slot};
use context_condense::reference::expand;
use context_condense::tokens::Encoding;
use context_condense::{json, json::Value};

fn file_body(path: &str, first: u32, lines: &[String]) -> String {
    let last = first + lines.len() as u32 - 1;
    let w = last.to_string().len();
    let numbered: String = lines.iter().enumerate().map(|(i, l)| format!("{:>w$} | {l}\n", first + i as u32)).collect();
    format!("<files>\n<file><path>{path}</path>\n<content lines=\"{first}-{last}\">\n{numbered}</content>\n</file>\n</files>")
}

fn source(n: usize, salt: &str) -> Vec<String> {
    (1..=n).map(|i| format!("export function step{i}{salt}(input: number): number {{ return input * {i}; }}")).collect()
}

fn open_tabs() -> String {
    (0..30).map(|i| format!("src/components/feature{i}/index.ts")).collect::<Vec<_>>().join(",")
}

fn env(time: &str) -> String {
    format!("<environment_details>\n# VSCode Visible Files\n{}\n\n# Current Time\n{time}\n\n# Current Cost\n$0.10\n</environment_details>", open_tabs())
}

fn result(tool: &str, arg: &str, body: &str, time: &str) -> Value {
    json!({"role": "user", "content": [
        {"type": "text", "text": format!("[{tool} for '{arg}'] Result:")},
        {"type": "text", "text": body},
        {"type": "text", "text": env(time)},
    ]})
}

fn call(text: &str) -> Value {
    json!({"role": "assistant", "content": [{"type": "text", "text": text}]})
}

fn task() -> Value {
    json!({"role": "user", "content": [{"type": "text", "text": "<task>\nRefactor the steps\n</task>"}, {"type": "text", "text": env("t0")}]})
}

fn text_of(messages: &[Value], msg: usize, block: usize) -> String {
    slot_text(&messages[msg], Slot::Text(block)).unwrap_or_default().to_string()
}

fn lossless(config: Value) -> context_condense::condense::Options {
    options(json!({"provider": "lossless", "config": config}))
}

#[test]
fn identical_reads_keep_the_first_or_the_latest() {
    let body = file_body("src/a.ts", 1, &source(30, ""));
    let h = vec![
        task(),
        call("read"),
        result("read_file", "src/a.ts", &body, "t1"),
        call("again"),
        result("read_file", "src/a.ts", &body, "t2"),
    ];
    let (o, out) = run(&h, &lossless(json!({})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert_eq!(text_of(&out, 2, 1), body, "the first copy stays");
    assert!(text_of(&out, 4, 1).contains("⟨ Reference: content of 'src/a.ts' identical to message #2 · sha256:"));
    let (o, out) = run(&h, &lossless(json!({"keep": "latest"})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert_eq!(text_of(&out, 4, 1), body, "the latest copy stays");
    assert!(text_of(&out, 2, 1).contains("identical to message #4"));
    assert_reversible(&h, &run(&h, &lossless(json!({"removeObsoleteState": false}))).1);
}

#[test]
fn a_partial_read_of_unchanged_lines_references_the_full_read() {
    let lines = source(40, "");
    let full = file_body("src/a.ts", 1, &lines);
    let part = file_body("src/a.ts", 11, &lines[10..25]);
    let h = vec![
        task(),
        call("read"),
        result("read_file", "src/a.ts", &full, "t1"),
        call("part"),
        result("read_file", "src/a.ts", &part, "t2"),
    ];
    let (o, out) = run(&h, &lossless(json!({"removeObsoleteState": false})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert!(text_of(&out, 4, 1).contains("⟨ Reference: lines 11-25 of 'src/a.ts' unchanged from message #2"));
    assert_reversible(&h, &out);
}

#[test]
fn an_older_version_is_superseded_by_a_later_read_that_differs() {
    let v1 = file_body("src/a.ts", 1, &source(30, ""));
    let v2 = file_body("src/a.ts", 1, &source(31, "_v2"));
    let h = vec![
        task(),
        call("read"),
        result("read_file", "src/a.ts", &v1, "t1"),
        call("edit and read"),
        result("read_file", "src/a.ts", &v2, "t2"),
    ];
    let (o, out) = run(&h, &lossless(json!({})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert!(text_of(&out, 2, 1)
        .contains("⟨ Superseded: 'src/a.ts' was read again in message #4; this older version is omitted ⟩"));
    assert!(
        text_of(&out, 2, 1).starts_with("<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-30\">\n"),
        "the path stays"
    );
    assert_eq!(text_of(&out, 4, 1), v2);
    // Without obsolete-state removal nothing is superseded.
    let (_, kept) = run(&h, &lossless(json!({"removeObsoleteState": false})));
    assert_eq!(text_of(&kept, 2, 1), v1);
}

#[test]
fn errors_feedback_and_short_results_are_never_replaced() {
    let err = format!(
        "The tool execution failed with the following error:\n<error>\n{}\n</error>",
        "ENOENT: no such file ".repeat(30)
    );
    let feedback = format!(
        "The user approved this operation and provided the following context:\n<feedback>\nkeep it\n</feedback>\n{}",
        "same output line\n".repeat(40)
    );
    let h = vec![
        task(),
        call("a"),
        result("read_file", "x.ts", &err, "t1"),
        call("b"),
        result("read_file", "x.ts", &err, "t2"),
        call("c"),
        result("apply_diff", "y.ts", &feedback, "t3"),
        call("d"),
        result("apply_diff", "y.ts", &feedback, "t4"),
        call("e"),
        result("update_todo_list", "", "Todo list updated successfully.", "t5"),
        call("f"),
        result("update_todo_list", "", "Todo list updated successfully.", "t6"),
    ];
    let (o, out) = run(&h, &lossless(json!({})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    for i in [2, 4, 6, 8, 10, 12] {
        assert_eq!(text_of(&out, i, 1), text_of(&h, i, 1), "message {i} must stay as it is");
    }
}

#[test]
fn reruns_of_a_command_keep_the_latest_output_and_identical_runs_are_references() {
    let out1 = format!(
        "Command executed in terminal within working directory '/p'. Exit code: 0\nOutput:\n{}",
        "PASS src/a.test.ts\n".repeat(30)
    );
    let out2 = format!(
        "Command executed in terminal within working directory '/p'. Exit code: 0\nOutput:\n{}",
        "PASS src/b.test.ts\n".repeat(30)
    );
    let failing = format!(
        "Command executed in terminal within working directory '/p'. Exit code: 1\nOutput:\n{}",
        "FAIL src/c.test.ts\n".repeat(30)
    );
    let h = vec![
        task(),
        call("run"),
        result("execute_command", "npm test", &out1, "t1"),
        call("run"),
        result("execute_command", "npm test", &failing, "t2"),
        call("run"),
        result("execute_command", "npm test", &out1, "t3"),
        call("run"),
        result("execute_command", "npm test", &out2, "t4"),
    ];
    let (o, out) = run(&h, &lossless(json!({})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert_eq!(text_of(&out, 4, 1), failing, "a failed run is an error result: kept");
    assert!(text_of(&out, 6, 1).contains("⟨ Reference: same execute_command result for 'npm test' as message #2"));
    assert_eq!(text_of(&out, 2, 1), out1, "the target of a reference stays");
    assert_eq!(text_of(&out, 8, 1), out2, "the latest run stays");
    let (o, out) = run(&h, &lossless(json!({"removeObsoleteState": false})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert!(!out.iter().any(|m| m.to_string().contains("⟨ Superseded")));
    assert_reversible(&h, &out);
}

#[test]
fn environment_details_keep_the_latest_block_and_what_is_never_restated() {
    let first = json!({"role": "user", "content": [
        {"type": "text", "text": "<task>\nx\n</task>"},
        {"type": "text", "text": format!("<environment_details>\n# VSCode Visible Files\n{}\n\n# Current Time\nt0\n\n# Current Workspace Directory (/p) Files\na.ts\nb.ts\n</environment_details>", open_tabs())},
    ]});
    let h = vec![
        first,
        call("a"),
        result("list_files", ".", "a.ts\nb.ts", "t1"),
        call("b"),
        result("list_files", "src", "c.ts", "t2"),
    ];
    let (o, out) = run(&h, &lossless(json!({})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    let e0 = text_of(&out, 0, 1);
    assert!(
        e0.contains("⟨ Superseded by the environment details in message #2: VSCode Visible Files, Current Time ⟩"),
        "{e0}"
    );
    assert!(
        e0.contains("# Current Workspace Directory (/p) Files\na.ts\nb.ts\n"),
        "the listing is never restated: kept"
    );
    assert_eq!(text_of(&out, 4, 2), text_of(&h, 4, 2), "the latest block stays whole");
    assert_eq!(text_of(&out, 0, 0), "<task>\nx\n</task>");
}

#[test]
fn native_results_summaries_and_hidden_messages() {
    let content = (1..=40).map(|i| format!("{i:>2} | line number {i} of the file")).collect::<Vec<_>>().join("\n");
    let read = format!("File: src/n.ts\nLines 1-40:\n{content}\n");
    let use_block = |id: &str| {
        json!({"role": "assistant", "content": [
        {"type": "thinking", "thinking": "let me look", "signature": "c2lnbmF0dXJl"},
        {"type": "tool_use", "id": id, "name": "read_file", "input": {"path": "src/n.ts"}}]})
    };
    let res = |id: &str| {
        json!({"role": "user", "content": [
        {"type": "tool_result", "tool_use_id": id, "content": read.clone()},
        {"type": "text", "text": env("t")}]})
    };
    let h = vec![
        json!({"role": "user", "content": "<task>\nread it\n</task>"}),
        use_block("toolu_1"),
        res("toolu_1"),
        json!({"role": "assistant", "content": "summary of the early work", "isSummary": true, "condenseId": "c1"}),
        use_block("toolu_2"),
        json!({"role": "user", "content": [{"type": "tool_result", "tool_use_id": "toolu_2", "content": [{"type": "text", "text": read.clone()}]}], "condenseParent": "c1"}),
        use_block("toolu_3"),
        res("toolu_3"),
    ];
    let (o, out) = run(&h, &lossless(json!({})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert_eq!(out[3], h[3], "a summary is never edited");
    assert_eq!(out[5], h[5], "a message hidden behind a summary is neither edited nor referenced");
    let third = slot_text(&out[7], Slot::ResultString(0)).unwrap_or_default();
    assert!(
        third.starts_with("File: src/n.ts\nLines 1-40:\n⟨ Reference: content of 'src/n.ts' identical to message #2"),
        "{third}"
    );
    for i in [1, 4, 6] {
        assert_eq!(out[i], h[i], "assistant turns and their thinking are untouched");
    }
    let expanded = materialize(&out, &expand(&out).changes);
    assert_eq!(slot_text(&expanded[7], Slot::ResultString(0)), Some(read.as_str()));
}

#[test]
fn a_reference_never_costs_more_than_what_it_replaces() {
    // Two identical small reads: a reference would be longer than the lines it replaces.
    let body = file_body("s.ts", 1, &["x".to_string()]);
    let h = vec![
        task(),
        call("a"),
        result("read_file", "s.ts", &body, "t1"),
        call("b"),
        result("read_file", "s.ts", &body, "t2"),
    ];
    let (o, out) = run(&h, &lossless(json!({"removeObsoleteState": false})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert_eq!(out, h);
    assert_eq!(o.new_context_tokens, o.prev_context_tokens);
}

#[test]
fn environment_tags_inside_a_tool_output_are_output_not_state() {
    // An MCP tool that dumps a conversation: its output quotes environment details and a task.
    let dump = format!(
        "Conversation Tree\n  [User]: <task>\n  old task\n  </task>\n{}\n{}",
        env("quoted"),
        "  | a line of the dumped conversation\n".repeat(60)
    );
    let h = vec![
        task(),
        call("a"),
        result("use_mcp_tool", "state", &dump, "t1"),
        call("b"),
        result("use_mcp_tool", "state", &dump, "t2"),
    ];
    let (o, out) = run(&h, &lossless(json!({})));
    assert_invariants(&h, &out, &o, Encoding::O200kBase);
    assert_eq!(text_of(&out, 2, 1), dump, "the quoted environment details are not superseded");
    assert!(text_of(&out, 4, 1).starts_with("⟨ Reference: same use_mcp_tool result for 'state' as message #2"));
}

/// Text that looks like a reference but was not written there by condensing stays text: a
/// genuine marker copied into feedback, an assistant's text, a file's content or a whole user
/// message, and a hand-made marker whose hash is the plain sha256 of real bytes. Condensing such a
/// history and expanding it back gives it exactly; expanding it as it is changes nothing.
#[test]
fn text_that_looks_like_a_reference_stays_text() {
    let body = file_body("src/a.ts", 1, &source(30, ""));
    let h = vec![
        task(),
        call("read"),
        result("read_file", "src/a.ts", &body, "t1"),
        call("again"),
        result("read_file", "src/a.ts", &body, "t2"),
    ];
    let (_, out) = run(&h, &lossless(json!({})));
    let text = text_of(&out, 4, 1);
    let genuine = text.lines().find(|l| l.starts_with("⟨ Reference: ")).unwrap_or_default().to_string();
    assert!(genuine.ends_with(" ⟩"), "a genuine marker to copy: {text}");
    // The bytes it stands for: the numbered lines of the first read.
    let first = slot_text(&h[2], Slot::Text(1)).unwrap_or_default().to_string();
    let start = first.find("\">\n").map(|i| i + 3).unwrap_or_default();
    let content = first[start..first.find("</content>").unwrap_or(first.len())].to_string();
    assert_eq!(expand(&out).changes.len(), 1, "the genuine marker expands where it was written");
    let plain_sha = {
        use sha2::{Digest, Sha256};
        let d = Sha256::digest(content.as_bytes());
        d.iter().take(6).map(|b| format!("{b:02x}")).collect::<String>()
    };
    let forged = format!("⟨ Reference: content of 'src/a.ts' identical to message #2 · sha256:{plain_sha} ⟩");
    let feedback = |t: &str| {
        json!({"role": "user", "content": [
            {"type": "text", "text": "[read_file for 'src/b.ts'] Result:"},
            {"type": "text", "text": "<feedback>\nlook at this: ".to_string() + t + "\n</feedback>"},
        ]})
    };
    let mut pasted = h.clone();
    pasted.extend([
        call(&format!("I saw {genuine} earlier")),
        feedback(&genuine),
        call("read the notes"),
        result(
            "read_file",
            "notes.md",
            &file_body("notes.md", 1, &[genuine.trim_end().to_string(), forged.clone()]),
            "t3",
        ),
        call("ok"),
        json!({"role": "user", "content": genuine.clone()}),
        call(&forged),
        json!({"role": "user", "content": forged.clone()}),
    ]);
    // As they are: nothing to expand.
    let x = expand(&pasted);
    assert!(x.changes.is_empty(), "copies and forgeries are not references: {:?}", x.changes);
    assert!(x.unresolved >= 7, "each copy is counted as unresolved text: {}", x.unresolved);
    // Condensed and expanded back: exactly the input.
    let (o, out) = run(&pasted, &lossless(json!({"removeObsoleteState": false})));
    assert!(o.metrics.tokens_before > o.metrics.tokens_after, "something was condensed");
    let back = materialize(&out, &expand(&out).changes);
    assert_eq!(back, pasted, "the round trip is exact");
}
