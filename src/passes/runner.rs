//! The one runner of passes: runs a provider's ordered list over a draft, numbering the passes
//! for their acts, timing and measuring each, skipping a pass that says so, undoing a pass that
//! would grow the context (when the policy asks), and stopping once the policy's target is met.
//! Consecutive proposing passes share one edit set, applied once after the last of them; they
//! read the caller's messages, so they come before any pass that changes the draft. Never
//! decides what a pass does.

use std::time::Instant;

use super::{Pass, PassCx, Ran, Stop};
use crate::draft::Draft;
use crate::edit::{apply, EditSet};
use crate::error::CondenseError;
use crate::report::PassMetrics;
use crate::tokens::Cancel;

/// How a provider runs its passes.
#[derive(Default)]
pub struct Policy<'p> {
    /// Undo a pass that leaves the context larger than it found it.
    pub undo_growth: bool,
    /// Stop after a pass once this says the context (in tokens) is small enough.
    pub reached: Option<Box<dyn Fn(u64) -> bool + 'p>>,
    /// Measure the context after the last pass too (else the caller measures the result).
    pub measure_last: bool,
}

/// What the passes did.
#[derive(Debug, Default)]
pub struct Outcome {
    pub passes: Vec<PassMetrics>,
    /// The summaries written, in order.
    pub summaries: Vec<String>,
    pub cost: f64,
    pub callback_calls: usize,
    /// Edits undone because their string would not have got smaller.
    pub edits_rolled_back: usize,
    /// The exact saving, when only proposing passes ran (their edits were measured as applied).
    pub exact_saving: Option<i64>,
    /// The last pass's `tokens_after` is the draft as measured when the passes ended (false when
    /// the last pass that ran was not measured: its caller measures the result instead).
    pub measured_end: bool,
}

/// Runs `passes` in order over `draft`.
pub fn run(
    passes: &[Box<dyn Pass + '_>],
    cx: &mut PassCx,
    draft: &mut Draft,
    policy: &Policy,
) -> Result<Outcome, Stop> {
    let mut out = Outcome { exact_saving: Some(0), measured_end: true, ..Default::default() };
    let before = cx.tokens_before;
    let encoding = cx.encoding;
    let now = |d: &Draft| before.saturating_sub(d.saved_tokens(encoding).max(0) as u64);
    let mut current = before;
    let mut i = 0;
    while i < passes.len() {
        cx.check()?;
        if passes[i].proposes() {
            let end = i + passes[i..].iter().take_while(|p| p.proposes()).count();
            current = proposals(&passes[i..end], i, cx, draft, current, &mut out)?;
            i = end;
        } else {
            let pass = &passes[i];
            let t = Instant::now();
            let start = current;
            let mut m = PassMetrics {
                id: pass.id(),
                name: pass.name(),
                tokens_before: start,
                tokens_after: start,
                ..Default::default()
            };
            out.exact_saving = None;
            if let Some(why) = pass.skip(start) {
                m.skipped = Some(why);
                m.duration_ms = ms(t);
                out.passes.push(m);
                i += 1;
                continue;
            }
            draft.pass = i;
            cx.tokens_now = start;
            let snapshot = policy.undo_growth.then(|| draft.clone());
            let ran = pass.run(cx, draft)?;
            let measure = policy.measure_last || i + 1 < passes.len() || policy.reached.is_some();
            let after = if measure { now(draft) } else { start };
            record(&mut m, ran, &mut out);
            match snapshot {
                Some(s) if after > start => {
                    *draft = s;
                    m.skipped = Some("undone: it would have grown the context".into());
                    m.tokens_after = start;
                }
                _ => {
                    m.tokens_after = after;
                    out.measured_end = measure;
                }
            }
            current = m.tokens_after;
            m.duration_ms = ms(t);
            out.passes.push(m);
            i += 1;
        }
        if policy.reached.as_ref().is_some_and(|r| r(current)) {
            break;
        }
    }
    Ok(out)
}

/// Runs consecutive proposing passes (numbered from `first`) into one edit set and applies it.
fn proposals(
    passes: &[Box<dyn Pass + '_>],
    first: usize,
    cx: &mut PassCx,
    draft: &mut Draft,
    current: u64,
    out: &mut Outcome,
) -> Result<u64, Stop> {
    if !draft.acts.is_empty() || draft.changed_texts().next().is_some() {
        return Err(CondenseError::Internal("a proposing pass ran after a pass that changed the draft".into()).into());
    }
    let mut edits = EditSet::new(&cx.view.protected);
    // What the references an earlier condensing left stand for stays, so they still expand:
    // located already when a holder keeps them (a conversation), else as edits come near them.
    match &cx.view.earlier_targets {
        Some(spans) => spans.iter().for_each(|s| edits.keep_target(s)),
        None => edits.keep_targets(crate::reference::Targets::scan(draft.original)),
    }
    let mut ms_each = Vec::with_capacity(passes.len());
    for (k, p) in passes.iter().enumerate() {
        cx.check()?;
        let t = Instant::now();
        edits.pass = first + k;
        p.propose(draft, cx.view, &mut edits);
        ms_each.push(ms(t));
    }
    cx.check()?;
    let applied = apply(draft.original, &edits, cx.encoding, Cancel::new(cx.abort))?;
    cx.check()?;
    for (at, text) in applied.changes {
        draft.set_text(at, text);
    }
    out.edits_rolled_back += applied.edits_rolled_back;
    if let Some(s) = out.exact_saving.as_mut() {
        *s += applied.tokens_saved;
    }
    // Each pass's saving is its edits' share of the exact saving, so the passes' tokens chain.
    let mut now = current;
    for (k, (p, ms)) in passes.iter().zip(ms_each).enumerate() {
        let saved: i64 = applied.acts.iter().filter(|a| a.pass == first + k).map(|a| a.tokens_saved).sum();
        let tokens_before = now;
        now = now.saturating_sub(saved.max(0) as u64);
        out.passes.push(PassMetrics {
            id: p.id(),
            name: p.name(),
            tokens_before,
            tokens_after: now,
            duration_ms: ms,
            proposes: true,
            ..Default::default()
        });
    }
    draft.acts.extend(applied.acts);
    Ok(now)
}

fn record(m: &mut PassMetrics, ran: Ran, out: &mut Outcome) {
    m.callback_calls = ran.callback_calls;
    m.cost = ran.cost;
    m.summarize_fallbacks = ran.summarize_fallbacks;
    m.skipped = ran.skipped;
    m.errors = ran.errors;
    out.callback_calls += ran.callback_calls;
    out.cost += ran.cost;
    if let Some(s) = ran.summary {
        out.summaries.push(s);
    }
}

fn ms(t: Instant) -> f64 {
    t.elapsed().as_secs_f64() * 1000.0
}
