//! The one entry every binding calls: reads the options, checks the history can be read, runs
//! the provider, and measures. Returns the changes to apply (new strings by place), never a
//! mutated history: the caller's messages are only read.

use std::sync::atomic::AtomicBool;
use std::time::Instant;

use crate::json::Value;
use serde::Deserialize;

use crate::config::parse_config;
use crate::draft::{origins, Changes, Draft};
use crate::error::{CondenseError, Refusal};
use crate::llm::Summarizer;
use crate::parse::held::ViewCache;
use crate::parse::View;
use crate::passes::runner;
use crate::passes::{Pass, PassCx, Stop};
use crate::provenance::{Act, Origin};
use crate::report::{render, tally, Counts, Metrics};
use crate::tokens::Encoding;
use crate::tokens::{count_messages_within, Cancel};
use crate::validate::first_structural_problem;

/// Options of `condense`, as they arrive from JavaScript (callbacks and signals stay there). A key
/// left out takes its default; a key given as null is refused (`present`): none of them has a
/// meaning for null, and taking it as absent would hide a caller's mistake.
#[derive(Debug, Clone, Deserialize)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
struct RawOptions {
    provider: String,
    #[serde(default, deserialize_with = "present")]
    config: Option<serde_json::Value>,
    #[serde(default, deserialize_with = "present")]
    prev_context_tokens: Option<f64>,
    #[serde(default, deserialize_with = "present")]
    encoding: Option<String>,
    #[serde(default, deserialize_with = "present")]
    allowed_tokens: Option<f64>,
    #[serde(default)]
    provenance: bool,
}

/// An optional key that, when given, must hold a value of its type: null is refused, not read as
/// the key left out.
fn present<'de, D, T>(deserializer: D) -> Result<Option<T>, D::Error>
where
    D: serde::Deserializer<'de>,
    T: serde::de::DeserializeOwned,
{
    use serde::de::Error;
    let value = serde_json::Value::deserialize(deserializer)?;
    if value.is_null() {
        return Err(D::Error::custom("null is not a value for this option: leave the key out for its default"));
    }
    T::deserialize(value).map(Some).map_err(D::Error::custom)
}

/// The JSON Schema of a provider's `config`, for settings UIs (the registry's, `crate::catalogue`).
pub fn config_schema(provider: &str) -> Result<serde_json::Value, CondenseError> {
    let info = crate::catalogue::known_provider(provider)?;
    Ok(serde_json::to_value((info.schema)()).unwrap_or(serde_json::Value::Null))
}

/// Options once checked.
#[derive(Debug, Clone, PartialEq)]
pub struct Options {
    pub provider: Configured,
    pub prev_context_tokens: Option<u64>,
    pub encoding: Encoding,
    /// The size past which the host's sliding window cuts the request, counted as
    /// `prev_context_tokens` is (Native asks no summary that cut would remove).
    pub allowed_tokens: Option<u64>,
    /// Hand back every act and where each result message came from (`Outcome::provenance`).
    pub provenance: bool,
}

pub use crate::providers::Configured;

pub fn parse_encoding(name: Option<&str>, at: &str) -> Result<Encoding, CondenseError> {
    match name {
        None => Ok(Encoding::default()),
        Some(n) => Encoding::parse(n).ok_or_else(|| {
            CondenseError::InvalidOptions(format!(
                "{at}: unknown encoding \"{n}\", expected {}",
                crate::catalogue::encoding_list()
            ))
        }),
    }
}

/// A number JavaScript passed as a token count: a whole number >= 0 that a double holds exactly
/// (`None` stays `None`), else an error naming `at`.
pub fn token_count(n: Option<f64>, at: &str) -> Result<Option<u64>, CondenseError> {
    match n {
        None => Ok(None),
        Some(n) if n.is_finite() && n >= 0.0 && n.fract() == 0.0 && n <= 9_007_199_254_740_991.0 => Ok(Some(n as u64)),
        Some(n) => Err(CondenseError::InvalidOptions(format!("{at}: expected a whole number >= 0, got {n}"))),
    }
}

