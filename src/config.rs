//! Reads a JSON config object (a provider's `config`, the manager's state, a price table) into
//! its typed form with serde, naming the path of a bad key in the error. Every layer that takes
//! settings from JavaScript reads them here; it never touches the history or runs anything.

use serde::Deserialize;

use crate::error::CondenseError;

/// Parses a config object with serde, naming the path of a bad key in the error.
pub fn parse_config<T: for<'de> Deserialize<'de>>(value: &serde_json::Value, prefix: &str) -> Result<T, CondenseError> {
    // JavaScript has one number type: a whole number past 2^31 (an epoch in milliseconds) crosses
    // as a float, which a whole-number field would refuse. Such floats are read as the integers
    // they are.
    let whole = whole_numbers(value);
    serde_path_to_error::deserialize(whole.as_ref().unwrap_or(value)).map_err(|e| {
        let path = e.path().to_string();
        let at = if path == "." { prefix.to_string() } else { format!("{prefix}.{path}") };
        CondenseError::InvalidOptions(format!("{at}: {}", e.inner()))
    })
}

/// `value` with every whole float (within the integers a double holds exactly) as an integer, when
/// it has one; `None` when it has none (nothing is copied then).
fn whole_numbers(value: &serde_json::Value) -> Option<serde_json::Value> {
    fn as_integer(f: f64) -> Option<serde_json::Number> {
        const EXACT: f64 = 9_007_199_254_740_992.0; // 2^53
        if f.fract() != 0.0 || f.abs() > EXACT {
            return None;
        }
        Some(if f < 0.0 { (f as i64).into() } else { (f as u64).into() })
    }
    fn has(value: &serde_json::Value) -> bool {
        match value {
            serde_json::Value::Number(n) => {
                n.as_f64().is_some_and(|f| !n.is_i64() && !n.is_u64() && as_integer(f).is_some())
            }
            serde_json::Value::Array(items) => items.iter().any(has),
            serde_json::Value::Object(map) => map.values().any(has),
            _ => false,
        }
    }
    fn convert(value: &mut serde_json::Value) {
        match value {
            serde_json::Value::Number(n) => {
                if let Some(i) = n.as_f64().filter(|_| !n.is_i64() && !n.is_u64()).and_then(as_integer) {
                    *n = i;
                }
            }
            serde_json::Value::Array(items) => items.iter_mut().for_each(convert),
            serde_json::Value::Object(map) => map.values_mut().for_each(convert),
            _ => {}
        }
    }
    if !has(value) {
        return None;
    }
    let mut copy = value.clone();
    convert(&mut copy);
    Some(copy)
}
