//! `NativePass` (`src/providers/native.rs`), Roo Code's summarization: the first message and the
//! last `keepLast` (3) stay, everything between them since the latest summary becomes one
//! `isSummary` assistant message holding the host model's summary and the files the summarized
//! part read and modified; messages before that summary are dropped. The kept tail never starts
//! with the results of a call that is summarized away. Too few messages, a summary in the tail,
//! no callback or a summary no smaller than what it replaces: refused, nothing changed.

use context_condense::llm::Purpose;
use context_condense::{json, json::Value};

use crate::history::*;

const FINAL_REQUEST: &str = "Summarize the conversation so far, as described in the prompt instructions.";

fn talk(n: usize) -> String {
    format!("Step {n}: {}", "we looked at the steps and changed what was needed. ".repeat(8))
}

/// The task, then `turns` assistant/user turns of some length.
fn conversation(turns: usize) -> Vec<Value> {
    let mut h = vec![task("Refactor the steps")];
    for i in 1..=turns {
        h.push(assistant(&talk(2 * i - 1)));
        h.push(user(&format!("<user_message>\n{}\n</user_message>", talk(2 * i))));
    }
    h
}

fn summary(text: &str) -> Value {
    json!({"role": "assistant", "content": text, "isSummary": true})
}

#[test]
fn the_middle_becomes_one_summary_between_the_first_message_and_the_last_three() {
    let h = conversation(3); // 7 messages: 0, then 1-3 summarized, 4-6 kept
    let mut model = Fixed::new("The steps were refactored.");
    let (o, out) = run_with("native", json!({}), &h, Some(&mut model));
    assert_eq!(
        out,
        vec![h[0].clone(), summary("The steps were refactored."), h[4].clone(), h[5].clone(), h[6].clone()]
    );
    assert_eq!(o.summary, "The steps were refactored.");
    // One request: the summarized messages from the first on, then the final instruction.
    assert_eq!(model.asked.len(), 1);
    let (purpose, messages) = &model.asked[0];
    assert_eq!(*purpose, Purpose::Conversation);
    let roles: Vec<&str> = messages.iter().map(|(r, _)| r.as_str()).collect();
    assert_eq!(roles, ["user", "assistant", "user", "assistant", "user"]);
    assert_eq!(messages[1].1, talk(1));
    assert_eq!(messages[4].1, FINAL_REQUEST);
}

#[test]
fn keep_last_sets_the_tail_and_the_summary_takes_the_first_kept_messages_time() {
    let mut h = conversation(3);
    h[2]["ts"] = json!(1_700_000_000_002u64);
    let mut model = Fixed::new("Summary.");
    let (_, out) = run_with("native", json!({"keepLast": 5}), &h, Some(&mut model));
    let mut s = summary("Summary.");
    s["ts"] = json!(1_700_000_000_002u64);
    assert_eq!(out, vec![h[0].clone(), s, h[2].clone(), h[3].clone(), h[4].clone(), h[5].clone(), h[6].clone()]);
}

#[test]
fn the_files_the_summarized_part_read_and_modified_are_appended() {
    let h = vec![
        task("Refactor the steps"),
        xml_read(&talk(1), "src/a.ts"),
        xml_result("read_file", "src/a.ts", &files_body("src/a.ts", 1, &source(30, "")), &[]),
        assistant(&format!("{}\n\n<apply_diff>\n<path>src/b.ts</path>\n<diff>x</diff>\n</apply_diff>", talk(3))),
        xml_result("apply_diff", "src/b.ts", "Changes applied.", &[]),
        assistant(&talk(5)),
        user("<user_message>\nthanks\n</user_message>"),
        assistant(&talk(7)),
    ];
    let mut model = Fixed::new("Refactored.");
    let (_, out) = run_with("native", json!({}), &h, Some(&mut model));
    let expected = "Refactored.\n\n---\nFiles in the summarized part of the conversation (from the history itself):\n- Read: src/a.ts\n- Modified: src/b.ts";
    assert_eq!(out, vec![h[0].clone(), summary(expected), h[5].clone(), h[6].clone(), h[7].clone()]);
}

#[test]
fn the_kept_tail_never_starts_with_the_results_of_a_summarized_call() {
    let h = vec![
        task("Refactor the steps"),
        assistant(&talk(1)),
        user(&format!("<user_message>\n{}\n</user_message>", talk(2))),
        native_call("toolu_1", "read_file", json!({"path": "src/a.ts"})),
        native_result("toolu_1", &native_read_body("src/a.ts", 1, &source(5, "")), &[]),
        assistant(&talk(5)),
        user("<user_message>\nthanks\n</user_message>"),
    ];
    let mut model = Fixed::new("Summary.");
    let (_, out) = run_with("native", json!({}), &h, Some(&mut model));
    // The last three would start with message 4, the result of message 3's call: 3 stays too.
    assert_eq!(out, vec![h[0].clone(), summary("Summary."), h[3].clone(), h[4].clone(), h[5].clone(), h[6].clone()]);
}

#[test]
fn after_a_summary_only_what_follows_it_is_summarized_and_what_precedes_it_goes() {
    let mut h = conversation(1); // 0, 1, 2
    h.push(summary("Earlier summary."));
    h.extend(conversation(3).into_iter().skip(1)); // 4-9
    let mut model = Fixed::new("Newer summary.");
    let (_, out) = run_with("native", json!({}), &h, Some(&mut model));
    assert_eq!(out, vec![h[0].clone(), summary("Newer summary."), h[7].clone(), h[8].clone(), h[9].clone()]);
    let (_, messages) = &model.asked[0];
    assert_eq!(messages[0], ("user".to_string(), "Please continue from the following summary:".to_string()));
    assert_eq!(messages[1], ("assistant".to_string(), "Earlier summary.".to_string()));
    assert_eq!(messages.len(), 2 + 3 + 1, "the earlier summary, messages 4-6, the final request");
}

#[test]
fn it_refuses_when_there_is_too_little_or_a_summary_is_recent() {
    let mut model = Fixed::new("Summary.");
    for h in [vec![], vec![task("Refactor the steps")], conversation(2).into_iter().take(4).collect()] {
        assert_eq!(refused("native", json!({}), &h, Some(&mut model)), "Not enough messages to condense");
    }
    let mut h = conversation(3);
    h[5] = summary("Recent summary.");
    assert_eq!(refused("native", json!({}), &h, Some(&mut model)), "Context was condensed recently");
    assert!(model.asked.is_empty(), "the model is never asked");
}

#[test]
fn it_refuses_without_a_callback_or_when_the_summary_is_no_smaller() {
    let h = conversation(3);
    assert_eq!(
        refused("native", json!({}), &h, None),
        "No summarize callback was given: the native provider summarizes with the host's model"
    );
    let mut model = Fixed::new(&"a very long summary ".repeat(500));
    assert_eq!(
        refused("native", json!({}), &h, Some(&mut model)),
        "Context size increased during condensing; skipping this attempt"
    );
    let mut model = Fixed::new("  ");
    assert_eq!(
        refused("native", json!({}), &h, Some(&mut model)),
        "Failed to condense context: the summarize callback returned an empty summary"
    );
}
