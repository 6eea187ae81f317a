//! Metrics of a condensation and the human-readable report. Counts come from the engine's
//! acts (`provenance`); reads numbers only, never a message.

use serde::Serialize;

use crate::provenance::{Act, Action};

/// How many changes of each action: per pass, and for the whole condensation (the sum of the
/// passes' by construction: both are counted from the same acts).
#[derive(Debug, Clone, Copy, Default, Serialize, PartialEq, Eq)]
#[serde(rename_all = "camelCase")]
pub struct Counts {
    pub deduplicated: usize,
    pub superseded: usize,
    pub omitted: usize,
    pub suppressed: usize,
    pub truncated: usize,
    pub summarized: usize,
}

impl Counts {
    /// The acts of pass `pass` (every pass when `None`), counted by action.
    pub fn of(acts: &[Act], pass: Option<usize>) -> Counts {
        let mut c = Counts::default();
        for a in acts.iter().filter(|a| pass.is_none_or(|p| a.pass == p)) {
            *c.get_mut(a.action) += 1;
        }
        c
    }

    pub fn get(&self, action: Action) -> usize {
        match action {
            Action::Deduplicated => self.deduplicated,
            Action::Superseded => self.superseded,
            Action::Omitted => self.omitted,
            Action::Suppressed => self.suppressed,
            Action::Truncated => self.truncated,
            Action::Summarized => self.summarized,
        }
    }

    fn get_mut(&mut self, action: Action) -> &mut usize {
        match action {
            Action::Deduplicated => &mut self.deduplicated,
            Action::Superseded => &mut self.superseded,
            Action::Omitted => &mut self.omitted,
            Action::Suppressed => &mut self.suppressed,
            Action::Truncated => &mut self.truncated,
            Action::Summarized => &mut self.summarized,
        }
    }
}

/// Measures of one pass. Every provider lists its passes: Lossless its three operations,
/// Truncation and Native their one pass, Smart its prelude and configured passes.
#[derive(Debug, Clone, Default, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct PassMetrics {
    pub id: String,
    pub name: String,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub duration_ms: f64,
    pub callback_calls: usize,
    /// The pass's changes by action (content blocks; messages for a summary of a run of them).
    #[serde(flatten)]
    pub counts: Counts,
    /// Messages of the history this pass changed or replaced.
    pub messages_changed: usize,
    /// Saved by references `expandReferences` can restore.
    pub reversible_tokens_saved: i64,
    /// Saved by markers naming what supersedes the content.
    pub superseded_tokens_saved: i64,
    /// Summaries asked for that were truncated instead (no callback, failure, not shorter).
    pub summarize_fallbacks: usize,
    /// What this pass's summaries cost, in dollars.
    pub cost: f64,
    /// Why the pass did not run or was undone, if so.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub skipped: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub errors: Vec<String>,
    /// A lossless operation (its edits proposed and applied with its neighbours'): the text
    /// report names it without a number.
    #[serde(skip)]
    pub proposes: bool,
    /// Not a pass: what changed the context after the passes ended (see [`after_the_passes`]).
    /// The text report names it without a number.
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub after_passes: bool,
}

/// The id of the row [`after_the_passes`] makes.
pub const AFTER_PASSES_ID: &str = "afterPasses";

/// The row of what changed the context after the passes ended, when anything did: the references
/// kept honest once the passes are done (renumbered where what they point at moved, their bytes
/// put back or an Omitted note written where it was shortened or summarized). A deduplication
/// whose bytes came back has already given its saving back to its own pass; this row holds the
/// rest, so the rows' savings add up to the condensation's exactly. `end` is where the last pass
/// left the context, `after` the context handed back.
pub fn after_the_passes(end: u64, after: u64) -> Option<PassMetrics> {
    (end != after).then(|| PassMetrics {
        id: AFTER_PASSES_ID.into(),
        name: "After the passes (references renumbered, put back or omitted)".into(),
        tokens_before: end,
        tokens_after: after,
        after_passes: true,
        ..Default::default()
    })
}

/// Sets each pass's counts from the acts (the only place they are counted).
pub fn tally(passes: &mut [PassMetrics], acts: &[Act]) {
    for (i, p) in passes.iter_mut().enumerate() {
        p.counts = Counts::of(acts, Some(i));
        let mut messages: Vec<usize> = acts.iter().filter(|a| a.pass == i).map(|a| a.message).collect();
        messages.sort_unstable();
        messages.dedup();
        p.messages_changed = messages.len();
        let saved = |action| acts.iter().filter(|a| a.pass == i && a.action == action).map(|a| a.tokens_saved).sum();
        p.reversible_tokens_saved = saved(Action::Deduplicated);
        p.superseded_tokens_saved = saved(Action::Superseded);
    }
}

#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct Metrics {
    pub provider: &'static str,
    pub encoding: &'static str,
    pub tokens_before: u64,
    pub tokens_after: u64,
    pub tokens_saved: i64,
    pub reduction_percent: f64,
    pub reversible_tokens_saved: i64,
    pub superseded_tokens_saved: i64,
    pub messages_changed: usize,
    /// Messages replaced by a summary.
    pub messages_removed: usize,
    /// Edits undone because their string would not have got smaller.
    pub edits_rolled_back: usize,
    /// The passes run, in order.
    pub passes: Vec<PassMetrics>,
    /// Every change by action: the sum of the passes' counts.
    pub actions: Counts,
    /// Calls made to the summarize callback.
    pub callback_calls: usize,
    /// What the summaries cost, in dollars.
    pub cost: f64,
    pub duration_ms: f64,
}

