//! The Smart provider's configuration: an optional lossless prelude
//! and passes, each with a selection, a mode (individual operations per content type, or one
//! batch summary), size thresholds, per-message overrides and an execution condition. Validated
//! with errors that name the path of the bad key; `schema()` describes it for settings UIs.

use serde::{Deserialize, Serialize};

use crate::bounds::PERCENT;
use crate::cost::Pricing;
use crate::error::CondenseError;
use crate::passes::content_ops::OpSpec;
use crate::providers::lossless::LosslessConfig;
pub use crate::working_set::WorkingSetConfig;

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct SmartConfig {
    /// A preset to start from: "conservative", "balanced", "aggressive" (or a use-case preset).
    /// Keys given beside it replace the preset's.
    #[schemars(schema_with = "preset_schema")]
    pub preset: Option<String>,
    pub lossless_prelude: Option<Prelude>,
    pub passes: Option<Vec<PassConfig>>,
    /// Stop once the context is at most this many tokens.
    pub target_tokens: Option<u64>,
    /// Stop once this share of the tokens is gone (0-100).
    #[schemars(transform = crate::bounds::percent)]
    pub target_reduction_percent: Option<f64>,
    /// Leave what the user typed whole. Only `false` in so many words changes it. @default true
    pub preserve_user_text: bool,
    /// Leave error results whole. @default true
    pub preserve_errors: bool,
    pub pricing: Option<Pricing>,
    pub task_id: Option<String>,
    /// Keep the working set: the latest state of the files touched in the latest turns stays
    /// whole (within `budgetTokens`; beyond it, an outline of their definitions), whatever the
    /// passes' operations say. Absent: the preset's (every preset keeps it), off when passes are
    /// given without a preset; null: off.
    pub working_set: Option<WorkingSetConfig>,
}

impl Default for SmartConfig {
    fn default() -> Self {
        SmartConfig {
            preset: None,
            lossless_prelude: None,
            passes: None,
            target_tokens: None,
            target_reduction_percent: None,
            preserve_user_text: true,
            preserve_errors: true,
            pricing: None,
            task_id: None,
            working_set: None,
        }
    }
}

impl SmartConfig {
    /// The ranges serde cannot check, each read from the definition the schema carries
    /// (`crate::bounds`), each error naming its key.
    pub fn check(&self) -> Result<(), CondenseError> {
        if let Some(p) = self.target_reduction_percent {
            PERCENT.check("options.config.targetReductionPercent", p)?;
        }
        for (i, pass) in self.passes.iter().flatten().enumerate() {
            if let Selection::PreservePercent { keep_percentage } = pass.selection {
                PERCENT.check(&format!("options.config.passes[{i}].selection.keepPercentage"), keep_percentage)?;
            }
        }
        if let Some(pricing) = &self.pricing {
            pricing.check("options.config.pricing")?;
        }
        Ok(())
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Prelude {
    /// @default true
    pub enabled: bool,
    pub operations: LosslessConfig,
}

impl Default for Prelude {
    fn default() -> Self {
        Prelude { enabled: true, operations: LosslessConfig::default() }
    }
}

#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct PassConfig {
    pub id: String,
    #[serde(default)]
    pub name: Option<String>,
    #[serde(default)]
    pub description: Option<String>,
    #[serde(default)]
    pub selection: Selection,
    pub mode: Mode,
    #[serde(default)]
    pub individual_config: Option<IndividualConfig>,
    #[serde(default)]
    pub batch_config: Option<BatchConfig>,
    #[serde(default)]
    pub execution: Execution,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Mode {
    Batch,
    Individual,
}

/// Which messages a pass may touch; the first message is never among them.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "snake_case", deny_unknown_fields)]
pub enum Selection {
    /// All but the most recent `keepRecentCount` messages.
    PreserveRecent {
        #[serde(rename = "keepRecentCount")]
        keep_recent_count: usize,
    },
    /// All but the most recent `keepPercentage` % of the messages.
    PreservePercent {
        #[serde(rename = "keepPercentage")]
        #[schemars(transform = crate::bounds::percent)]
        keep_percentage: f64,
    },
    /// Exactly these message indexes (of the history as the pass finds it).
    Custom {
        #[serde(rename = "messageIndices")]
        message_indices: Vec<usize>,
    },
}

impl Default for Selection {
    fn default() -> Self {
        Selection::PreserveRecent { keep_recent_count: 6 }
    }
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ContentTypeOps {
    pub message_text: Option<OpSpec>,
    pub tool_parameters: Option<OpSpec>,
    pub tool_results: Option<OpSpec>,
    pub environment_details: Option<OpSpec>,
}

#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct IndividualConfig {
    /// The operation per content type; a type not named is kept.
    pub defaults: ContentTypeOps,
    /// Other operations for some messages (index in the history as the pass finds it).
    pub overrides: Vec<Override>,
    /// Content smaller than this many tokens is left alone, per type.
    pub thresholds: Thresholds,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Override {
    pub message_index: usize,
    pub operations: ContentTypeOps,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct Thresholds {
    pub message_text: usize,
    pub tool_parameters: usize,
    pub tool_results: usize,
    pub environment_details: usize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct BatchConfig {
    /// "summarize" (or "keep", which makes the pass do nothing). @default "summarize"
    pub operation: BatchOperation,
    pub summarization_config: BatchSummarization,
}

impl Default for BatchConfig {
    fn default() -> Self {
        BatchConfig { operation: BatchOperation::Summarize, summarization_config: BatchSummarization::default() }
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum BatchOperation {
    Keep,
    Summarize,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct BatchSummarization {
    pub custom_prompt: Option<String>,
    /// Messages kept whole at the start. @default 1
    pub keep_first: usize,
    /// Messages kept whole at the end. @default 3
    pub keep_last: usize,
    pub max_tokens: Option<u32>,
}

impl Default for BatchSummarization {
    fn default() -> Self {
        BatchSummarization { custom_prompt: None, keep_first: 1, keep_last: 3, max_tokens: None }
    }
}

#[derive(Debug, Clone, PartialEq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(tag = "type", rename_all = "camelCase", deny_unknown_fields)]
pub enum Execution {
    #[default]
    Always,
    /// Only while the context is above `condition.tokenThreshold`.
    Conditional { condition: Condition },
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub struct Condition {
    pub token_threshold: u64,
}

/// `preset` names one of the engine's presets (or is null).
fn preset_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
    let mut names: Vec<serde_json::Value> = super::presets::NAMES.iter().map(|n| serde_json::json!(n)).collect();
    names.push(serde_json::Value::Null);
    schemars::json_schema!({
        "description": format!(
            "A preset to start from: \"conservative\", \"balanced\", \"aggressive\" (or a use-case preset).\nKeys given beside it replace the preset's. With neither a preset nor passes, the default preset \"{}\" runs.",
            super::presets::DEFAULT
        ),
        "type": ["string", "null"],
        "enum": names,
        "default": null
    })
}