impl Options {
    pub fn from_value(value: &serde_json::Value) -> Result<Options, CondenseError> {
        if !value.is_object() {
            return Err(CondenseError::InvalidOptions("options: expected an object with at least { provider }".into()));
        }
        let raw: RawOptions = parse_config(value, "options")?;
        let prev_context_tokens = token_count(raw.prev_context_tokens, "options.prevContextTokens")?;
        let allowed_tokens = token_count(raw.allowed_tokens, "options.allowedTokens")?;
        let encoding = parse_encoding(raw.encoding.as_deref(), "options.encoding")?;
        let config = raw.config.unwrap_or(serde_json::Value::Object(Default::default()));
        if !config.is_object() {
            return Err(CondenseError::InvalidOptions("options.config: expected an object".into()));
        }
        let provider = (crate::catalogue::known_provider(&raw.provider)?.config)(&config)?;
        Ok(Options { provider, prev_context_tokens, encoding, allowed_tokens, provenance: raw.provenance })
    }
}

/// What a condensation produced.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// What changed; everything else is the input as it is.
    pub changes: Changes,
    pub prev_context_tokens: u64,
    pub new_context_tokens: u64,
    /// The summary a provider wrote ("" when none).
    pub summary: String,
    /// What the LLM calls cost.
    pub cost: f64,
    /// A problem with the data or a provider's refusal: nothing was changed.
    pub error: Option<String>,
    /// The stable code of `error` (`Refusal::code`).
    pub error_code: Option<&'static str>,
    pub metrics: Metrics,
    pub report: String,
    /// Every act and each result message's origin, when the options ask for them.
    pub provenance: Option<Provenance>,
}

/// What each pass did and where each message of the result came from.
#[derive(Debug, Clone, PartialEq, serde::Serialize)]
pub struct Provenance {
    pub acts: Vec<Act>,
    pub origins: Vec<Origin>,
}

/// What a caller that holds the history between calls already knows of it.
#[derive(Default)]
pub struct Known<'a> {
    /// The tokens of the whole history (when the options do not give them).
    pub tokens: Option<u64>,
    /// The history's semantic view, kept message by message.
    pub views: Option<&'a mut ViewCache>,
}

/// Condenses `messages`; `summarizer` answers the providers that summarize.
pub fn condense(
    messages: &[Value],
    options: &Options,
    abort: &AtomicBool,
    summarizer: Option<&mut dyn Summarizer>,
) -> Result<Outcome, CondenseError> {
    condense_known(messages, options, abort, summarizer, Known::default())
}

