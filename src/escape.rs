//! Text that came from UTF-16 in a form UTF-8 can hold, and back. UTF-16 text (a JavaScript
//! string) may hold a lone surrogate, which UTF-8 cannot: a UTF-8 conversion turns one into
//! U+FFFD, so an edited string would come back changed where nothing was edited. The engine holds
//! such text escaped: U+FDD0 (a Unicode noncharacter, reserved for such internal use) is doubled,
//! and a lone surrogate U+D800+n becomes U+FDD0 U+E800+n. (An escaped text counts a few tokens
//! more: 4 per lone surrogate, 3 per U+FDD0, in both encodings; nothing else sees the difference.)
//!
//! In: UTF-16 text escaped as it arrives, in parts of any size ([`Escaper`]; [`Incoming`] for the
//! strings a push left out to arrive that way), text read as UTF-8 escaped when it holds U+FDD0
//! and no U+FFFD ([`double_esc`]). Out: texts unescaped to UTF-16 ([`utf16_units`],
//! [`utf16_len`]), and JSON whose strings are unescaped ([`unescaped_json`]: a lone surrogate
//! written `\uD8xx`). Used by the Node-API binding at the boundary; the passes never see anything
//! but the escaped form. Converts only.

use crate::json::Value as Message;

/// The escape character.
pub const ESC: char = '\u{FDD0}';
const ESC_UNIT: u16 = 0xFDD0;
/// Where escaped lone surrogates live: U+E800..U+EFFF stand for U+D800..U+DFFF.
const SURROGATE_SHIFT: u32 = 0xE800 - 0xD800;

fn is_high(u: u16) -> bool {
    (0xD800..0xDC00).contains(&u)
}

fn is_low(u: u16) -> bool {
    (0xDC00..0xE000).contains(&u)
}

/// UTF-16 text arriving in parts, written in the engine's form. A high surrogate at the end of a
/// part waits for the next part's first unit (the pair may be cut between parts).
#[derive(Default)]
pub struct Escaper {
    /// Written a run or a character at a time, so the whole is never validated again.
    out: String,
    high: Option<u16>,
    /// The ASCII run at hand, as bytes.
    ascii: Vec<u8>,
}

impl Escaper {
    pub fn new() -> Escaper {
        Escaper::default()
    }

    /// An escaper for a text of `units` UTF-16 units: room made once for three bytes a unit (what a
    /// character of the Basic Multilingual Plane takes; growing a string of megabytes by doubling
    /// copies it each time). Pages never written are never touched, and `finish` gives back what
    /// the text did not use.
    pub fn with_capacity(units: usize) -> Escaper {
        Escaper { out: String::with_capacity(units.saturating_mul(3)), ..Escaper::default() }
    }

    fn char(&mut self, c: char) {
        self.out.push(c);
    }

    /// A lone surrogate, escaped.
    fn lone(&mut self, u: u16) {
        self.char(ESC);
        // U+E800..U+EFFF are plain characters: never None.
        self.char(char::from_u32(u as u32 + SURROGATE_SHIFT).unwrap_or(char::REPLACEMENT_CHARACTER));
    }

    /// Adds the next part.
    pub fn push(&mut self, units: &[u16]) {
        self.out.reserve(units.len());
        let mut i = 0;
        if let Some(h) = self.high.take() {
            match units.first() {
                Some(&l) if is_low(l) => {
                    self.pair(h, l);
                    i = 1;
                }
                Some(_) => self.lone(h),
                None => {
                    self.high = Some(h);
                    return;
                }
            }
        }
        while i < units.len() {
            // ASCII runs, sixteen units at a time where they can be, narrowed into `ascii` and
            // added as one string (checked as ASCII, then copied: both at memory speed).
            let start = i;
            while i + 16 <= units.len() && units[i..i + 16].iter().fold(0, |a, &u| a | u) < 0x80 {
                i += 16;
            }
            while i < units.len() && units[i] < 0x80 {
                i += 1;
            }
            if i > start {
                self.ascii.clear();
                self.ascii.extend(units[start..i].iter().map(|&u| u as u8));
                self.out.push_str(std::str::from_utf8(&self.ascii).unwrap_or_default());
                continue;
            }
            let u = units[i];
            i += 1;
            if is_high(u) {
                match units.get(i) {
                    Some(&l) if is_low(l) => {
                        self.pair(u, l);
                        i += 1;
                    }
                    Some(_) => self.lone(u),
                    None => self.high = Some(u),
                }
            } else if is_low(u) {
                self.lone(u);
            } else if u == ESC_UNIT {
                self.char(ESC);
                self.char(ESC);
            } else {
                // Not a surrogate: always a character.
                self.char(char::from_u32(u as u32).unwrap_or(char::REPLACEMENT_CHARACTER));
            }
        }
    }

