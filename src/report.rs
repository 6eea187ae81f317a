//! Metrics of a condensation and the human-readable report (NFR-U-002). Reads numbers only.

use serde::Serialize;

pub use crate::providers::smart::PassMetrics;

/// Savings of one operation.
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(rename_all = "camelCase")]
pub struct OperationMetrics {
    pub id: &'static str,
    pub name: &'static str,
    /// Edits applied.
    pub count: usize,
    pub tokens_saved: i64,
    /// Saved by references `expandReferences` can restore.
    pub reversible_tokens_saved: i64,
    /// Saved by dropping superseded content.
    pub superseded_tokens_saved: i64,
    pub duration_ms: f64,
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
    /// The lossless operations (Lossless provider).
    pub operations: Vec<OperationMetrics>,
    /// The passes run, in order (Truncation, Native, Smart).
    pub passes: Vec<PassMetrics>,
    /// Calls made to the summarize callback.
    pub callback_calls: usize,
    /// What the summaries cost, in dollars.
    pub cost: f64,
    pub duration_ms: f64,
}

pub fn strategy_name(provider: &str) -> &'static str {
    crate::catalogue::provider(provider).map_or("Unknown", |p| p.name)
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

fn pct(before: u64, after: u64) -> String {
    if before == 0 {
        return "0%".into();
    }
    format!("{:.0}%", (after as f64 - before as f64) * 100.0 / before as f64)
}

/// "Context condensed using Smart strategy: ..." with one line per operation or pass.
pub fn render(m: &Metrics) -> String {
    let mut s = format!("Context condensed using {} strategy:\n", strategy_name(m.provider));
    for (n, p) in m.passes.iter().enumerate() {
        let label = if p.id == "lossless-prelude" || m.passes.len() == 1 {
            p.name.clone()
        } else {
            format!("Pass {n} ({})", p.name)
        };
        match &p.skipped {
            Some(why) => s.push_str(&format!(" - {label}: skipped, {why}\n")),
            None => {
                let mut what = Vec::new();
                for (count, word) in
                    [(p.suppressed, "suppressed"), (p.truncated, "truncated"), (p.summarized, "summarized")]
                {
                    if count > 0 {
                        what.push(format!("{count} {word}"));
                    }
                }
                if p.summarize_fallbacks > 0 {
                    let why = p.errors.first().map(String::as_str).unwrap_or("summary not shorter");
                    what.push(format!("{} summaries fell back to truncation ({why})", p.summarize_fallbacks));
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
    for op in &m.operations {
        let how = match (op.reversible_tokens_saved > 0, op.superseded_tokens_saved > 0) {
            (true, true) => format!(
                " ({} reversible, {} superseded)",
                thousands(op.reversible_tokens_saved),
                thousands(op.superseded_tokens_saved)
            ),
            (true, false) => " (reversible)".to_string(),
            (false, true) => " (superseded)".to_string(),
            (false, false) => String::new(),
        };
        s.push_str(&format!(" - {}: {} edits, -{} tokens{}\n", op.name, op.count, thousands(op.tokens_saved), how));
    }
    let split = if m.operations.is_empty() {
        String::new()
    } else {
        format!(
            "; {} reversible, {} superseded",
            thousands(m.reversible_tokens_saved),
            thousands(m.superseded_tokens_saved)
        )
    };
    let cost = if m.callback_calls > 0 {
        format!(", {} summarize calls, cost ${:.4}", m.callback_calls, m.cost)
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

    #[test]
    fn thousands_separators() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(-1000), "-1,000");
        assert_eq!(thousands(999), "999");
    }
}
