//! The engine's JSON value for messages (`Value`, `Map`): what serde_json's `Value` holds, in about
//! half the room. A history lives in the engine for the life of a conversation, and serde_json's
//! objects (a hash index and a hasher beside their entries, 80 bytes a value) cost as much as the
//! text they hold on a history of small blocks. Here an object is its entries in order, found by a
//! short scan (message objects have a handful of keys), and keys and short strings ("text",
//! "user") live inline. Same JSON in and out: keys keep their order, a repeated key keeps its
//! first place and its last value (as serde_json with `preserve_order` does), numbers are
//! serde_json's. Configs and options stay serde_json values; this module only holds and converts.

use std::collections::HashMap;
use std::fmt;

use compact_str::CompactString;
use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
pub use serde_json::Number;

/// A string of a message: inline up to 24 bytes, else on the heap at its own size.
pub type Str = CompactString;

/// A JSON value.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Value {
    #[default]
    Null,
    Bool(bool),
    Number(Number),
    String(Str),
    Array(Vec<Value>),
    Object(Map),
}

/// A JSON object: its entries in order.
#[derive(Clone, Debug, Default)]
pub struct Map {
    entries: Vec<(Str, Value)>,
}

/// Objects with more keys than this find a repeated key through a hash map while they are read.
const SCAN_MAX: usize = 16;

impl Map {
    pub fn new() -> Map {
        Map::default()
    }

    pub fn with_capacity(n: usize) -> Map {
        Map { entries: Vec::with_capacity(n) }
    }

    pub fn len(&self) -> usize {
        self.entries.len()
    }

    pub fn is_empty(&self) -> bool {
        self.entries.is_empty()
    }

    fn position(&self, key: &str) -> Option<usize> {
        self.entries.iter().position(|(k, _)| k.as_str() == key)
    }

    pub fn get(&self, key: &str) -> Option<&Value> {
        self.entries.iter().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    }

    pub fn get_mut(&mut self, key: &str) -> Option<&mut Value> {
        self.entries.iter_mut().find(|(k, _)| k.as_str() == key).map(|(_, v)| v)
    }

    pub fn contains_key(&self, key: &str) -> bool {
        self.position(key).is_some()
    }

    /// Sets `key` to `value`: in its place when present (answering the value it had), else at the
    /// end.
    pub fn insert(&mut self, key: impl Into<Str>, value: Value) -> Option<Value> {
        let key = key.into();
        match self.position(&key) {
            Some(i) => Some(std::mem::replace(&mut self.entries[i].1, value)),
            None => {
                self.entries.push((key, value));
                None
            }
        }
    }