/// [`condense`] with what the caller already knows of the history: the outcome is the same,
/// only the work to reach it is less.
pub fn condense_known(
    messages: &[Value],
    options: &Options,
    abort: &AtomicBool,
    summarizer: Option<&mut dyn Summarizer>,
    known: Known,
) -> Result<Outcome, CondenseError> {
    let started = Instant::now();
    let provider = options.provider.id();
    let encoding = options.encoding;
    // Counting the whole history is the engine's longest single task on a big block: it stops
    // on the abort flag like the providers do.
    let tokens_before = || match options.prev_context_tokens.or(known.tokens) {
        Some(n) => Ok(n),
        None => count_messages_within(messages, encoding, Cancel::new(abort)).map(|n| n as u64),
    };
    let mut views = known.views;
    let problem = match views.as_deref_mut() {
        Some(cache) => cache.first_structural_problem(messages),
        None => first_structural_problem(messages),
    };
    let mut view = || match views.as_deref_mut() {
        Some(cache) => cache.view(messages),
        None => View::build(messages),
    };
    if let Some(problem) = problem {
        let tokens = options.prev_context_tokens.unwrap_or(0);
        return Ok(refusal(provider, encoding, tokens, started, Refusal::InvalidHistory(problem.to_string())));
    }

    let before = tokens_before()?;
    let list: Vec<Box<dyn Pass + '_>> = options.provider.passes();
    // Only the passes that read the semantic view pay for it.
    let view = if list.iter().any(|p| p.needs_view()) { view() } else { View::default() };
    let calls_possible = summarizer.is_some();
    let mut cx = PassCx {
        view: &view,
        encoding,
        abort,
        summarizer,
        tokens_before: before,
        tokens_now: before,
        allowed_tokens: options.allowed_tokens,
        working_set: None,
    };
    let mut draft = Draft::new(messages);
    let policy = options.provider.policy(before);
    let ran = match runner::run(&list, &mut cx, &mut draft, &policy) {
        Ok(ran) => ran,
        Err(Stop::Error(e)) => return Err(e),
        Err(Stop::Refused(e)) => {
            let called = calls_possible && e.called_summarizer();
            let mut o = refusal(provider, encoding, before, started, e);
            o.metrics.callback_calls = usize::from(called);
            return Ok(o);
        }
    };
    drop(list);
    let mut passes = ran.passes;
    let summary = ran.summaries.join("\n\n");
    let (cost, callback_calls, rolled_back) = (ran.cost, ran.callback_calls, ran.edits_rolled_back);
    let ran_measured_end = ran.measured_end;
    // A provider whose passes only propose edits measures its saving exactly as they are applied
    // (`Provider::ONLY_PROPOSES`); the others are measured on the draft.
    let only_proposes = options.provider.only_proposes();
    let known_saving = if only_proposes { ran.exact_saving } else { None };
    if abort.load(std::sync::atomic::Ordering::Relaxed) {
        return Err(CondenseError::Aborted);
    }
    if !only_proposes {
        // A deduplication undone gives its saving back to its pass and the passes after it.
        for act in crate::reference::fixup_references(&mut draft, view.referring.as_deref()) {
            let back = act.tokens_saved.max(0) as u64;
            for (k, p) in passes.iter_mut().enumerate().skip(act.pass) {
                if k > act.pass {
                    p.tokens_before += back;
                }
                p.tokens_after += back;
            }
        }
    }
    // A condensing never hands back a larger context than it was given: when what the
    // references' bytes cost back (above) outweighs what the run saved, it is refused and the
    // history left as it was.
    let saved = known_saving.unwrap_or_else(|| draft.saved_tokens(encoding));
    if saved < 0 {
        let mut o = refusal(provider, encoding, before, started, Refusal::ContextGrew);
        o.cost = cost;
        o.metrics.cost = cost;
        o.metrics.callback_calls = callback_calls;
        return Ok(o);
    }
    let saved = saved as u64;
    let tokens_after = before.saturating_sub(saved);
    // The passes' rows chain from the context given to the one handed back: what changed it after
    // the passes has its own row; a last pass left unmeasured (measuring it would count the draft
    // twice) is measured here, by the result.
    match passes.last_mut() {
        Some(last) if !ran_measured_end => last.tokens_after = tokens_after,
        _ => {
            let end = passes.last().map_or(before, |p| p.tokens_after);
            passes.extend(crate::report::after_the_passes(end, tokens_after));
        }
    }
    let provenance = options.provenance.then(|| Provenance {
        origins: origins(&draft.layout, messages.len(), |i| draft.is_message_changed(i)),
        acts: draft.acts.clone(),
    });
    let changes = draft.changes();
    let mut changed: Vec<usize> =
        changes.texts.iter().map(|(at, _)| at.msg).chain(changes.inputs.iter().map(|((m, _), _)| *m)).collect();
    changed.sort_unstable();
    changed.dedup();
    tally(&mut passes, &draft.acts);
    let metrics = Metrics {
        provider,
        encoding: encoding.name(),
        tokens_before: before,
        tokens_after,
        tokens_saved: saved as i64,
        reduction_percent: percent(saved, before),
        reversible_tokens_saved: passes.iter().map(|p| p.reversible_tokens_saved).sum(),
        superseded_tokens_saved: passes.iter().map(|p| p.superseded_tokens_saved).sum(),
        messages_changed: changed.len(),
        messages_removed: messages.len() - draft.kept().len(),
        edits_rolled_back: rolled_back,
        actions: Counts::of(&draft.acts, None),
        passes,
        callback_calls,
        cost,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    Ok(Outcome {
        changes,
        prev_context_tokens: before,
        new_context_tokens: tokens_after,
        summary,
        cost,
        error: None,
        error_code: None,
        report: render(&metrics, options.provider.name(), options.provider.numbers_passes()),
        metrics,
        provenance,
    })
}

fn percent(part: u64, whole: u64) -> f64 {
    if whole == 0 {
        0.0
    } else {
        (part as f64 * 1000.0 / whole as f64).round() / 10.0
    }
}

/// The outcome for a history the engine could not take in (a value it cannot represent, found
/// at the boundary): nothing changed, and the error says where.
pub fn refuse(options: &Options, error: String) -> Outcome {
    let tokens = options.prev_context_tokens.unwrap_or(0);
    refusal(options.provider.id(), options.encoding, tokens, Instant::now(), Refusal::InvalidHistory(error))
}

/// An outcome that changes nothing and says why.
fn refusal(provider: &'static str, encoding: Encoding, tokens: u64, started: Instant, error: Refusal) -> Outcome {
    let metrics = Metrics {
        provider,
        encoding: encoding.name(),
        tokens_before: tokens,
        tokens_after: tokens,
        tokens_saved: 0,
        reduction_percent: 0.0,
        reversible_tokens_saved: 0,
        superseded_tokens_saved: 0,
        messages_changed: 0,
        messages_removed: 0,
        edits_rolled_back: 0,
        passes: vec![],
        actions: Counts::default(),
        callback_calls: 0,
        cost: 0.0,
        duration_ms: started.elapsed().as_secs_f64() * 1000.0,
    };
    Outcome {
        changes: Changes::default(),
        prev_context_tokens: tokens,
        new_context_tokens: tokens,
        summary: String::new(),
        cost: 0.0,
        report: format!("Context not condensed: {error}"),
        error_code: Some(error.code()),
        error: Some(error.to_string()),
        metrics,
        provenance: None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn refusal(v: serde_json::Value) -> String {
        match Options::from_value(&v) {
            Err(e) => e.to_string(),
            Ok(o) => panic!("taken: {o:?}"),
        }
    }

    #[test]
    fn an_option_given_as_null_is_refused_by_its_name_and_one_left_out_takes_its_default() {
        for key in ["prevContextTokens", "encoding", "config"] {
            let text = refusal(serde_json::json!({ "provider": "lossless", key: null }));
            assert!(text.starts_with(&format!("invalid options: options.{key}: null is not a value")), "{text}");
        }
        let o = Options::from_value(&serde_json::json!({ "provider": "lossless" })).expect("the defaults");
        assert_eq!((o.prev_context_tokens, o.encoding), (None, Encoding::default()));
        // Given, each is read as before.
        let o = Options::from_value(&serde_json::json!({ "provider": "lossless", "prevContextTokens": 7, "encoding": "cl100k_base", "config": {} }))
            .expect("given");
        assert_eq!(o.prev_context_tokens, Some(7));
        assert_eq!(o.encoding, Encoding::parse("cl100k_base").expect("an encoding"));
    }

    #[test]
    fn a_smart_config_naming_neither_a_preset_nor_passes_runs_the_default_preset() {
        use crate::providers::smart::presets;
        let read = |v: serde_json::Value| Options::from_value(&v).map(|o| o.provider);
        let named = |extra: serde_json::Value| {
            let mut config = serde_json::json!({ "preset": presets::DEFAULT });
            if let (Some(c), serde_json::Value::Object(e)) = (config.as_object_mut(), extra) {
                c.extend(e);
            }
            read(serde_json::json!({ "provider": "smart", "config": config })).expect("the default preset, named")
        };
        // No config, an empty one, one with only other keys (which replace the preset's), and a
        // preset given as null: each is the default preset.
        assert_eq!(read(serde_json::json!({ "provider": "smart" })).expect("no config"), named(serde_json::json!({})));
        assert_eq!(
            read(serde_json::json!({ "provider": "smart", "config": {} })).expect("{}"),
            named(serde_json::json!({}))
        );
        assert_eq!(
            read(serde_json::json!({ "provider": "smart", "config": { "preset": null } })).expect("null"),
            named(serde_json::json!({}))
        );
        for extra in [
            serde_json::json!({ "targetTokens": 1000 }),
            serde_json::json!({ "preserveErrors": false, "workingSet": null }),
            serde_json::json!({ "losslessPrelude": { "enabled": false } }),
        ] {
            let given = serde_json::json!({ "provider": "smart", "config": extra.clone() });
            assert_eq!(read(given).expect("keys beside no preset"), named(extra));
        }
        // Passes without a preset run those passes alone, as before.
        let passes = serde_json::json!({ "passes": [] });
        let provider = read(serde_json::json!({ "provider": "smart", "config": passes })).expect("passes");
        let Some(c) = provider.config::<crate::providers::smart::Smart>() else { panic!("passes") };
        assert_eq!((c.preset.as_deref(), c.passes.as_deref().map(<[_]>::len)), (None, Some(0)));
        // The manager's check reads a provider's config the same way: an empty Smart config is not
        // a problem there either.
        assert_eq!(crate::manager::validate_config(&serde_json::json!({ "providers": { "smart": {} } })), vec![]);
    }
}
