//! The manager's rules on hand-made configs and situations.

use serde_json::{json, Value};

use super::*;

fn config(v: Value) -> ManagerConfig {
    read_config(&v).unwrap_or_else(|p| panic!("{p:?}"))
}

#[test]
fn thresholds_follow_roos_rules() {
    let c = config(json!({ "threshold": 80, "profileThresholds": { "a": 60, "b": -1, "c": 3, "d": 101 } }));
    assert_eq!(
        effective_threshold(&c, "native", Some("a")),
        Threshold { percent: 60.0, source: Source::Profile, warning: None }
    );
    assert_eq!(effective_threshold(&c, "native", Some("b")).percent, 80.0);
    assert_eq!(effective_threshold(&c, "native", Some("zz")).percent, 80.0);
    let bad = effective_threshold(&c, "native", Some("c"));
    assert_eq!((bad.percent, bad.source), (80.0, Source::Global));
    assert_eq!(
        bad.warning.as_deref(),
        Some("Invalid profile threshold 3 for profile \"c\". Using global default of 80%")
    );
    assert!(effective_threshold(&c, "native", Some("d")).warning.is_some());
}

#[test]
fn overrides_go_global_then_provider_then_profile() {
    let c = config(json!({
        "threshold": 90,
        "triggers": { "triggerPercent": 85, "minGainTokens": 500 },
        "providerTriggers": { "smart": { "triggerPercent": 70, "stopPercent": 40 } },
        "profileTriggers": { "cheap": { "triggerPercent": 50, "minGainPercent": 5 } },
    }));
    assert_eq!(effective_threshold(&c, "native", None).percent, 85.0);
    assert_eq!(
        effective_threshold(&c, "smart", None),
        Threshold { percent: 70.0, source: Source::Provider, warning: None }
    );
    assert_eq!(effective_threshold(&c, "smart", Some("cheap")).percent, 50.0);
    assert_eq!(
        effective(&c, "smart", Some("cheap")),
        Effective { stop_percent: Some(40.0), min_gain_tokens: 500, min_gain_percent: 5.0 }
    );
}

#[test]
fn the_trigger_decision() {
    let c = config(json!({ "threshold": 75 }));
    let s = |total: u64, last: u64| Situation {
        total_tokens: total,
        last_message_tokens: last,
        context_window: 100_000,
        max_tokens: Some(10_000),
        profile_id: None,
        provider: None,
    };
    // allowed = 100000 * 0.9 - 10000 = 80000
    assert_eq!(should_condense(&c, &s(70_000, 4_000)).reason, "below-threshold");
    assert_eq!(should_condense(&c, &s(70_000, 5_000)).reason, "threshold");
    let d = should_condense(&c, &s(80_000, 1));
    assert_eq!((d.reason, d.overflow, d.allowed_tokens), ("overflow", true, 80_000.0));
    let off = config(json!({ "autoCondenseContext": false }));
    assert_eq!(should_condense(&off, &s(79_000, 0)).reason, "disabled");
    assert!(should_condense(&off, &s(90_000, 0)).condense, "past the allowed size even when auto-condense is off");
    let default_reserve = Situation { max_tokens: None, ..s(0, 0) };
    assert_eq!(should_condense(&c, &default_reserve).allowed_tokens, 90_000.0 - DEFAULT_MAX_TOKENS as f64);
}

#[test]
fn legacy_keys_map_onto_the_new_ones() {
    let c = config(json!({
        "autoCondenseContext": false,
        "autoCondenseContextPercent": 65,
        "profileThresholds": { "p": 40 },
        "customCondensingPrompt": "Summarize tersely.",
        "condensingApiConfigId": "cheap-profile",
    }));
    assert!(!c.auto_condense);
    assert_eq!(c.threshold, 65.0);
    assert_eq!(c.profile_thresholds.get("p"), Some(&40.0));
    assert_eq!(c.providers.get("native"), Some(&json!({ "customPrompt": "Summarize tersely." })));
    assert_eq!(c.condensing_profile_id.as_deref(), Some("cheap-profile"));
}

