// How the JavaScript side names a value in its error messages, and the one object test it uses.
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

/** A plain object: not null, not an array. */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

module.exports = { describe, isObject }
