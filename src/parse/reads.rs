//! Finds file contents inside tool-result text, in the three shapes Roo Code writes them:
//! `<file><path>P</path>\n<content lines="a-b">\n 1 | ...\n</content>` (legacy XML reads),
//! `--- P ---\n1 | ...` (older reads, and MCP file tools), and `File: P\nLines a-b:\n 1 | ...`
//! (native reads). What is found is the exact byte region of the numbered lines, so an edit can
//! replace the content and nothing around it (the path, notices, errors, user feedback).
//!
//! Never guesses: a region ends at the first line that is not the next numbered line, so a
//! `</content>` or `File:` inside the file itself (always behind a line number) cannot end it.

use std::fmt::Write;
use std::ops::Range;

/// One file's numbered lines inside a text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NumberedRead {
    pub path: String,
    /// First and last line numbers shown.
    pub first: u32,
    pub last: u32,
    /// Bytes of all numbered lines, each with its line ending.
    pub region: Range<usize>,
    /// Per line, its length in bytes (its line ending included), as a LEB128 number: one byte a
    /// line under 128 bytes, where a file read holds some forty. Where the line's text starts
    /// (after `N | `) is found again in its first bytes. Lengths, not offsets: the read moves
    /// with its region.
    lines: Box<[u8]>,
    /// How the line numbers are laid out, when it is one of the two known layouts: only then
    /// can these lines be rebuilt from another read of the same file.
    pub layout: Option<Layout>,
}

/// The two layouts of numbered lines Roo Code writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Layout {
    /// `format!("{n:>w$} | {text}")`, `w` the digits of the last line shown (read_file).
    Padded,
    /// `format!("{n} | {text}")` (MCP file tools, `--- path ---` reads).
    Plain,
}

impl NumberedRead {
    /// The lines of the read in `text` (the text it was found in), in order: each line's number
    /// and its text (after `N | `) with its line ending.
    pub fn lines<'a>(&'a self, text: &'a str) -> impl Iterator<Item = (u32, &'a str)> + 'a {
        self.lines_from(text, self.first).into_iter().flatten()
    }

    /// The text and line ending of line `n`, if shown.
    pub fn line<'a>(&'a self, text: &'a str, n: u32) -> Option<&'a str> {
        self.lines_from(text, n)?.next().map(|(_, l)| l)
    }

    /// Lines `from..` of the read in `text`, as `lines`; `None` when `from` is not shown.
    fn lines_from<'a>(&'a self, text: &'a str, from: u32) -> Option<impl Iterator<Item = (u32, &'a str)> + 'a> {
        let (mut at, mut len_at) = self.start_of(from)?;
        let region = text.get(self.region.clone())?;
        Some((from..=self.last).map_while(move |n| {
            let len = leb128(&self.lines, &mut len_at)?;
            let line = region.get(at..at + len)?;
            at += len;
            Some((n, line.get(text_start(line)..)?))
        }))
    }

    /// Where line `n` starts, from `region.start`, and where its length is in `lines`.
    fn start_of(&self, n: u32) -> Option<(usize, usize)> {
        if n < self.first || n > self.last {
            return None;
        }
        let (mut at, mut len_at) = (0, 0);
        for _ in self.first..n {
            at += leb128(&self.lines, &mut len_at)?;
        }
        Some((at, len_at))
    }

    /// The bytes of lines `from..=to` in `text`, numbers included, when the read shows them all.
    fn block<'a>(&self, text: &'a str, from: u32, to: u32) -> Option<&'a str> {
        let (start, mut len_at) = self.start_of(from).filter(|_| from <= to && to <= self.last)?;
        let mut end = start;
        for _ in from..=to {
            end += leb128(&self.lines, &mut len_at)?;
        }
        text.get(self.region.start + start..self.region.start + end)
    }
}

/// Where the text of a numbered line starts: after the number (padded or not), ` |`, and the
/// space after it when there is one (as `numbered_lines` found it).
fn text_start(line: &str) -> usize {
    let bytes = line.as_bytes();
    let mut q = bytes.iter().take_while(|b| **b == b' ').count();
    q += bytes[q..].iter().take_while(|b| b.is_ascii_digit()).count() + " |".len();
    if bytes.get(q) == Some(&b' ') {
        q += 1;
    }
    q
}

