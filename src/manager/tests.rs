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
        s = c.loop_guard.record(&s, false, 1_000);
        assert!(guard_allows(&s, 1_000).is_ok());
    }
    s = c.loop_guard.record(&s, false, 1_000);
    assert_eq!(s.cool_down_until, 61_000);
    assert_eq!(
        guard_allows(&s, 2_000).unwrap_err(),
        "condensing is cooling down for 59 s after attempts that made no progress"
    );
    assert!(guard_allows(&s, 61_000).is_ok());
    assert_eq!(c.loop_guard.record(&s, true, 70_000), GuardState::default());
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

/// A course of `prev` tokens with a minimum gain, past the allowed size (by a token) or not.
fn course(prev: u64, min_gain: u64, overflow: bool) -> Course {
    let allowed_tokens = if overflow { prev as f64 - 1.0 } else { prev as f64 };
    Course { prev_context_tokens: prev, min_gain_tokens: min_gain, overflow, allowed_tokens }
}

/// A 1,000-token context past an allowed size of `allowed`.
fn past(allowed: f64) -> Course {
    Course { allowed_tokens: allowed, ..course(1000, 0, true) }
}

/// A run step told no allowed size (the config does not cut until a request fits).
fn run(provider: &str) -> Step {
    Step::Run { provider: provider.into(), allowed_tokens: None }
}

/// A run step told the allowed size (a result past it is cut).
fn run_within(provider: &str, allowed: f64) -> Step {
    Step::Run { provider: provider.into(), allowed_tokens: Some(allowed) }
}

fn failure(provider: &str, error: &str) -> AttemptRecord {
    AttemptRecord { provider: provider.into(), error: Some(error.into()), tokens_saved: None, skipped: None }
}

#[test]
fn the_chain_is_the_provider_then_native_when_a_callback_exists_and_the_config_falls_back() {
    let smart = config(json!({ "provider": "smart" }));
    let mut g = Guards::default();
    // With a callback: Smart, then Native; both failing, the call gives up with both errors.
    let mut a = Attempt::new(&smart, course(1000, 0, false), "t", true);
    assert_eq!(a.start(&mut g, 0), Ok(run("smart")));
    assert_eq!(a.failed(&mut g, "no gain", 0), Ok(run("native")));
    let end = a.failed(&mut g, "model down", 0);
    let error = "smart: no gain; native: model down";
    assert_eq!(end, Ok(Step::GiveUp { error: error.into(), report: format!("Context not condensed: {error}") }));
    assert_eq!(a.attempts(), [failure("smart", "no gain"), failure("native", "model down")]);
    // Without a callback, or without fallback: Smart alone.
    for (c, has_summarize, task) in
        [(smart.clone(), false, "u"), (config(json!({ "provider": "smart", "fallback": false })), true, "v")]
    {
        let mut a = Attempt::new(&c, course(1000, 0, false), task, has_summarize);
        assert_eq!(a.start(&mut g, 0), Ok(run("smart")));
        assert!(matches!(a.failed(&mut g, "no gain", 0), Ok(Step::GiveUp { .. })));
        assert_eq!(a.attempts(), [failure("smart", "no gain")]);
    }
    // Native first, without a callback: it fails at once, nothing runs.
    let mut a = Attempt::new(&config(json!({ "provider": "native" })), course(1000, 0, false), "w", false);
    let error = "native: No summarize callback: the native provider needs one";
    assert_eq!(
        a.start(&mut g, 0),
        Ok(Step::GiveUp { error: error.into(), report: format!("Context not condensed: {error}") })
    );
    // Native first with a callback is not tried twice.
    let mut a = Attempt::new(&config(json!({ "provider": "native" })), course(1000, 0, false), "x", true);
    assert_eq!(a.start(&mut g, 0), Ok(run("native")));
    assert!(matches!(a.failed(&mut g, "x", 0), Ok(Step::GiveUp { .. })));
}

