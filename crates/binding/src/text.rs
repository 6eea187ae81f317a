//! JavaScript values across the boundary, their strings in the engine's escaped form
//! (`context_condense::escape`: a lone surrogate, which Node-API's UTF-8 conversion turns into U+FFFD, as
//! U+FDD0 U+E800+n). In: a handle's `push` converts its messages itself ([`JsMessages`]): each
//! string and key read as UTF-8 and, when that holds U+FFFD, read again as UTF-16 and escaped;
//! for the asynchronous intake a string longer than a part is not read at all but left for
//! JavaScript to send in parts of bounded size (`textPart`, then `setText`), so no call holds the
//! JavaScript thread for a whole long string. Summary answers arrive as UTF-16. Out: every text
//! becomes a JavaScript string unescaped ([`JsText`], [`value_to_js`]) and every JSON text is
//! written unescaped (`escape::unescaped_json`). Converts only.

use napi::bindgen_prelude::*;
use napi::{check_status, sys};

use super::Message;
use context_condense::escape::{double_esc, escape_utf16, has_esc, has_replacement, utf16_units, Deferred, Step};

/// A text from the engine as a JavaScript string: unescaped (made from UTF-16 when it holds an
/// escape, from UTF-8 otherwise).
pub struct JsText(pub String);

impl TypeName for JsText {
    fn type_name() -> &'static str {
        "string"
    }

    fn value_type() -> ValueType {
        ValueType::String
    }
}

impl ToNapiValue for JsText {
    unsafe fn to_napi_value(env: napi::sys::napi_env, val: Self) -> Result<napi::sys::napi_value> {
        if has_esc(&val.0) {
            // SAFETY: called by napi with a live env, as for any string.
            unsafe { Utf16String::to_napi_value(env, Utf16String::from(utf16_units(&val.0))) }
        } else {
            // SAFETY: as above.
            unsafe { String::to_napi_value(env, val.0) }
        }
    }
}

/// A serde_json value as a JavaScript value, strings and keys unescaped.
///
/// # Safety
/// `env` must be the live env of the current call.
pub unsafe fn value_to_js(env: napi::sys::napi_env, value: &serde_json::Value) -> Result<napi::sys::napi_value> {
    use napi::sys;
    use serde_json::Value as V;
    // SAFETY (every call below): `env` is live, and each value made here is used within the call.
    unsafe {
        match value {
            V::Null => Null::to_napi_value(env, Null),
            V::Bool(b) => bool::to_napi_value(env, *b),
            V::Number(n) => <&serde_json::Number>::to_napi_value(env, n),
            V::String(s) => JsText::to_napi_value(env, JsText(s.clone())),
            V::Array(items) => {
                let mut arr = std::ptr::null_mut();
                check_status!(sys::napi_create_array_with_length(env, items.len(), &mut arr))?;
                for (i, v) in items.iter().enumerate() {
                    let item = value_to_js(env, v)?;
                    check_status!(sys::napi_set_element(env, arr, i as u32, item))?;
                }
                Ok(arr)
            }
            V::Object(map) => {
                let mut obj = std::ptr::null_mut();
                check_status!(sys::napi_create_object(env, &mut obj))?;
                for (k, v) in map {
                    let key = JsText::to_napi_value(env, JsText(k.clone()))?;
                    let item = value_to_js(env, v)?;
                    check_status!(sys::napi_set_property(env, obj, key, item))?;
                }
                Ok(obj)
            }
        }
    }
}

/// Values one message may hold, and how deep, as Node-API's own conversion allows (its errors'
/// words too: JavaScript splits a chunk that holds too many).
const MAX_VALUES: usize = 1_000_000;
const MAX_DEPTH: u32 = 128;

/// A chunk of messages as JavaScript passed it, converted by [`JsMessages::convert`].
pub struct JsMessages {
    env: sys::napi_env,
    value: sys::napi_value,
}

impl FromNapiValue for JsMessages {
    unsafe fn from_napi_value(env: sys::napi_env, value: sys::napi_value) -> Result<Self> {
        Ok(JsMessages { env, value })
    }
}

impl TypeName for JsMessages {
    fn type_name() -> &'static str {
        "object[]"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

/// The long strings a push left for JavaScript to send in parts, as the JavaScript strings
/// themselves (in the order `setText` numbers them).
pub struct LongStrings(Vec<sys::napi_value>);

impl TypeName for LongStrings {
    fn type_name() -> &'static str {
        "string[]"
    }

    fn value_type() -> ValueType {
        ValueType::Object
    }
}

impl ToNapiValue for LongStrings {
    unsafe fn to_napi_value(env: sys::napi_env, val: Self) -> Result<sys::napi_value> {
        let mut arr = std::ptr::null_mut();
        // SAFETY: a live env; the strings were given to this same call, so they are still valid.
        unsafe {
            check_status!(sys::napi_create_array_with_length(env, val.0.len(), &mut arr))?;
            for (i, s) in val.0.into_iter().enumerate() {
                check_status!(sys::napi_set_element(env, arr, i as u32, s))?;
            }
        }
        Ok(arr)
    }
}

/// What converting a chunk leaves besides its messages: the long strings, with where they go.
struct Converting {
    env: sys::napi_env,
    /// Strings longer than this (in UTF-16 units) are left as "" for JavaScript to send in parts.
    long: Option<usize>,
    strings: Vec<sys::napi_value>,
    deferred: Vec<Deferred>,
    /// The message being converted, and the path (in the engine's form) to the value at hand.
    message: usize,
    path: Vec<Step>,
    values: usize,
}

