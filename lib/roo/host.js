// Calls to the host, bounded: the API handler's stream and countTokens under `timeoutMs` and the abort
// signal, numbers the host gives checked before use, usage priced by the engine, and a failure as the
// error text of a result. Never changes a message.
'use strict'

const native = require('../internal/native.js')
const lib = require('../index.js')
const { describe, isObject, tokenCount } = require('../internal/values.js')
const { whenAborted } = require('../internal/abort.js')
const { checkMessagesArray } = require('../internal/checks.js')
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
      unfollow()
      fn(v)
    }
    const unfollow = whenAborted(signal, () => finish(reject, new HostError('aborted', `${what} was aborted`)))
    const timer = setTimeout(() => finish(reject, new HostError('timeout', `${what} did not answer within ${o.timeoutMs} ms`)), o.timeoutMs)
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

/** The token counts of a usage chunk the engine prices. */
const USAGE_TOKENS = ['inputTokens', 'outputTokens', 'cacheWriteTokens', 'cacheReadTokens']

/**
 * The cost of a usage chunk: its totalCost, else its tokens priced with `pricing` by the engine
 * (src/cost.rs usage_cost, as it prices a summary reply that reports tokens but no cost), else 0.
 * Each number is checked first; a count left out (undefined or null) is 0.
 */