    /// Removes `key`, keeping the order of the others.
    pub fn remove(&mut self, key: &str) -> Option<Value> {
        self.position(key).map(|i| self.entries.remove(i).1)
    }

    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&Str, &Value)> + ExactSizeIterator {
        self.entries.iter().map(|(k, v)| (k, v))
    }

    pub fn iter_mut(&mut self) -> impl DoubleEndedIterator<Item = (&Str, &mut Value)> + ExactSizeIterator {
        self.entries.iter_mut().map(|(k, v)| (&*k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &Str> + ExactSizeIterator {
        self.entries.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &Value> + ExactSizeIterator {
        self.entries.iter().map(|(_, v)| v)
    }

    pub fn values_mut(&mut self) -> impl DoubleEndedIterator<Item = &mut Value> + ExactSizeIterator {
        self.entries.iter_mut().map(|(_, v)| v)
    }

    /// Entries read in order, a repeated key keeping its first place and its last value.
    fn from_entries(mut entries: Vec<(Str, Value)>) -> Map {
        if entries.len() > SCAN_MAX {
            let mut first: HashMap<Str, usize> = HashMap::with_capacity(entries.len());
            let mut out: Vec<(Str, Value)> = Vec::with_capacity(entries.len());
            for (k, v) in entries {
                match first.get(&k) {
                    Some(&i) => out[i].1 = v,
                    None => {
                        first.insert(k.clone(), out.len());
                        out.push((k, v));
                    }
                }
            }
            out.shrink_to_fit();
            return Map { entries: out };
        }
        let mut i = 1;
        while i < entries.len() {
            match entries[..i].iter().position(|(k, _)| *k == entries[i].0) {
                Some(at) => {
                    let (_, v) = entries.remove(i);
                    entries[at].1 = v;
                }
                None => i += 1,
            }
        }
        entries.shrink_to_fit();
        Map { entries }
    }
}

/// Objects are equal when they have the same keys with equal values, in any order (as serde_json's).
impl PartialEq for Map {
    fn eq(&self, other: &Map) -> bool {
        self.len() == other.len() && self.iter().all(|(k, v)| other.get(k) == Some(v))
    }
}

impl FromIterator<(Str, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (Str, Value)>>(iter: I) -> Map {
        Map::from_entries(iter.into_iter().collect())
    }
}

impl FromIterator<(String, Value)> for Map {
    fn from_iter<I: IntoIterator<Item = (String, Value)>>(iter: I) -> Map {
        Map::from_entries(iter.into_iter().map(|(k, v)| (Str::from(k), v)).collect())
    }
}

impl IntoIterator for Map {
    type Item = (Str, Value);
    type IntoIter = std::vec::IntoIter<(Str, Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.into_iter()
    }
}

impl<'a> IntoIterator for &'a Map {
    type Item = (&'a Str, &'a Value);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (Str, Value)>, fn(&'a (Str, Value)) -> (&'a Str, &'a Value)>;
    fn into_iter(self) -> Self::IntoIter {
        self.entries.iter().map(|(k, v)| (k, v))
    }
}

static NULL: Value = Value::Null;

/// What a value is looked into by: a key of an object or a position in an array.
pub trait Index {
    fn find(self, v: &Value) -> Option<&Value>;
    fn find_mut(self, v: &mut Value) -> Option<&mut Value>;
}

impl Index for &str {
    fn find(self, v: &Value) -> Option<&Value> {
        v.as_object()?.get(self)
    }
    fn find_mut(self, v: &mut Value) -> Option<&mut Value> {
        v.as_object_mut()?.get_mut(self)
    }
}

impl Index for &String {
    fn find(self, v: &Value) -> Option<&Value> {
        Index::find(self.as_str(), v)
    }
    fn find_mut(self, v: &mut Value) -> Option<&mut Value> {
        Index::find_mut(self.as_str(), v)
    }
}

impl Index for usize {
    fn find(self, v: &Value) -> Option<&Value> {
        v.as_array()?.get(self)
    }
    fn find_mut(self, v: &mut Value) -> Option<&mut Value> {
        v.as_array_mut()?.get_mut(self)
    }
}

impl Value {
    /// The value of a key of an object, or at a position of an array.
    pub fn get<I: Index>(&self, at: I) -> Option<&Value> {
        at.find(self)
    }

    pub fn get_mut<I: Index>(&mut self, at: I) -> Option<&mut Value> {
        at.find_mut(self)
    }

    pub fn as_str(&self) -> Option<&str> {
        match self {
            Value::String(s) => Some(s.as_str()),
            _ => None,
        }
    }

    pub fn as_array(&self) -> Option<&Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_array_mut(&mut self) -> Option<&mut Vec<Value>> {
        match self {
            Value::Array(a) => Some(a),
            _ => None,
        }
    }

    pub fn as_object(&self) -> Option<&Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_object_mut(&mut self) -> Option<&mut Map> {
        match self {
            Value::Object(m) => Some(m),
            _ => None,
        }
    }

    pub fn as_bool(&self) -> Option<bool> {
        match self {
            Value::Bool(b) => Some(*b),
            _ => None,
        }
    }

    pub fn as_u64(&self) -> Option<u64> {
        match self {
            Value::Number(n) => n.as_u64(),
            _ => None,
        }
    }

    pub fn as_i64(&self) -> Option<i64> {
        match self {
            Value::Number(n) => n.as_i64(),
            _ => None,
        }
    }

    pub fn as_f64(&self) -> Option<f64> {
        match self {
            Value::Number(n) => n.as_f64(),
            _ => None,
        }
    }

    pub fn is_null(&self) -> bool {
        matches!(self, Value::Null)
    }

    pub fn is_boolean(&self) -> bool {
        matches!(self, Value::Bool(_))
    }

    pub fn is_number(&self) -> bool {
        matches!(self, Value::Number(_))
    }

    pub fn is_string(&self) -> bool {
        matches!(self, Value::String(_))
    }

    pub fn is_array(&self) -> bool {
        matches!(self, Value::Array(_))
    }

    pub fn is_object(&self) -> bool {
        matches!(self, Value::Object(_))
    }

    /// Takes the value out, leaving null.
    pub fn take(&mut self) -> Value {
        std::mem::take(self)
    }

    /// The value at a JSON Pointer (`/content/0/text`).
    pub fn pointer(&self, pointer: &str) -> Option<&Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).try_fold(self, |v, token| match v {
            Value::Object(m) => m.get(&token),
            Value::Array(a) => index_token(&token).and_then(|i| a.get(i)),
            _ => None,
        })
    }

    pub fn pointer_mut(&mut self, pointer: &str) -> Option<&mut Value> {
        if pointer.is_empty() {
            return Some(self);
        }
        let rest = pointer.strip_prefix('/')?;
        rest.split('/').map(|t| t.replace("~1", "/").replace("~0", "~")).try_fold(self, |v, token| match v {
            Value::Object(m) => m.get_mut(&token),
            Value::Array(a) => index_token(&token).and_then(move |i| a.get_mut(i)),
            _ => None,
        })
    }
}

/// An array index in a JSON Pointer: digits without a leading zero.
fn index_token(token: &str) -> Option<usize> {
    if token.starts_with('+') || (token.starts_with('0') && token.len() > 1) {
        return None;
    }
    token.parse().ok()
}

impl std::ops::Index<&str> for Value {
    type Output = Value;
    fn index(&self, key: &str) -> &Value {
        self.get(key).unwrap_or(&NULL)
    }
}

impl std::ops::Index<usize> for Value {
    type Output = Value;
    fn index(&self, i: usize) -> &Value {
        match self {
            Value::Array(a) => a.get(i).unwrap_or(&NULL),
            _ => &NULL,
        }
    }
}

/// As serde_json's: null becomes an object, a missing key is inserted as null; indexing
/// anything else by key is a bug in the engine (the callers check the type first).
impl std::ops::IndexMut<&str> for Value {
    fn index_mut(&mut self, key: &str) -> &mut Value {
        if self.is_null() {
            *self = Value::Object(Map::new());
        }
        match self {
            Value::Object(m) => {
                let i = match m.position(key) {
                    Some(i) => i,
                    None => {
                        m.entries.push((Str::from(key), Value::Null));
                        m.entries.len() - 1
                    }
                };
                &mut m.entries[i].1
            }
            other => panic!("cannot index a JSON {} by the key {key:?}", kind(other)),
        }
    }
}

impl std::ops::IndexMut<usize> for Value {
    fn index_mut(&mut self, i: usize) -> &mut Value {
        match self {
            Value::Array(a) => {
                let n = a.len();
                a.get_mut(i).unwrap_or_else(|| panic!("index {i} out of a JSON array of {n}"))
            }
            other => panic!("cannot index a JSON {} by the position {i}", kind(other)),
        }
    }
}

fn kind(v: &Value) -> &'static str {
    match v {
        Value::Null => "null",
        Value::Bool(_) => "boolean",
        Value::Number(_) => "number",
        Value::String(_) => "string",
        Value::Array(_) => "array",
        Value::Object(_) => "object",
    }
}

/// JSON text, as serde_json's `Value` writes itself.
impl fmt::Display for Value {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let text = if f.alternate() { serde_json::to_string_pretty(self) } else { serde_json::to_string(self) };
        f.write_str(&text.map_err(|_| fmt::Error)?)
    }
}

