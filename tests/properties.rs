//! Property tests: random Roo Code sessions in both tool formats (reads of files that change,
//! partial reads, edits, commands that fail, user feedback, thinking, unknown blocks, extra keys,
//! images, environment details) condensed by every provider under random configs and every kind
//! of fake summarizer. Each case asserts the invariants of ../shared/docs/architecture.md through
//! `common::check_condensation`: no panic, a valid output, untouched messages deep-equal, what
//! the user typed kept, tokens never up, references that expand, determinism, exact reversibility
//! of Lossless without obsolete-state removal.
//!
//! Bounded (`PROPTEST_CASES`, default 96 per property) so the suite stays fast.

mod common;

use common::{check_condensation, FakeLlm};
use context_condense::{json, json::Value};
use proptest::prelude::*;

#[derive(Debug, Clone)]
enum Step {
    Read { file: usize, range: Option<(usize, usize)>, missing: bool },
    Write { file: usize },
    Command { cmd: usize, variant: usize, fails: bool },
    Feedback(usize),
    Resume,
}

#[derive(Debug, Clone)]
struct Extras {
    thinking: bool,
    unknown_block: bool,
    extra_key: bool,
    image: bool,
}

const FILES: [&str; 4] = ["src/app.ts", "src/core/task.ts", "README.md", "src/util/paths.ts"];
const COMMANDS: [&str; 3] = ["npm test", "git status", "ls -la src"];
const FEEDBACK: [&str; 3] = [
    "Please keep the public API unchanged.",
    "No, use the existing helper instead — ça marche mieux 👍",
    "Stop and explain what you changed.",
];

fn file_lines(file: usize, version: usize) -> Vec<String> {
    (1..=24)
        .map(|k| format!("export const value{k} = {} // {} v{version}", k * (file + 1) + version, FILES[file]))
        .collect()
}

fn numbered(lines: &[String], a: usize, b: usize) -> String {
    let w = b.to_string().len();
    (a..=b).map(|n| format!("{n:>w$} | {}", lines[n - 1])).collect::<Vec<_>>().join("\n")
}

/// A tool call in both formats: `call_xml` is the legacy call, `input` the native one.
struct Call {
    tool: &'static str,
    call_xml: String,
    input: Value,
    header: String,
    body: String,
    is_error: bool,
}

struct Builder {
    native: bool,
    messages: Vec<Value>,
    versions: [usize; 4],
    next_id: usize,
    clock: u64,
}

impl Builder {
    fn env(&mut self) -> String {
        self.clock += 61;
        format!(
            "<environment_details>\n# VSCode Visible Files\n{}\n\n# Current Time\n2026-11-22 10:{:02}:{:02}\n\n# Current Mode\n<slug>code</slug>\n</environment_details>",
            FILES[(self.clock as usize) % 4],
            (self.clock / 60) % 60,
            self.clock % 60
        )
    }

    fn push(&mut self, role: &str, content: Vec<Value>, extras: &Extras, salt: usize) {
        let mut content = content;
        if role == "assistant" && self.native && extras.thinking && salt % 2 == 0 {
            content.insert(0, json!({ "type": "thinking", "thinking": format!("Plan step {salt}: check the file first."), "signature": "c2lnbmF0dXJl" }));
        }
        if extras.unknown_block && salt % 5 == 1 {
            content.push(json!({ "type": "mystery_block", "payload": { "n": salt } }));
        }
        if role == "user" && extras.image && salt % 7 == 3 {
            content.push(json!({ "type": "image", "source": { "type": "base64", "media_type": "image/png", "data": "iVBORw0KGgo".repeat(8) } }));
        }
        let mut m = json!({ "role": role, "content": content, "ts": 1_700_000_000_000u64 + self.clock * 1000 });
        if extras.extra_key && salt % 3 == 0 {
            m["someHostField"] = json!({ "kept": true, "n": salt });
        }
        self.messages.push(m);
    }

    /// One tool call and its result.
    fn tool(&mut self, call: Call, feedback: Option<&str>, extras: &Extras, salt: usize) {
        let Call { tool, call_xml, input, header, body, is_error } = call;
        let prose = format!("Next I will use {tool}.");
        if self.native {
            self.next_id += 1;
            let id = format!("toolu_{:04}", self.next_id);
            self.push(
                "assistant",
                vec![
                    json!({ "type": "text", "text": prose }),
                    json!({ "type": "tool_use", "id": id, "name": tool, "input": input }),
                ],
                extras,
                salt,
            );
            let mut result = json!({ "type": "tool_result", "tool_use_id": id, "content": body });
            if is_error {
                result["is_error"] = json!(true);
            }
            let mut user = vec![result];
            if let Some(f) = feedback {
                user.push(json!({ "type": "text", "text": format!("<feedback>\n{f}\n</feedback>") }));
            }
            let env = self.env();
            user.push(json!({ "type": "text", "text": env }));
            self.push("user", user, extras, salt + 1);
        } else {
            self.push(
                "assistant",
                vec![json!({ "type": "text", "text": format!("{prose}\n\n{call_xml}") })],
                extras,
                salt,
            );
            let fb = feedback.map(|f| format!("<feedback>\n{f}\n</feedback>\n")).unwrap_or_default();
            let env = self.env();
            let user = vec![
                json!({ "type": "text", "text": header }),
                json!({ "type": "text", "text": format!("{fb}{body}") }),
                json!({ "type": "text", "text": env }),
            ];
            self.push("user", user, extras, salt + 1);
        }
    }

