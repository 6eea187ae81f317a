//! context_condense: condenses the conversation history of LLM coding agents.
//!
//! The core (everything but `node`) works on messages held as `json::Value`s and knows nothing of
//! JavaScript; `node` is the Node-API binding, behind the default `node` feature so
//! `cargo test --no-default-features` tests the core without Node. Module tree only.
#![deny(clippy::all)]

pub mod analyze;
pub mod bounds;
pub mod cache_model;
pub mod catalogue;
pub mod condense;
pub mod config;
pub mod cost;
pub mod draft;
pub mod edit;
pub mod error;
pub mod escape;
pub mod json;
pub mod llm;
pub mod manager;
pub mod memory;
pub mod model;
pub mod outline;
pub mod parse;
pub mod passes;
pub mod provenance;
pub mod providers;
pub mod reference;
pub mod repair;
pub mod report;
pub mod tokens;
pub mod validate;
pub mod working_set;

#[cfg(feature = "node")]
mod node;