    fn pair(&mut self, h: u16, l: u16) {
        let c = 0x10000 + (((h as u32) - 0xD800) << 10) + ((l as u32) - 0xDC00);
        self.char(char::from_u32(c).unwrap_or(char::REPLACEMENT_CHARACTER));
    }

    /// The whole text in the engine's form (a high surrogate still waiting is a lone one).
    pub fn finish(mut self) -> String {
        if let Some(h) = self.high.take() {
            self.lone(h);
        }
        // Grown by doubling: the room it does not use goes back (a large string is held long).
        self.out.shrink_to_fit();
        self.out
    }
}

/// `units` in the engine's form, at once.
pub fn escape_utf16(units: &[u16]) -> String {
    let mut e = Escaper::new();
    e.push(units);
    e.finish()
}

fn has_bytes(s: &str, tail: [u8; 2]) -> bool {
    let b = s.as_bytes();
    memchr::memchr_iter(0xEF, b).any(|i| b.get(i + 1..i + 3) == Some(&tail[..]))
}

/// Whether `s` holds U+FFFD (EF BF BD).
pub fn has_replacement(s: &str) -> bool {
    has_bytes(s, [0xBF, 0xBD])
}

/// Whether `s` holds U+FDD0 (EF B7 90).
pub fn has_esc(s: &str) -> bool {
    has_bytes(s, [0xB7, 0x90])
}

/// `s` with U+FDD0 doubled: the escaped form of a text that holds no lone surrogate.
pub fn double_esc(s: &str) -> String {
    s.replace(ESC, "\u{FDD0}\u{FDD0}")
}

/// One step of a path into a message: a key (in the escaped form) or an index.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    Key(String),
    Index(usize),
}

/// A string left out of a pushed message, to arrive in parts: its message (an index in what was
/// pushed) and the path to it.
#[derive(Clone, Debug, PartialEq)]
pub struct Deferred {
    pub message: usize,
    pub path: Vec<Step>,
}

/// The value at `path` in `message`.
fn at_path<'a>(message: &'a mut Message, path: &[Step]) -> Option<&'a mut Message> {
    let mut v = message;
    for step in path {
        v = match step {
            Step::Key(k) => v.as_object_mut()?.get_mut(k)?,
            Step::Index(i) => v.as_array_mut()?.get_mut(*i)?,
        };
    }
    Some(v)
}

/// The strings left out of the last push, arriving in parts (UTF-16, escaped as they come), and
/// where each goes.
#[derive(Default)]
pub struct Incoming {
    deferred: Vec<Deferred>,
    /// Where the messages of the last push begin.
    base: usize,
    text: Option<Escaper>,
}

impl Incoming {
    /// The strings the last push left out, its first message held at `base` (those of an earlier
    /// push are forgotten).
    pub fn expect(&mut self, deferred: Vec<Deferred>, base: usize) {
        self.deferred = deferred;
        self.base = base;
        self.text = None;
    }

    /// The next part of the string arriving; with the first, how long the whole is (in units).
    pub fn part(&mut self, units: &[u16], whole: Option<usize>) {
        self.text.get_or_insert_with(|| Escaper::with_capacity(whole.unwrap_or(0))).push(units);
    }