    fn step(&mut self, step: &Step, feedback: Option<&str>, extras: &Extras, salt: usize) {
        match *step {
            Step::Read { file, range, missing } => {
                let path = FILES[file];
                let lines = file_lines(file, self.versions[file]);
                let (a, b) = range.map_or((1, lines.len()), |(a, n)| (a, (a + n).min(lines.len())));
                let (xml_body, native_body) = if missing {
                    (
                        format!("<files>\n<file><path>{path}</path><error>Error reading file: File not found: /w/{path}</error></file>\n</files>"),
                        format!("File: {path}\nError: File not found"),
                    )
                } else {
                    let body = numbered(&lines, a, b);
                    (
                        format!("<files>\n<file><path>{path}</path>\n<content lines=\"{a}-{b}\">\n{body}\n</content>\n</file>\n</files>"),
                        format!("File: {path}\nLines {a}-{b}:\n{body}"),
                    )
                };
                let call = format!("<read_file>\n<args>\n<file>\n<path>{path}</path>\n</file>\n</args>\n</read_file>");
                let body = if self.native { native_body } else { xml_body };
                let header = format!("[read_file for '{path}'] Result:");
                let input = json!({ "path": path });
                self.tool(
                    Call { tool: "read_file", call_xml: call, input, header, body, is_error: missing },
                    feedback,
                    extras,
                    salt,
                );
            }
            Step::Write { file } => {
                self.versions[file] += 1;
                let path = FILES[file];
                let content = file_lines(file, self.versions[file]).join("\n");
                let call = format!("<write_to_file>\n<path>{path}</path>\n<content>\n{content}\n</content>\n<line_count>24</line_count>\n</write_to_file>");
                let input = json!({ "path": path, "content": content, "line_count": 24 });
                let body = format!(
                    "<file_write_result>\n<path>{path}</path>\n<operation>modified</operation>\n</file_write_result>"
                );
                let header = format!("[write_to_file for '{path}'] Result:");
                self.tool(
                    Call { tool: "write_to_file", call_xml: call, input, header, body, is_error: false },
                    feedback,
                    extras,
                    salt,
                );
            }
            Step::Command { cmd, variant, fails } => {
                let command = COMMANDS[cmd];
                let out: String =
                    (0..12 + variant * 5).map(|i| format!("{command}: output line {i} variant {variant}\n")).collect();
                let body = if fails {
                    format!("Command executed in terminal within working directory '/w'. Command execution was not successful, inspect the cause and adjust as needed.\nExit code: 1\nOutput:\nError: {command} failed\n{out}")
                } else {
                    format!("Command executed in terminal within working directory '/w'. Exit code: 0\nOutput:\n{out}")
                };
                let call = format!("<execute_command>\n<command>{command}</command>\n</execute_command>");
                let header = format!("[execute_command for '{command}'] Result:");
                let input = json!({ "command": command });
                self.tool(
                    Call { tool: "execute_command", call_xml: call, input, header, body, is_error: fails },
                    feedback,
                    extras,
                    salt,
                );
            }
            Step::Feedback(_) => {}
            Step::Resume => {
                let env = self.env();
                if self.messages.last().and_then(|m| m.get("role")).and_then(Value::as_str) == Some("assistant")
                    || self.native
                {
                    // A user turn must follow an assistant one; in native format a plain text turn
                    // after a tool result would leave two user turns in a row, which is fine for
                    // the engine but keep it to the assistant side to stay realistic.
                    self.push(
                        "assistant",
                        vec![json!({ "type": "text", "text": format!("Continuing the task (step {salt}).") })],
                        extras,
                        salt,
                    );
                }
                self.push("user", vec![json!({ "type": "text", "text": format!("[TASK RESUMPTION] The task was interrupted.\n\n{env}") })], extras, salt + 1);
            }
        }
    }
}

fn build(native: bool, steps: &[Step], extras: &Extras) -> Vec<Value> {
    let mut b = Builder { native, messages: Vec::new(), versions: [0; 4], next_id: 0, clock: 0 };
    let env = b.env();
    b.push(
        "user",
        vec![
            json!({ "type": "text", "text": "<task>\nRefactor the path helpers and keep the tests green.\n</task>" }),
            json!({ "type": "text", "text": env }),
        ],
        extras,
        2,
    );
    let mut feedback = None;
    for (i, s) in steps.iter().enumerate() {
        if let Step::Feedback(k) = s {
            feedback = Some(FEEDBACK[*k]);
            continue;
        }
        b.step(s, feedback.take(), extras, 10 + i * 2);
    }
    b.push("assistant", vec![json!({ "type": "text", "text": "All done." })], extras, 99);
    b.messages
}

