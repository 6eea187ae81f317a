//! Splits an `<environment_details>` block into its sections (`# VSCode Visible Files`,
//! `# Current Time`, ..., the `REMINDERS` table), so a later block that restates a section makes
//! the older copy obsolete. Reads only; the text is never changed here.

use std::ops::Range;

use super::reads::{leb128, push_leb128};

/// A section of a block (`EnvBlock::sections`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvSection<'a> {
    /// `VSCode Visible Files`, `Current Time`, `REMINDERS`, ...
    pub title: &'a str,
    /// From the section's first line to the next section (or the closing tag).
    pub range: Range<usize>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub struct EnvBlock {
    /// From `<environment_details>` to the end of `</environment_details>`.
    pub range: Range<usize>,
    /// The sections, packed (a block is held as long as the view of its message): per section
    /// where it starts (a LEB128 number, from `range.start`) and its title (a byte: its index in
    /// `TITLES`, or `OTHER` then the title's length as a LEB128 number and the title); then where
    /// the last one ends. Some three bytes a section, where a list of sections held forty and a
    /// copy of each title.
    sections: Box<[u8]>,
}

impl EnvBlock {
    /// The sections, in order.
    pub fn sections(&self) -> impl Iterator<Item = EnvSection<'_>> + '_ {
        let bytes = &self.sections[..];
        let base = self.range.start;
        let mut at = 0;
        std::iter::from_fn(move || {
            let start = leb128(bytes, &mut at)?;
            let title = match *bytes.get(at)? {
                OTHER => {
                    at += 1;
                    let len = leb128(bytes, &mut at)?;
                    let title = std::str::from_utf8(bytes.get(at..at + len)?).ok()?;
                    at += len;
                    title
                }
                known => {
                    at += 1;
                    TITLES.get(usize::from(known))?
                }
            };
            // Where the next section starts (or the last one ends), read again as its start.
            let end = leb128(bytes, &mut at.clone())?;
            Some(EnvSection { title, range: base + start..base + end })
        })
    }
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

/// The title byte of a section whose title is not one of `TITLES`.
const OTHER: u8 = u8::MAX;

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
        out.push(EnvBlock { range: start..end, sections: sections(text, start, inner_start, inner_end) });
        pos = end.max(start + 1);
    }
    out
}

/// The sections of the block whose inside is `start..end` (`EnvBlock::sections`, packed).
fn sections(text: &str, block_start: usize, start: usize, end: usize) -> Box<[u8]> {
    let mut out = Vec::new();
    let mut p = start;
    while p < end {
        let line_end = text[p..end].find('\n').map_or(end, |i| p + i);
        let line = text[p..line_end].trim_end_matches('\r');
        let title = if let Some(title) = line.strip_prefix("# ") {
            Some(title.trim())
        } else if line == "====" {
            // `====`, a blank line, then the section name (REMINDERS).
            Some(text[line_end..end].lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("===="))
        } else {
            None
        };
        if let Some(title) = title {
            push_leb128(&mut out, p - block_start);
            match TITLES.iter().position(|k| *k == title) {
                Some(known) => out.push(known as u8),
                None => {
                    out.push(OTHER);
                    push_leb128(&mut out, title.len());
                    out.extend_from_slice(title.as_bytes());
                }
            }
        }
        p = line_end + 1;
    }
    if !out.is_empty() {
        push_leb128(&mut out, end - block_start);
    }
    out.into_boxed_slice()
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
        let sections: Vec<_> = b[0].sections().collect();
        let titles: Vec<_> = sections.iter().map(|s| s.title).collect();
        assert_eq!(titles, vec!["VSCode Visible Files", "Current Time", "REMINDERS"]);
        assert_eq!(&t[sections[1].range.clone()], "# Current Time\nnow\n");
        assert!(t[sections[2].range.clone()].ends_with("| 1 | do |\n"));
        assert_eq!(sections[2].range.end, t.len() - CLOSE.len());
    }

    #[test]
    fn titles_of_any_length_and_none() {
        let long = "Current Workspace Directory (/home/".to_string() + &"x".repeat(300) + ") Files";
        let t = format!("<environment_details>\n# {long}\na\n# Current Mode\ncode\n# Ünïcode\n</environment_details>");
        let b = find_env_blocks(&t);
        let sections: Vec<_> = b[0].sections().collect();
        assert_eq!(
            sections.iter().map(|s| s.title).collect::<Vec<_>>(),
            vec![long.as_str(), "Current Mode", "Ünïcode"]
        );
        assert_eq!(&t[sections[1].range.clone()], "# Current Mode\ncode\n");
        assert_eq!(find_env_blocks("<environment_details>\nnothing\n</environment_details>")[0].sections().count(), 0);
    }
}