fn thousands(n: i64) -> String {
    let digits = n.unsigned_abs().to_string();
    let mut out = String::new();
    for (i, c) in digits.chars().enumerate() {
        if i > 0 && (digits.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    if n < 0 {
        format!("-{out}")
    } else {
        out
    }
}

/// `one` for 1, else `many`.
fn plural(n: usize, one: &'static str, many: &'static str) -> &'static str {
    if n == 1 {
        one
    } else {
        many
    }
}

fn pct(before: u64, after: u64) -> String {
    if before == 0 {
        return "0%".into();
    }
    format!("{:.0}%", (after as f64 - before as f64) * 100.0 / before as f64)
}

/// "Context condensed using Smart strategy: ..." with one line per pass (`strategy`: the
/// provider's name; `numbered`: the passes are a configured pipeline, numbered when several).
pub fn render(m: &Metrics, strategy: &str, numbered: bool) -> String {
    let mut s = format!("Context condensed using {strategy} strategy:\n");
    let numbered = numbered && m.passes.iter().filter(|p| !p.after_passes).count() > 1;
    let mut n = 0;
    for p in &m.passes {
        let label = if p.proposes || p.after_passes || !numbered {
            p.name.clone()
        } else {
            n += 1;
            format!("Pass {n} ({})", p.name)
        };
        match &p.skipped {
            Some(why) => s.push_str(&format!(" - {label}: skipped, {why}\n")),
            None => {
                let mut what: Vec<String> = Action::ALL
                    .iter()
                    .filter(|a| p.counts.get(**a) > 0)
                    .map(|a| format!("{} {}", p.counts.get(*a), a.word()))
                    .collect();
                if p.summarize_fallbacks > 0 {
                    let why = p.errors.first().map(String::as_str).unwrap_or("summary not shorter");
                    let n = p.summarize_fallbacks;
                    what.push(format!("{n} {} fell back to truncation ({why})", plural(n, "summary", "summaries")));
                }
                let detail = if what.is_empty() { String::new() } else { format!(" [{}]", what.join(", ")) };
                s.push_str(&format!(
                    " - {label}: {} → {} tokens ({}){detail}\n",
                    thousands(p.tokens_before as i64),
                    thousands(p.tokens_after as i64),
                    pct(p.tokens_before, p.tokens_after)
                ));
            }
        }
    }
    let split = if m.reversible_tokens_saved > 0 || m.superseded_tokens_saved > 0 {
        format!(
            "; {} reversible, {} superseded",
            thousands(m.reversible_tokens_saved),
            thousands(m.superseded_tokens_saved)
        )
    } else {
        String::new()
    };
    let cost = if m.callback_calls > 0 {
        let n = m.callback_calls;
        format!(", {n} summarize {}, cost ${:.4}", plural(n, "call", "calls"), m.cost)
    } else {
        String::new()
    };
    s.push_str(&format!(
        " - Total reduction: {:.1}% ({} → {} tokens{split}){cost}\n",
        m.reduction_percent,
        thousands(m.tokens_before as i64),
        thousands(m.tokens_after as i64),
    ));
    s.push_str(&format!(" - Time: {:.1} ms", m.duration_ms));
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    fn metrics(passes: Vec<PassMetrics>, callback_calls: usize) -> Metrics {
        Metrics {
            provider: "test",
            encoding: "test",
            tokens_before: 1000,
            tokens_after: 400,
            tokens_saved: 600,
            reduction_percent: 60.0,
            reversible_tokens_saved: 0,
            superseded_tokens_saved: 0,
            messages_changed: 1,
            messages_removed: 0,
            edits_rolled_back: 0,
            passes,
            actions: Counts::default(),
            callback_calls,
            cost: 0.0,
            duration_ms: 1.0,
        }
    }

    #[test]
    fn one_summary_and_one_call_are_said_in_the_singular() {
        let pass = |fallbacks| PassMetrics {
            id: "p".into(),
            name: "Summarize".into(),
            tokens_before: 1000,
            tokens_after: 500,
            summarize_fallbacks: fallbacks,
            ..Default::default()
        };
        let one = render(&metrics(vec![pass(1), after_the_passes(500, 400).expect("a row")], 1), "Test", true);
        assert!(one.contains("[1 summary fell back to truncation (summary not shorter)]"), "{one}");
        assert!(one.contains(", 1 summarize call, cost $"), "{one}");
        let two = render(&metrics(vec![pass(2), after_the_passes(500, 400).expect("a row")], 2), "Test", true);
        assert!(two.contains("[2 summaries fell back to truncation (summary not shorter)]"), "{two}");
        assert!(two.contains(", 2 summarize calls, cost $"), "{two}");
        // The row after the passes is named, not numbered, and no row is made when nothing changed.
        assert!(two.contains(" - Summarize: 1,000 → 500 tokens"), "{two}");
        assert!(
            two.contains(" - After the passes (references renumbered, put back or omitted): 500 → 400 tokens (-20%)\n"),
            "{two}"
        );
        assert_eq!(after_the_passes(400, 400), None);
    }

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(-1000), "-1,000");
        assert_eq!(thousands(999), "999");
    }
}
