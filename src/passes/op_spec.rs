//! The operations of the content model (keep, suppress, truncate, summarize) and how a config
//! names one: `"truncate"`, or `{ "operation": "truncate", "params": { … } }`. Types and their
//! parsing only.

use serde::{Deserialize, Serialize};

use super::shorten::TruncateParams;

/// The four operations.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(rename_all = "camelCase")]
pub enum Operation {
    #[default]
    Keep,
    Suppress,
    Truncate,
    Summarize,
}

/// Parameters of a summarize operation.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct SummarizeParams {
    /// Upper bound asked of the model for one summary.
    pub max_tokens: Option<u32>,
    /// Replaces the default prompt for this content type.
    pub custom_prompt: Option<String>,
}

/// An operation with its parameters: `"truncate"` or `{ "operation": "truncate", "params": {...} }`.
#[derive(Debug, Clone, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct OpSpec {
    pub operation: Operation,
    pub truncate: TruncateParams,
    pub summarize: SummarizeParams,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum OpSpecRaw {
    Name(Operation),
    Full {
        operation: Operation,
        #[serde(default)]
        params: OpParamsRaw,
    },
}

#[derive(Deserialize, Default)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
struct OpParamsRaw {
    truncate: Option<TruncateParams>,
    summarize: Option<SummarizeParams>,
}

impl<'de> Deserialize<'de> for OpSpec {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let raw = OpSpecRaw::deserialize(d).map_err(|_| {
            serde::de::Error::custom(
                "expected \"keep\", \"suppress\", \"truncate\", \"summarize\" or { operation, params: { truncate?: { maxLines, maxChars }, summarize?: { maxTokens, customPrompt } } }",
            )
        })?;
        Ok(match raw {
            OpSpecRaw::Name(operation) => OpSpec { operation, ..OpSpec::default() },
            OpSpecRaw::Full { operation, params } => OpSpec {
                operation,
                truncate: params.truncate.unwrap_or_default(),
                summarize: params.summarize.unwrap_or_default(),
            },
        })
    }
}

impl schemars::JsonSchema for OpSpec {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "OpSpec".into()
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        let operation = generator.subschema_for::<Operation>();
        let truncate = generator.subschema_for::<TruncateParams>();
        let summarize = generator.subschema_for::<SummarizeParams>();
        schemars::json_schema!({
            "description": "An operation by name, or with its parameters.",
            "oneOf": [
                operation,
                {
                    "type": "object",
                    "additionalProperties": false,
                    "required": ["operation"],
                    "properties": {
                        "operation": operation,
                        "params": {
                            "type": "object",
                            "additionalProperties": false,
                            "properties": { "truncate": truncate, "summarize": summarize }
                        }
                    }
                }
            ]
        })
    }
}

impl From<Operation> for OpSpec {
    fn from(operation: Operation) -> Self {
        OpSpec { operation, ..OpSpec::default() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn op_specs_parse_in_both_forms() {
        let a: OpSpec = serde_json::from_value(serde_json::json!("suppress")).unwrap();
        assert_eq!(a.operation, Operation::Suppress);
        let b: OpSpec = serde_json::from_value(
            serde_json::json!({"operation": "truncate", "params": {"truncate": {"maxLines": 5}}}),
        )
        .unwrap();
        assert_eq!((b.operation, b.truncate.max_lines, b.truncate.max_chars), (Operation::Truncate, 5, 2000));
        assert!(serde_json::from_value::<OpSpec>(serde_json::json!("shred")).is_err());
    }
}
