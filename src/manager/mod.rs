//! The condensation manager's decisions:
//! the manager config and its validation with every problem's path, the effective trigger
//! threshold per profile (Roo Code's rules: 5..100 %, -1 inherits, an invalid value warns and
//! inherits), the trigger decision (percentage of the window, or tokens past the allowed size
//! after the 10 % buffer and the reserved output), per-provider trigger / stop / minimum-gain
//! overrides (global, then provider, then profile), the course of one condensing call (the
//! fallback chain, the minimum-gain gate, the growth guard, the sliding window as the last
//! resort, what each outcome reports), the loop guard's state per task, the mapping of Roo Code's earlier settings keys, and estimates made by
//! running a provider with a stand-in model.
//!
//! The decisions are pure functions over JSON; only `estimate` runs the engine (never a model: a
//! stand-in answers). Nothing here touches the caller's messages; the JavaScript manager runs the
//! providers, the sliding window and the token counts each step of a call names.
//!
//! `config` (types, schema, validation), `decide` (thresholds, trigger, loop guard; pure),
//! `attempt` (one call's course: the fallback chain, the minimum gain, the growth guard, the
//! sliding window as the last resort, the reports, and the loop guard's state per task; pure),
//! `estimate` (runs the engine to say what a provider would save).

mod attempt;
mod config;
mod decide;
mod estimate;
pub mod policy;
#[cfg(test)]
mod tests;

pub use attempt::*;
pub use config::*;
pub use decide::*;
pub use estimate::*;
