//! The Truncation provider: fast, mechanical, no LLM. Keeps the first message,
//! the most recent `preserveRecentCount` messages, what the user typed and (by default) the
//! assistant's prose; in the older messages it truncates or suppresses tool results, tool
//! parameters (inside legacy XML calls too, keeping the call readable) and environment details,
//! each as configured. With `targetTokens` it stops as soon as the target is met, oldest first.
//!
//! Never removes or reorders a message, never separates a tool_use from its tool_result.

use serde::{Deserialize, Serialize};

use crate::config::parse_config;
use crate::draft::Draft;
use crate::error::CondenseError;
use crate::parse::View;
use crate::passes::content_ops::{self, ContentOps, OpSpec, Operation, OpsOutcome, OpsRun};
use crate::passes::shorten::TruncateParams;
use crate::passes::{Pass, PassCx, Ran, Stop};
use crate::providers::{Capabilities, Provider, CONFIG_AT};
use crate::tokens::Encoding;

/// The provider's id, as hosts name it.
pub const ID: &str = "truncation";

/// Mechanical shortening of old tool output, no LLM.
pub struct Truncation;

impl Provider for Truncation {
    type Config = TruncationConfig;
    const ID: &'static str = ID;
    const NAME: &'static str = "Truncation";
    const DESCRIPTION: &'static str = "Suppresses or truncates old tool results and parameters; keeps the first message, the recent ones and what the user typed.";
    const TAKES_TARGET: bool = true;
    const CAPABILITIES: Capabilities = Capabilities {
        supports_lossless: false,
        supports_batch_mode: false,
        supports_individual_mode: true,
        supports_multi_pass: false,
        supports_llm_summarization: false,
        estimated_speed: "fast",
    };

    fn read(config: &serde_json::Value) -> Result<TruncationConfig, CondenseError> {
        let c: TruncationConfig = parse_config(config, CONFIG_AT)?;
        c.check()?;
        Ok(c)
    }

    fn passes(config: &TruncationConfig) -> Vec<Box<dyn Pass + '_>> {
        vec![Box::new(TruncationPass { config })]
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct TruncationConfig {
    /// Most recent messages left whole. @default 6
    pub preserve_recent_count: usize,
    /// "truncate", "suppress" or "keep". @default "truncate"
    #[schemars(transform = operation_schema)]
    pub tool_results: Operation,
    /// @default "truncate"
    #[schemars(transform = operation_schema)]
    pub tool_parameters: Operation,
    /// @default "suppress"
    #[schemars(transform = operation_schema)]
    pub environment_details: Operation,
    /// @default 10
    pub max_tool_result_lines: usize,
    /// @default 1000
    pub max_tool_result_chars: usize,
    /// @default 5
    pub max_tool_param_lines: usize,
    /// @default 400
    pub max_tool_param_chars: usize,
    /// Leave the assistant's prose whole; when false it is truncated to `maxMessageTextChars`. @default true
    pub preserve_assistant_text: bool,
    /// @default 1000
    pub max_message_text_chars: usize,
    /// Leave error results whole. @default true
    pub preserve_errors: bool,
    /// Stop once the context is at most this many tokens.
    pub target_tokens: Option<u64>,
}

impl Default for TruncationConfig {
    fn default() -> Self {
        TruncationConfig {
            preserve_recent_count: 6,
            tool_results: Operation::Truncate,
            tool_parameters: Operation::Truncate,
            environment_details: Operation::Suppress,
            max_tool_result_lines: 10,
            max_tool_result_chars: 1000,
            max_tool_param_lines: 5,
            max_tool_param_chars: 400,
            preserve_assistant_text: true,
            max_message_text_chars: 1000,
            preserve_errors: true,
            target_tokens: None,
        }
    }
}

/// The operations Truncation applies (it never summarizes): its schema's `enum` for each
/// operation field and its check both read this list.
pub const OPERATIONS: [Operation; 3] = [Operation::Keep, Operation::Suppress, Operation::Truncate];

/// The schema of an operation field: one of `OPERATIONS` by name.
fn operation_schema(schema: &mut schemars::Schema) {
    schema.remove("$ref");
    schema.insert("type".into(), "string".into());
    let names: Vec<serde_json::Value> = OPERATIONS.iter().filter_map(|op| serde_json::to_value(op).ok()).collect();
    schema.insert("enum".into(), names.into());
}

impl TruncationConfig {
    pub fn check(&self) -> Result<(), CondenseError> {
        for (key, op) in [
            ("toolResults", self.tool_results),
            ("toolParameters", self.tool_parameters),
            ("environmentDetails", self.environment_details),
        ] {
            if !OPERATIONS.contains(&op) {
                return Err(CondenseError::InvalidOptions(format!(
                    "options.config.{key}: the truncation provider does not summarize (\"keep\", \"suppress\" or \"truncate\"); the smart provider does"
                )));
            }
        }
        Ok(())
    }

    fn ops(&self) -> ContentOps {
        let spec = |operation, max_lines, max_chars| OpSpec {
            operation,
            truncate: TruncateParams { max_lines, max_chars },
            ..OpSpec::default()
        };
        ContentOps {
            message_text: if self.preserve_assistant_text {
                OpSpec::default()
            } else {
                spec(Operation::Truncate, usize::MAX, self.max_message_text_chars)
            },
            tool_parameters: spec(self.tool_parameters, self.max_tool_param_lines, self.max_tool_param_chars),
            tool_results: spec(self.tool_results, self.max_tool_result_lines, self.max_tool_result_chars),
            environment_details: spec(self.environment_details, 5, 500),
            min_tokens: Default::default(),
            preserve_user_text: true,
            preserve_errors: self.preserve_errors,
        }
    }
}

/// Truncation's one pass: the content operations over all but the first and recent messages.
pub struct TruncationPass<'c> {
    pub config: &'c TruncationConfig,
}

impl Pass for TruncationPass<'_> {
    fn id(&self) -> String {
        ID.into()
    }

    fn name(&self) -> String {
        format!("Truncate older than the last {} messages", self.config.preserve_recent_count)
    }

    fn run(&self, cx: &mut PassCx, draft: &mut Draft) -> Result<Ran, Stop> {
        run(draft, cx.view, self.config, cx.encoding, cx.tokens_now);
        Ok(Ran::default())
    }
}

/// Runs the provider on `draft`; `current_tokens` is the context size before it.
pub fn run(
    draft: &mut Draft,
    view: &View,
    config: &TruncationConfig,
    encoding: Encoding,
    current_tokens: u64,
) -> OpsOutcome {
    let kept = draft.kept();
    let n = kept.len();
    // The first message and the most recent ones stay whole.
    let old: Vec<usize> = kept
        .iter()
        .copied()
        .enumerate()
        .filter(|(p, _)| *p > 0 && *p + config.preserve_recent_count < n)
        .map(|(_, i)| i)
        .collect();
    // The run chose to shorten these: a reference in one of them whose bytes it shortened away
    // says so rather than bringing them back (`reference::fixup_references`).
    draft.selected.extend(old.iter().copied());
    let mut run = OpsRun {
        encoding,
        summarizer: None,
        pricing: None,
        task_id: None,
        target_tokens: config.target_tokens,
        current_tokens,
        guard: None,
    };
    content_ops::run(draft, view, &old, &config.ops(), &mut run)
}