// --- Conversions ---------------------------------------------------------------------------

impl From<serde_json::Value> for Value {
    fn from(v: serde_json::Value) -> Value {
        match v {
            serde_json::Value::Null => Value::Null,
            serde_json::Value::Bool(b) => Value::Bool(b),
            serde_json::Value::Number(n) => Value::Number(n),
            serde_json::Value::String(s) => Value::String(Str::from(s)),
            // Into vectors of their own: `collect` would reuse serde_json's larger ones in place.
            serde_json::Value::Array(a) => {
                let mut items = Vec::with_capacity(a.len());
                items.extend(a.into_iter().map(Value::from));
                Value::Array(items)
            }
            // serde_json's map already holds each key once.
            serde_json::Value::Object(m) => {
                let mut entries = Vec::with_capacity(m.len());
                entries.extend(m.into_iter().map(|(k, v)| (Str::from(k), Value::from(v))));
                Value::Object(Map { entries })
            }
        }
    }
}

impl From<Value> for serde_json::Value {
    fn from(v: Value) -> serde_json::Value {
        match v {
            Value::Null => serde_json::Value::Null,
            Value::Bool(b) => serde_json::Value::Bool(b),
            Value::Number(n) => serde_json::Value::Number(n),
            Value::String(s) => serde_json::Value::String(s.into_string()),
            Value::Array(a) => serde_json::Value::Array(a.into_iter().map(serde_json::Value::from).collect()),
            Value::Object(m) => serde_json::Value::Object(
                m.entries.into_iter().map(|(k, v)| (k.into_string(), serde_json::Value::from(v))).collect(),
            ),
        }
    }
}

