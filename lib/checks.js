// Argument checks shared by the public functions: messages, encodings, option objects. Throws a
// TypeError naming what is wrong; changes nothing.
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
    throw new TypeError(`${at}: unknown encoding ${JSON.stringify(encoding)}, expected "o200k_base" or "cl100k_base"`)
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

module.exports = { checkMessagesArray, checkEncoding, checkOptionsObject }
