// Token counting on the JavaScript side: the same definition as the engine's (a test checks both
// agree), a cache keyed by the strings themselves (bounded by entries and characters), and a sliced
// walk that gives the event loop back. Reads messages; never changes them.
'use strict'

const native = require('./native.js')
const { DEFAULT_ENCODING } = require('./registry.js')
const { describe } = require('./values.js')
const scheduler = require('./scheduler.js')
const openaiFormat = require('./openai-format.js')
const { unsupportedProblem, inputTooDeep } = require('./crossing.js')
const { checkEncoding, checkOptionsObject } = require('./checks.js')

/** The keys the options of countTokens, countTokensAsync and analyze may hold (CountOptions). */
const COUNT_OPTIONS = Object.freeze(['encoding', 'format'])

/**
 * `input` is a string or an array (its elements are checked as they are walked), else a
 * TypeError naming the parameter as the caller knows it (`name`: "input" for countTokens).
 */
function checkInput(input, fn, name) {
  if (typeof input !== 'string' && !Array.isArray(input)) {
    throw new TypeError(`${fn}: ${name}: expected a string or an array of messages, got ${describe(input)}`)
  }
}

// ---------------------------------------------------------------------------------------------
// Token counting. One definition, mirrored from src/tokens/ (a test checks both agree):
// text, thinking text, tool name + JSON of tool input, tool result text; images by Roo Code's
// estimate ceil(sqrt(base64 length)), 300 without inline data; anything else 0.

/** Per encoding: string -> token count. Bounded by entries and by characters held. */
const tokenCache = new Map()
const CACHE_MAX_ENTRIES = 200_000
const CACHE_MAX_CHARS = 64 * 1024 * 1024
let cacheChars = 0

function cacheFor(encoding) {
  let cache = tokenCache.get(encoding)
  if (!cache) {
    cache = new Map()
    tokenCache.set(encoding, cache)
  }
  return cache
}

function remember(cache, text, count) {
  // A text larger than an eighth of the budget would mostly evict the others: not kept.
  if (text.length > CACHE_MAX_CHARS / 8) return
  if (cache.size >= CACHE_MAX_ENTRIES || cacheChars + text.length > CACHE_MAX_CHARS) {
    for (const c of tokenCache.values()) c.clear()
    cacheChars = 0
  }
  cache.set(text, count)
  cacheChars += text.length
}

function imageTokens(block) {
  const data = block.source && block.source.data
  return typeof data === 'string' ? Math.ceil(Math.sqrt(data.length)) : 300
}

/** Walks one block, handing texts to `text` and fixed amounts to `fixed`. */
function blockParts(block, text, fixed) {
  if (block === null || typeof block !== 'object') return
  switch (block.type) {
    case 'text':
      if (typeof block.text === 'string') text(block.text)
      break
    case 'thinking':
      if (typeof block.thinking === 'string') text(block.thinking)
      break
    case 'tool_use': {
      const name = typeof block.name === 'string' ? block.name : ''
      const input = block.input === undefined ? '' : JSON.stringify(block.input)
      // As deep as the other entry points take, no deeper.
      if (inputTooDeep(block.input, input)) throw new Error('a tool input nested too deep')
      text(name + input)
      break
    }
    case 'tool_result':
      if (typeof block.content === 'string') text(block.content)
      else if (Array.isArray(block.content)) for (const b of block.content) blockParts(b, text, fixed)
      break
    case 'image':
      fixed(imageTokens(block))
      break
    default:
  }
}

/** Counts a list of strings through the cache, synchronously. */
function countThroughCache(texts, encoding) {
  const cache = cacheFor(encoding)
  let total = 0
  const misses = []
  for (const t of texts) {
    const n = cache.get(t)
    if (n === undefined) misses.push(t)
    else total += n
  }
  if (misses.length === 0) return total
  const counts = native.countTexts(misses, encoding)
  for (let i = 0; i < misses.length; i++) {
    remember(cache, misses[i], counts[i])
    total += counts[i]
  }
  return total
}

/**
 * Counting through the scheduler: the walk with its cache look-ups, the crossings of the missed
 * texts into the engine (in batches, counted on its threads) and the remembering are all slices, so
 * the event loop is free throughout. The one cost no slicing can split: Node-API copies each string
 * to UTF-8 as it crosses, so a single huge text holds the loop for that copy (1-2 ms per MB
 * measured). With `each` (an empty array), each message's count is filled in too.
 */
/** Messages walked in one go (a slice's first size): fewer are walked without yielding. */
const WALK_AT_ONCE = 64
/** Characters of uncounted text counted on the calling thread (well under a millisecond). */
const COUNT_AT_ONCE_CHARS = 32 * 1024