#[test]
fn a_gain_under_the_minimum_changes_nothing_unless_the_context_is_past_its_allowed_size() {
    let c = config(json!({ "provider": "lossless" }));
    let mut g = Guards::default();
    let mut a = Attempt::new(&c, course(1000, 500, false), "t", true);
    assert_eq!(a.start(&mut g, 0), Ok(run("lossless")));
    assert_eq!(
        a.produced(&mut g, 900, 0),
        Ok(Step::MinGain { report: "Context not condensed: lossless would save only 100 tokens (minimum 500)".into() })
    );
    assert_eq!(
        a.attempts(),
        [AttemptRecord {
            provider: "lossless".into(),
            error: None,
            tokens_saved: Some(100),
            skipped: Some("saved 100 tokens, under the minimum gain of 500".into()),
        }]
    );
    // The guard counted a failure, and the call is over.
    assert_eq!(g.state("t").attempts_without_progress, 1);
    assert_eq!(a.produced(&mut g, 800, 0), Err(AttemptError::NotRunning("over")));
    // The same gain past the allowed size is taken, and the guard resets.
    let mut a = Attempt::new(&c, course(1000, 500, true), "t", true);
    // Past the allowed size, the provider is told it (a result past it would be cut).
    assert_eq!(a.start(&mut g, 0), Ok(run_within("lossless", 999.0)));
    assert_eq!(
        a.produced(&mut g, 900, 0),
        Ok(Step::Adopt {
            provider: "lossless".into(),
            new_context_tokens: 900,
            report: "Context condensed by lossless: 1000 -> 900 tokens (-100)".into(),
        })
    );
    assert_eq!(g.state("t"), GuardState::default());
    assert!(g.contains("t"));
    // Exactly the minimum is enough.
    let mut a = Attempt::new(&c, course(1000, 500, false), "t", true);
    let _ = a.start(&mut g, 0);
    assert!(matches!(a.produced(&mut g, 500, 0), Ok(Step::Adopt { .. })));
}

#[test]
fn a_result_that_does_not_shrink_the_context_fails_its_attempt() {
    let c = config(json!({ "provider": "smart" }));
    let mut g = Guards::default();
    let mut a = Attempt::new(&c, course(1000, 0, false), "t", true);
    let _ = a.start(&mut g, 0);
    assert_eq!(a.produced(&mut g, 1000, 0), Ok(run("native")));
    assert_eq!(
        a.attempts(),
        [failure("smart", "Context size increased during condensing (1000 -> 1000 tokens); skipping this attempt")]
    );
    assert!(matches!(a.produced(&mut g, 999, 0), Ok(Step::Adopt { new_context_tokens: 999, .. })));
}

#[test]
fn the_loop_guard_cools_a_task_down_on_its_own() {
    let c = config(json!({ "provider": "lossless", "loopGuard": { "maxAttempts": 2, "coolDownMs": 10_000 } }));
    let mut g = Guards::default();
    // Without a callback, the chain is Lossless alone.
    let fail = |g: &mut Guards, task: &str, now: u64| {
        let mut a = Attempt::new(&c, course(1000, 0, false), task, false);
        assert_eq!(a.start(g, now), Ok(run("lossless")));
        a.failed(g, "no", now)
    };
    let _ = fail(&mut g, "a", 1_000);
    let _ = fail(&mut g, "a", 1_000);
    assert_eq!(g.state("a").cool_down_until, 11_000);
    // Task "a" tries nothing until then; task "b" is not held back.
    let mut a = Attempt::new(&c, course(1000, 0, false), "a", true);
    let why = "condensing is cooling down for 9 s after attempts that made no progress";
    assert_eq!(
        a.start(&mut g, 2_000),
        Ok(Step::GiveUp { error: why.into(), report: format!("Context not condensed: {why}") })
    );
    assert_eq!(
        a.attempts(),
        [AttemptRecord { provider: "lossless".into(), error: None, tokens_saved: None, skipped: Some(why.into()) }]
    );
    // A cooling call records nothing: the cool-down does not restart.
    assert_eq!(g.state("a").cool_down_until, 11_000);
    let mut b = Attempt::new(&c, course(1000, 0, false), "b", true);
    assert_eq!(b.start(&mut g, 2_000), Ok(run("lossless")));
    // After the cool-down, "a" runs again.
    let mut a = Attempt::new(&c, course(1000, 0, false), "a", true);
    assert_eq!(a.start(&mut g, 11_000), Ok(run("lossless")));
    // Forgetting a task forgets its cool-down.
    let _ = fail(&mut g, "a", 12_000);
    let _ = fail(&mut g, "a", 12_000);
    assert!(g.allows("a", 13_000).is_err());
    assert!(g.forget(Some("a")));
    assert!(g.allows("a", 13_000).is_ok());
    let _ = fail(&mut g, "b", 13_000);
    assert_eq!(g.state("b").attempts_without_progress, 1, "each task counts its own failures");
    assert!(g.forget(None));
    assert!(g.is_empty());
}

