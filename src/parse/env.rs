//! Splits an `<environment_details>` block into its sections (`# VSCode Visible Files`,
//! `# Current Time`, ..., the `REMINDERS` table), so a later block that restates a section makes
//! the older copy obsolete. Reads only; the text is never changed here.

use std::borrow::Cow;
use std::ops::Range;

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvSection {
    /// `VSCode Visible Files`, `Current Time`, `REMINDERS`, ...: not a copy when it is one of
    /// `TITLES`.
    pub title: Cow<'static, str>,
    /// From the section's first line to the next section (or the closing tag).
    pub range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvBlock {
    /// From `<environment_details>` to the end of `</environment_details>`.
    pub range: Range<usize>,
    pub sections: Vec<EnvSection>,
}

/// The section titles Roo Code writes (every block restates most of them).
const TITLES: [&str; 11] = [
    "VSCode Visible Files",
    "VSCode Open Tabs",
    "Actively Running Terminals",
    "Inactive Terminals with Completed Process Output",
    "Recently Modified Files",
    "Current Time",
    "Current Context Size (Tokens)",
    "Current Cost",
    "Current Mode",
    "REMINDERS",
    "====",
];

fn title(t: &str) -> Cow<'static, str> {
    match TITLES.iter().find(|k| **k == t) {
        Some(k) => Cow::Borrowed(k),
        None => Cow::Owned(t.to_string()),
    }
}

const OPEN: &str = "<environment_details>";
const CLOSE: &str = "</environment_details>";

/// Every environment-details block in `text`.
pub fn find_env_blocks(text: &str) -> Vec<EnvBlock> {
    let mut out = Vec::new();
    let mut pos = 0;
    while let Some(i) = text[pos..].find(OPEN) {
        let start = pos + i;
        let inner_start = start + OPEN.len();
        let (inner_end, end) = match text[inner_start..].find(CLOSE) {
            Some(j) => (inner_start + j, inner_start + j + CLOSE.len()),
            None => (text.len(), text.len()),
        };
        out.push(EnvBlock { range: start..end, sections: sections(text, inner_start, inner_end) });
        pos = end.max(start + 1);
    }
    out
}

fn sections(text: &str, start: usize, end: usize) -> Vec<EnvSection> {
    let mut heads: Vec<(usize, &str)> = Vec::new();
    let mut p = start;
    while p < end {
        let line_end = text[p..end].find('\n').map_or(end, |i| p + i);
        let line = text[p..line_end].trim_end_matches('\r');
        if let Some(title) = line.strip_prefix("# ") {
            heads.push((p, title.trim()));
        } else if line == "====" {
            // `====`, a blank line, then the section name (REMINDERS).
            let title = text[line_end..end].lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("====");
            heads.push((p, title));
        }
        p = line_end + 1;
    }
    heads
        .iter()
        .enumerate()
        .map(|(i, (at, t))| {
            let next = heads.get(i + 1).map_or(end, |h| h.0);
            EnvSection { title: title(t), range: *at..next }
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sections_and_reminders() {
        let t = "x<environment_details>\n# VSCode Visible Files\na.ts\n\n# Current Time\nnow\n====\n\nREMINDERS\n\n| 1 | do |\n</environment_details>";
        let b = find_env_blocks(t);
        assert_eq!(b.len(), 1);
        assert_eq!(&t[b[0].range.clone()], &t[1..]);
        let titles: Vec<_> = b[0].sections.iter().map(|s| &*s.title).collect();
        assert_eq!(titles, vec!["VSCode Visible Files", "Current Time", "REMINDERS"]);
        assert_eq!(&t[b[0].sections[1].range.clone()], "# Current Time\nnow\n");
        assert!(t[b[0].sections[2].range.clone()].ends_with("| 1 | do |\n"));
    }
}
