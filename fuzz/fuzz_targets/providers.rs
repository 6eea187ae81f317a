//! Fuzz target: every provider on any history with any config. The first byte picks the
//! provider, a config (a preset or switches from the next byte, or, when the high bit is set, a
//! JSON config read from the bytes before the first NUL) and the fake summarizer; the rest is the
//! history as JSON. Every run goes through `check_condensation` (tests/common): no panic, a valid
//! result or a clear error, the invariants, determinism, exact Lossless reversibility.
#![no_main]

#[path = "../../tests/common/mod.rs"]
mod common;

use common::{check_condensation, FakeLlm};
use libfuzzer_sys::fuzz_target;
use serde_json::{json, Value};

const PRESETS: [&str; 6] = ["conservative", "balanced", "aggressive", "speed", "quality", "cost"];
const OPS: [&str; 3] = ["keep", "suppress", "truncate"];

fn config(pick: u8, knobs: u8) -> Value {
    let bit = |i: u8| knobs & (1 << i) != 0;
    match pick % 4 {
        0 => json!({ "provider": "lossless", "config": {
            "deduplicateFileReads": bit(0), "consolidateToolResults": bit(1), "removeObsoleteState": bit(2),
            "keep": if bit(3) { "latest" } else { "first" } } }),
        1 => json!({ "provider": "truncation", "config": {
            "preserveRecentCount": knobs % 8, "toolResults": OPS[(knobs / 8 % 3) as usize],
            "toolParameters": OPS[(knobs / 32 % 3) as usize] } }),
        2 => json!({ "provider": "smart", "config": { "preset": PRESETS[(knobs % 6) as usize] } }),
        _ => json!({ "provider": "native" }),
    }
}

fuzz_target!(|data: &[u8]| {
    if data.len() < 2 {
        return;
    }
    let (pick, knobs) = (data[0], data[1]);
    let llm = [FakeLlm::Absent, FakeLlm::Short, FakeLlm::Failing, FakeLlm::Verbose][(pick >> 2 & 3) as usize];
    let (options, rest) = if pick & 0x80 != 0 {
        let body = &data[2..];
        let Some(nul) = body.iter().position(|b| *b == 0) else { return };
        let Ok(cfg) = serde_json::from_slice::<Value>(&body[..nul]) else { return };
        let provider = ["lossless", "truncation", "smart", "native"][(knobs % 4) as usize];
        (json!({ "provider": provider, "config": cfg }), &body[nul + 1..])
    } else {
        (config(pick, knobs), &data[2..])
    };
    let Ok(messages) = serde_json::from_slice::<Vec<Value>>(rest) else { return };
    check_condensation(&messages, &options, llm);
});
