// Calls to the host, bounded: the API handler's stream and countTokens under `timeoutMs` and the abort
// signal, numbers the host gives checked before use, usage priced by the engine, and a failure as the
// error text of a result. Never changes a message.
'use strict'

const native = require('../native.js')
const lib = require('../index.js')
const { describe, isObject } = require('../values.js')
const { checkMessagesArray } = require('../checks.js')
const { YIELD_EVERY_MS, YIELD_EVERY_CHUNKS, message } = require('./options.js')

// ---------------------------------------------------------------------------------------------
// Host calls, bounded by the timeout and the signal.

const finite = (x) => typeof x === 'number' && Number.isFinite(x)
const isHandler = (h) => Boolean(h) && typeof h.createMessage === 'function'

/** An error that ends a condensation with a known message (never shown as a raw exception). */
class HostError extends Error {
  constructor(kind, detail) {
    super(detail)
    this.kind = kind
  }
}

/** `promise` or a HostError when the signal fires ("aborted") or `timeoutMs` passes ("timeout"). */
function bounded(promise, o, what) {
  const signal = o.signal
  if (signal && signal.aborted) return Promise.reject(new HostError('aborted', `${what} was aborted`))
  return new Promise((resolve, reject) => {
    let done = false
    const finish = (fn, v) => {
      if (done) return
      done = true
      clearTimeout(timer)
      if (signal) signal.removeEventListener('abort', onAbort)
      fn(v)
    }
    const onAbort = () => finish(reject, new HostError('aborted', `${what} was aborted`))
    const timer = setTimeout(() => finish(reject, new HostError('timeout', `${what} did not answer within ${o.timeoutMs} ms`)), o.timeoutMs)
    if (signal) signal.addEventListener('abort', onAbort, { once: true })
    Promise.resolve(promise).then(
      (v) => finish(resolve, v),
      (e) => finish(reject, e),
    )
  })
}

const yieldToLoop = () => new Promise((resolve) => setImmediate(resolve))

/** A value as an error names it ("number NaN", "string \"39000\"", "undefined"). */
const shown = (v) => (typeof v === 'number' ? `number ${String(v)}` : v === undefined ? 'undefined' : describe(v))

/**
 * A number the host gave: a finite number >= 0, else a HostError naming it. `undefined` (and
 * null) is `fallback` when one is given.
 */
function hostNumber(value, where, fallback) {
  if ((value === undefined || value === null) && fallback !== undefined) return fallback
  if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) {
    throw new HostError('invalid', `${where}: expected a number >= 0, got ${shown(value)}`)
  }
  return value
}

/** A short history the engine's Native provider condenses: how the engine is asked for its own rules. */
const PROBE = [1, 2, 3, 4, 5, 6].map((i) => ({ role: i % 2 ? 'user' : 'assistant', content: `message ${i} `.repeat(40) }))

/**
 * The cost of a usage chunk: its totalCost, else its tokens priced with `pricing` by the engine
 * (the Native provider prices a reply that reports tokens but no cost), else 0. Each number is
 * checked first.
 */
async function usageCost(usage, pricing) {
  if (!usage) return 0
  if (usage.totalCost !== undefined && usage.totalCost !== null) return hostNumber(usage.totalCost, 'the usage chunk: totalCost')
  if (!isObject(pricing)) return 0
  const reply = { text: '.' }
  for (const k of ['inputTokens', 'outputTokens', 'cacheWriteTokens', 'cacheReadTokens']) reply[k] = hostNumber(usage[k], `the usage chunk: ${k}`, 0)
  const r = await lib.condense(PROBE, { provider: 'native', config: { pricing }, summarize: async () => reply })
  if (r.error) throw new HostError('invalid', `options.pricing: ${r.error}`)
  return r.cost
}

/**
 * Reads the handler's stream: text chunks joined, the last usage chunk (Roo keeps the final one).
 * Stops on abort or timeout (calling the iterator's return()), yields to the event loop as it
 * goes, and refuses a stream past `maxStreamChars`.
 */
async function readStream(stream, o) {
  const iterator = stream[Symbol.asyncIterator]()
  let text = ''
  let usage
  let lastYield = Date.now()
  let chunks = 0
  // One bound for the whole stream: the signal or the deadline ends it, whichever comes first.
  // (Checked before each chunk too: a race with a next() that is already resolved never loses.)
  let timer
  let onAbort
  let stopped
  const ended = new Promise((_, reject) => {
    const stop = (e) => {
      stopped = stopped ?? e
      reject(stopped)
    }
    timer = setTimeout(() => stop(new HostError('timeout', `the API handler's stream did not end within ${o.timeoutMs} ms`)), o.timeoutMs)
    if (o.signal) {
      onAbort = () => stop(new HostError('aborted', "the API handler's stream was aborted"))
      if (o.signal.aborted) onAbort()
      else o.signal.addEventListener('abort', onAbort, { once: true })
    }
  })
  ended.catch(() => {})
  try {
    for (;;) {
      if (stopped) throw stopped
      const step = await Promise.race([iterator.next(), ended])
      if (!step || step.done) break
      const chunk = step.value
      if (chunk && typeof chunk === 'object') {
        if (chunk.type === 'text' && typeof chunk.text === 'string') {
          text += chunk.text
          if (text.length > o.maxStreamChars) throw new HostError('invalid', `the API handler's stream passed ${o.maxStreamChars} characters of text`)
        } else if (chunk.type === 'usage') usage = chunk
      }
      chunks++
      if (chunks % YIELD_EVERY_CHUNKS === 0 || Date.now() - lastYield >= YIELD_EVERY_MS) {
        // A stream whose next() always resolves at once would otherwise starve timers and I/O.
        await yieldToLoop()
        lastYield = Date.now()
      }
    }
  } catch (e) {
    // Tell the stream to stop (its request is then cancelled by the handler's own cleanup).
    if (typeof iterator.return === 'function')
      Promise.resolve()
        .then(() => iterator.return())
        .catch(() => {})
    throw e
  } finally {
    clearTimeout(timer)
    if (onAbort) o.signal.removeEventListener('abort', onAbort)
  }
  return { text, usage }
}

