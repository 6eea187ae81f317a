//! The mechanical operations on one piece of content: truncate (keep the head, say how much was
//! cut) and suppress (replace by a marker saying what was there). They return the new text only;
//! where the text lives and whether it is worth it is the caller's business.

use serde::{Deserialize, Serialize};

/// Limits of a truncation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, schemars::JsonSchema)]
#[serde(default, rename_all = "camelCase", deny_unknown_fields)]
pub struct TruncateParams {
    /// Lines kept from the start. @default 20
    pub max_lines: usize,
    /// Characters kept from the start, at most. @default 2000
    pub max_chars: usize,
}

impl Default for TruncateParams {
    fn default() -> Self {
        TruncateParams { max_lines: 20, max_chars: 2000 }
    }
}

/// The head of `text` within the limits plus a marker, or None when nothing would be cut.
pub fn truncate(text: &str, p: TruncateParams) -> Option<String> {
    let mut end = 0;
    for (n, line) in text.split_inclusive('\n').enumerate() {
        if n >= p.max_lines || end + line.len() > p.max_chars {
            break;
        }
        end += line.len();
    }
    if end == 0 && !text.is_empty() {
        // A first line longer than the limit: cut inside it, at a character boundary.
        end = crate::parse::floor_char_boundary(text, p.max_chars.min(text.len()));
    }
    if end >= text.len() {
        return None;
    }
    let rest = &text[end..];
    let lines = rest.lines().count();
    let mut out = String::with_capacity(end + 80);
    out.push_str(&text[..end]);
    if !out.is_empty() && !out.ends_with('\n') {
        out.push('\n');
    }
    out.push_str(&format!("⟨ … truncated: {lines} more lines, {} more characters ⟩", rest.chars().count()));
    if text.ends_with('\n') {
        out.push('\n');
    }
    Some(out)
}

/// A marker standing for suppressed content.
pub fn suppress(what: &str, text: &str) -> String {
    let lines = text.lines().count();
    let tail = if text.ends_with('\n') { "\n" } else { "" };
    format!("⟨ Content suppressed: {what}, {lines} lines ⟩{tail}")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn truncation_keeps_the_head_and_says_what_was_cut() {
        let text: String = (1..=50).map(|i| format!("line {i}\n")).collect();
        let t = truncate(&text, TruncateParams { max_lines: 3, max_chars: 1000 }).unwrap();
        assert_eq!(t, "line 1\nline 2\nline 3\n⟨ … truncated: 47 more lines, 370 more characters ⟩\n");
        assert!(truncate("short\n", TruncateParams::default()).is_none());
        let long = "é".repeat(5000);
        let t = truncate(&long, TruncateParams { max_lines: 5, max_chars: 11 }).unwrap();
        assert!(t.starts_with("ééééé\n⟨ … truncated: 1 more lines, 4995 more characters ⟩"));
        assert_eq!(
            suppress("read_file result for 'a.ts'", "a\nb\n"),
            "⟨ Content suppressed: read_file result for 'a.ts', 2 lines ⟩\n"
        );
    }
}
