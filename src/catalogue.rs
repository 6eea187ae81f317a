//! The registry of built-in providers and the engine's public names and constants, in one place:
//! the list of providers (one line each; each provider's id, name, description, capabilities,
//! config, schema, passes and policy are its own, `crate::providers::Provider`), the Smart
//! presets' names and the default one, the encodings and the default one, and the thresholds the
//! manager and the Roo entry apply. Every other list of providers (the engine's config parsing
//! and schemas, its errors, the manager's, the CLI's, the Roo entry's, the settings panel's, the
//! report's names, the generated TypeScript names) reads this one. Data only: it runs no provider.

use serde::Serialize;
use serde_json::{json, Value};

use crate::error::CondenseError;
use crate::manager::{DEFAULT_MAX_TOKENS, MAX_CONDENSE_THRESHOLD, MIN_CONDENSE_THRESHOLD, TOKEN_BUFFER_PERCENTAGE};
pub use crate::providers::Capabilities;
use crate::providers::{lossless, native, smart, smart::presets, truncation, Configured, Provider};
use crate::tokens::Encoding;

/// One built-in provider, as the registry lists it: what hosts are told of it, and how its config
/// is read and described. Made from the provider's type by [`ProviderInfo::of`].
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
    pub config: fn(&serde_json::Value) -> Result<Configured, CondenseError>,
    /// The JSON Schema of its config, with the ranges `config` checks.
    #[serde(skip)]
    pub schema: fn() -> schemars::Schema,
}

impl ProviderInfo {
    /// Provider `P`'s entry: everything in it is `P`'s own.
    pub const fn of<P: Provider>() -> ProviderInfo {
        ProviderInfo {
            id: P::ID,
            name: P::NAME,
            description: P::DESCRIPTION,
            takes_target: P::TAKES_TARGET,
            capabilities: P::CAPABILITIES,
            config: Configured::read::<P>,
            schema: P::schema,
        }
    }
}

/// Roo Code's own summary: the default provider, and the manager's fallback.
pub const NATIVE: ProviderInfo = ProviderInfo::of::<native::Native>();

/// The built-in providers, in the order hosts offer them: a provider is added by its line here
/// (and its module in `crate::providers`); config parsing, `configSchema`, the unknown-provider
/// error's list, the catalogue and the generated TypeScript names all read this list.
pub static PROVIDERS: &[ProviderInfo] = &[
    NATIVE,
    ProviderInfo::of::<lossless::Lossless>(),
    ProviderInfo::of::<truncation::Truncation>(),
    ProviderInfo::of::<smart::Smart>(),
    // The example of docs/ARCHITECTURE.md "Adding a provider", registered in the unit tests only.
    #[cfg(test)]
    ProviderInfo::of::<crate::providers::example::Example>(),
];

/// The provider a host runs when its config names none (the manager, the Roo entry, the settings
/// panel).
pub const DEFAULT_PROVIDER: &ProviderInfo = &NATIVE;

/// The built-in provider with this id: the one place a provider's name is matched.
pub fn provider(id: &str) -> Option<&'static ProviderInfo> {
    PROVIDERS.iter().find(|p| p.id == id)
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

    /// The built-in providers, in order (the unit tests also register the example provider).
    const BUILT_IN: [&str; 4] = ["native", "lossless", "truncation", "smart"];

    #[test]
    fn every_provider_the_engine_runs_is_in_the_catalogue_and_nothing_else() {
        for p in PROVIDERS {
            assert!(crate::condense::config_schema(p.id).is_ok(), "{}", p.id);
        }
        assert_eq!(Encoding::ALL[0], Encoding::default());
        let ids: Vec<&str> = PROVIDERS.iter().map(|p| p.id).collect();
        assert_eq!(ids[..4], BUILT_IN);
        assert_eq!(ids[4..], [crate::providers::example::ID]);
        assert_eq!(provider_list(), "\"native\", \"lossless\", \"truncation\", \"smart\" or \"example\"");
        assert!(crate::condense::config_schema("magic").is_err());
        assert!(provider("magic").is_none());
        assert_eq!(catalogue()["providers"].as_array().map(Vec::len), Some(PROVIDERS.len()));
    }

    #[test]
    fn each_entry_reads_a_config_into_its_own_provider_and_describes_that_config() {
        let mut seen = std::collections::HashSet::new();
        for p in PROVIDERS {
            assert!(seen.insert(p.id), "{} listed twice", p.id);
            let configured = (p.config)(&json!({})).unwrap_or_else(|e| panic!("{}: {e}", p.id));
            assert_eq!((configured.id(), configured.name()), (p.id, p.name));
            assert_eq!(provider(p.id).map(|q| q.name), Some(p.name));
            // The schema is the one of the type the config is read into: its title names it, and
            // a key it does not list is refused.
            let schema = serde_json::to_value((p.schema)()).expect("a schema");
            let title = schema["title"].as_str().unwrap_or_default();
            assert!(format!("{configured:?}").contains(&format!("{title} {{")), "{}: {title} / {configured:?}", p.id);
            let unknown = (p.config)(&json!({ "notAKey": 1 })).map(|c| c.id());
            assert!(unknown.is_err(), "{}: an unknown key taken", p.id);
        }
    }

    #[test]
    fn the_catalogue_lists_each_provider_as_hosts_read_it() {
        let c = catalogue();
        let listed = c["providers"].as_array().expect("providers");
        for (entry, p) in listed.iter().zip(PROVIDERS) {
            let keys: Vec<&str> = entry.as_object().expect("an object").keys().map(String::as_str).collect();
            assert_eq!(keys, ["id", "name", "description", "takesTarget", "capabilities"]);
            assert_eq!((entry["id"].as_str(), entry["name"].as_str()), (Some(p.id), Some(p.name)));
            assert_eq!(entry["takesTarget"], p.takes_target);
        }
        assert_eq!(c["defaultProvider"], "native");
        assert_eq!(
            listed.iter().map(|p| p["takesTarget"] == true).collect::<Vec<_>>(),
            [false, false, true, true, false]
        );
    }
}
