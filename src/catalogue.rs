//! The registry of built-in providers and the engine's public names and constants, in one place:
//! what each provider is called, what it does and can do, how its config is read and checked and
//! its JSON Schema (with the ranges the check applies), the Smart presets' names and the default
//! one, the encodings and the default one, and the thresholds the manager and the Roo entry apply.
//! Every other list of providers (the engine's config parsing and schemas, its errors, the
//! manager's, the CLI's, the Roo entry's, the settings panel's, the report's names, the generated
//! TypeScript names) reads this one. Data only: it runs no provider.

use serde::Serialize;
use serde_json::{json, Value};

use crate::config::parse_config;
use crate::error::CondenseError;
use crate::manager::{DEFAULT_MAX_TOKENS, MAX_CONDENSE_THRESHOLD, MIN_CONDENSE_THRESHOLD, TOKEN_BUFFER_PERCENTAGE};
use crate::providers::lossless::LosslessConfig;
use crate::providers::native::NativeConfig;
use crate::providers::smart::{self, presets, SmartConfig};
use crate::providers::truncation::TruncationConfig;
use crate::tokens::Encoding;

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

/// A provider with its config: what a run is asked to do.
#[derive(Debug, Clone, PartialEq)]
pub enum Provider {
    Lossless(LosslessConfig),
    Truncation(TruncationConfig),
    Native(NativeConfig),
    Smart(Box<SmartConfig>),
}

impl Provider {
    pub fn id(&self) -> &'static str {
        match self {
            Provider::Lossless(_) => LOSSLESS.id,
            Provider::Truncation(_) => TRUNCATION.id,
            Provider::Native(_) => NATIVE.id,
            Provider::Smart(_) => SMART.id,
        }
    }
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
    /// Reads and checks a config (`options.config`) into the provider it configures.
    #[serde(skip)]
    pub config: fn(&serde_json::Value) -> Result<Provider, CondenseError>,
    /// The JSON Schema of its config, with the ranges `config` checks.
    #[serde(skip)]
    pub schema: fn() -> schemars::Schema,
}

/// Where a provider's config is named in errors.
const CONFIG_AT: &str = "options.config";

/// Roo Code's own summary.
pub const NATIVE: ProviderInfo = ProviderInfo {
    id: crate::providers::native::ID,
    name: "Native",
    description:
        "Roo Code's summarization: the first message and the last 3 kept, one LLM summary of what lies between.",
    takes_target: false,
    capabilities: Capabilities {
        supports_lossless: false,
        supports_batch_mode: true,
        supports_individual_mode: false,
        supports_multi_pass: false,
        supports_llm_summarization: true,
        estimated_speed: "slow",
    },
    config: |config| {
        let c: NativeConfig = parse_config(config, CONFIG_AT)?;
        if let Some(pricing) = &c.pricing {
            pricing.check("options.config.pricing")?;
        }
        Ok(Provider::Native(c))
    },
    schema: || schemars::schema_for!(NativeConfig),
};

/// Only what is repeated or superseded, with references that expand back.
pub const LOSSLESS: ProviderInfo = ProviderInfo {
    id: crate::providers::lossless::ID,
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
    config: |config| Ok(Provider::Lossless(parse_config::<LosslessConfig>(config, CONFIG_AT)?)),
    schema: || schemars::schema_for!(LosslessConfig),
};

/// Mechanical shortening of old tool output, no LLM.
pub const TRUNCATION: ProviderInfo = ProviderInfo {
        id: crate::providers::truncation::ID,
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
        config: |config| {
            let c: TruncationConfig = parse_config(config, CONFIG_AT)?;
            c.check()?;
            Ok(Provider::Truncation(c))
        },
        schema: || schemars::schema_for!(TruncationConfig),
    };

/// A lossless prelude, then configurable passes (a preset or passes).
pub const SMART: ProviderInfo = ProviderInfo {
        id: crate::providers::smart::ID,
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
        config: |config| {
            let c = smart::resolve(config)?;
            c.check()?;
            Ok(Provider::Smart(Box::new(c)))
        },
        schema: || schemars::schema_for!(SmartConfig),
    };

/// The built-in providers, in the order hosts offer them.
pub const PROVIDERS: [&ProviderInfo; 4] = [&NATIVE, &LOSSLESS, &TRUNCATION, &SMART];

/// The provider a host runs when its config names none (the manager, the Roo entry, the settings
/// panel).
pub const DEFAULT_PROVIDER: &ProviderInfo = &NATIVE;

/// The built-in provider with this id: the one place a provider's name is matched.
pub fn provider(id: &str) -> Option<&'static ProviderInfo> {
    PROVIDERS.into_iter().find(|p| p.id == id)
}

/// The built-in provider with this id, or an error listing the ids there are.
pub fn known_provider(id: &str) -> Result<&'static ProviderInfo, CondenseError> {
    provider(id).ok_or_else(|| CondenseError::UnknownProvider { name: id.to_string(), expected: provider_list() })
}

/// `"a", "b" or "c"`: names quoted and listed, for errors.
pub fn quoted_list<'a>(names: impl IntoIterator<Item = &'a str>) -> String {
    let names: Vec<String> = names.into_iter().map(|n| format!("\"{n}\"")).collect();
    match names.split_last() {
        None => String::new(),
        Some((last, [])) => last.clone(),
        Some((last, rest)) => format!("{} or {last}", rest.join(", ")),
    }
}

/// The providers' ids as an error lists them.
pub fn provider_list() -> String {
    quoted_list(PROVIDERS.iter().map(|p| p.id))
}

/// The encodings' names as an error lists them.
pub fn encoding_list() -> String {
    quoted_list(Encoding::ALL.iter().map(|e| e.name()))
}

/// The whole catalogue as JSON: `{ providers, presets, defaultProvider, defaultPreset,
/// generalPresets, encodings, defaultEncoding, constants }`.
pub fn catalogue() -> Value {
    json!({
        "providers": PROVIDERS,
        "presets": presets::NAMES,
        "defaultProvider": DEFAULT_PROVIDER.id,
        "defaultPreset": presets::DEFAULT,
        "generalPresets": presets::GENERAL,
        "encodings": Encoding::ALL.map(Encoding::name),
        "defaultEncoding": Encoding::default().name(),
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
        for p in PROVIDERS {
            assert!(crate::condense::config_schema(p.id).is_ok(), "{}", p.id);
        }
        assert_eq!(Encoding::ALL[0], Encoding::default());
        assert_eq!(provider_list(), "\"native\", \"lossless\", \"truncation\" or \"smart\"");
        assert!(crate::condense::config_schema("magic").is_err());
        assert!(provider("magic").is_none());
        assert_eq!(catalogue()["providers"].as_array().map(Vec::len), Some(4));
    }
}
