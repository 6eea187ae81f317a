//! The content operations (`src/passes/content_ops.rs`, with `shorten.rs`), as the Truncation
//! provider's one pass (`TruncationPass`) runs them: in every message but the first and the last
//! `preserveRecentCount`, tool results, tool parameters (legacy XML and native inputs) and
//! environment details are kept, truncated or suppressed as configured; what the user typed,
//! error results and (by default) the assistant's prose stay; tool pairing and message order
//! never change. A truncation keeps the head and says what was cut:
//! `⟨ … truncated: N more lines, M more characters ⟩`; a suppression says what was there:
//! `⟨ Content suppressed: <what>, N lines ⟩`.

use context_condense::{json, json::Value};

use crate::history::*;

fn truncation(config: Value) -> Value {
    let mut c = json!({"preserveRecentCount": 2});
    if let (Some(c), Some(more)) = (c.as_object_mut(), config.as_object()) {
        for (k, v) in more {
            c.insert(k.clone(), v.clone());
        }
    }
    c
}

fn tabs() -> String {
    (0..20).map(|i| format!("src/feature{i}/index.ts")).collect::<Vec<_>>().join(",")
}

fn env_block(time: &str) -> String {
    env(&[("VSCode Visible Files", &tabs()), ("Current Time", time)])
}

/// A first message, one old read (message 2), and two recent messages.
fn one_old_read(body: &str) -> Vec<Value> {
    vec![
        json!({"role": "user", "content": [
            {"type": "text", "text": "<task>\nRefactor the steps\n</task>"},
            {"type": "text", "text": env_block("t0")},
        ]}),
        xml_read("Reading it.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", body, &[&env_block("t1")]),
        assistant("Done."),
        xml_result("read_file", "src/a.ts", body, &[&env_block("t2")]),
    ]
}

#[test]
fn an_old_result_keeps_its_head_and_says_what_was_cut() {
    let lines = source(40, "");
    let h = one_old_read(&files_body("src/a.ts", 1, &lines));
    let (_, out) = run("truncation", truncation(json!({})), &h);
    let head = format!(
        "<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-40\">\n{}",
        first_lines(&numbered(1, &lines), 7)
    );
    assert_eq!(text(&out, 2, 1), format!("{head}⟨ … truncated: 36 more lines, 2465 more characters ⟩"));
    assert_eq!(text(&out, 2, 0), "[read_file for 'src/a.ts'] Result:", "the header stays");
    assert_eq!(text(&out, 2, 2), "⟨ Content suppressed: environment details, 7 lines ⟩");
    assert_eq!(out[0], h[0], "the first message stays whole");
    assert_eq!(out[1], h[1], "the prose and the short call stay");
    assert_eq!(out[3..], h[3..], "the recent messages stay whole");
}

#[test]
fn each_content_type_follows_its_own_operation() {
    let lines = source(40, "");
    let h = one_old_read(&files_body("src/a.ts", 1, &lines));
    let config = truncation(json!({"toolResults": "suppress", "environmentDetails": "keep"}));
    let (_, out) = run("truncation", config, &h);
    assert_eq!(text(&out, 2, 1), "⟨ Content suppressed: read_file result for 'src/a.ts', 46 lines ⟩");
    assert_eq!(text(&out, 2, 2), env_block("t1"));
    let config = truncation(json!({"toolResults": "keep", "environmentDetails": "keep"}));
    let (_, out) = run("truncation", config, &h);
    assert_eq!(out, h);
}

#[test]
fn a_longer_recent_window_leaves_everything_whole() {
    let h = one_old_read(&files_body("src/a.ts", 1, &source(40, "")));
    let (_, out) = run("truncation", truncation(json!({"preserveRecentCount": 3})), &h);
    assert_eq!(out, h, "messages 2-4 are recent and message 1 has nothing to cut");
}

#[test]
fn legacy_xml_parameters_are_cut_inside_the_call_which_stays_readable() {
    let code: String = source(30, "").iter().map(|l| format!("{l}\n")).collect();
    let call = format!(
        "Writing it.\n\n<write_to_file>\n<path>src/b.ts</path>\n<content>\n{code}</content>\n<line_count>30</line_count>\n</write_to_file>"
    );
    let h = vec![
        task("Write the steps"),
        assistant(&call),
        xml_result(
            "write_to_file",
            "src/b.ts",
            "<file_write_result>\n<path>src/b.ts</path>\n<operation>created</operation>\n</file_write_result>",
            &[],
        ),
        assistant("Done."),
        user("<user_message>\nthanks\n</user_message>"),
    ];
    let (_, out) = run("truncation", truncation(json!({})), &h);
    let head: String = source(30, "")[..4].iter().map(|l| format!("{l}\n")).collect();
    let expected = format!(
        "Writing it.\n\n<write_to_file>\n<path>src/b.ts</path>\n<content>\n{head}⟨ … truncated: 26 more lines, 1784 more characters ⟩\n</content>\n<line_count>30</line_count>\n</write_to_file>"
    );
    assert_eq!(text(&out, 1, 0), expected);
    assert_eq!(out[2..], h[2..]);
}