async function countTokensSliced(input, encoding, fn, each, name = 'input', offset = 0) {
  const cache = cacheFor(encoding)
  let total = 0
  const misses = []
  // With `each`: the message each missed text belongs to.
  const owners = each ? [] : undefined
  let current = 0
  const look = (t) => {
    const n = cache.get(t)
    if (n === undefined) {
      misses.push(t)
      if (owners) owners.push(current)
    } else {
      total += n
      if (each) each[current] += n
    }
  }
  checkInput(input, fn, name)
  if (typeof input === 'string') look(input)
  else {
    const addFixed = (n) => {
      total += n
      if (each) each[current] += n
    }
    const at = each
      ? (i) => {
          current = i
          each.push(0)
        }
      : undefined
    // A few messages are walked at once (as one slice would), a history in slices.
    if (input.length <= WALK_AT_ONCE) collectRange(input, 0, input.length, fn, name, look, addFixed, at, offset)
    else {
      let i = 0
      await scheduler.run(
        (size) => {
          const stop = Math.min(input.length, i + size)
          collectRange(input, i, stop, fn, name, look, addFixed, at, offset)
          i = stop
          return i >= input.length
        },
        undefined,
        WALK_AT_ONCE,
      )
    }
  }
  if (misses.length === 0) return total
  // Little to count is counted at once, here: a trip to the engine's threads and back costs more.
  let missed = 0
  for (const t of misses) if ((missed += t.length) > COUNT_AT_ONCE_CHARS) break
  if (missed <= COUNT_AT_ONCE_CHARS) {
    const counts = native.countTexts(misses, encoding)
    for (let j = 0; j < misses.length; j++) {
      remember(cache, misses[j], counts[j])
      total += counts[j]
      if (owners) each[owners[j]] += counts[j]
    }
    return total
  }
  // At most NATIVE_BATCHES batches counting at once (each sized to cross in about a slice); each
  // batch's counts remembered, in slices, while the next ones count.
  const crossing = { size: 256 }
  const inFlight = []
  let k = 0
  const issue = () =>
    scheduler.run(
      (size) => {
        const stop = Math.min(misses.length, k + size)
        inFlight.push({ from: k, counted: native.countTextsAsync(misses.slice(k, stop), encoding) })
        k = stop
        return true
      },
      undefined,
      crossing,
    )
  while (k < misses.length || inFlight.length > 0) {
    while (k < misses.length && inFlight.length < scheduler.NATIVE_BATCHES) await issue()
    const batch = inFlight.shift()
    const counts = await batch.counted
    while (k < misses.length && inFlight.length < scheduler.NATIVE_BATCHES) await issue()
    let j = 0
    await scheduler.run(
      (size) => {
        const stop = Math.min(counts.length, j + size)
        for (; j < stop; j++) {
          remember(cache, misses[batch.from + j], counts[j])
          total += counts[j]
          if (owners) each[owners[batch.from + j]] += counts[j]
        }
        return j >= counts.length
      },
      undefined,
      256,
    )
  }
  return total
}

/**
 * Hands the texts of messages[from..to) to `text` and their fixed amounts to `addFixed` (telling
 * `at`, when given, the index of each message before its parts); a message that is not an object
 * is named as `<name>[offset + i]` (`input` is the caller's array from index `offset`).
 */
function collectRange(input, from, to, fn, name, text, addFixed, at, offset = 0) {
  for (let i = from; i < to; i++) {
    if (at) at(i)
    const m = input[i]
    if (m === null || typeof m !== 'object') {
      throw new TypeError(`${fn}: ${name}[${offset + i}]: expected a message object, got ${describe(m)}`)
    }
    if (typeof m.content === 'string') text(m.content)
    else if (Array.isArray(m.content)) {
      try {
        for (const b of m.content) blockParts(b, text, addFixed)
      } catch (e) {
        // JSON.stringify of a tool input: too deep, a cycle, a BigInt.
        throw new TypeError(`${fn}: ${unsupportedProblem([m], offset + i, e && e.message, name)}`)
      }
    }
  }
}

function collectTexts(input, fn, name) {
  checkInput(input, fn, name)
  if (typeof input === 'string') return { texts: [input], fixed: 0 }
  const texts = []
  let fixed = 0
  const text = (t) => texts.push(t)
  collectRange(input, 0, input.length, fn, name, text, (n) => {
    fixed += n
  })
  return { texts, fixed }
}

function countTokens(input, options) {
  const routed = openaiFormat.route(input, options, 'countTokens') // options.format: see condense
  if (routed) return countTokens(routed.messages, routed.options)
  const opts = checkOptionsObject(options, 'countTokens', COUNT_OPTIONS)
  const encoding = checkEncoding(opts.encoding, 'countTokens: options.encoding')
  const { texts, fixed } = collectTexts(input, 'countTokens', 'input')
  return fixed + countThroughCache(texts, encoding)
}

async function countTokensAsync(input, options) {
  const routed = openaiFormat.route(input, options, 'countTokensAsync') // options.format: see condense
  if (routed) return countTokensAsync(routed.messages, routed.options)
  const opts = checkOptionsObject(options, 'countTokensAsync', COUNT_OPTIONS)
  const encoding = checkEncoding(opts.encoding, 'countTokensAsync: options.encoding')
  return countTokensSliced(input, encoding, 'countTokensAsync')
}

/**
 * Each message's tokens, counted as `countTokensAsync` counts (in slices, the texts not cached
 * counted off the JavaScript thread): what the library's own per-message counts use.
 */
async function countEachAsync(messages, encoding = DEFAULT_ENCODING, fn = 'countTokensAsync') {
  const each = []
  await countTokensSliced(messages, encoding, fn, each, 'messages')
  return each
}

/**
 * Tokens of `messages[offset..]` of a history the library was given as `messages` (the slice
 * counted is passed), counted as `countTokensAsync` counts; a message that is not an object is
 * named by its place in the caller's array (`condenseIfNeeded: messages[7]: …`).
 */
function countMessagesAsync(messages, fn, offset = 0) {
  return countTokensSliced(messages, DEFAULT_ENCODING, fn, undefined, 'messages', offset)
}

/** Empties both token-count caches (this file's and the engine's). */
function clearTokenCache() {
  for (const c of tokenCache.values()) c.clear()
  cacheChars = 0
  native.clearTokenCache()
}

module.exports = { countTokens, countTokensAsync, countEachAsync, countMessagesAsync, clearTokenCache, COUNT_OPTIONS }
