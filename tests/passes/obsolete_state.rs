//! `RemoveObsoleteState` (`src/passes/obsolete_state.rs`), alone (Lossless with its other passes
//! off, unless a case is about how it meets them): an older version of a file that a later read
//! shows differently, and environment-details sections a later block restates, become markers
//! naming the message that supersedes them. The latest copy of anything, sections never
//! restated, and what the user typed stay.

use context_condense::{json, json::Value};

use crate::history::*;

fn obsolete() -> Value {
    json!({"deduplicateFileReads": false, "consolidateToolResults": false})
}

fn superseded(path: &str, by: usize) -> String {
    format!("⟨ Superseded: '{path}' was read again in message #{by}; this older version is omitted ⟩\n")
}

#[test]
fn an_older_version_of_a_file_is_superseded_by_a_later_read_that_differs() {
    let (v1, v2) = (source(30, ""), source(30, "_v2"));
    let h = vec![
        task("Refactor the steps"),
        xml_read("1", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v1), &[]),
        xml_read("2", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v2), &[]),
    ];
    let (_, out) = run("lossless", obsolete(), &h);
    assert_eq!(text(&out, 2, 1), files_with("src/a.ts", 1, 30, &superseded("src/a.ts", 4)), "the path stays");
    assert_eq!(out[3..], h[3..], "the latest version stays");
}

#[test]
fn the_same_lines_read_again_are_not_a_newer_version() {
    let v1 = source(30, "");
    let h = vec![
        task("Refactor the steps"),
        xml_read("1", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v1), &[]),
        xml_read("2", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v1), &[]),
    ];
    let (_, out) = run("lossless", obsolete(), &h);
    assert_eq!(out, h, "identical lines are the read deduplication's, kept reversible");
}

#[test]
fn only_a_later_read_covering_the_same_lines_supersedes() {
    let (v1, v2) = (source(40, ""), source(40, "_v2"));
    let h = vec![
        task("Refactor the steps"),
        xml_read("lines 11-25", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 11, &v1[10..25]), &[]),
        xml_read("lines 1-20, changed", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v2[..20]), &[]),
        xml_read("all, changed", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v2), &[]),
    ];
    let (_, out) = run("lossless", obsolete(), &h);
    assert_eq!(
        text(&out, 2, 1),
        files_with("src/a.ts", 11, 15, &superseded("src/a.ts", 6)),
        "lines 21-25 are not in message 4's read: the whole read in message 6 supersedes it"
    );
    assert_eq!(out[4], h[4], "message 6 shows the same lines 1-20: no newer version");
    assert_eq!(out[6], h[6]);
}

#[test]
fn a_later_read_showing_only_some_of_the_lines_supersedes_nothing() {
    let (v1, v2) = (source(40, ""), source(40, "_v2"));
    let h = vec![
        task("Refactor the steps"),
        xml_read("lines 11-25", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 11, &v1[10..25]), &[]),
        xml_read("lines 1-20, changed", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v2[..20]), &[]),
        xml_read("lines 15-40, changed", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 15, &v2[14..]), &[]),
    ];
    let (_, out) = run("lossless", obsolete(), &h);
    assert_eq!(out, h, "lines 21-25 and lines 11-14 are each shown again by one read only");
}

#[test]
fn a_reference_to_an_older_version_is_superseded_too() {
    // With the read deduplication on: message 4 would refer to message 2, which message 6
    // supersedes; both become superseded markers.
    let (v1, v2) = (source(30, ""), source(30, "_v2"));
    let h = vec![
        task("Refactor the steps"),
        xml_read("1", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v1), &[]),
        xml_read("2", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v1), &[]),
        xml_read("3", "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &v2), &[]),
    ];
    let (_, out) = run("lossless", json!({"consolidateToolResults": false}), &h);
    assert_eq!(text(&out, 2, 1), files_with("src/a.ts", 1, 30, &superseded("src/a.ts", 6)));
    assert_eq!(text(&out, 4, 1), files_with("src/a.ts", 1, 30, &superseded("src/a.ts", 6)));
    assert_eq!(out[6], h[6]);
}

