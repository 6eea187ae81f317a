//! The built-in providers and the engine's public constants, in one place: what each provider is
//! called, what it does and can do, and the thresholds the manager and the Roo entry apply. Every
//! other list of providers (the manager's, the CLI's, the Roo entry's, the settings panel's, the
//! report's names) reads this one. Data only: it runs nothing.

use serde::Serialize;
use serde_json::{json, Value};

use crate::manager::{DEFAULT_MAX_TOKENS, MAX_CONDENSE_THRESHOLD, MIN_CONDENSE_THRESHOLD, TOKEN_BUFFER_PERCENTAGE};
use crate::providers::smart::presets;

/// What a provider can do, for hosts choosing one.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct Capabilities {
    pub supports_lossless: bool,
    pub supports_batch_mode: bool,
    pub supports_individual_mode: bool,
    pub supports_multi_pass: bool,
    #[serde(rename = "supportsLLMSummarization")]
    pub supports_llm_summarization: bool,
    pub estimated_speed: &'static str,
}

/// One built-in provider.
#[derive(Debug, Serialize)]
#[serde(rename_all = "camelCase")]
pub struct ProviderInfo {
    pub id: &'static str,
    pub name: &'static str,
    pub description: &'static str,
    /// Takes a token target (the manager's stop setting).
    pub takes_target: bool,
    pub capabilities: Capabilities,
}

/// The built-in providers, in the order hosts offer them.
pub const PROVIDERS: [ProviderInfo; 4] = [
    ProviderInfo {
        id: "native",
        name: "Native",
        description: "Roo Code's summarization: the first message and the last 3 kept, one LLM summary of what lies between.",
        takes_target: false,
        capabilities: Capabilities {
            supports_lossless: false,
            supports_batch_mode: true,
            supports_individual_mode: false,
            supports_multi_pass: false,
            supports_llm_summarization: true,
            estimated_speed: "slow",
        },
    },
    ProviderInfo {
        id: "lossless",
        name: "Lossless",
        description: "Removes only what is repeated or superseded, leaving references that expand back.",
        takes_target: false,
        capabilities: Capabilities {
            supports_lossless: true,
            supports_batch_mode: false,
            supports_individual_mode: true,
            supports_multi_pass: true,
            supports_llm_summarization: false,
            estimated_speed: "fast",
        },
    },
    ProviderInfo {
        id: "truncation",
        name: "Truncation",
        description: "Suppresses or truncates old tool results and parameters; keeps the first message, the recent ones and what the user typed.",
        takes_target: true,
        capabilities: Capabilities {
            supports_lossless: false,
            supports_batch_mode: false,
            supports_individual_mode: true,
            supports_multi_pass: false,
            supports_llm_summarization: false,
            estimated_speed: "fast",
        },
    },
    ProviderInfo {
        id: "smart",
        name: "Smart",
        description: "A lossless prelude, then configurable passes of keep / suppress / truncate / summarize over message text, tool parameters and tool results.",
        takes_target: true,
        capabilities: Capabilities {
            supports_lossless: true,
            supports_batch_mode: true,
            supports_individual_mode: true,
            supports_multi_pass: true,
            supports_llm_summarization: true,
            estimated_speed: "medium",
        },
    },
];

/// The built-in provider with this id.
pub fn provider(id: &str) -> Option<&'static ProviderInfo> {
    PROVIDERS.iter().find(|p| p.id == id)
}

/// The whole catalogue as JSON: `{ providers, presets, constants }`.
pub fn catalogue() -> Value {
    json!({
        "providers": PROVIDERS,
        "presets": presets::NAMES,
        "constants": {
            "minCondenseThreshold": MIN_CONDENSE_THRESHOLD,
            "maxCondenseThreshold": MAX_CONDENSE_THRESHOLD,
            "tokenBufferPercentage": TOKEN_BUFFER_PERCENTAGE,
            "defaultMaxTokens": DEFAULT_MAX_TOKENS,
        },
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_provider_the_engine_runs_is_in_the_catalogue_and_nothing_else() {
        for p in &PROVIDERS {
            assert!(crate::condense::config_schema(p.id).is_ok(), "{}", p.id);
        }
        assert!(crate::condense::config_schema("magic").is_err());
        assert!(provider("magic").is_none());
        assert_eq!(catalogue()["providers"].as_array().map(Vec::len), Some(4));
    }
}
