//! Providers: compositions of passes behind one entry, each working on a `Draft` of the history.
//!
//! A provider is one type implementing [`Provider`], in its own module: what hosts are told of it
//! (id, name, description, capabilities), its config (how it is read and checked, its JSON Schema,
//! which carries the ranges the check applies), the passes a config makes and how the runner runs
//! them (its [`Policy`]). The registry (`crate::catalogue`) lists the providers, one line each;
//! [`Configured`] is a provider with its config, what `crate::condense` runs without knowing which
//! provider it is. This module defines those two and runs nothing itself; it never reaches up to
//! the registry.

use std::any::Any;
use std::fmt;
use std::marker::PhantomData;

use serde::de::DeserializeOwned;
use serde::Serialize;

use crate::config::parse_config;
use crate::error::CondenseError;
use crate::passes::runner::Policy;
use crate::passes::Pass;

#[cfg(test)]
pub mod example;
pub mod lossless;
pub mod native;
pub mod smart;
pub mod truncation;

/// Where a provider's config is named in errors.
pub const CONFIG_AT: &str = "options.config";

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

/// One provider: everything the engine and its hosts know of it. Implemented by a unit type in
/// the provider's module and listed once in `crate::catalogue::PROVIDERS`.
pub trait Provider: 'static {
    /// Its config, as `options.config` gives it: read with serde, its JSON Schema by schemars.
    type Config: DeserializeOwned + schemars::JsonSchema + fmt::Debug + Clone + PartialEq + Send + Sync + 'static;

    /// Its id, as hosts name it.
    const ID: &'static str;
    /// Its name in reports and settings.
    const NAME: &'static str;
    /// What it does, in one sentence for a host's list.
    const DESCRIPTION: &'static str;
    /// Takes a token target (the manager's stop setting).
    const TAKES_TARGET: bool;
    const CAPABILITIES: Capabilities;
    /// Its passes only propose edits, and the edit set never edits what a reference stands for:
    /// its saving is the one measured as the edits were applied, and the references need no
    /// following after it (`crate::reference::fixup_references` is not run).
    const ONLY_PROPOSES: bool = false;
    /// Its text report numbers its passes ("Pass 1 (…)"), as its config lists them.
    const NUMBERS_PASSES: bool = false;

    /// Reads and checks a config (`options.config`): serde, then what serde cannot check (a
    /// range from `crate::bounds`, the same definition its schema carries), each error naming
    /// the key's path.
    fn read(config: &serde_json::Value) -> Result<Self::Config, CondenseError> {
        parse_config(config, CONFIG_AT)
    }

    /// The JSON Schema of its config (`configSchema`), with the ranges `read` checks.
    fn schema() -> schemars::Schema {
        schemars::schema_for!(Self::Config)
    }

    /// The passes a config makes, in the order they run.
    fn passes(config: &Self::Config) -> Vec<Box<dyn Pass + '_>>;

    /// How the runner runs them for a context of `before` tokens: by default every pass runs,
    /// none is undone for growing the context, and the result is measured by the caller.
    fn policy(_config: &Self::Config, _before: u64) -> Policy<'_> {
        Policy::default()
    }
}

/// A provider with its config: what a run is asked to do.
pub struct Configured(Box<dyn Run>);

impl Configured {
    /// Provider `P` with `config` (already read and checked: see [`Provider::read`]).
    pub fn new<P: Provider>(config: P::Config) -> Configured {
        Configured(Box::new(With::<P>(config, PhantomData)))
    }

    /// Reads and checks `config` as provider `P`'s.
    pub fn read<P: Provider>(config: &serde_json::Value) -> Result<Configured, CondenseError> {
        Ok(Configured::new::<P>(P::read(config)?))
    }

    pub fn id(&self) -> &'static str {
        self.0.id()
    }

    pub fn name(&self) -> &'static str {
        self.0.name()
    }

    /// Its config, when it is provider `P`'s.
    pub fn config<P: Provider>(&self) -> Option<&P::Config> {
        if self.id() != P::ID {
            return None;
        }
        self.0.config().downcast_ref()
    }

    /// See [`Provider::passes`].
    pub fn passes(&self) -> Vec<Box<dyn Pass + '_>> {
        self.0.passes()
    }

    /// See [`Provider::policy`].
    pub fn policy(&self, before: u64) -> Policy<'_> {
        self.0.policy(before)
    }

    /// See [`Provider::ONLY_PROPOSES`].
    pub fn only_proposes(&self) -> bool {
        self.0.only_proposes()
    }

    /// See [`Provider::NUMBERS_PASSES`].
    pub fn numbers_passes(&self) -> bool {
        self.0.numbers_passes()
    }
}