    /// The string that arrived since the last `take`, escaped, and where string `j` of the last
    /// push goes (the message's index, the path in it).
    pub fn take(&mut self, j: usize) -> std::result::Result<(usize, Vec<Step>, String), String> {
        let text = self.text.take().unwrap_or_default().finish();
        let d = self.deferred.get(j).ok_or_else(|| format!("the last push left out no string {j}"))?;
        Ok((self.base + d.message, d.path.clone(), text))
    }

    /// Puts the string that arrived since the last `take` in place of string `j` of the last push,
    /// in `messages`; answers the index of the message it went into.
    pub fn put_into(&mut self, messages: &mut [Message], j: usize) -> std::result::Result<usize, String> {
        let (i, path, text) = self.take(j)?;
        let message = messages.get_mut(i).ok_or_else(|| format!("no message at {i}"))?;
        put(message, &path, text)?;
        Ok(i)
    }
}

/// Puts `text` at `path` in `message`, where a string was left out.
pub fn put(message: &mut Message, path: &[Step], text: String) -> std::result::Result<(), String> {
    match at_path(message, path) {
        Some(slot @ Message::String(_)) => {
            *slot = Message::String(text.into());
            Ok(())
        }
        _ => Err("the string the last push left out is not where it was".into()),
    }
}

/// The length of `s` once unescaped, in UTF-16 units.
pub fn utf16_len(s: &str) -> usize {
    let units = s.encode_utf16().count();
    if !has_esc(s) {
        return units;
    }
    // Each escape is two units escaped and one unescaped.
    let mut pairs = 0;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c == ESC && chars.clone().next().is_some_and(escaped) {
            chars.next();
            pairs += 1;
        }
    }
    units - pairs
}

/// Whether `c` may follow U+FDD0 in an escape.
fn escaped(c: char) -> bool {
    c == ESC || ('\u{E800}'..='\u{EFFF}').contains(&c)
}

/// `s` unescaped, as UTF-16 units (lone surrogates in place).
pub fn utf16_units(s: &str) -> Vec<u16> {
    let mut out = Vec::with_capacity(s.len());
    let mut chars = s.chars();
    let mut buf = [0u16; 2];
    while let Some(c) = chars.next() {
        if c == ESC {
            match chars.clone().next() {
                Some(ESC) => {
                    chars.next();
                    out.push(ESC_UNIT);
                    continue;
                }
                Some(n) if escaped(n) => {
                    chars.next();
                    out.push((n as u32 - SURROGATE_SHIFT) as u16);
                    continue;
                }
                _ => {}
            }
        }
        out.extend_from_slice(c.encode_utf16(&mut buf));
    }
    out
}

/// serde_json's compact JSON, with every string unescaped: U+FDD0 U+FDD0 written
/// as U+FDD0, an escaped lone surrogate as `\uD8xx` (JSON's own escape, which a UTF-16 reader such as
/// JavaScript's `JSON.parse` turns into the lone surrogate).
struct Unescaping;

impl serde_json::ser::Formatter for Unescaping {
    fn write_string_fragment<W: ?Sized + std::io::Write>(
        &mut self,
        writer: &mut W,
        fragment: &str,
    ) -> std::io::Result<()> {
        // An escape and the character after it are never cut apart: neither needs JSON escaping.
        if !has_esc(fragment) {
            return writer.write_all(fragment.as_bytes());
        }
        let mut from = 0;
        let mut chars = fragment.char_indices().peekable();
        while let Some((at, c)) = chars.next() {
            if c != ESC {
                continue;
            }
            let Some(&(_, n)) = chars.peek() else { continue };
            if !escaped(n) {
                continue;
            }
            chars.next();
            writer.write_all(&fragment.as_bytes()[from..at])?;
            if n == ESC {
                writer.write_all("\u{FDD0}".as_bytes())?;
            } else {
                write!(writer, "\\u{:04X}", n as u32 - SURROGATE_SHIFT)?;
            }
            from = at + ESC.len_utf8() + n.len_utf8();
        }
        writer.write_all(&fragment.as_bytes()[from..])
    }
}

