//! The Smart presets, as plain configurations: what each does is in docs/providers.md
//! with its measured figures. Every preset keeps the working set (the files touched in the last 10
//! turns) whole within the default budget, a third of the context being condensed
//! (`crate::working_set`): the presets differ in what they do to everything else, never in how
//! much of the files the agent is working on they keep. Summaries fall back to truncation when no
//! callback is given.

use serde_json::{json, Value};

/// Names of the presets, in the order docs/providers.md lists them.
pub const NAMES: [&str; 6] = ["conservative", "balanced", "aggressive", "speed", "quality", "cost"];

/// The preset a Smart config that names neither a preset nor passes runs (`super::resolve`
/// reads such a config as this preset, whichever entry it came through).
pub const DEFAULT: &str = NAMES[1];

/// The general presets, from least to most condensing (the others are for one use case): what a
/// settings panel offers as starting points.
pub const GENERAL: [&str; 3] = [NAMES[0], NAMES[1], NAMES[2]];

/// The configuration of a preset, as JSON (the same shape a user writes).
pub fn preset(name: &str) -> Option<Value> {
    // The prelude keeps the latest of identical copies (the older point at it): the passes after
    // it shorten old messages, and a recent copy made a reference to an old one would lose what it
    // stands for with it.
    let prelude = json!({"enabled": true, "operations": {"deduplicateFileReads": true, "consolidateToolResults": true, "removeObsoleteState": true, "keep": "latest"}});
    let truncate = |lines: usize, chars: usize| json!({"operation": "truncate", "params": {"truncate": {"maxLines": lines, "maxChars": chars}}});
    let summarize = |lines: usize, chars: usize, max_tokens: u32| json!({"operation": "summarize", "params": {"truncate": {"maxLines": lines, "maxChars": chars}, "summarize": {"maxTokens": max_tokens}}});
    let config = match name {
        // Lossless first, then only large old tool results are shortened; parameters, prose and
        // everything recent stay.
        "conservative" => json!({
            "losslessPrelude": prelude,
            "workingSet": {"turns": 10},
            "passes": [{
                "id": "trim-old-results", "name": "Trim large old tool results", "mode": "individual",
                "selection": {"type": "preserve_recent", "keepRecentCount": 12},
                "individualConfig": {
                    "defaults": {"toolResults": truncate(150, 12000), "toolParameters": truncate(150, 12000)},
                    "thresholds": {"toolResults": 3000, "toolParameters": 3000}
                }
            }]
        }),
        // Lossless, then old tool results and parameters truncated hard, older ones summarized.
        "balanced" => json!({
            "losslessPrelude": prelude,
            "workingSet": {"turns": 10},
            "passes": [
                {
                    "id": "truncate-old", "name": "Truncate old tool results and parameters", "mode": "individual",
                    "selection": {"type": "preserve_recent", "keepRecentCount": 6},
                    "individualConfig": {
                        "defaults": {"toolResults": truncate(12, 1000), "toolParameters": truncate(8, 600), "environmentDetails": "suppress"},
                        "thresholds": {"toolResults": 150, "toolParameters": 150}
                    }
                },
                {
                    "id": "summarize-oldest", "name": "Summarize the oldest half's results", "mode": "individual",
                    "selection": {"type": "preserve_percent", "keepPercentage": 50},
                    "individualConfig": {
                        "defaults": {"toolResults": summarize(5, 400, 300)},
                        "thresholds": {"toolResults": 120}
                    }
                }
            ]
        }),
        // Lossless, then old tool output suppressed, long prose truncated, and one batch summary
        // of the middle of the conversation when it is still large.
        "aggressive" => json!({
            "losslessPrelude": prelude,
            "workingSet": {"turns": 10},
            "passes": [
                {
                    "id": "suppress-old", "name": "Suppress old tool results and parameters", "mode": "individual",
                    "selection": {"type": "preserve_recent", "keepRecentCount": 4},
                    "individualConfig": {
                        "defaults": {"toolResults": "suppress", "toolParameters": "suppress", "environmentDetails": "suppress", "messageText": truncate(6, 600)},
                        "thresholds": {"toolResults": 40, "toolParameters": 60, "messageText": 200}
                    }
                },
                {
                    "id": "summarize-middle", "name": "Summarize the middle of the conversation", "mode": "batch",
                    "batchConfig": {"operation": "summarize", "summarizationConfig": {"keepFirst": 1, "keepLast": 4}},
                    "execution": {"type": "conditional", "condition": {"tokenThreshold": 30000}}
                }
            ]
        }),
        // No LLM call ever: lossless and mechanical truncation only.
        "speed" => json!({
            "losslessPrelude": prelude,
            "workingSet": {"turns": 10},
            "passes": [{
                "id": "truncate-old", "name": "Truncate old tool output", "mode": "individual",
                "selection": {"type": "preserve_recent", "keepRecentCount": 6},
                "individualConfig": {"defaults": {"toolResults": truncate(10, 800), "toolParameters": truncate(8, 600), "environmentDetails": "suppress"}}
            }]
        }),
        // Summaries instead of cuts wherever content is large.
        "quality" => json!({
            "losslessPrelude": prelude,
            "workingSet": {"turns": 10},
            "passes": [{
                "id": "summarize-old", "name": "Summarize large old tool results", "mode": "individual",
                "selection": {"type": "preserve_recent", "keepRecentCount": 8},
                "individualConfig": {
                    "defaults": {"toolResults": summarize(30, 2500, 600), "environmentDetails": "suppress"},
                    "thresholds": {"toolResults": 400}
                }
            }]
        }),
        // Mechanical first; one cheap summary only if the context is still large afterwards.
        "cost" => json!({
            "losslessPrelude": prelude,
            "workingSet": {"turns": 10},
            "passes": [
                {
                    "id": "truncate-old", "name": "Truncate old tool output", "mode": "individual",
                    "selection": {"type": "preserve_recent", "keepRecentCount": 6},
                    "individualConfig": {"defaults": {"toolResults": truncate(15, 1200), "toolParameters": truncate(10, 800), "environmentDetails": "suppress"}}
                },
                {
                    "id": "summarize-if-large", "name": "Summarize the middle if still large", "mode": "batch",
                    "batchConfig": {"operation": "summarize", "summarizationConfig": {"keepFirst": 1, "keepLast": 6, "maxTokens": 2000}},
                    "execution": {"type": "conditional", "condition": {"tokenThreshold": 60000}}
                }
            ]
        }),
        _ => return None,
    };
    Some(config)
}