#[test]
fn legacy_keys_are_checked_in_their_own_names_even_beside_the_new_ones() {
    // Beside the key each maps onto, an earlier key is not read: a wrong one is still refused.
    let problems = validate_config(&json!({
        "autoCondense": true,
        "autoCondenseContext": -1,
        "threshold": 50,
        "autoCondenseContextPercent": "5",
        "customCondensingPrompt": 7,
        "condensingProfileId": "p",
        "condensingApiConfigId": 2,
    }));
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "config.autoCondenseContext",
            "config.autoCondenseContextPercent",
            "config.customCondensingPrompt",
            "config.condensingApiConfigId"
        ]
    );
    // Alone, a wrong earlier key is named once, by its own name.
    let alone = validate_config(&json!({ "autoCondenseContext": "yes" }));
    assert_eq!(alone.len(), 1);
    assert_eq!(alone[0].path, "config.autoCondenseContext");
}

#[test]
fn a_trigger_given_as_null_is_left_out_as_its_schema_says() {
    let none = json!({ "triggerPercent": null, "stopPercent": null, "minGainTokens": null, "minGainPercent": null });
    assert_eq!(validate_config(&json!({ "triggers": none, "providerTriggers": { "smart": none } })), vec![]);
    let c = config(json!({ "triggers": none }));
    assert_eq!(c.triggers, Triggers::default());
}

#[test]
fn every_problem_is_reported_with_its_path() {
    let problems = validate_config(&json!({
        "threshold": 2,
        "bogus": 1,
        "triggers": { "stopPercent": 500, "minGainTokens": -3, "when": 1 },
        "loopGuard": { "maxAttempts": 0 },
        "providers": { "smart": { "preset": "turbo" }, "truncation": { "preserveRecentCount": -1 }, "mine": { "anything": true } },
    }));
    let paths: Vec<&str> = problems.iter().map(|p| p.path.as_str()).collect();
    assert_eq!(
        paths,
        vec![
            "config.bogus",
            "config.threshold",
            "config.triggers.stopPercent",
            "config.triggers.minGainTokens",
            "config.triggers.when",
            "config.loopGuard.maxAttempts",
            "config.providers.smart.preset",
            "config.providers.truncation.preserveRecentCount",
        ]
    );
    assert!(read_config(&json!({ "threshold": 2 })).is_err());
}

#[test]
fn the_loop_guard_cools_down_after_three_attempts_without_progress() {
    let c = ManagerConfig::default();
    let mut s = GuardState::default();
    for _ in 0..2 {
        s = guard_record(&c, &s, false, 1_000);
        assert!(guard_allows(&s, 1_000).is_ok());
    }
    s = guard_record(&c, &s, false, 1_000);
    assert_eq!(s.cool_down_until, 61_000);
    assert_eq!(
        guard_allows(&s, 2_000).unwrap_err(),
        "condensing is cooling down for 59 s after attempts that made no progress"
    );
    assert!(guard_allows(&s, 61_000).is_ok());
    assert_eq!(guard_record(&c, &s, true, 70_000), GuardState::default());
}

#[test]
fn a_guard_state_back_from_javascript_reads_its_epoch_as_a_whole_number() {
    // An epoch in milliseconds is past 2^31: JavaScript hands it back as a float.
    let s: GuardState = crate::config::parse_config(
        &json!({ "attemptsWithoutProgress": 0, "coolDownUntil": 1_795_627_388_485.0 }),
        "state",
    )
    .unwrap_or_default();
    assert_eq!(s.cool_down_until, 1_795_627_388_485);
    // A fraction is still refused, and so is a number past what a double holds exactly.
    for bad in [json!({ "coolDownUntil": 1.5 }), json!({ "coolDownUntil": 1e300 })] {
        let e = crate::config::parse_config::<GuardState>(&bad, "state").map(|_| ()).unwrap_err();
        assert!(e.to_string().contains("state.coolDownUntil: invalid type: floating point"), "{e}");
    }
}