/// `value` as JSON text with every string unescaped (see [`Unescaping`]), for a UTF-16 reader.
pub fn unescaped_json<T: serde::Serialize + ?Sized>(value: &T) -> std::result::Result<String, serde_json::Error> {
    let mut buf = Vec::with_capacity(128);
    let mut ser = serde_json::Serializer::with_formatter(&mut buf, Unescaping);
    value.serialize(&mut ser)?;
    // The formatter writes whole characters and ASCII escapes: always UTF-8.
    Ok(String::from_utf8(buf).unwrap_or_else(|e| String::from_utf8_lossy(e.as_bytes()).into_owned()))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn units(s: &str) -> Vec<u16> {
        s.encode_utf16().collect()
    }

    #[test]
    fn lone_surrogates_and_the_escape_are_escaped_pairs_kept() {
        let mut u = units("a");
        u.push(0xD800);
        u.extend(units("b\u{FDD0}c\u{1F600}"));
        u.push(0xDC01);
        assert_eq!(escape_utf16(&u), "a\u{FDD0}\u{E800}b\u{FDD0}\u{FDD0}c\u{1F600}\u{FDD0}\u{EC01}");
        // Back: the same units.
        assert_eq!(utf16_units(&escape_utf16(&u)), u);
        assert_eq!(utf16_len(&escape_utf16(&u)), u.len());
    }

    #[test]
    fn a_pair_cut_between_parts_stays_a_pair() {
        let all = units("x\u{1F600}y");
        let mut e = Escaper::new();
        e.push(&all[..2]);
        e.push(&[]);
        e.push(&all[2..]);
        assert_eq!(e.finish(), "x\u{1F600}y");
        // A high surrogate at the very end is a lone one.
        let mut e = Escaper::new();
        e.push(&[0x61, 0xDBFF]);
        assert_eq!(e.finish(), "a\u{FDD0}\u{EBFF}");
        // A high one followed by something else in the next part, too.
        let mut e = Escaper::new();
        e.push(&[0xD801]);
        e.push(&[0x62]);
        assert_eq!(e.finish(), "\u{FDD0}\u{E801}b");
    }

    #[test]
    fn long_ascii_and_mixed_text_round_trips() {
        let text: String = (0..1000).map(|i| if i % 97 == 0 { 'é' } else { (b'a' + (i % 26) as u8) as char }).collect();
        assert_eq!(escape_utf16(&units(&text)), text);
        assert_eq!(utf16_units(&text), units(&text));
    }

    #[test]
    fn json_for_javascript_unescapes() {
        let v = serde_json::json!({ "k\u{FDD0}\u{FDD0}": ["a\u{FDD0}\u{E800}b", "\u{FDD0}\u{FDD0}\"", "\u{FDD0}x"] });
        assert_eq!(
            unescaped_json(&v).ok().as_deref(),
            Some("{\"k\u{FDD0}\":[\"a\\uD800b\",\"\u{FDD0}\\\"\",\"\u{FDD0}x\"]}")
        );
    }

    #[test]
    fn a_string_left_out_arrives_in_parts_and_goes_in_its_place() {
        let mut m: Vec<Message> = vec![
            serde_json::json!({ "role": "user", "content": "plain" }).into(),
            serde_json::json!({ "role": "user", "content": [{ "type": "text", "text": "" }] }).into(),
        ];
        let mut incoming = Incoming::default();
        let path = vec![Step::Key("content".into()), Step::Index(0), Step::Key("text".into())];
        incoming.expect(vec![Deferred { message: 1, path }], 10);
        let mut u = units("a");
        u.push(0xD800);
        incoming.part(&u[..1], Some(u.len()));
        incoming.part(&u[1..], None);
        let Ok((i, path, text)) = incoming.take(0) else { panic!("no string 0") };
        assert_eq!(i, 11);
        assert_eq!(put(&mut m[i - 10], &path, text), Ok(()));
        assert_eq!(m[1]["content"][0]["text"], "a\u{FDD0}\u{E800}");
        assert!(incoming.take(1).is_err());
        assert!(put(&mut m[0], &[Step::Key("nothing".into())], String::new()).is_err());
        assert_eq!(double_esc("x\u{FDD0}y"), "x\u{FDD0}\u{FDD0}y");
    }
}