impl JsMessages {
    /// The messages in the engine's escaped form: every string read as UTF-8 (Node-API's fast
    /// path) and, when that holds U+FFFD (a lone surrogate, or the character itself), read again
    /// as UTF-16 and escaped; keys alike. With `long_units`, a longer string is not read at all:
    /// it is left as "" and answered, for JavaScript to send in parts (`Incoming` takes them).
    pub fn convert(&self, long_units: Option<u32>) -> Result<(Vec<Message>, Vec<Deferred>, LongStrings)> {
        let env = self.env;
        let mut c = Converting {
            env,
            long: long_units.map(|n| n as usize),
            strings: Vec::new(),
            deferred: Vec::new(),
            message: 0,
            path: Vec::new(),
            values: 0,
        };
        // SAFETY: `env` and `value` were handed to this call by Node-API and are used within it.
        let messages = unsafe {
            let mut is_array = false;
            check_status!(sys::napi_is_array(env, self.value, &mut is_array))?;
            if !is_array {
                return Err(Error::new(Status::InvalidArg, "push: expected an array of messages"));
            }
            let mut len = 0u32;
            check_status!(sys::napi_get_array_length(env, self.value, &mut len))?;
            let mut out = Vec::with_capacity(len as usize);
            for i in 0..len {
                let mut item = std::ptr::null_mut();
                check_status!(sys::napi_get_element(env, self.value, i, &mut item))?;
                c.message = i as usize;
                c.values = 0;
                out.push(c.value(item, MAX_DEPTH)?);
            }
            out
        };
        Ok((messages, c.deferred, LongStrings(c.strings)))
    }
}

impl Converting {
    /// # Safety
    /// `v` is a live value of this call's env.
    unsafe fn value(&mut self, v: sys::napi_value, depth: u32) -> Result<Message> {
        if self.values >= MAX_VALUES {
            return Err(Error::new(Status::InvalidArg, "Exceeded maximum JSON value count"));
        }
        self.values += 1;
        let env = self.env;
        let mut kind = 0;
        // SAFETY (all below): as the function's.
        unsafe {
            check_status!(sys::napi_typeof(env, v, &mut kind))?;
            match kind {
                sys::ValueType::napi_string => self.string(v),
                sys::ValueType::napi_object => {
                    if depth == 0 {
                        return Err(Error::new(Status::InvalidArg, "Exceeded maximum JSON nesting depth"));
                    }
                    let mut is_array = false;
                    check_status!(sys::napi_is_array(env, v, &mut is_array))?;
                    if is_array {
                        let mut len = 0u32;
                        check_status!(sys::napi_get_array_length(env, v, &mut len))?;
                        let mut items = Vec::with_capacity(len as usize);
                        for i in 0..len {
                            let mut item = std::ptr::null_mut();
                            check_status!(sys::napi_get_element(env, v, i, &mut item))?;
                            self.path.push(Step::Index(i as usize));
                            let value = self.value(item, depth - 1);
                            self.path.pop();
                            items.push(value?);
                        }
                        Ok(Message::Array(items))
                    } else {
                        self.object(v, depth)
                    }
                }
                // Numbers, booleans, null, BigInts, and the values JSON has no form for (refused
                // with Node-API's own words): as Node-API converts them.
                _ => serde_json::Value::from_napi_value(env, v).map(Message::from),
            }
        }
    }

    /// # Safety
    /// `v` is a live object of this call's env.
    unsafe fn object(&mut self, v: sys::napi_value, depth: u32) -> Result<Message> {
        let env = self.env;
        // SAFETY (all below): as the function's.
        unsafe {
            // Its enumerable string keys, its prototypes' too, as Node-API's conversion takes them.
            let mut names = std::ptr::null_mut();
            check_status!(sys::napi_get_property_names(env, v, &mut names))?;
            let mut len = 0u32;
            check_status!(sys::napi_get_array_length(env, names, &mut len))?;
            let mut entries: Vec<(context_condense::json::Str, Message)> = Vec::with_capacity(len as usize);
            for i in 0..len {
                let mut key = std::ptr::null_mut();
                check_status!(sys::napi_get_element(env, names, i, &mut key))?;
                let mut item = std::ptr::null_mut();
                check_status!(sys::napi_get_property(env, v, key, &mut item))?;
                let mut kind = 0;
                check_status!(sys::napi_typeof(env, item, &mut kind))?;
                if kind == sys::ValueType::napi_undefined {
                    continue;
                }
                let key = exact_string(env, key)?;
                self.path.push(Step::Key(key.clone()));
                let value = self.value(item, depth - 1);
                self.path.pop();
                entries.push((key.into(), value?));
            }
            Ok(Message::Object(entries.into_iter().collect()))
        }
    }

    /// # Safety
    /// `v` is a live string of this call's env.
    unsafe fn string(&mut self, v: sys::napi_value) -> Result<Message> {
        // SAFETY: as the function's.
        unsafe {
            if let Some(long) = self.long {
                let mut units = 0;
                // Its length alone: no copy.
                check_status!(sys::napi_get_value_string_utf16(self.env, v, std::ptr::null_mut(), 0, &mut units))?;
                if units > long {
                    self.deferred.push(Deferred { message: self.message, path: self.path.clone() });
                    self.strings.push(v);
                    return Ok(Message::String(Default::default()));
                }
            }
            exact_string(self.env, v).map(|s| Message::String(s.into()))
        }
    }
}

/// A JavaScript string in the engine's form.
///
/// # Safety
/// `v` is a live string of `env`.
unsafe fn exact_string(env: sys::napi_env, v: sys::napi_value) -> Result<String> {
    // SAFETY: as the function's.
    unsafe {
        let s = String::from_napi_value(env, v)?;
        if has_replacement(&s) {
            let units = Utf16String::from_napi_value(env, v)?;
            return Ok(escape_utf16(&units));
        }
        Ok(if has_esc(&s) { double_esc(&s) } else { s })
    }
}
