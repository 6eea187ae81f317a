//! Smart keeps the working set through the lossless prelude's references: the latest read of a
//! file, which the prelude turned into a reference to the same lines in an earlier read, keeps that
//! earlier read, so the latest state still expands in full.

mod common;

use common::{assert_invariants, options, run};
use context_condense::model::{slot_text, Slot};
use context_condense::tokens::Encoding;
use context_condense::{json, json::Value};

/// Lines `first..=last` of a file, numbered as Roo's read_file does.
fn numbered(lines: &[String], first: usize, last: usize) -> String {
    let w = last.to_string().len();
    (first..=last).map(|n| format!("{n:>w$} | {}\n", lines[n - 1])).collect()
}

fn read_result(path: &str, lines: &[String], first: usize, last: usize) -> Value {
    json!({"role": "user", "content": [
        {"type": "text", "text": format!("[read_file for '{path}'] Result:")},
        {"type": "text", "text": format!("<files>\n<file><path>{path}</path>\n<content lines=\"{first}-{last}\">\n{}</content>\n</file>\n</files>", numbered(lines, first, last))},
        {"type": "text", "text": "<environment_details>\n# Current Time\nnow\n</environment_details>"}]})
}

fn history() -> (Vec<Value>, Vec<String>) {
    let file: Vec<String> = (1..=60)
        .map(|i| {
            if i % 6 == 1 {
                format!("export function step{i}(input: number): number {{")
            } else {
                format!("  return input * {i} + compute(input, {i})")
            }
        })
        .collect();
    let mut h = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "<task>fix step13</task>"}]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Reading.\n<read_file>\n<path>src/a.ts</path>\n</read_file>"}]}),
        read_result("src/a.ts", &file, 1, 60),
        json!({"role": "assistant", "content": [{"type": "text", "text": "The part I need again.\n<read_file>\n<path>src/a.ts</path>\n</read_file>"}]}),
        read_result("src/a.ts", &file, 10, 40),
    ];
    for i in 0..8 {
        h.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("Running.\n<execute_command>\n<command>npm test -- {i}</command>\n</execute_command>")}]}));
        let output: String =
            (0..40).map(|k| format!("test {i}.{k} passed in {k} ms with the fixture number {k}\n")).collect();
        h.push(json!({"role": "user", "content": [{"type": "text", "text": format!("[execute_command for 'npm test -- {i}'] Result:")}, {"type": "text", "text": format!("Command executed in terminal within working directory '/w'. Exit code: 0\nOutput:\n{output}")}]}));
    }
    (h, file)
}

#[test]
fn a_read_made_a_reference_by_the_prelude_keeps_what_it_refers_to() {
    let (h, file) = history();
    let latest_lines = numbered(&file, 10, 40);
    let opts = options(
        json!({"provider": "smart", "config": {"preset": "balanced", "workingSet": {"turns": 20, "budgetTokens": 100000}}}),
    );
    let (outcome, out) = run(&h, &opts);
    assert_invariants(&h, &out, &outcome, Encoding::O200kBase);
    let latest = slot_text(&out[4], Slot::Text(1)).unwrap_or("");
    assert!(latest.contains("⟨ Reference: lines"), "the prelude left a reference to the unchanged lines: {latest}");
    // What it refers to is still there, so the latest state expands in full.
    let expanded = context_condense::reference::expand(&out);
    let restored = context_condense::edit::materialize(&out, &expanded.changes);
    assert_eq!(expanded.unresolved, 0);
    let text = slot_text(&restored[4], Slot::Text(1)).unwrap_or("");
    assert!(text.contains(&latest_lines), "{text}");
    // Without the working set, the earlier read is cut and the reference can no longer expand.
    let off = options(json!({"provider": "smart", "config": {"preset": "balanced", "workingSet": null}}));
    let (_, out_off) = run(&h, &off);
    let x = context_condense::reference::expand(&out_off);
    let restored_off = context_condense::edit::materialize(&out_off, &x.changes);
    assert!(!slot_text(&restored_off[4], Slot::Text(1)).unwrap_or("").contains(&latest_lines));
}

/// A file read early in the last ten turns (so every preset's passes select its message), four
/// thousand tokens in a context about five times larger, then eight rounds of a command with a
/// long output.
fn working_on_one_file() -> (Vec<Value>, String) {
    let file: Vec<String> = (1..=400)
        .map(|i| {
            if i % 8 == 1 {
                format!("export function handler{i}(request: Request, options: Options): Response {{")
            } else {
                format!("  const value{i} = transform(request.body, options.level + {i}, \"field-{i}\")")
            }
        })
        .collect();
    let mut h = vec![
        json!({"role": "user", "content": [{"type": "text", "text": "<task>fix handler17</task>"}]}),
        json!({"role": "assistant", "content": [{"type": "text", "text": "Reading.\n<read_file>\n<path>src/handlers.ts</path>\n</read_file>"}]}),
        read_result("src/handlers.ts", &file, 1, 400),
    ];
    for i in 0..8 {
        h.push(json!({"role": "assistant", "content": [{"type": "text", "text": format!("Running.\n<execute_command>\n<command>npm test -- {i}</command>\n</execute_command>")}]}));
        let output: String =
            (0..320).map(|k| format!("test {i}.{k} passed in {k} ms: handler{k} returned {}\n", k * 7 + i)).collect();
        h.push(json!({"role": "user", "content": [{"type": "text", "text": format!("[execute_command for 'npm test -- {i}'] Result:")}, {"type": "text", "text": format!("Command executed in terminal within working directory '/w'. Exit code: 0\nOutput:\n{output}")}]}));
    }
    (h, numbered(&file, 1, 400))
}

#[test]
fn every_preset_keeps_a_file_of_the_last_ten_turns_whole() {
    let (h, lines) = working_on_one_file();
    let before = context_condense::tokens::count_messages(&h, Encoding::O200kBase);
    let file = context_condense::tokens::count(&lines, Encoding::O200kBase);
    // The file is larger than a fixed budget of a few thousand tokens, and well within a third of
    // the context.
    assert!(file > 3_500 && 3 * file < before, "file {file} tokens, context {before}");
    for preset in context_condense::providers::smart::presets::NAMES {
        let opts = options(json!({"provider": "smart", "config": {"preset": preset}}));
        let (outcome, out) = run(&h, &opts);
        assert_invariants(&h, &out, &outcome, Encoding::O200kBase);
        let after = context_condense::tokens::count_messages(&out, Encoding::O200kBase);
        assert!(after < before, "{preset}: nothing condensed ({before} tokens): {}", outcome.report);
        let texts: Vec<&str> =
            out.iter().flat_map(|m| context_condense::model::slot_texts(m).into_iter().map(|(_, t)| t)).collect();
        assert!(
            texts.iter().any(|t| t.contains(&lines)),
            "{preset}: the read of src/handlers.ts is not whole in the result ({before} -> {after} tokens)"
        );
    }
}
