// Argument checks shared by the public functions: messages, encodings, option objects, the names
// of providers and presets. Throws a TypeError naming what is wrong; changes nothing.
'use strict'

const { describe } = require('./values.js')

const ENCODINGS = new Set(['o200k_base', 'cl100k_base'])

function checkMessagesArray(messages, fn) {
  if (!Array.isArray(messages)) {
    throw new TypeError(`${fn}: messages: expected an array of messages, got ${describe(messages)}`)
  }
}

function checkEncoding(encoding, at) {
  if (encoding !== undefined && !ENCODINGS.has(encoding)) {
    // A string by its text; anything else as describe names it (JSON would write NaN as null).
    const given = typeof encoding === 'string' ? JSON.stringify(encoding) : describe(encoding)
    throw new TypeError(`${at}: unknown encoding ${given}, expected "o200k_base" or "cl100k_base"`)
  }
  return encoding ?? 'o200k_base'
}

function checkOptionsObject(options, fn) {
  if (options === undefined) return {}
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${fn}: options: expected an object, got ${describe(options)}`)
  }
  return options
}

/**
 * A name the engine looks up (a provider, a preset): a string, else a TypeError listing `choices`
 * (`smartPreset: name: expected one of "conservative", …, got number 3`). An unknown string is
 * left to the engine, which names it and the choices.
 */
function checkName(value, at, choices) {
  if (typeof value !== 'string') throw new TypeError(`${at}: expected one of ${choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describe(value)}`)
  return value
}

module.exports = { checkMessagesArray, checkEncoding, checkOptionsObject, checkName }