#[test]
fn the_sliding_window_is_the_last_resort_past_the_allowed_size_when_the_config_falls_back() {
    let c = config(json!({ "provider": "lossless" }));
    let mut g = Guards::default();
    let mut a = Attempt::new(&c, course(1000, 0, true), "t", false);
    let _ = a.start(&mut g, 0);
    assert_eq!(
        a.failed(&mut g, "no gain", 0),
        Ok(Step::Window {
            frac_to_remove: WINDOW_FRACTION,
            error: "lossless: no gain".into(),
            after_result: false,
            keep_last: None
        })
    );
    // The context shrinks by what the cut removed, counted the same way before and after.
    assert_eq!(
        a.windowed(1200, 500),
        Ok(Step::Truncated {
            provider: "sliding-window".into(),
            new_context_tokens: 300,
            error: "lossless: no gain".into(),
            report: "Context truncated by the sliding window: 1000 -> 300 tokens, after: lossless: no gain".into(),
        })
    );
    assert_eq!(a.attempts()[1].tokens_saved, Some(700));
    assert_eq!(a.windowed(1200, 500), Err(AttemptError::NoWindow("over")));
    // Not past the allowed size, or no fallback: the call gives up.
    for (c, overflow) in [(c.clone(), false), (config(json!({ "provider": "lossless", "fallback": false })), true)] {
        let mut a = Attempt::new(&c, course(1000, 0, overflow), "t", false);
        let _ = a.start(&mut g, 0);
        assert!(matches!(a.failed(&mut g, "no gain", 0), Ok(Step::GiveUp { .. })));
        assert_eq!(a.windowed(1, 0), Err(AttemptError::NoWindow("over")));
    }
    // A task cooling down past the allowed size goes straight to the window, the cool-down its reason.
    let cooling = GuardState { attempts_without_progress: 0, cool_down_until: 5_000 };
    g.record(&LoopGuard { max_attempts: 1, cool_down_ms: 5_000 }, "hot", false, 0);
    assert_eq!(g.state("hot"), cooling);
    let mut a = Attempt::new(&c, course(1000, 0, true), "hot", true);
    let why = "condensing is cooling down for 5 s after attempts that made no progress";
    assert_eq!(
        a.start(&mut g, 0),
        Ok(Step::Window { frac_to_remove: WINDOW_FRACTION, error: why.into(), after_result: false, keep_last: None })
    );
}

#[test]
fn the_guards_keep_a_bounded_number_of_tasks_letting_go_of_empty_states_first() {
    let lg = LoopGuard { max_attempts: 1, cool_down_ms: 60_000 };
    let mut g = Guards::default();
    // A task cooling down, then many that made progress.
    g.record(&lg, "hot", false, 0);
    for i in 0..GUARDS_KEPT * 2 {
        g.record(&lg, &format!("ok-{i}"), true, 0);
        assert!(g.len() <= GUARDS_KEPT);
    }
    assert!(g.allows("hot", 1).is_err(), "a task cooling down outlives states that hold nothing");
    // Every state holding something: the least recently used goes.
    let mut g = Guards::default();
    for i in 0..GUARDS_KEPT + 1 {
        g.record(&lg, &format!("hot-{i}"), false, 0);
    }
    assert_eq!(g.len(), GUARDS_KEPT);
    assert!(!g.contains("hot-0"));
    assert!(g.contains(&format!("hot-{GUARDS_KEPT}")));
}

#[test]
fn outcomes_are_taken_only_while_a_provider_runs() {
    let c = config(json!({ "provider": "lossless" }));
    let mut g = Guards::default();
    let mut a = Attempt::new(&c, course(1000, 0, false), "t", false);
    assert_eq!(a.failed(&mut g, "x", 0), Err(AttemptError::NotRunning("start")));
    let _ = a.start(&mut g, 0);
    assert_eq!(a.start(&mut g, 0), Err(AttemptError::Started("running")));
    assert_eq!(a.windowed(1, 0), Err(AttemptError::NoWindow("running")));
}

#[test]
fn a_request_is_made_to_fit_a_result_still_past_the_allowed_size_is_cut_and_the_window_cuts_again() {
    let c = config(json!({ "provider": "smart" }));
    let mut g = Guards::default();
    let past = past(400.5);
    let mut a = Attempt::new(&c, past, "t", false);
    assert_eq!(a.start(&mut g, 0), Ok(run_within("smart", 400.5)));
    // Smart leaves 700: progress (the guard resets), but past 400.5; the window cuts its result.
    assert_eq!(
        a.produced(&mut g, 700, 0),
        Ok(Step::Window { frac_to_remove: WINDOW_FRACTION, error: String::new(), after_result: true, keep_last: None })
    );
    assert_eq!(g.state("t").attempts_without_progress, 0);
    // 700 -> 500: still past, and the cut removed something: another cut.
    assert_eq!(
        a.windowed(900, 700),
        Ok(Step::Window {
            frac_to_remove: WINDOW_FRACTION,
            error: String::new(),
            after_result: false,
            keep_last: None
        })
    );
    // 500 -> 401 is still past by half a token: one more; 401 -> 400 fits.
    assert!(matches!(a.windowed(700, 601), Ok(Step::Window { .. })));
    let last = a.windowed(601, 600);
    assert_eq!(
        last,
        Ok(Step::Truncated {
            provider: "sliding-window".into(),
            new_context_tokens: 400,
            error: String::new(),
            report: "Context condensed by smart: 1000 -> 700 tokens, then truncated by the sliding window to 400 (the allowed size is 400.5)".into(),
        })
    );
    // One record for the window, whatever the number of cuts.
    assert_eq!(
        a.attempts(),
        &[
            AttemptRecord { provider: "smart".into(), error: None, tokens_saved: Some(300), skipped: None },
            AttemptRecord { provider: "sliding-window".into(), error: None, tokens_saved: Some(300), skipped: None },
        ]
    );
}