#[test]
fn restated_environment_sections_become_one_marker_per_run_of_sections() {
    let tabs = (0..20).map(|i| format!("src/feature{i}/index.ts")).collect::<Vec<_>>().join(",");
    let first = env(&[
        ("VSCode Visible Files", &tabs),
        ("Current Time", "t0"),
        ("Current Workspace Directory (/p) Files", "a.ts\nb.ts"),
        ("Current Cost", "$0.10"),
    ]);
    let second = env(&[("VSCode Visible Files", &tabs), ("Current Time", "t1"), ("Current Cost", "$0.20")]);
    let h = vec![
        json!({"role": "user", "content": [
            {"type": "text", "text": "<task>\nRefactor the steps\n</task>"},
            {"type": "text", "text": first},
        ]}),
        assistant("Listing."),
        xml_result("list_files", ".", "a.ts\nb.ts", &[&second]),
    ];
    let (_, out) = run("lossless", obsolete(), &h);
    let expected = format!(
        "<environment_details>\n{}\n# Current Workspace Directory (/p) Files\na.ts\nb.ts\n\n{}</environment_details>",
        "⟨ Superseded by the environment details in message #2: VSCode Visible Files, Current Time ⟩",
        "⟨ Superseded by the environment details in message #2: Current Cost ⟩\n"
    );
    assert_eq!(text(&out, 0, 1), expected, "the listing is never restated: it stays, between two markers");
    assert_eq!(text(&out, 0, 0), "<task>\nRefactor the steps\n</task>", "what the user typed stays");
    assert_eq!(out[1..], h[1..], "the latest block stays whole");
}

#[test]
fn environment_details_in_native_results_are_superseded_by_the_nearest_restating_block() {
    let tabs = (0..20).map(|i| format!("src/feature{i}/index.ts")).collect::<Vec<_>>().join(",");
    let block = |t: &str| env(&[("VSCode Visible Files", &tabs), ("Current Time", t)]);
    let (b1, b2, b3) = (block("t1"), block("t2"), block("t3"));
    let h = vec![
        task("Refactor the steps"),
        native_call("toolu_1", "list_files", json!({"path": "."})),
        native_result("toolu_1", "a.ts", &[&b1]),
        native_call("toolu_2", "list_files", json!({"path": "src"})),
        native_result("toolu_2", "b.ts", &[&b2]),
        native_call("toolu_3", "list_files", json!({"path": "lib"})),
        native_result("toolu_3", "c.ts", &[&b3]),
    ];
    let (_, out) = run("lossless", obsolete(), &h);
    let marker = |by: usize| {
        format!("<environment_details>\n⟨ Superseded by the environment details in message #{by}: VSCode Visible Files, Current Time ⟩\n</environment_details>")
    };
    assert_eq!(text(&out, 2, 1), marker(4));
    assert_eq!(text(&out, 4, 1), marker(6));
    assert_eq!(out[6], h[6]);
    assert_eq!(result_text(&out, 2, 0), "a.ts", "the results stay");
}

#[test]
fn a_section_is_not_replaced_by_a_marker_longer_than_itself() {
    let block = |t: &str| env(&[("Current Time", t), ("Current Mode", "code")]);
    let h = vec![
        task("Refactor the steps"),
        assistant("1"),
        xml_result("list_files", ".", "a.ts", &[&block("t1")]),
        assistant("2"),
        xml_result("list_files", "src", "b.ts", &[&block("t2")]),
    ];
    let (_, out) = run("lossless", obsolete(), &h);
    assert_eq!(out, h);
}

#[test]
fn empty_and_one_message_histories_are_returned_as_they_are() {
    for h in [vec![], vec![task("Refactor the steps")]] {
        let (_, out) = run("lossless", obsolete(), &h);
        assert_eq!(out, h);
    }
}
