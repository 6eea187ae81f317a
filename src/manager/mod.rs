//! The condensation manager's decisions:
//! the manager config and its validation with every problem's path, the effective trigger
//! threshold per profile (Roo Code's rules: 5..100 %, -1 inherits, an invalid value warns and
//! inherits), the trigger decision (percentage of the window, or tokens past the allowed size
//! after the 10 % buffer and the reserved output), per-provider trigger / stop / minimum-gain
//! overrides (global, then provider, then profile), the minimum-gain gate, the loop guard's
//! state transitions, the mapping of Roo Code's earlier settings keys, and estimates made by
//! running a provider with a stand-in model.
//!
//! The decisions are pure functions over JSON; only `estimate` runs the engine (never a model: a
//! stand-in answers). Nothing here touches the caller's messages; the JavaScript manager runs the
//! providers and the fallback chain with what this module decides.
//!
//! `config` (types, schema, validation), `decide` (thresholds, trigger, loop guard; pure), `estimate`
//! (runs the engine to say what a provider would save).

mod config;
mod decide;
mod estimate;
#[cfg(test)]
mod tests;

pub use config::*;
pub use decide::*;
pub use estimate::*;
