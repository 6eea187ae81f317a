//! An example provider, compiled for the unit tests only: the one docs/ARCHITECTURE.md "Adding a
//! provider" shows. This file and its line in `crate::catalogue::PROVIDERS` (with its `mod` line)
//! are all it has, and its tests show that is enough: it is listed in the catalogue, its config is
//! read and checked with the range its schema carries, and `condense` runs it.
//!
//! What it does: deduplicates file reads, then suppresses the tool results of all but the first
//! message and the last `keepRecent`, stopping after a pass once the context is
//! `targetReductionPercent` smaller. Never touches what the user typed or an error result.

use serde::{Deserialize, Serialize};

use crate::bounds::PERCENT;
use crate::config::parse_config;
use crate::draft::Draft;
use crate::error::CondenseError;
use crate::passes::content_ops::{self, ContentOps, OpSpec, Operation, OpsRun};
use crate::passes::dedup_reads::DeduplicateFileReads;
use crate::passes::runner::Policy;
use crate::passes::{Keep, Pass, PassCx, Ran, Stop};
use crate::providers::{Capabilities, Provider, CONFIG_AT};

pub const ID: &str = "example";

/// The example's config: every key optional, each with its default.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct ExampleConfig {
    /// Most recent messages whose tool results stay whole. @default 4
    pub keep_recent: usize,
    /// Stop after a pass once the context is this much smaller, in percent.
    #[schemars(transform = crate::bounds::percent)]
    pub target_reduction_percent: Option<f64>,
}

impl Default for ExampleConfig {
    fn default() -> Self {
        ExampleConfig { keep_recent: 4, target_reduction_percent: None }
    }
}

pub struct Example;

impl Provider for Example {
    type Config = ExampleConfig;
    const ID: &'static str = ID;
    const NAME: &'static str = "Example";
    const DESCRIPTION: &'static str = "Deduplicates file reads, then suppresses old tool results.";
    const TAKES_TARGET: bool = false;
    const CAPABILITIES: Capabilities = Capabilities {
        supports_lossless: false,
        supports_batch_mode: false,
        supports_individual_mode: true,
        supports_multi_pass: true,
        supports_llm_summarization: false,
        estimated_speed: "fast",
    };

    /// serde reads the keys and their types; the percentage's range is the one its schema
    /// carries (`#[schemars(transform = crate::bounds::percent)]` above).
    fn read(config: &serde_json::Value) -> Result<ExampleConfig, CondenseError> {
        let c: ExampleConfig = parse_config(config, CONFIG_AT)?;
        if let Some(p) = c.target_reduction_percent {
            PERCENT.check("options.config.targetReductionPercent", p)?;
        }
        Ok(c)
    }

    fn passes(config: &ExampleConfig) -> Vec<Box<dyn Pass + '_>> {
        vec![Box::new(DeduplicateFileReads { keep: Keep::First }), Box::new(SuppressOldResults { config })]
    }

    /// Undo a pass that grows the context; stop once the target is met.
    fn policy(config: &ExampleConfig, before: u64) -> Policy<'_> {
        let reached = config.target_reduction_percent.map(|p| {
            Box::new(move |now: u64| before > 0 && before.saturating_sub(now) as f64 * 100.0 / before as f64 >= p)
                as Box<dyn Fn(u64) -> bool>
        });
        Policy { undo_growth: true, reached, measure_last: true }
    }
}

/// The example's second pass: old tool results suppressed.
struct SuppressOldResults<'c> {
    config: &'c ExampleConfig,
}