impl Clone for Configured {
    fn clone(&self) -> Self {
        Configured(self.0.boxed())
    }
}

/// The same provider with an equal config.
impl PartialEq for Configured {
    fn eq(&self, other: &Self) -> bool {
        self.id() == other.id() && self.0.same_config(other.0.config())
    }
}

impl fmt::Debug for Configured {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        self.0.fmt(f)
    }
}

/// A provider with its config, whichever provider it is (what [`Configured`] holds).
trait Run: fmt::Debug + Send + Sync {
    fn id(&self) -> &'static str;
    fn name(&self) -> &'static str;
    fn only_proposes(&self) -> bool;
    fn numbers_passes(&self) -> bool;
    fn passes(&self) -> Vec<Box<dyn Pass + '_>>;
    fn policy(&self, before: u64) -> Policy<'_>;
    fn config(&self) -> &dyn Any;
    fn same_config(&self, other: &dyn Any) -> bool;
    fn boxed(&self) -> Box<dyn Run>;
}

/// Provider `P`'s config.
struct With<P: Provider>(P::Config, PhantomData<fn() -> P>);

impl<P: Provider> fmt::Debug for With<P> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_tuple(P::NAME).field(&self.0).finish()
    }
}

impl<P: Provider> Run for With<P> {
    fn id(&self) -> &'static str {
        P::ID
    }
    fn name(&self) -> &'static str {
        P::NAME
    }
    fn only_proposes(&self) -> bool {
        P::ONLY_PROPOSES
    }
    fn numbers_passes(&self) -> bool {
        P::NUMBERS_PASSES
    }
    fn passes(&self) -> Vec<Box<dyn Pass + '_>> {
        P::passes(&self.0)
    }
    fn policy(&self, before: u64) -> Policy<'_> {
        P::policy(&self.0, before)
    }
    fn config(&self) -> &dyn Any {
        &self.0
    }
    fn same_config(&self, other: &dyn Any) -> bool {
        other.downcast_ref::<P::Config>().is_some_and(|o| *o == self.0)
    }
    fn boxed(&self) -> Box<dyn Run> {
        Box::new(With::<P>(self.0.clone(), PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::lossless::{Lossless, LosslessConfig};
    use super::truncation::Truncation;
    use super::*;

    #[test]
    fn a_configured_provider_is_equal_to_the_same_provider_with_an_equal_config_only() {
        let lossless = |v| Configured::read::<Lossless>(&v).expect("a lossless config");
        let a = lossless(json!({}));
        assert_eq!(a, a.clone());
        assert_eq!(a, Configured::new::<Lossless>(LosslessConfig::default()));
        assert_ne!(a, lossless(json!({ "keep": "latest" })));
        assert_ne!(a, Configured::read::<Truncation>(&json!({})).expect("a truncation config"));
        assert_eq!(a.config::<Lossless>(), Some(&LosslessConfig::default()));
        assert_eq!(a.config::<Truncation>(), None);
        assert_eq!((a.id(), a.name(), a.only_proposes(), a.numbers_passes()), ("lossless", "Lossless", true, false));
        assert_eq!(format!("{a:?}"), format!("Lossless({:?})", LosslessConfig::default()));
    }

    #[test]
    fn its_passes_and_policy_are_its_providers_for_its_config() {
        let ids = |c: &Configured| c.passes().iter().map(|p| p.id()).collect::<Vec<_>>();
        let lossless = Configured::read::<Lossless>(&json!({ "consolidateToolResults": false })).expect("lossless");
        assert_eq!(ids(&lossless), ["deduplicateFileReads", "removeObsoleteState"]);
        let smart =
            Configured::read::<smart::Smart>(&json!({ "losslessPrelude": {}, "passes": [], "targetTokens": 100 }))
                .expect("smart");
        assert_eq!(ids(&smart), ["deduplicateFileReads", "consolidateToolResults", "removeObsoleteState"]);
        let policy = smart.policy(1000);
        assert!(policy.undo_growth);
        assert_eq!(policy.reached.as_ref().map(|r| (r(100), r(101))), Some((true, false)));
        assert!(lossless.policy(1000).reached.is_none());
    }
}
