// How the JavaScript side names a value in its error messages, the one object test it uses, and
// the whole-number check of options.
// Internal to the package (no exports entry of its own); touches nothing it is given.
'use strict'

/** A value as an error message names it: `null`, `an array`, `an object`, `a function`, `string "x"`. */
function describe(value) {
  if (value === null) return 'null'
  if (value === undefined) return 'undefined'
  if (Array.isArray(value)) return 'an array'
  if (typeof value === 'function') return 'a function'
  if (typeof value === 'bigint') return `bigint ${value}n` // JSON has no form for it
  if (typeof value === 'number') return `number ${value}` // NaN and Infinity by name
  if (typeof value === 'symbol') return 'a symbol'
  return typeof value === 'object' ? 'an object' : `${typeof value} ${JSON.stringify(value)}`
}

/**
 * `value` when it is a whole number from `min` to `max`; else a TypeError naming `where`:
 * `<where>: expected a whole number >= 1, got string "3"`.
 */
function wholeNumber(value, where, min, max = Number.MAX_SAFE_INTEGER) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`
    throw new TypeError(`${where}: expected a whole number ${range}, got ${describe(value)}`)
  }
  return value
}

/** A plain object: not null, not an array. */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

module.exports = { describe, isObject, wholeNumber }
