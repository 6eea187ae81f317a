// Argument checks shared by the public functions: messages, encodings, option objects and the keys
// they may hold, the names of providers and presets, and the kinds of single option values
// (strings, booleans, functions, objects). Each throws a TypeError naming the place of what is
// wrong, as the caller's parameters are named in the .d.ts files (`countTokens: input: …`,
// `condenseIfNeeded: context.taskId: …`); none changes what it is given.
'use strict'

const { describe, isObject } = require('./values.js')
const { ENCODINGS: ENCODING_NAMES, DEFAULT_ENCODING } = require('./registry.js')

const ENCODINGS = new Set(ENCODING_NAMES)

/** `messages` is an array, else a TypeError: `<fn>: <name>: expected an array of messages, got …`. */
function checkMessagesArray(messages, fn, name = 'messages') {
  if (!Array.isArray(messages)) {
    throw new TypeError(`${fn}: ${name}: expected an array of messages, got ${describe(messages)}`)
  }
}

/**
 * Every element of `messages` (an array) is a message object, else a TypeError naming the first
 * that is not: `<fn>: messages[2]: expected a message object, got null` (a hole in a sparse array
 * is `undefined`). For the functions that hold or walk the messages themselves; those that hand
 * them to the engine report such a message in their answer instead.
 */
function checkMessageObjects(messages, fn, name = (i) => `messages[${i}]`) {
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (!isObject(m)) throw new TypeError(`${fn}: ${name(i)}: expected a message object, got ${describe(m)}`)
  }
}

function checkEncoding(encoding, at) {
  if (encoding !== undefined && !ENCODINGS.has(encoding)) {
    // A string by its text; anything else as describe names it (JSON would write NaN as null).
    const given = typeof encoding === 'string' ? JSON.stringify(encoding) : describe(encoding)
    throw new TypeError(`${at}: unknown encoding ${given}, expected ${quotedList(ENCODING_NAMES)}`)
  }
  return encoding ?? DEFAULT_ENCODING
}

/** `"a", "b" or "c"`: names quoted and listed, as the engine's errors list them. */
function quotedList(names) {
  const quoted = names.map((n) => JSON.stringify(n))
  return quoted.length < 2 ? quoted.join('') : `${quoted.slice(0, -1).join(', ')} or ${quoted[quoted.length - 1]}`
}

/**
 * The one rule for the keys of an options object (every options object, config and context the
 * library reads in JavaScript goes through it): a key that is not in `known` is refused, naming it
 * and the keys there are: `<where>.<key>: unknown key, expected one of a, b, c`. A misspelt key
 * would otherwise be ignored without a word. `where` names the object (`analyze: options`).
 */
function checkKnownKeys(object, known, where) {
  for (const key of Object.keys(object)) {
    if (!known.includes(key)) throw new TypeError(`${where}.${key}: unknown key, expected one of ${known.join(', ')}`)
  }
  return object
}

/**
 * An optional options object (`{}` when absent) with only `known` keys: anything but a plain
 * object (null, an array, a string) is refused as `<fn>: options: expected an object, got …`, and
 * an unknown key as `checkKnownKeys` refuses it.
 */
function checkOptionsObject(options, fn, known, name = 'options') {
  if (options === undefined) return {}
  if (!isObject(options)) throw new TypeError(`${fn}: ${name}: expected an object, got ${describe(options)}`)
  return checkKnownKeys(options, known, `${fn}: ${name}`)
}

/** `value` when it is a plain object, else a TypeError: `<where>: expected <what>, got …`. */
function checkObject(value, where, what = 'an object') {
  if (!isObject(value)) throw new TypeError(`${where}: expected ${what}, got ${describe(value)}`)
  return value
}

/**
 * Optional values of one kind: undefined (absent) is taken, anything else of another kind (null
 * included: absent is the way to leave an option out) is refused naming `where`. Each answers the
 * value.
 */
function optionalString(value, where) {
  if (value !== undefined && typeof value !== 'string') throw new TypeError(`${where}: expected a string, got ${describe(value)}`)
  return value
}

function optionalBoolean(value, where) {
  if (value !== undefined && typeof value !== 'boolean') throw new TypeError(`${where}: expected true or false, got ${describe(value)}`)
  return value
}

function optionalFunction(value, where, what = 'a function') {
  if (value !== undefined && typeof value !== 'function') throw new TypeError(`${where}: expected ${what}, got ${describe(value)}`)
  return value
}

function optionalObject(value, where, what = 'an object') {
  if (value !== undefined) checkObject(value, where, what)
  return value
}

/**
 * A name the engine looks up (a provider, a preset): a string, else a TypeError listing `choices`
 * (`smartPreset: name: expected one of <the presets, quoted>, got number 3`). An unknown string is
 * left to the engine, which names it and the choices.
 */
function checkName(value, at, choices) {
  if (typeof value !== 'string') throw new TypeError(`${at}: expected one of ${choices.map((c) => JSON.stringify(c)).join(', ')}, got ${describe(value)}`)
  return value
}

module.exports = {
  checkMessagesArray,
  checkMessageObjects,
  checkEncoding,
  checkKnownKeys,
  checkOptionsObject,
  checkObject,
  optionalString,
  optionalBoolean,
  optionalFunction,
  optionalObject,
  checkName,
}