fn step() -> impl Strategy<Value = Step> {
    prop_oneof![
        4 => (0..4usize, prop::option::of((1..20usize, 0..8usize)), prop::bool::weighted(0.1))
            .prop_map(|(file, range, missing)| Step::Read { file, range, missing }),
        2 => (0..4usize).prop_map(|file| Step::Write { file }),
        2 => (0..3usize, 0..3usize, prop::bool::weighted(0.3)).prop_map(|(cmd, variant, fails)| Step::Command { cmd, variant, fails }),
        1 => (0..3usize).prop_map(Step::Feedback),
        1 => Just(Step::Resume),
    ]
}

fn extras() -> impl Strategy<Value = Extras> {
    (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>())
        .prop_map(|(thinking, unknown_block, extra_key, image)| Extras { thinking, unknown_block, extra_key, image })
}

fn history() -> impl Strategy<Value = Vec<Value>> {
    (any::<bool>(), prop::collection::vec(step(), 0..28), extras())
        .prop_map(|(native, steps, e)| build(native, &steps, &e))
}

fn op() -> impl Strategy<Value = &'static str> {
    prop_oneof![Just("keep"), Just("suppress"), Just("truncate")]
}

fn options() -> impl Strategy<Value = Value> {
    let lossless = (any::<bool>(), any::<bool>(), any::<bool>(), any::<bool>()).prop_map(|(a, b, c, latest)| {
        json!({ "provider": "lossless", "config": { "deduplicateFileReads": a, "consolidateToolResults": b, "removeObsoleteState": c, "keep": if latest { "latest" } else { "first" } } })
    });
    let truncation = (0..8usize, op(), op(), prop::option::of(0..4000u64)).prop_map(|(n, r, p, target)| {
        let mut c = json!({ "preserveRecentCount": n, "toolResults": r, "toolParameters": p });
        if let Some(t) = target {
            c["targetTokens"] = json!(t);
        }
        json!({ "provider": "truncation", "config": c })
    });
    let smart = (
        prop_oneof![
            Just("conservative"),
            Just("balanced"),
            Just("aggressive"),
            Just("speed"),
            Just("quality"),
            Just("cost")
        ],
        prop::option::of(1.0..90.0f64),
    )
        .prop_map(|(preset, share)| {
            let mut c = json!({ "preset": preset });
            if let Some(p) = share {
                c["targetReductionPercent"] = json!(p);
            }
            json!({ "provider": "smart", "config": c })
        });
    let native = prop::option::of("[a-z ]{1,20}").prop_map(|prompt| match prompt {
        Some(p) => json!({ "provider": "native", "config": { "customPrompt": p } }),
        None => json!({ "provider": "native" }),
    });
    prop_oneof![lossless, truncation, smart, native]
}

fn llm() -> impl Strategy<Value = FakeLlm> {
    prop_oneof![Just(FakeLlm::Absent), Just(FakeLlm::Short), Just(FakeLlm::Failing), Just(FakeLlm::Verbose)]
}

fn config() -> ProptestConfig {
    let cases = std::env::var("PROPTEST_CASES").ok().and_then(|s| s.parse().ok()).unwrap_or(96);
    ProptestConfig { cases, max_shrink_iters: 200, ..ProptestConfig::default() }
}

proptest! {
    #![proptest_config(config())]

    #[test]
    fn every_provider_keeps_the_invariants(messages in history(), opts in options(), fake in llm()) {
        let before = messages.clone();
        check_condensation(&messages, &opts, fake);
        prop_assert_eq!(before, messages);
    }

    #[test]
    fn lossless_without_obsolete_state_is_exactly_reversible(messages in history(), latest in any::<bool>()) {
        let opts = json!({ "provider": "lossless", "config": { "removeObsoleteState": false, "keep": if latest { "latest" } else { "first" } } });
        check_condensation(&messages, &opts, FakeLlm::Absent);
    }

    #[test]
    fn edits_to_an_input_message_never_break_the_invariants(
        messages in history(),
        at in any::<prop::sample::Index>(),
        junk in prop_oneof![
            Just(json!({ "type": "text", "text": "" })),
            Just(json!({ "type": "text", "text": "⟨ Reference: fake message #0 · sha256:000000000000 ⟩" })),
            Just(json!({ "type": "tool_result", "tool_use_id": "nobody", "content": "orphan" })),
            Just(json!({ "type": "unknown", "x": [1, 2, { "y": null }] })),
            Just(json!({ "type": "text", "text": "<environment_details>\nunterminated" })),
        ],
        opts in options(),
    ) {
        let mut messages = messages;
        let i = at.index(messages.len());
        if let Some(Value::Array(blocks)) = messages[i].get_mut("content") {
            blocks.push(junk);
        }
        check_condensation(&messages, &opts, FakeLlm::Short);
    }
}
