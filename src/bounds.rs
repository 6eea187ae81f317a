//! The ranges numeric options take beyond what their type allows (a percentage, a price), each
//! written once: the JSON Schema of a config carries it as `minimum`/`maximum` (what settings
//! panels check a value against), and the engine's check of a config reads the same definition,
//! so the two cannot disagree. Definitions and those two readings only: it parses no config.

use crate::error::CondenseError;

/// The numbers an option accepts: finite, at least `min`, at most `max` when there is one.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Bounds {
    pub min: f64,
    pub max: Option<f64>,
    /// What the option expects, in an error's words.
    pub expected: &'static str,
}

/// A share of something, in percent.
pub const PERCENT: Bounds = Bounds { min: 0.0, max: Some(100.0), expected: "a percentage from 0 to 100" };

/// A price in dollars per million tokens.
pub const PRICE: Bounds = Bounds { min: 0.0, max: None, expected: "a price >= 0 in dollars per million tokens" };

impl Bounds {
    /// Whether `v` is within the bounds (NaN and the infinities never are).
    pub fn contains(&self, v: f64) -> bool {
        v.is_finite() && v >= self.min && self.max.is_none_or(|max| v <= max)
    }

    /// `Ok` when `v` is within the bounds, else an invalid-options error naming `at`.
    pub fn check(&self, at: &str, v: f64) -> Result<(), CondenseError> {
        if self.contains(v) {
            Ok(())
        } else {
            Err(CondenseError::InvalidOptions(format!("{at}: expected {}, got {v}", self.expected)))
        }
    }

    /// Writes the bounds into a schema as `minimum` and `maximum`.
    pub fn write(&self, schema: &mut schemars::Schema) {
        schema.insert("minimum".into(), number(self.min));
        if let Some(max) = self.max {
            schema.insert("maximum".into(), number(max));
        }
    }
}

/// A whole bound as an integer (`0`, not `0.0`), as a reader of the schema would write it.
fn number(v: f64) -> serde_json::Value {
    if v.fract() == 0.0 && v.abs() < 9_007_199_254_740_992.0 {
        serde_json::Value::from(v as i64)
    } else {
        serde_json::Value::from(v)
    }
}

/// The schema transform of a percentage field (`#[schemars(transform = bounds::percent)]`).
pub fn percent(schema: &mut schemars::Schema) {
    PERCENT.write(schema)
}

/// The schema transform of a price field.
pub fn price(schema: &mut schemars::Schema) {
    PRICE.write(schema)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_is_in_the_schema_and_in_the_check() {
        let mut schema = schemars::json_schema!({ "type": ["number", "null"] });
        PERCENT.write(&mut schema);
        assert_eq!(schema.get("minimum"), Some(&serde_json::json!(0)));
        assert_eq!(schema.get("maximum"), Some(&serde_json::json!(100)));
        for (v, ok) in [(0.0, true), (100.0, true), (-0.01, false), (100.01, false), (f64::NAN, false)] {
            assert_eq!(PERCENT.check("x", v).is_ok(), ok, "{v}");
        }
        let e = PERCENT.check("options.config.targetReductionPercent", 150.0).expect_err("out of range");
        assert_eq!(
            e.to_string(),
            "invalid options: options.config.targetReductionPercent: expected a percentage from 0 to 100, got 150"
        );
        assert!(PRICE.check("p", f64::INFINITY).is_err());
        assert!(PRICE.check("p", 1e9).is_ok());
    }
}
