//! `DeduplicateFileReads` (`src/passes/dedup_reads.rs`), alone (Lossless with its other passes
//! off): a read of a file repeating lines a kept read shows becomes a reference to that read;
//! only the numbered lines are replaced.

use context_condense::{json, json::Value};

use crate::history::*;

/// Lossless running only the read deduplication, keeping `keep`'s copy.
fn dedup(keep: &str) -> Value {
    json!({"consolidateToolResults": false, "removeObsoleteState": false, "keep": keep})
}

fn content_of(path: &str, target: usize, own: usize, bytes: &str) -> String {
    format!("⟨ Reference: content of '{path}' identical to message #{target} · sha256:{} ⟩\n", seal(own, target, bytes))
}

fn lines_of(path: &str, first: u32, last: u32, relation: &str, target: usize, own: usize, bytes: &str) -> String {
    format!(
        "⟨ Reference: lines {first}-{last} of '{path}' {relation} message #{target} · sha256:{} ⟩\n",
        seal(own, target, bytes)
    )
}

#[test]
fn a_second_identical_read_refers_to_the_first() {
    let lines = source(30, "");
    let body = files_body("src/a.ts", 1, &lines);
    let h = vec![
        task("Refactor the steps"),
        xml_read("Reading it.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
        xml_read("Again.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
    ];
    let (_, out) = run("lossless", dedup("first"), &h);
    let region = numbered(1, &lines);
    assert_eq!(text(&out, 4, 1), files_with("src/a.ts", 1, 30, &content_of("src/a.ts", 2, 4, &region)));
    assert_eq!(text(&out, 4, 0), "[read_file for 'src/a.ts'] Result:", "the header stays");
    assert_eq!(out[..4], h[..4], "the copy that stays and everything else are untouched");
}

#[test]
fn keep_latest_points_the_earlier_copy_forward() {
    let lines = source(30, "");
    let body = files_body("src/a.ts", 1, &lines);
    let h = vec![
        task("Refactor the steps"),
        xml_read("Reading it.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
        xml_read("Again.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
    ];
    let (_, out) = run("lossless", dedup("latest"), &h);
    let region = numbered(1, &lines);
    assert_eq!(text(&out, 2, 1), files_with("src/a.ts", 1, 30, &content_of("src/a.ts", 4, 2, &region)));
    assert_eq!(out[3..], h[3..], "the latest copy stays");
}

#[test]
fn every_copy_refers_to_the_one_that_stays_never_to_another_reference() {
    let lines = source(30, "");
    let body = files_body("src/a.ts", 1, &lines);
    let h = vec![
        task("Refactor the steps"),
        xml_read("1", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
        xml_read("2", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
        xml_read("3", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
    ];
    let region = numbered(1, &lines);
    let (_, out) = run("lossless", dedup("first"), &h);
    assert_eq!(text(&out, 4, 1), files_with("src/a.ts", 1, 30, &content_of("src/a.ts", 2, 4, &region)));
    assert_eq!(text(&out, 6, 1), files_with("src/a.ts", 1, 30, &content_of("src/a.ts", 2, 6, &region)));
    let (_, out) = run("lossless", dedup("latest"), &h);
    assert_eq!(text(&out, 2, 1), files_with("src/a.ts", 1, 30, &content_of("src/a.ts", 6, 2, &region)));
    assert_eq!(text(&out, 4, 1), files_with("src/a.ts", 1, 30, &content_of("src/a.ts", 6, 4, &region)));
    assert_eq!(out[6], h[6]);
}

#[test]
fn a_later_partial_read_of_unchanged_lines_refers_to_the_full_read() {
    let lines = source(40, "");
    let h = vec![
        task("Refactor the steps"),
        xml_read("All of it.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &lines), &[]),
        xml_read("Lines 11-25.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 11, &lines[10..25]), &[]),
    ];
    let (_, out) = run("lossless", dedup("first"), &h);
    let part = numbered(11, &lines[10..25]);
    let marker = lines_of("src/a.ts", 11, 25, "unchanged from", 2, 4, &part);
    assert_eq!(text(&out, 4, 1), files_with("src/a.ts", 11, 15, &marker));
    assert_eq!(out[2], h[2]);
}

#[test]
fn an_earlier_partial_read_refers_forward_to_a_later_full_read() {
    // A read of the whole file makes earlier partial reads of the same, unchanged lines
    // redundant, whichever copy `keep` names.
    let lines = source(40, "");
    let h = vec![
        task("Refactor the steps"),
        xml_read("Lines 11-25.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 11, &lines[10..25]), &[]),
        xml_read("All of it.", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &lines), &[]),
    ];
    let part = numbered(11, &lines[10..25]);
    let marker = lines_of("src/a.ts", 11, 25, "shown again in", 4, 2, &part);
    let (_, out) = run("lossless", dedup("first"), &h);
    assert_eq!(text(&out, 2, 1), files_with("src/a.ts", 11, 15, &marker));
    assert_eq!(out[4], h[4]);
}

#[test]
fn changed_lines_another_path_and_small_reads_stay() {
    let v1 = source(30, "");
    let v2 = source(30, "_v2");
    let tiny = vec!["x".to_string()];
    let h = vec![
        task("Refactor the steps"),
        xml_read("1", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v1), &[]),
        xml_read("2", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v2), &[]),
        xml_read("3", "src/b.ts"),
        xml_result("read_file", "src/b.ts", &files_body("src/b.ts", 1, &v1), &[]),
        xml_read("4", "s.ts"),
        xml_result("read_file", "s.ts", &files_body("s.ts", 1, &tiny), &[]),
        xml_read("5", "s.ts"),
        xml_result("read_file", "s.ts", &files_body("s.ts", 1, &tiny), &[]),
    ];
    let (o, out) = run("lossless", dedup("first"), &h);
    assert_eq!(out, h, "another version, another file's equal lines and a read under 200 bytes are not copies");
    assert_eq!(o.new_context_tokens, o.prev_context_tokens);
}

#[test]
fn lines_of_200_bytes_are_worth_a_reference_199_are_not() {
    // One numbered line "1 | …\n": 4 + the line + 1 bytes.
    for (len, referenced) in [(195, true), (194, false)] {
        let line = vec!["y".repeat(len)];
        let body = files_body("src/a.ts", 1, &line);
        let h = vec![
            task("Refactor the steps"),
            xml_read("1", "src/a.ts"),
            xml_result("read_file", "src/a.ts", &body, &[]),
            xml_read("2", "src/a.ts"),
            xml_result("read_file", "src/a.ts", &body, &[]),
        ];
        let (_, out) = run("lossless", dedup("first"), &h);
        let region = numbered(1, &line);
        let expected =
            if referenced { files_with("src/a.ts", 1, 1, &content_of("src/a.ts", 2, 4, &region)) } else { body };
        assert_eq!(text(&out, 4, 1), expected, "{} bytes", region.len());
    }
}

#[test]
fn in_a_multi_file_result_only_the_repeated_file_and_only_its_lines_change() {
    let a = source(30, "");
    let b = source(30, "_b");
    let both = format!(
        "<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-30\">\n{}</content>\n</file>\n<file><path>src/b.ts</path>\n<content lines=\"1-30\">\n{}</content>\n</file>\n<file><path>src/c.ts</path><error>File not found</error></file>\n</files>",
        numbered(1, &a),
        numbered(1, &b)
    );
    let h = vec![
        task("Refactor the steps"),
        xml_read("a", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &a), &[]),
        xml_read("a, b and c", "src/a.ts"),
        xml_result("read_file", "src/a.ts, src/b.ts, src/c.ts", &both, &[]),
    ];
    let (_, out) = run("lossless", dedup("first"), &h);
    let expected = format!(
        "<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-30\">\n{}</content>\n</file>\n<file><path>src/b.ts</path>\n<content lines=\"1-30\">\n{}</content>\n</file>\n<file><path>src/c.ts</path><error>File not found</error></file>\n</files>",
        content_of("src/a.ts", 2, 4, &numbered(1, &a)),
        numbered(1, &b)
    );
    assert_eq!(text(&out, 4, 1), expected);
}

#[test]
fn feedback_in_the_same_result_stays() {
    let lines = source(30, "");
    let body = files_body("src/a.ts", 1, &lines);
    let with_feedback = format!("<feedback>\nlook at step 3\n</feedback>\n{body}");
    let h = vec![
        task("Refactor the steps"),
        xml_read("1", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &body, &[]),
        xml_read("2", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &with_feedback, &[]),
    ];
    let (_, out) = run("lossless", dedup("first"), &h);
    let marker = content_of("src/a.ts", 2, 4, &numbered(1, &lines));
    assert_eq!(
        text(&out, 4, 1),
        format!("<feedback>\nlook at step 3\n</feedback>\n{}", files_with("src/a.ts", 1, 30, &marker))
    );
}

#[test]
fn native_reads_are_deduplicated_the_same_way() {
    let lines = source(30, "");
    let body = native_read_body("src/n.ts", 1, &lines);
    let h = vec![
        task("Refactor the steps"),
        native_call("toolu_1", "read_file", json!({"path": "src/n.ts"})),
        native_result("toolu_1", &body, &[]),
        native_call("toolu_2", "read_file", json!({"path": "src/n.ts"})),
        native_result("toolu_2", &body, &[]),
    ];
    let (_, out) = run("lossless", dedup("first"), &h);
    let marker = content_of("src/n.ts", 2, 4, &numbered(1, &lines));
    assert_eq!(result_text(&out, 4, 0), native_read_with("src/n.ts", 1, 30, &marker));
    assert_eq!(out[..4], h[..4], "the tool_use blocks and the first copy are untouched");
    assert_eq!(out[4]["content"][0]["tool_use_id"], "toolu_2", "the result stays paired");
}

#[test]
fn a_legacy_read_and_a_native_read_of_the_same_lines_are_copies() {
    let lines = source(30, "");
    let h = vec![
        task("Refactor the steps"),
        xml_read("1", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &lines), &[]),
        native_call("toolu_1", "read_file", json!({"path": "src/a.ts"})),
        native_result("toolu_1", &native_read_body("src/a.ts", 1, &lines), &[]),
    ];
    let (_, out) = run("lossless", dedup("first"), &h);
    let marker = content_of("src/a.ts", 2, 4, &numbered(1, &lines));
    assert_eq!(result_text(&out, 4, 0), native_read_with("src/a.ts", 1, 30, &marker));
}

#[test]
fn empty_and_one_message_histories_are_returned_as_they_are() {
    for h in [vec![], vec![task("Refactor the steps")]] {
        let (o, out) = run("lossless", dedup("first"), &h);
        assert_eq!(out, h);
        assert_eq!(o.new_context_tokens, o.prev_context_tokens);
    }
}
