//! Tests of the semantic view's readers (tool results, legacy headers, errors, char boundaries).
use super::*;
use crate::json;

#[test]
fn headers() {
    let (t, a, _) = legacy_header("[read_file for 'src/a.ts'. Reading multiple files at once is more efficient for the LLM. If other files are relevant to your current task, please read them simultaneously.] Result:").unwrap();
    assert_eq!((t.as_str(), a.as_deref()), ("read_file", Some("src/a.ts")));
    let (t, a, _) = legacy_header("[update_todo_list] Result:").unwrap();
    assert_eq!((t.as_str(), a), ("update_todo_list", None));
    let (_, a, _) = legacy_header("[execute_command for 'echo 'x''] Result:").unwrap();
    assert_eq!(a.as_deref(), Some("echo 'x'"));
    assert!(legacy_header("[ERROR] You did not use a tool").is_none());
}

#[test]
fn legacy_and_native_results_with_env_and_user_text() {
    let h = vec![
        json!({"role":"user","content":[{"type":"text","text":"<task>\ndo it\n</task>"}]}),
        json!({"role":"assistant","content":[{"type":"text","text":"<read_file><path>a</path></read_file>"}]}),
        json!({"role":"user","content":[
            {"type":"text","text":"[read_file for 'a'] Result:"},
            {"type":"text","text":"<files>\n<file><path>a</path>\n<content lines=\"1-2\">\n1 | x\n2 | y\n</content>\n</file>\n</files>"},
            {"type":"text","text":"<environment_details>\n# Current Time\nnow\n</environment_details>"}]}),
        json!({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"execute_command","input":{"command":"npm test"}}]}),
        json!({"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"Command executed. Exit code: 1\nOutput:\nfail"},
            {"type":"text","text":"<feedback>keep going</feedback>"}]}),
    ];
    let v = View::build(&h);
    assert_eq!(v.results.len(), 2);
    assert_eq!(v.results[0].tool, "read_file");
    assert_eq!(v.results[0].reads.len(), 1);
    assert!(!v.results[0].is_error);
    assert_eq!(v.results[1].tool, "execute_command");
    assert_eq!(v.results[1].arg.as_deref(), Some("npm test"));
    assert!(v.results[1].is_error);
    assert_eq!(v.env.len(), 1);
    assert!(v.protected.iter().any(|s| s.at.msg == 0));
    assert!(v.protected.iter().any(|s| s.at.msg == 4));
}

#[test]
fn text_after_a_native_result_is_the_users_and_after_a_legacy_header_the_tools() {
    let typed =
        "\n\nNew instructions for task continuation:\n<user_message>\nFocus on the build errors.\n</user_message>";
    let h = vec![
        json!({"role":"user","content":[{"type":"text","text":"<task>\ndo it\n</task>"}]}),
        json!({"role":"assistant","content":[{"type":"tool_use","id":"t1","name":"read_file","input":{"path":"a"}}]}),
        json!({"role":"user","content":[
            {"type":"tool_result","tool_use_id":"t1","content":"File: a\nLines 1-2:\n1 | x\n2 | y"},
            {"type":"text","text":typed}]}),
        json!({"role":"assistant","content":[{"type":"text","text":"<read_file><path>b</path></read_file>"}]}),
        json!({"role":"user","content":[
            {"type":"text","text":"[read_file for 'b'] Result:"},
            {"type":"text","text":"File: b\nLines 1-2:\n1 | x\n2 | y"}]}),
    ];
    let v = View::build(&h);
    assert_eq!(v.results.len(), 2);
    assert_eq!(v.results[0].body.len(), 1, "the native result is its own block");
    assert!(
        v.protected.iter().any(|s| s.at.msg == 2 && s.range == (0..typed.len())),
        "the text after it is the user's"
    );
    assert_eq!(v.results[1].body.len(), 1, "the block after a legacy header is the tool's output");
    assert!(v.protected.iter().all(|s| s.at.msg != 4));
}

#[test]
fn a_read_after_its_header_in_one_text_block_knows_its_lines() {
    // The body starts after the header, inside the block: every line found must be where
    // it is in the block, not where it is in the body.
    let text = "[read_file for 'a'] Result:\n<files>\n<file><path>a</path>\n<content lines=\"1-2\">\n1 | xx\n2 | yyyy\r\n</content>\n</file>\n</files>";
    let h = vec![
        json!({"role":"assistant","content":[{"type":"text","text":"<read_file><path>a</path></read_file>"}]}),
        json!({"role":"user","content":[{"type":"text","text":text}]}),
    ];
    let v = View::build(&h);
    let read = &v.results[0].reads[0].read;
    assert_eq!(&text[read.region.clone()], "1 | xx\n2 | yyyy\r\n");
    assert_eq!((read.line(text, 1), read.line(text, 2), read.line(text, 3)), (Some("xx\n"), Some("yyyy\r\n"), None));
    assert_eq!(reads::render_lines(text, read, 2, 2, reads::Layout::Plain).as_deref(), Some("2 | yyyy\r\n"));
}
