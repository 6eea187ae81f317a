//! context_condense: condenses the conversation history of LLM coding agents.
//!
//! The engine works on messages held as `json::Value`s and knows nothing of JavaScript: the
//! Node-API binding is its own crate over this one (crates/binding), so `cargo test` here tests the
//! engine without Node. Module tree only.
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
