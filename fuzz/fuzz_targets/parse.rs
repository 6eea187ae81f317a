//! Fuzz target: any bytes as a history. Whatever parses as JSON goes through everything that
//! reads a history without condensing it: validation, the semantic view, analysis, reference
//! expansion and token counting. Nothing may panic; a valid history's expansion must not add
//! problems, and counting must agree with the reference engine.
#![no_main]

use context_condense::parse::View;
use context_condense::reference::expand;
use context_condense::tokens::{count_messages, count_uncached, Encoding};
use context_condense::validate::{validate, validate_value};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

fuzz_target!(|data: &[u8]| {
    // Both counting engines agree on any text (the start of it: the reference engine is slow).
    let head = &data[..data.len().min(2048)];
    if let Ok(text) = std::str::from_utf8(head) {
        for enc in [Encoding::O200kBase, Encoding::Cl100kBase] {
            let reference = match enc {
                Encoding::O200kBase => tiktoken_rs::o200k_base_singleton(),
                Encoding::Cl100kBase => tiktoken_rs::cl100k_base_singleton(),
            };
            assert_eq!(count_uncached(text, enc), reference.encode_ordinary(text).len(), "engines disagree on {text:?}");
        }
    }
    let Ok(value) = serde_json::from_slice::<Value>(data) else { return };
    let problems = validate_value(&value);
    let Value::Array(messages) = value else {
        assert!(!problems.is_empty(), "a non-array history must be reported");
        return;
    };
    let _ = View::build(&messages);
    let _ = context_condense::analyze::analyze(&messages, Encoding::O200kBase);
    let _ = count_messages(&messages, Encoding::O200kBase);
    let expansion = expand(&messages);
    let expanded = context_condense::edit::materialize(&messages, &expansion.changes);
    if context_condense::validate::first_structural_problem(&messages).is_none() {
        assert!(validate(&expanded).len() <= validate(&messages).len() + expansion.changes.len());
    }
});