#[test]
fn the_window_stops_when_a_cut_removes_nothing_and_says_the_request_is_still_past_the_allowed_size() {
    let c = config(json!({ "provider": "lossless" }));
    let mut g = Guards::default();
    let past = past(100.0);
    let mut a = Attempt::new(&c, past, "t", false);
    let _ = a.start(&mut g, 0);
    assert!(matches!(a.failed(&mut g, "no gain", 0), Ok(Step::Window { after_result: false, .. })));
    assert!(matches!(a.windowed(1000, 600), Ok(Step::Window { keep_last: None, .. })));
    // The half cut removes nothing: all between the first message and the last exchange goes, once.
    assert_eq!(
        a.windowed(600, 600),
        Ok(Step::Window {
            frac_to_remove: WINDOW_FRACTION,
            error: "lossless: no gain".into(),
            after_result: false,
            keep_last: Some(LAST_EXCHANGE)
        })
    );
    // It removed something, still past: a half cut (which removes nothing), then the end.
    assert!(matches!(a.windowed(600, 400), Ok(Step::Window { keep_last: None, .. })));
    let Ok(Step::Truncated { new_context_tokens, report, .. }) = a.windowed(400, 400) else { panic!("the last cut") };
    assert_eq!(new_context_tokens, 400);
    assert_eq!(
        report,
        "Context truncated by the sliding window: 1000 -> 400 tokens, after: lossless: no gain; still past the allowed size of 100: the window has nothing more to cut"
    );
    assert_eq!(a.attempts()[1].tokens_saved, Some(600), "one record for every cut");
}

#[test]
fn roo_codes_way_adopts_a_result_past_the_allowed_size_and_cuts_once() {
    let past = past(100.0);
    let mut g = Guards::default();
    for c in [
        config(json!({ "provider": "smart", "cutUntilFits": false })),
        config(json!({ "provider": "smart", "fallback": false })),
    ] {
        let mut a = Attempt::new(&c, past, "t", false);
        // Nothing cuts a result past the allowed size: the provider is not told it.
        assert_eq!(a.start(&mut g, 0), Ok(run("smart")));
        assert!(matches!(a.produced(&mut g, 700, 0), Ok(Step::Adopt { new_context_tokens: 700, .. })));
    }
    let c = config(json!({ "provider": "lossless", "cutUntilFits": false }));
    let mut a = Attempt::new(&c, past, "t", false);
    let _ = a.start(&mut g, 0);
    let _ = a.failed(&mut g, "no gain", 0);
    let Ok(Step::Truncated { new_context_tokens, report, .. }) = a.windowed(1000, 600) else { panic!("one cut") };
    assert_eq!(new_context_tokens, 600);
    assert!(!report.contains("still past"), "{report}");
}

#[test]
fn a_result_the_window_cannot_cut_is_still_the_providers() {
    let c = config(json!({ "provider": "smart" }));
    let past = past(100.0);
    let mut g = Guards::default();
    let mut a = Attempt::new(&c, past, "t", false);
    let _ = a.start(&mut g, 0);
    assert!(matches!(a.produced(&mut g, 700, 0), Ok(Step::Window { after_result: true, .. })));
    assert!(matches!(a.windowed(700, 700), Ok(Step::Window { keep_last: Some(LAST_EXCHANGE), .. })));
    let Ok(Step::Truncated { provider, new_context_tokens, report, .. }) = a.windowed(700, 700) else {
        panic!("the end")
    };
    assert_eq!((provider.as_str(), new_context_tokens), ("smart", 700));
    assert_eq!(
        report,
        "Context condensed by smart: 1000 -> 700 tokens; still past the allowed size of 100: the window has nothing more to cut"
    );
}