impl Pass for SuppressOldResults<'_> {
    fn id(&self) -> String {
        "suppressOldResults".into()
    }

    fn name(&self) -> String {
        format!("Tool results older than the last {} messages suppressed", self.config.keep_recent)
    }

    fn run(&self, cx: &mut PassCx, draft: &mut Draft) -> Result<Ran, Stop> {
        let kept = draft.kept();
        let old: Vec<usize> = kept
            .iter()
            .enumerate()
            .filter(|(p, _)| *p > 0 && p + self.config.keep_recent < kept.len())
            .map(|(_, i)| *i)
            .collect();
        // The run chose these: a reference into them that it suppressed says so
        // (`reference::fixup_references`).
        draft.selected.extend(old.iter().copied());
        let ops = ContentOps {
            message_text: OpSpec::default(),
            tool_parameters: OpSpec::default(),
            tool_results: OpSpec { operation: Operation::Suppress, ..OpSpec::default() },
            environment_details: OpSpec::default(),
            min_tokens: Default::default(),
            preserve_user_text: true,
            preserve_errors: true,
        };
        let mut run = OpsRun {
            encoding: cx.encoding,
            summarizer: None,
            pricing: None,
            task_id: None,
            target_tokens: None,
            current_tokens: cx.tokens_now,
            guard: None,
        };
        content_ops::run(draft, cx.view, &old, &ops, &mut run);
        Ok(Ran::default())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::AtomicBool;

    use serde_json::json;

    use crate::catalogue::{catalogue, provider_list};
    use crate::condense::{condense, config_schema, Options};
    use crate::json::Value;
    use crate::provenance::{Action, Content};

    fn options(config: serde_json::Value) -> Result<Options, String> {
        Options::from_value(&json!({ "provider": super::ID, "config": config, "provenance": true }))
            .map_err(|e| e.to_string())
    }

    /// A task: the user's request, then eight tool calls each with a long result of its own.
    fn history() -> Vec<Value> {
        let mut out = vec![json!({ "role": "user", "content": "Find where the totals are computed." })];
        for i in 0..8 {
            let id = format!("call_{i}");
            out.push(json!({ "role": "assistant", "content": [
                { "type": "text", "text": format!("Listing part {i}.") },
                { "type": "tool_use", "id": id, "name": "execute_command", "input": { "command": format!("ls part{i}") } },
            ] }));
            let listing: Vec<String> = (0..60).map(|n| format!("part{i}/file_{n}.rs")).collect();
            out.push(json!({ "role": "user", "content": [
                { "type": "tool_result", "tool_use_id": id, "content": listing.join("\n") },
            ] }));
        }
        out.into_iter().map(Value::from).collect()
    }

    #[test]
    fn its_one_registry_line_lists_it_with_its_schema() {
        let catalogue = catalogue();
        let listed = catalogue["providers"].as_array().and_then(|ps| ps.iter().find(|p| p["id"] == super::ID));
        let listed = listed.expect("the example in the catalogue");
        assert_eq!(listed["name"], "Example");
        assert_eq!(listed["capabilities"]["supportsMultiPass"], true);
        assert!(provider_list().contains("\"example\""), "{}", provider_list());
        let schema = config_schema(super::ID).expect("its schema");
        assert_eq!(schema["title"], "ExampleConfig");
        assert_eq!(schema["properties"]["keepRecent"]["default"], 4);
        assert_eq!(schema["properties"]["targetReductionPercent"]["minimum"], 0);
        assert_eq!(schema["properties"]["targetReductionPercent"]["maximum"], 100);
        // The schema __test__/config-types.test.ts generates the example's TypeScript interface from.
        let typed: serde_json::Value =
            serde_json::from_str(include_str!("../../__test__/example-provider-schema.json")).expect("its JSON");
        assert_eq!(schema, typed, "update __test__/example-provider-schema.json to this schema");
    }

    #[test]
    fn its_config_is_read_and_checked_with_the_range_its_schema_carries() {
        let schema = config_schema(super::ID).expect("its schema");
        let range = &schema["properties"]["targetReductionPercent"];
        let (min, max) = (range["minimum"].as_f64().expect("a minimum"), range["maximum"].as_f64().expect("a maximum"));
        for (v, ok) in [(min, true), (max, true), (min - 0.01, false), (max + 0.01, false)] {
            let read = options(json!({ "targetReductionPercent": v }));
            assert_eq!(read.is_ok(), ok, "{v}: {read:?}");
        }
        assert_eq!(
            options(json!({ "targetReductionPercent": 150 })).err().as_deref(),
            Some(
                "invalid options: options.config.targetReductionPercent: expected a percentage from 0 to 100, got 150"
            )
        );
        let unknown = options(json!({ "keep": 2 })).expect_err("an unknown key");
        assert!(unknown.starts_with("invalid options: options.config.keep: unknown field `keep`"), "{unknown}");
        let o = options(json!({})).expect("the defaults");
        assert_eq!(o.provider.config::<super::Example>(), Some(&super::ExampleConfig::default()));
        assert_eq!(o.provider.config::<crate::providers::lossless::Lossless>(), None);
    }

    #[test]
    fn condense_runs_its_passes_under_its_policy() {
        let messages = history();
        let abort = AtomicBool::new(false);
        let run = |config| condense(&messages, &options(config).expect("a config"), &abort, None).expect("a run");

        let all = run(json!({ "keepRecent": 2 }));
        assert_eq!(all.error, None);
        let ids: Vec<&str> = all.metrics.passes.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["deduplicateFileReads", "suppressOldResults"]);
        let acts = all.provenance.expect("provenance").acts;
        let suppressed: Vec<usize> = acts
            .iter()
            .filter(|a| a.action == Action::Suppressed && a.content == Content::ToolResults)
            .map(|a| a.message)
            .collect();
        // Every result but those of the last two messages (the last call and its result).
        assert_eq!(suppressed, [2, 4, 6, 8, 10, 12, 14]);
        assert!(all.new_context_tokens < all.prev_context_tokens);
        assert!(all.report.starts_with("Context condensed using Example strategy:"), "{}", all.report);

        // Its report names its passes as they are; Smart's, which says so, numbers them.
        assert!(all.report.contains(" - Tool results older than the last 2 messages suppressed: "), "{}", all.report);
        assert!(!all.report.contains("Pass 1 ("), "{}", all.report);
        let pass = |id: &str, op: &str| {
            json!({ "id": id, "mode": "individual", "selection": { "type": "preserve_recent", "keepRecentCount": 2 },
                    "individualConfig": { "defaults": { "toolResults": op } } })
        };
        let smart =
            json!({ "provider": "smart", "config": { "passes": [pass("cut", "truncate"), pass("drop", "suppress")] } });
        let smart = condense(&messages, &Options::from_value(&smart).expect("smart"), &abort, None).expect("a run");
        assert!(
            smart.report.contains(" - Pass 1 (cut): ") && smart.report.contains(" - Pass 2 (drop): "),
            "{}",
            smart.report
        );

        // A target the first pass meets: the second never runs.
        let stopped = run(json!({ "keepRecent": 2, "targetReductionPercent": 0 }));
        let ids: Vec<&str> = stopped.metrics.passes.iter().map(|p| p.id.as_str()).collect();
        assert_eq!(ids, ["deduplicateFileReads"]);
        assert_eq!(stopped.new_context_tokens, stopped.prev_context_tokens);
    }
}
