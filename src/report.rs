//! Metrics of a condensation and the human-readable report (NFR-U-002). Reads numbers only.

use serde::Serialize;

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
    /// Edits undone because their string would not have got smaller.
    pub edits_rolled_back: usize,
    pub operations: Vec<OperationMetrics>,
    pub duration_ms: f64,
}

pub fn strategy_name(provider: &str) -> &'static str {
    match provider {
        "lossless" => "Lossless",
        "truncation" => "Truncation",
        "smart" => "Smart",
        "native" => "Native",
        _ => "Unknown",
    }
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

/// "Context condensed using Lossless strategy: ..." with one line per operation.
pub fn render(m: &Metrics) -> String {
    let mut s = format!("Context condensed using {} strategy:\n", strategy_name(m.provider));
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
    s.push_str(&format!(
        " - Total reduction: {:.1}% ({} → {} tokens; {} reversible, {} superseded)\n",
        m.reduction_percent,
        thousands(m.tokens_before as i64),
        thousands(m.tokens_after as i64),
        thousands(m.reversible_tokens_saved),
        thousands(m.superseded_tokens_saved)
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
