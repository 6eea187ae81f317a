// How the JavaScript side names a value in its error messages, the one object test it uses, the
// whole-number check of options, the check of every timeout a caller gives (the longest a timer
// can wait), and the freezing of data handed out to every caller.
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
  if (typeof value === 'object') return 'an object'
  // A long string is named by its start and length: an error message stays readable and small.
  if (typeof value === 'string' && value.length > DESCRIBED_CHARS)
    return `a string of ${value.length} characters starting ${JSON.stringify(value.slice(0, 40))}`
  return `${typeof value} ${JSON.stringify(value)}`
}

/** Longer strings are not quoted whole in error messages. */
const DESCRIBED_CHARS = 200

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

/**
 * `value` when it is a token count a caller gives (`prevContextTokens`): a whole number from 0 to
 * 2^53-1, the numbers a double holds exactly; else a TypeError `<where>: expected a whole number >=
 * 0, got number 1.5`. The engine reads a token count by the same rule (src/condense.rs
 * `token_count`); every JavaScript entry that takes one checks it here.
 */
function tokenCount(value, where) {
  return wholeNumber(value, where, 0)
}

/**
 * The longest delay a Node.js timer waits: 2^31-1 ms, about 24.8 days. `setTimeout` fires a longer
 * one after 1 ms (with only a warning), so a timeout past it would end every call at once.
 */
const MAX_TIMER_MS = 2 ** 31 - 1

/**
 * `value` when it is a timeout a timer can keep: a whole number of milliseconds from `min` to
 * MAX_TIMER_MS (`min` 0 where 0 means "no timeout"); else a TypeError naming `where`:
 * `<where>: expected a whole number of milliseconds from 1 to 2147483647 (the longest a Node.js
 * timer waits, about 24.8 days), got number 2147483648`. Every timeout of the package that a caller
 * sets is checked here.
 */
function checkTimeoutMs(value, where, min = 1) {
  if (typeof value !== 'number' || !Number.isInteger(value) || value < min || value > MAX_TIMER_MS) {
    const from = min === 0 ? '0 (no timeout)' : String(min)
    throw new TypeError(
      `${where}: expected a whole number of milliseconds from ${from} to ${MAX_TIMER_MS} (the longest a Node.js timer waits, about 24.8 days), got ${describe(value)}`,
    )
  }
  return value
}

/**
 * `value` with it and every object and array reachable from it frozen: data the package hands out
 * to every caller (exported constants, catalogues kept for reuse) cannot be changed by one of
 * them for the others (an edit throws a TypeError in strict code and changes nothing otherwise).
 */
function deepFreeze(value) {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value)
    for (const v of Object.values(value)) deepFreeze(v)
  }
  return value
}

/** A plain object: not null, not an array. */
const isObject = (v) => v !== null && typeof v === 'object' && !Array.isArray(v)

module.exports = { describe, isObject, wholeNumber, tokenCount, checkTimeoutMs, MAX_TIMER_MS, deepFreeze }