#[test]
fn native_inputs_and_results_are_cut_and_stay_paired() {
    let code: String = source(30, "").iter().map(|l| format!("{l}\n")).collect();
    let lines = source(40, "");
    let h = vec![
        task("Write the steps"),
        native_call("toolu_1", "write_to_file", json!({"path": "src/b.ts", "content": code})),
        native_result("toolu_1", "File written.", &[]),
        native_call("toolu_2", "read_file", json!({"path": "src/n.ts"})),
        native_result("toolu_2", &native_read_body("src/n.ts", 1, &lines), &[]),
        assistant("Done."),
        user("<user_message>\nthanks\n</user_message>"),
    ];
    let (_, out) = run("truncation", truncation(json!({})), &h);
    let head: String = source(30, "")[..5].iter().map(|l| format!("{l}\n")).collect();
    assert_eq!(
        out[1]["content"][1]["input"],
        json!({"path": "src/b.ts", "content": format!("{head}⟨ … truncated: 25 more lines, 1717 more characters ⟩\n")})
    );
    assert_eq!(out[1]["content"][1]["id"], "toolu_1");
    let read_head = format!("File: src/n.ts\nLines 1-40:\n{}", first_lines(&numbered(1, &lines), 8));
    assert_eq!(result_text(&out, 4, 0), format!("{read_head}⟨ … truncated: 32 more lines, 2366 more characters ⟩\n"));
    assert_eq!(out[4]["content"][0]["tool_use_id"], "toolu_2");
    assert_eq!(out[2], h[2], "a short result stays");
    assert_eq!(out[3], h[3], "a short input stays");
}

#[test]
fn errors_stay_unless_the_config_says_otherwise() {
    let failing = command_output(1, &"FAIL src/a.test.ts\n".repeat(30));
    let h = vec![
        task("Make the tests pass"),
        assistant("<execute_command>\n<command>npm test</command>\n</execute_command>"),
        xml_result("execute_command", "npm test", &failing, &[]),
        assistant("Done."),
        user("<user_message>\nthanks\n</user_message>"),
    ];
    let (_, out) = run("truncation", truncation(json!({})), &h);
    assert_eq!(out, h);
    let (_, out) = run("truncation", truncation(json!({"preserveErrors": false})), &h);
    let head = format!(
        "Command executed in terminal within working directory '/p'. Exit code: 1\nOutput:\n{}",
        "FAIL src/a.test.ts\n".repeat(8)
    );
    assert_eq!(text(&out, 2, 1), format!("{head}⟨ … truncated: 22 more lines, 418 more characters ⟩\n"));
}

#[test]
fn what_the_user_typed_stays_and_the_cut_starts_after_it() {
    let output = "same output line\n".repeat(40);
    let body = format!("<feedback>\nkeep the order\n</feedback>\n{output}");
    let h = vec![
        task("Sort them"),
        assistant("Sorting."),
        xml_result("apply_diff", "src/a.ts", &body, &[]),
        user(&format!("<user_message>\n{}</user_message>", "please also do this\n".repeat(40))),
        assistant("Done."),
        user("<user_message>\nthanks\n</user_message>"),
    ];
    let (_, out) = run("truncation", truncation(json!({})), &h);
    // The cut counts lines from the end of the feedback: its line ending is the first line.
    let kept = "same output line\n".repeat(9);
    assert_eq!(
        text(&out, 2, 1),
        format!("<feedback>\nkeep the order\n</feedback>\n{kept}⟨ … truncated: 31 more lines, 527 more characters ⟩\n")
    );
    assert_eq!(out[3], h[3], "a message the user typed is never cut");
}

#[test]
fn the_assistants_prose_is_cut_only_when_asked() {
    let prose = format!("{}\n", "x".repeat(99)).repeat(20);
    let h = vec![
        task("Explain"),
        assistant(&prose),
        user("<user_message>\nok\n</user_message>"),
        assistant("Done."),
        user("<user_message>\nthanks\n</user_message>"),
    ];
    let (_, out) = run("truncation", truncation(json!({})), &h);
    assert_eq!(out, h);
    let (_, out) = run("truncation", truncation(json!({"preserveAssistantText": false})), &h);
    let head = format!("{}\n", "x".repeat(99)).repeat(10);
    assert_eq!(text(&out, 1, 0), format!("{head}⟨ … truncated: 10 more lines, 1000 more characters ⟩\n"));
}

#[test]
fn a_token_target_stops_it_with_the_newer_content_whole() {
    let first = command_output(0, &"PASS src/a.test.ts\n".repeat(30));
    let second = command_output(0, &"PASS src/b.test.ts\n".repeat(30));
    let h = vec![
        task("Make the tests pass"),
        assistant("1"),
        xml_result("execute_command", "npm test", &first, &[]),
        assistant("2"),
        xml_result("execute_command", "npm test", &second, &[]),
        assistant("Done."),
        user("<user_message>\nthanks\n</user_message>"),
    ];
    let (all, out) = run("truncation", truncation(json!({})), &h);
    assert_ne!(text(&out, 4, 1), second, "without a target both old results are cut");
    let target = all.prev_context_tokens - 1;
    let (_, out) = run("truncation", truncation(json!({"targetTokens": target})), &h);
    let head = format!(
        "Command executed in terminal within working directory '/p'. Exit code: 0\nOutput:\n{}",
        "PASS src/a.test.ts\n".repeat(8)
    );
    assert_eq!(text(&out, 2, 1), format!("{head}⟨ … truncated: 22 more lines, 418 more characters ⟩\n"));
    assert_eq!(out[3..], h[3..], "the target was met after the oldest result");
}

#[test]
fn empty_and_one_message_histories_are_returned_as_they_are() {
    let long = json!({"role": "user", "content": [
        {"type": "text", "text": "<task>\nRefactor\n</task>"},
        {"type": "text", "text": env_block("t0")},
    ]});
    for h in [vec![], vec![long]] {
        let (_, out) = run("truncation", truncation(json!({"preserveRecentCount": 0})), &h);
        assert_eq!(out, h);
    }
}
