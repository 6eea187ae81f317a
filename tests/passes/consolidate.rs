//! `ConsolidateToolResults` (`src/passes/consolidate.rs`), with the read deduplication off: an
//! identical result of any tool becomes a reference to the copy that stays; when obsolete state
//! may go too, older runs of the same command, listing or search are superseded by the latest.
//! Error results, results holding what the user typed and short results stay.

use context_condense::{json, json::Value};

use crate::history::*;

/// Lossless running only the identical-results consolidation.
fn identical(keep: &str) -> Value {
    json!({"deduplicateFileReads": false, "removeObsoleteState": false, "keep": keep})
}

/// Lossless with reruns superseded too (obsolete-state removal on; these histories hold no
/// reads or environment details for it to act on).
fn with_reruns() -> Value {
    json!({"deduplicateFileReads": false})
}

fn same_result(tool: &str, arg: &str, target: usize, own: usize, bytes: &str) -> String {
    format!("⟨ Reference: same {tool} result for '{arg}' as message #{target} · sha256:{} ⟩", seal(own, target, bytes))
}

fn passing(name: &str) -> String {
    command_output(0, &format!("PASS src/{name}.test.ts\n").repeat(30))
}

#[test]
fn an_identical_result_refers_to_the_first_copy_or_the_latest() {
    let out1 = passing("a");
    let h = vec![
        task("Make the tests pass"),
        assistant("<execute_command>\n<command>npm test</command>\n</execute_command>"),
        xml_result("execute_command", "npm test", &out1, &[]),
        assistant("<execute_command>\n<command>npm test</command>\n</execute_command>"),
        xml_result("execute_command", "npm test", &out1, &[]),
    ];
    let (_, out) = run("lossless", identical("first"), &h);
    // The output ends with a newline, which the marker's own newline stands for.
    assert_eq!(text(&out, 4, 1), same_result("execute_command", "npm test", 2, 4, &out1) + "\n");
    assert_eq!(out[..4], h[..4]);
    let (_, out) = run("lossless", identical("latest"), &h);
    assert_eq!(text(&out, 2, 1), same_result("execute_command", "npm test", 4, 2, &out1) + "\n");
    assert_eq!(out[3..], h[3..]);
}

#[test]
fn the_marker_names_its_own_tool_and_argument_and_clips_a_long_one() {
    let body = format!("{}\n(end of output)", "match: src/x.ts: const x = 1;\n".repeat(12));
    let long = "a".repeat(70);
    let h = vec![
        task("Find it"),
        assistant("search"),
        xml_result("use_mcp_tool", "search", &body, &[]),
        assistant("search again"),
        xml_result("use_mcp_tool", &long, &body, &[]),
    ];
    let (_, out) = run("lossless", identical("first"), &h);
    let clipped = format!("{}…", "a".repeat(60));
    assert_eq!(text(&out, 4, 1), same_result("use_mcp_tool", &clipped, 2, 4, &body), "no newline: the body has none");
}

#[test]
fn errors_user_text_and_short_results_stay() {
    let failing = command_output(1, &"FAIL src/c.test.ts\n".repeat(30));
    let tool_error = format!(
        "The tool execution failed with the following error:\n<error>\n{}\n</error>",
        "ENOENT: no such file ".repeat(20)
    );
    let feedback = format!(
        "The user approved this operation and provided the following context:\n<feedback>\nkeep it\n</feedback>\n{}",
        "same output line\n".repeat(30)
    );
    let h = vec![
        task("Make the tests pass"),
        assistant("1"),
        xml_result("execute_command", "npm test", &failing, &[]),
        assistant("2"),
        xml_result("execute_command", "npm test", &failing, &[]),
        assistant("3"),
        xml_result("read_file", "x.ts", &tool_error, &[]),
        assistant("4"),
        xml_result("read_file", "x.ts", &tool_error, &[]),
        assistant("5"),
        xml_result("apply_diff", "y.ts", &feedback, &[]),
        assistant("6"),
        xml_result("apply_diff", "y.ts", &feedback, &[]),
        assistant("7"),
        xml_result("update_todo_list", "todo", "Todo list updated successfully.", &[]),
        assistant("8"),
        xml_result("update_todo_list", "todo", "Todo list updated successfully.", &[]),
    ];
    let (_, out) = run("lossless", identical("first"), &h);
    assert_eq!(out, h);
    let (_, out) = run("lossless", with_reruns(), &h);
    assert_eq!(out, h, "a failed run is not superseded by a later run either");
}

#[test]
fn older_runs_of_the_same_command_are_superseded_by_the_latest() {
    let (a, b, c) = (passing("a"), passing("b"), passing("c"));
    let h = vec![
        task("Make the tests pass"),
        assistant("1"),
        xml_result("execute_command", "npm test", &a, &[]),
        assistant("2"),
        xml_result("execute_command", "npm run lint", &b, &[]),
        assistant("3"),
        xml_result("execute_command", "npm test", &b, &[]),
        assistant("4"),
        xml_result("execute_command", "npm test", &c, &[]),
    ];
    let (_, out) = run("lossless", with_reruns(), &h);
    let superseded = "⟨ Superseded: execute_command 'npm test' ran again in message #8; this older output is omitted ⟩";
    assert_eq!(text(&out, 2, 1), superseded);
    assert_eq!(text(&out, 4, 1), b, "another command: its own latest run");
    // Reversible operations come first: an older run identical to another result is a
    // reference, not superseded.
    assert_eq!(text(&out, 6, 1), same_result("execute_command", "npm test", 4, 6, &b) + "\n");
    assert_eq!(out[8], h[8], "the latest run stays");
    // Without obsolete-state removal, reruns stay.
    let (_, out) = run("lossless", identical("first"), &h);
    assert_eq!(text(&out, 2, 1), a);
    assert_eq!(text(&out, 6, 1), same_result("execute_command", "npm test", 4, 6, &b) + "\n");
}

#[test]
fn reruns_of_a_tool_that_does_not_describe_state_stay() {
    let h = vec![
        task("Ask twice"),
        assistant("1"),
        xml_result("use_mcp_tool", "status", &"state one\n".repeat(30), &[]),
        assistant("2"),
        xml_result("use_mcp_tool", "status", &"state two\n".repeat(30), &[]),
    ];
    let (_, out) = run("lossless", with_reruns(), &h);
    assert_eq!(out, h);
}

#[test]
fn native_results_are_consolidated_and_stay_paired() {
    let out1 = passing("n");
    let call = |id: &str| native_call(id, "execute_command", json!({"command": "npm test"}));
    let h = vec![
        task("Make the tests pass"),
        call("toolu_1"),
        native_result("toolu_1", &out1, &[]),
        call("toolu_2"),
        native_result("toolu_2", &out1, &[]),
    ];
    let (_, out) = run("lossless", identical("first"), &h);
    assert_eq!(result_text(&out, 4, 0), same_result("execute_command", "npm test", 2, 4, &out1) + "\n");
    assert_eq!(out[4]["content"][0]["tool_use_id"], "toolu_2");
    assert_eq!(out[..4], h[..4]);
}

#[test]
fn empty_and_one_message_histories_are_returned_as_they_are() {
    for h in [vec![], vec![task("Make the tests pass")]] {
        let (_, out) = run("lossless", with_reruns(), &h);
        assert_eq!(out, h);
    }
}