function usageCost(usage, pricing) {
  if (!usage) return 0
  if (usage.totalCost !== undefined && usage.totalCost !== null) return hostNumber(usage.totalCost, 'the usage chunk: totalCost')
  if (!isObject(pricing)) return 0
  const tokens = {}
  for (const k of USAGE_TOKENS) tokens[k] = hostNumber(usage[k], `the usage chunk: ${k}`, 0)
  try {
    return native.usageCost(tokens, pricing)
  } catch (e) {
    throw new HostError('invalid', `options.${e.message}`)
  }
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
  let unfollow = () => {}
  let stopped
  const ended = new Promise((_, reject) => {
    const stop = (e) => {
      stopped = stopped ?? e
      reject(stopped)
    }
    timer = setTimeout(() => stop(new HostError('timeout', `the API handler's stream did not end within ${o.timeoutMs} ms`)), o.timeoutMs)
    if (o.signal) {
      const onAbort = () => stop(new HostError('aborted', "the API handler's stream was aborted"))
      if (o.signal.aborted) onAbort()
      else unfollow = whenAborted(o.signal, onAbort)
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
    unfollow()
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
  const cost = usageCost(usage, o.pricing)
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

/**
 * Roo's estimateTokenCount: the handler's count of some content blocks (0 for none). No content at
 * all (undefined or null) counts 0, as Roo's own does and its specs require ("should return 0 for
 * empty or undefined content"); any other value that is not an array of blocks is refused.
 */
async function estimateTokenCount(content, apiHandler) {
  if (content === undefined || content === null) return 0
  if (!Array.isArray(content)) throw new TypeError(`estimateTokenCount: content: expected an array of content blocks, got ${shown(content)}`)
  for (let i = 0; i < content.length; i++) {
    if (!isObject(content[i])) throw new TypeError(`estimateTokenCount: content[${i}]: expected a content block, got ${shown(content[i])}`)
  }
  // Partial: a handler here needs only countTokens (the engine counts without one).
  if (apiHandler !== undefined && apiHandler !== null) {
    if (!isObject(apiHandler)) throw new TypeError(`estimateTokenCount: apiHandler: expected an API handler (an object), got ${shown(apiHandler)}`)
    for (const k of ['countTokens', 'createMessage'])
      if (apiHandler[k] !== undefined && typeof apiHandler[k] !== 'function')
        throw new TypeError(`estimateTokenCount: apiHandler.${k}: expected a function, got ${shown(apiHandler[k])}`)
  }
  if (content.length === 0) return 0
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
 * `messages` must be an array: else a TypeError naming it (`name`: "options.messages" for a call
 * given an options object), which every entry function throws (a call has no history to give back
 * unchanged, and Roo itself throws there).
 */
function checkArray(messages, fn, name = 'messages') {
  checkMessagesArray(messages, fn, name)
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

// ---------------------------------------------------------------------------------------------
// Roo's own arguments (taskId, systemPrompt, …): one table of what each must be, so every entry,
// era and function names a bad one the same way: `<fn>: <name>: expected …, got …`.

const isStrings = (v) => Array.isArray(v) && v.every((x) => typeof x === 'string')
/**
 * Each argument by name: what it must be (`test`), in words (`what`), or the shared check that
 * throws for it (`check`), and whether it may be left out.
 */
const ARGUMENTS = {
  taskId: { test: (v) => typeof v === 'string', what: 'a task id (a string)' },
  systemPrompt: { test: (v) => typeof v === 'string', what: 'the system prompt (a string)' },
  isAutomaticTrigger: { test: (v) => typeof v === 'boolean', what: 'true or false', optional: true },
  customCondensingPrompt: { test: (v) => typeof v === 'string', what: 'a prompt (a string)', optional: true },
  metadata: {
    test: (v) => isObject(v) && (v.tools === undefined || Array.isArray(v.tools)),
    what: 'an object (its tools, when given, an array)',
    optional: true,
  },
  environmentDetails: { test: (v) => typeof v === 'string', what: 'a string', optional: true },
  filesReadByRoo: { test: isStrings, what: 'an array of file paths (strings)', optional: true },
  cwd: { test: (v) => typeof v === 'string', what: 'a folder (a string)', optional: true },
  // A token count, by the one rule every entry and the engine read it with (values.js tokenCount).
  prevContextTokens: { check: tokenCount, optional: true },
  autoCondenseContext: { test: (v) => typeof v === 'boolean', what: 'true or false' },
  currentProfileId: { test: (v) => typeof v === 'string', what: 'a profile id (a string)' },
  profileThresholds: { test: isObject, what: 'an object of thresholds by profile id' },
  useNativeTools: { test: (v) => typeof v === 'boolean', what: 'true or false', optional: true },
  lastMessageTokens: { test: (v) => finite(v) && v >= 0, what: 'a number >= 0' },
  // A handler that is not one (no object, no createMessage function) is Roo's own case: "API
  // handler for condensing context is invalid", an `error` result. Its other members (getModel, …)
  // are not read; a countTokens it has must be a function.
  apiHandler: { test: countsOrNone, what: 'an API handler whose countTokens is a function', optional: true, at: 'countTokens' },
  condensingApiHandler: { test: countsOrNone, what: 'an API handler whose countTokens is a function', optional: true, at: 'countTokens' },
}

/** Anything but an object whose countTokens is there and not a function. */
function countsOrNone(h) {
  return !isObject(h) || h.countTokens === undefined || typeof h.countTokens === 'function'
}

/**
 * Each of `names` in `args` checked against ARGUMENTS: the first that is not what it must be is a
 * TypeError `<fn>: <name>: expected …, got …` (`prefix` before the name: "options." for an
 * options object). A name the table marks optional may be left out (undefined, not null).
 */
function checkArguments(fn, args, names, prefix = '') {
  for (const name of names) {
    const rule = ARGUMENTS[name]
    const v = args[name]
    if (v === undefined && rule.optional) continue
    if (rule.check) {
      rule.check(v, `${fn}: ${prefix}${name}`)
      continue
    }
    if (rule.test(v)) continue
    // A rule about one member of the argument names that member.
    if (rule.at) throw new TypeError(`${fn}: ${prefix}${name}.${rule.at}: expected a function, got ${shown(v[rule.at])}`)
    throw new TypeError(`${fn}: ${prefix}${name}: expected ${rule.what}, got ${shown(v)}`)
  }
}

/**
 * Runs `check` (argument checks, which throw TypeErrors) for a call that answers its problems
 * rather than throwing them: a refusal becomes a HostError ("invalid", its message kept), which
 * the call returns as its `error`.
 */
function asAnswer(check) {
  try {
    check()
  } catch (e) {
    if (e instanceof TypeError) throw new HostError('invalid', e.message)
    throw e
  }
}

module.exports = {
  checkArguments,
  asAnswer,
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