/**
 * One summary request through `handler`: the text, its cost and Roo's output tokens. The usage
 * chunk's numbers are checked (a negative, NaN or non-number cost or token count is refused).
 */
async function callHandler(handler, systemPrompt, requestMessages, o, ...metadata) {
  if (o.signal && o.signal.aborted) throw new HostError('aborted', 'the condensation was aborted before its request')
  // Today's Roo passes its request metadata (or undefined) as a third argument; earlier Roo, none.
  let stream = handler.createMessage(systemPrompt, requestMessages, ...metadata)
  if (stream && typeof stream.then === 'function') stream = await bounded(stream, o, 'the API handler (createMessage)')
  if (!stream || typeof stream[Symbol.asyncIterator] !== 'function') {
    throw new HostError('invalid', `createMessage returned ${describe(stream)}, expected an async stream of chunks`)
  }
  const { text, usage } = await readStream(stream, o)
  const cost = await usageCost(usage, o.pricing)
  const outputTokens = usage ? hostNumber(usage.outputTokens, 'the usage chunk: outputTokens', 0) : 0
  return { text, cost, outputTokens }
}

/** The engine's own summary prompt (its Native provider's), used when the host configures none. */
let defaultPrompt
const engineDefaultPrompt = async () => {
  if (defaultPrompt === undefined) defaultPrompt = native.defaultPrompts().conversation
  return defaultPrompt
}

// ---------------------------------------------------------------------------------------------
// Token counts, as Roo takes them.

/** The engine's count of some content blocks (o200k), off the JavaScript thread. */
const engineCount = async (blocks) => (blocks.length === 0 ? 0 : lib.countTokensAsync([{ role: 'user', content: blocks }]))

/**
 * Tokens of some content blocks by the handler's countTokens (the engine's o200k count without
 * one), bounded by the timeout and the signal; a count that is not a number >= 0, or a throw, is
 * a HostError naming countTokens.
 */
async function countWith(content, apiHandler, o) {
  if (!content || content.length === 0) return 0
  if (!apiHandler || typeof apiHandler.countTokens !== 'function') return engineCount(content)
  let n
  try {
    n = await bounded(new Promise((resolve) => resolve(apiHandler.countTokens(content))), o, 'the API handler (countTokens)')
  } catch (e) {
    if (e instanceof HostError) throw e
    throw new HostError('failed', `the API handler's countTokens failed: ${e && e.message ? e.message : String(e)}`)
  }
  return hostNumber(n, "the API handler's countTokens", undefined)
}

/** Roo's estimateTokenCount: the handler's count of some content blocks (0 for none). */
async function estimateTokenCount(content, apiHandler) {
  if (!content || content.length === 0) return 0
  if (apiHandler && typeof apiHandler.countTokens === 'function') return apiHandler.countTokens(content)
  return engineCount(content)
}

const toBlocks = (m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [])

/** A failure as the error text of a result. */
function failure(e, o) {
  if (e instanceof HostError) {
    if (e.kind === 'aborted') return message(o, 'condense_aborted')
    if (e.kind === 'timeout') return message(o, 'condense_timeout', { message: e.message })
    return `${message(o, 'condense_failed')}: ${e.message}`
  }
  return `${message(o, 'condense_failed')}: the API handler failed: ${e && e.message ? e.message : String(e)}`
}

/**
 * `messages` must be an array: else a TypeError naming it, which every entry function throws (a
 * call has no history to give back unchanged, and Roo itself throws there).
 */
function checkArray(messages, fn) {
  checkMessagesArray(messages, fn)
}

/**
 * Every element of the history a summary or context-management call works on must be a message
 * object: else a HostError naming the first that is not (`manageContext: messages[3]: expected a
 * message object, got null`), which the call returns as its `error` with the messages unchanged.
 */
function checkMessageObjects(messages, fn) {
  for (let i = 0; i < messages.length; i++) {
    if (!isObject(messages[i])) throw new HostError('invalid', `${fn}: messages[${i}]: expected a message object, got ${shown(messages[i])}`)
  }
}

module.exports = {
  finite,
  isHandler,
  HostError,
  bounded,
  shown,
  hostNumber,
  callHandler,
  engineDefaultPrompt,
  engineCount,
  countWith,
  estimateTokenCount,
  toBlocks,
  failure,
  checkArray,
  checkMessageObjects,
}