impl From<&Value> for serde_json::Value {
    fn from(v: &Value) -> serde_json::Value {
        serde_json::Value::from(v.clone())
    }
}

impl PartialEq<serde_json::Value> for Value {
    fn eq(&self, other: &serde_json::Value) -> bool {
        match (self, other) {
            (Value::Null, serde_json::Value::Null) => true,
            (Value::Bool(a), serde_json::Value::Bool(b)) => a == b,
            (Value::Number(a), serde_json::Value::Number(b)) => a == b,
            (Value::String(a), serde_json::Value::String(b)) => a.as_str() == b.as_str(),
            (Value::Array(a), serde_json::Value::Array(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x == y)
            }
            (Value::Object(a), serde_json::Value::Object(b)) => {
                a.len() == b.len() && a.iter().all(|(k, v)| b.get(k.as_str()).is_some_and(|w| v == w))
            }
            _ => false,
        }
    }
}

impl PartialEq<Value> for serde_json::Value {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<str> for Value {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == Some(other)
    }
}

impl PartialEq<&str> for Value {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == Some(*other)
    }
}

impl PartialEq<String> for Value {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == Some(other.as_str())
    }
}

impl PartialEq<Value> for &str {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl PartialEq<Value> for String {
    fn eq(&self, other: &Value) -> bool {
        other == self
    }
}

impl From<&str> for Value {
    fn from(s: &str) -> Value {
        Value::String(Str::from(s))
    }
}

impl From<String> for Value {
    fn from(s: String) -> Value {
        Value::String(Str::from(s))
    }
}

impl From<Str> for Value {
    fn from(s: Str) -> Value {
        Value::String(s)
    }
}

impl From<bool> for Value {
    fn from(b: bool) -> Value {
        Value::Bool(b)
    }
}

impl From<u64> for Value {
    fn from(n: u64) -> Value {
        Value::Number(n.into())
    }
}

impl From<usize> for Value {
    fn from(n: usize) -> Value {
        Value::Number((n as u64).into())
    }
}

impl From<i64> for Value {
    fn from(n: i64) -> Value {
        Value::Number(n.into())
    }
}

impl From<Vec<Value>> for Value {
    fn from(a: Vec<Value>) -> Value {
        Value::Array(a)
    }
}

impl From<Map> for Value {
    fn from(m: Map) -> Value {
        Value::Object(m)
    }
}

// --- serde ---------------------------------------------------------------------------------

impl Serialize for Value {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            Value::Null => s.serialize_unit(),
            Value::Bool(b) => s.serialize_bool(*b),
            Value::Number(n) => n.serialize(s),
            Value::String(t) => s.serialize_str(t),
            Value::Array(a) => {
                let mut seq = s.serialize_seq(Some(a.len()))?;
                for v in a {
                    seq.serialize_element(v)?;
                }
                seq.end()
            }
            Value::Object(m) => m.serialize(s),
        }
    }
}

impl Serialize for Map {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.len()))?;
        for (k, v) in self {
            map.serialize_entry(k.as_str(), v)?;
        }
        map.end()
    }
}

impl<'de> Deserialize<'de> for Value {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        d.deserialize_any(ValueVisitor)
    }
}

struct ValueVisitor;

impl<'de> Visitor<'de> for ValueVisitor {
    type Value = Value;

    fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("any JSON value")
    }

    fn visit_bool<E>(self, b: bool) -> Result<Value, E> {
        Ok(Value::Bool(b))
    }

    fn visit_i64<E>(self, n: i64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_u64<E>(self, n: u64) -> Result<Value, E> {
        Ok(Value::Number(n.into()))
    }

    fn visit_f64<E>(self, n: f64) -> Result<Value, E> {
        Ok(Number::from_f64(n).map_or(Value::Null, Value::Number))
    }

    fn visit_str<E>(self, s: &str) -> Result<Value, E> {
        Ok(Value::String(Str::from(s)))
    }

    fn visit_string<E>(self, s: String) -> Result<Value, E> {
        Ok(Value::String(Str::from(s)))
    }

    fn visit_none<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_some<D: Deserializer<'de>>(self, d: D) -> Result<Value, D::Error> {
        Deserialize::deserialize(d)
    }

    fn visit_unit<E>(self) -> Result<Value, E> {
        Ok(Value::Null)
    }

    fn visit_seq<A: SeqAccess<'de>>(self, mut seq: A) -> Result<Value, A::Error> {
        let mut items = Vec::with_capacity(seq.size_hint().unwrap_or(0).min(4096));
        while let Some(v) = seq.next_element()? {
            items.push(v);
        }
        items.shrink_to_fit();
        Ok(Value::Array(items))
    }

    fn visit_map<A: MapAccess<'de>>(self, mut map: A) -> Result<Value, A::Error> {
        let mut entries = Vec::with_capacity(map.size_hint().unwrap_or(0).min(4096));
        while let Some((k, v)) = map.next_entry::<Str, Value>()? {
            entries.push((k, v));
        }
        Ok(Value::Object(Map::from_entries(entries)))
    }
}

/// A `Value` from JSON written as serde_json's `json!` takes it.
#[macro_export]
macro_rules! json {
    ($($t:tt)+) => {
        $crate::json::Value::from(::serde_json::json!($($t)+))
    };
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trips_json_text_with_key_order_and_repeated_keys() {
        let text = r#"{"b":1,"a":[true,null,"x",2.5,-3],"b":{"z":"y","c":{}},"long":"a string longer than twenty-four bytes"}"#;
        let v: Value = serde_json::from_str(text).unwrap();
        assert_eq!(
            serde_json::to_string(&v).unwrap(),
            r#"{"b":{"z":"y","c":{}},"a":[true,null,"x",2.5,-3],"long":"a string longer than twenty-four bytes"}"#
        );
        let s: serde_json::Value = serde_json::from_str(text).unwrap();
        assert_eq!(v, s);
        assert_eq!(
            serde_json::to_string(&serde_json::Value::from(v.clone())).unwrap(),
            serde_json::to_string(&s).unwrap()
        );
        assert_eq!(Value::from(s), v);
    }

    #[test]
    fn repeated_keys_in_a_large_object_keep_first_place_and_last_value() {
        let mut text = String::from("{");
        for i in 0..40 {
            text.push_str(&format!("\"k{i}\":{i},"));
        }
        text.push_str("\"k3\":\"last\"}");
        let v: Value = serde_json::from_str(&text).unwrap();
        let s: serde_json::Value = serde_json::from_str(&text).unwrap();
        assert_eq!(serde_json::to_string(&v).unwrap(), serde_json::to_string(&s).unwrap());
        assert_eq!(v["k3"], Value::from("last"));
    }

    #[test]
    fn indexes_and_pointers_as_serde_json_does() {
        let mut v = json!({ "content": [{ "type": "text", "text": "hi" }], "a/b": { "~": 1 } });
        assert_eq!(v["content"][0]["text"].as_str(), Some("hi"));
        assert_eq!(v["missing"], Value::Null);
        assert_eq!(v["content"][9], Value::Null);
        assert_eq!(v.pointer("/content/0/type").and_then(Value::as_str), Some("text"));
        assert_eq!(v.pointer("/a~1b/~0").and_then(Value::as_u64), Some(1));
        assert_eq!(v.pointer("/content/01"), None);
        v["new"] = Value::from(true);
        if let Some(t) = v.pointer_mut("/content/0/text") {
            *t = Value::from("changed");
        }
        assert_eq!(v.to_string(), r#"{"content":[{"type":"text","text":"changed"}],"a/b":{"~":1},"new":true}"#);
        let m = v.as_object_mut().unwrap();
        assert_eq!(m.remove("content").map(|c| c.is_array()), Some(true));
        assert_eq!(m.keys().map(|k| k.as_str()).collect::<Vec<_>>(), ["a/b", "new"]);
    }

    #[test]
    fn objects_compare_without_order() {
        assert_eq!(json!({ "a": 1, "b": 2 }), json!({ "b": 2, "a": 1 }));
        assert_ne!(json!({ "a": 1 }), json!({ "a": 1.0 }));
    }

    #[test]
    fn a_value_is_small() {
        assert!(std::mem::size_of::<Value>() <= 32, "{}", std::mem::size_of::<Value>());
    }
}