/// The LEB128 number at `*at` in `bytes`, `*at` moved past it.
pub(super) fn leb128(bytes: &[u8], at: &mut usize) -> Option<usize> {
    let mut value = 0usize;
    for shift in (0..usize::BITS).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        value |= usize::from(b & 0x7f) << shift;
        if b < 0x80 {
            return Some(value);
        }
    }
    None
}

/// Appends `value` to `out` as a LEB128 number (seven bits a byte, low first).
pub(super) fn push_leb128(out: &mut Vec<u8>, mut value: usize) {
    while value >= 0x80 {
        out.push(value as u8 | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

/// True when `a` shows lines `from..=to` exactly as `b` does (texts and line endings).
pub fn same_lines(a_text: &str, a: &NumberedRead, b_text: &str, b: &NumberedRead, from: u32, to: u32) -> bool {
    let (Some(x), Some(y)) = (a.block(a_text, from, to), b.block(b_text, from, to)) else {
        return false;
    };
    // The same bytes are the same lines (each ends at its first line ending); other bytes may
    // still be the same texts behind numbers padded otherwise.
    if x == y {
        return true;
    }
    let (Some(xs), Some(ys)) = (a.lines_from(a_text, from), b.lines_from(b_text, from)) else {
        return false;
    };
    let count = (to - from + 1) as usize;
    let mut shown = 0;
    xs.zip(ys).take(count).all(|((_, x), (_, y))| {
        shown += 1;
        x == y
    }) && shown == count
}

/// Every numbered file read in `text`, in order.
pub fn find_reads(text: &str) -> Vec<NumberedRead> {
    let mut out = Vec::new();
    let mut pos = 0;
    while pos < text.len() {
        let Some((header_end, path)) = next_header(text, pos) else {
            break;
        };
        match numbered_lines(text, header_end) {
            Some(read) if !path.is_empty() => {
                pos = read.region.end.max(header_end + 1);
                out.push(NumberedRead { path, ..read });
            }
            _ => pos = header_end.max(pos + 1),
        }
    }
    out
}

/// The next read header at or after `from`: where its numbered lines would start, and the path.
/// Headers start a line (`<file>`, `--- path ---`, `File: path`), so one pass over line starts
/// finds them all, whatever the size of the text.
fn next_header(text: &str, from: usize) -> Option<(usize, String)> {
    let bytes = text.as_bytes();
    let mut at = from;
    while at < text.len() {
        let rest = &text[at..];
        let parsed = if rest.starts_with("<file>") {
            xml_header(text, at)
        } else if rest.starts_with("<files><file>") {
            xml_header(text, at + "<files>".len())
        } else if rest.starts_with("--- ") {
            dashed_header(text, at)
        } else if rest.starts_with("File: ") {
            native_header(text, at)
        } else {
            None
        };
        if parsed.is_some() {
            return parsed;
        }
        at += memchr::memchr(b'\n', &bytes[at..])? + 1;
    }
    None
}

fn xml_header(text: &str, at: usize) -> Option<(usize, String)> {
    let mut p = at + "<file>".len();
    p = skip_ws(text, p);
    p = expect(text, p, "<path>")?;
    let end = p + text[p..].find("</path>")?;
    let path = text[p..end].trim().to_string();
    p = skip_ws(text, end + "</path>".len());
    p = expect(text, p, "<content")?;
    let tag_end = p + text[p..].find('>')?;
    if text[p..tag_end].contains('\n') || text.as_bytes().get(tag_end - 1) == Some(&b'/') {
        return None;
    }
    let mut start = tag_end + 1;
    if text[start..].starts_with("\r\n") {
        start += 2;
    } else if text[start..].starts_with('\n') {
        start += 1;
    }
    Some((start, path))
}

fn dashed_header(text: &str, at: usize) -> Option<(usize, String)> {
    let line_end = at + text[at..].find('\n')?;
    let line = text[at..line_end].trim_end_matches('\r');
    let path = line.strip_prefix("--- ")?.strip_suffix(" ---")?;
    Some((line_end + 1, path.trim().to_string()))
}

fn native_header(text: &str, at: usize) -> Option<(usize, String)> {
    let line_end = at + text[at..].find('\n')?;
    let path = text[at + "File: ".len()..line_end].trim_end_matches('\r').trim();
    let next_end = line_end + 1 + text[line_end + 1..].find('\n')?;
    let next = text[line_end + 1..next_end].trim_end_matches('\r');
    if !(next.starts_with("Lines ") && next.ends_with(':')) {
        return None;
    }
    Some((next_end + 1, path.to_string()))
}

fn skip_ws(text: &str, mut p: usize) -> usize {
    while p < text.len() && text.as_bytes()[p].is_ascii_whitespace() {
        p += 1;
    }
    p
}

fn expect(text: &str, p: usize, pat: &str) -> Option<usize> {
    text[p..].starts_with(pat).then_some(p + pat.len())
}

/// Parses consecutive numbered lines `N | text` starting at `start`.
fn numbered_lines(text: &str, start: usize) -> Option<NumberedRead> {
    let bytes = text.as_bytes();
    let mut p = start;
    let mut count = 0u32;
    let mut lines = Vec::new();
    let mut first = 0u32;
    let mut expected = 0u32;
    // Every line `N | ` then its text (a space before the text).
    let mut spaced = true;
    let mut layouts: Vec<(usize, usize)> = Vec::new(); // (leading spaces, digits)
    while p < text.len() {
        let line_end = text[p..].find('\n').map_or(text.len(), |i| p + i);
        let mut q = p;
        while q < line_end && bytes[q] == b' ' {
            q += 1;
        }
        let digits_start = q;
        while q < line_end && bytes[q].is_ascii_digit() {
            q += 1;
        }
        if q == digits_start || q - digits_start > 9 || !text[q..line_end].starts_with(" |") {
            break;
        }
        let n: u32 = text[digits_start..q].parse().ok()?;
        if count == 0 {
            first = n;
        } else if n != expected {
            break;
        }
        expected = n.checked_add(1)?;
        let mut body = q + 2;
        if bytes.get(body) == Some(&b' ') {
            body += 1;
        }
        spaced &= bytes[body - 1] == b' ';
        layouts.push((digits_start - p, q - digits_start));
        let next = if line_end < text.len() { line_end + 1 } else { line_end };
        push_leb128(&mut lines, next - p);
        p = next;
        count += 1;
    }
    if count == 0 {
        return None;
    }
    let last = first + count - 1;
    let width = digit_count(last);
    // The number padded (or not) as a whole read does it.
    let padded = layouts.iter().all(|(spaces, digits)| spaces + digits == width);
    let plain = layouts.iter().all(|(spaces, _)| *spaces == 0);
    let layout = match (spaced, padded, plain) {
        (true, true, _) => Some(Layout::Padded),
        (true, false, true) => Some(Layout::Plain),
        _ => None,
    };
    // Kept as long as the view of the message: no spare capacity.
    let lines = lines.into_boxed_slice();
    Some(NumberedRead { path: String::new(), first, last, region: start..p, lines, layout })
}

pub fn digit_count(n: u32) -> usize {
    n.checked_ilog10().map_or(1, |d| d as usize + 1)
}

/// Rebuilds lines `from..=to` of a read as a read of just those lines in `layout` shows them
/// (padded numbers: to the digits of `to`), each line with the line ending it has in `read`.
pub fn render_lines(text: &str, read: &NumberedRead, from: u32, to: u32, layout: Layout) -> Option<String> {
    if from < read.first || to > read.last || from > to {
        return None;
    }
    let width = match layout {
        Layout::Padded => digit_count(to),
        Layout::Plain => 0,
    };
    let mut out = String::new();
    let mut shown = 0;
    for (n, line) in read.lines_from(text, from)?.take_while(|(n, _)| *n <= to) {
        // Writing to a String cannot fail.
        let _ = write!(out, "{n:>width$} | ");
        out.push_str(line);
        shown += 1;
    }
    (shown == to - from + 1).then_some(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn legacy_xml_read_with_content_tag_inside_the_file() {
        let t = "<files>\n<file><path>a.xml</path>\n<content lines=\"1-3\">\n1 | <x>\n2 | </content>\n3 | </x>\n</content>\n</file>\n</files>";
        let r = find_reads(t);
        assert_eq!(r.len(), 1);
        assert_eq!(r[0].path, "a.xml");
        assert_eq!((r[0].first, r[0].last), (1, 3));
        assert_eq!(&t[r[0].region.clone()], "1 | <x>\n2 | </content>\n3 | </x>\n");
        assert_eq!(r[0].layout, Some(Layout::Padded));
        assert_eq!(render_lines(t, &r[0], 2, 3, Layout::Padded).as_deref(), Some("2 | </content>\n3 | </x>\n"));
    }

    #[test]
    fn several_files_errors_and_padding() {
        let t = "<files>\n<file><path>a.ts</path>\n<content lines=\"9-10\">\n 9 | x\n10 | y\n</content>\n</file>\n<file><path>b.ts</path><error>Error reading file: File not found</error></file>\n<file><path>c.ts</path>\n<content lines=\"1-2\">\n1 | p\r\n2 | \r\n</content>\n</file>\n</files>";
        let r = find_reads(t);
        assert_eq!(r.iter().map(|x| x.path.as_str()).collect::<Vec<_>>(), vec!["a.ts", "c.ts"]);
        assert_eq!((r[0].layout, r[1].layout), (Some(Layout::Padded), Some(Layout::Padded)));
        assert_eq!(r[1].line(t, 2), Some("\r\n"));
        assert_eq!(render_lines(t, &r[1], 1, 2, Layout::Padded).as_deref(), Some("1 | p\r\n2 | \r\n"));
        assert_eq!(render_lines(t, &r[0], 9, 10, Layout::Padded).as_deref(), Some(" 9 | x\n10 | y\n"));
        assert_eq!(render_lines(t, &r[0], 9, 10, Layout::Plain).as_deref(), Some("9 | x\n10 | y\n"));
    }

    #[test]
    fn dashed_and_native_reads() {
        let t = "--- docs/a.md ---\n1 | # Title\n2 | text\n\n--- docs/b.md ---\n1 | other\n";
        let r = find_reads(t);
        assert_eq!(r.len(), 2);
        assert_eq!(r[1].path, "docs/b.md");
        let n = "File: src/x.ts\nLines 1-2:\n1 | a\n2 | b\n\nFile: src/y.ts\nError: File not found";
        let r = find_reads(n);
        assert_eq!(r.len(), 1);
        assert_eq!(&n[r[0].region.clone()], "1 | a\n2 | b\n");
    }

    #[test]
    fn layouts_are_told_apart_and_lines_compared_across_them() {
        let plain = "--- a ---\n9 | x\n10 | y\n";
        let padded = "<file><path>a</path>\n<content lines=\"8-10\">\n 8 | w\n 9 | x\n10 | y\n</content>";
        let odd = "--- a ---\n  9 | x\n10 | y\n";
        let (p, q, o) = (&find_reads(plain)[0], &find_reads(padded)[0], &find_reads(odd)[0]);
        assert_eq!((p.layout, q.layout, o.layout), (Some(Layout::Plain), Some(Layout::Padded), None));
        assert!(same_lines(plain, p, padded, q, 9, 10));
        assert!(!same_lines(plain, p, padded, q, 8, 10), "line 8 is not in the plain read");
    }

    #[test]
    fn long_lines_keep_their_lengths() {
        let (a, b) = ("x".repeat(300), "y".repeat(70_000));
        let t = format!("--- p ---\n1 | {a}\n2 | {b}\r\n3 | z");
        let r = &find_reads(&t)[0];
        assert_eq!((r.first, r.last, r.region.end), (1, 3, t.len()));
        assert_eq!(r.line(&t, 1), Some(format!("{a}\n").as_str()));
        assert_eq!(r.line(&t, 2), Some(format!("{b}\r\n").as_str()));
        assert_eq!(r.line(&t, 3), Some("z"));
        assert_eq!(r.line(&t, 4), None);
        assert_eq!(render_lines(&t, r, 2, 3, Layout::Plain), Some(format!("2 | {b}\r\n3 | z")));
        assert!(same_lines(&t, r, &t, r, 1, 3) && !same_lines(&t, r, &t, r, 0, 3) && !same_lines(&t, r, &t, r, 2, 4));
    }
}
