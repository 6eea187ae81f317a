// The implementation behind context-condense/roo and its earlier eras (lib/roo.js, lib/roo-2025.js,
// lib/roo-2026-01.js are entries over it): Roo Code's condensing API (src/core/condense and
// src/core/context-management, and src/core/sliding-window as it was in 2025) on top of the engine,
// so a Roo-based host swaps its imports and keeps its call sites. One implementation serves every
// era of Roo's API; the differences between eras are data (`ERAS`) and the small argument adapters
// of each entry: `context-condense/roo` follows Roo Code as it is today (summarizeConversation with
// an options object, fresh-start summaries, manageContext; positional calls as the first
// fresh-start Roo made them); `context-condense/roo-2026-01` is Roo Code of January 2026
// (positional, non-destructive, tool_use blocks kept with the summary, manageContext);
// `context-condense/roo-2025` is Roo Code of 2025 (positional, destructive, condensingApiHandler,
// truncateConversationIfNeeded).
//
// What comes from the engine: the condensing trigger (threshold per profile, buffer, reserved
// output: src/manager.rs through `managerDecide`), the sliding window (lib/manager.js), token
// counts when the host gives no countTokens, the files list (the engine's Native provider), and
// the optional first step (lossless, truncation or smart) before Roo's summary.
//
// Every host call (createMessage and its stream, countTokens) is bounded by `timeoutMs` and the
// abort signal; a stream yields to the event loop as it is read and is capped in size. Numbers the
// host gives (token totals, usage chunks, counts) are checked before any use. Nothing here throws
// for a call that can fail: problems come back in `error`, with the messages unchanged. It never
// mutates the caller's messages and never touches the host's files.
'use strict'

const { randomUUID } = require('node:crypto')
const path = require('node:path')
const native = require('../index.js')
const lib = require('./index.js')
const { slidingWindow } = require('./manager.js')
const { describe, isObject } = require('./values.js')

const N_MESSAGES_TO_KEEP = 3
const MIN_CONDENSE_THRESHOLD = 5
const MAX_CONDENSE_THRESHOLD = 100
const TOKEN_BUFFER_PERCENTAGE = 0.1
/** Reserved for the model's answer when the host gives no maxTokens (Roo's ANTHROPIC_DEFAULT_MAX_TOKENS). */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192

/** Roo's English strings (its en locale, common:errors.*), word for word; `options.errors` replaces any of them. */
const ROO_ERROR_MESSAGES = Object.freeze({
  condense_failed: 'Failed to condense context',
  condense_not_enough_messages: 'Not enough messages to condense context',
  condensed_recently: 'Context was condensed recently; skipping this attempt',
  condense_handler_invalid: 'API handler for condensing context is invalid',
  condense_context_grew: 'Context size increased during condensing; skipping this attempt',
  condense_api_failed: 'Condensing API call failed: {{message}}',
  /** Not Roo's: the caller's AbortSignal fired. */
  condense_aborted: 'Context condensing was aborted',
  /** Not Roo's: a host call did not answer within timeoutMs. */
  condense_timeout: 'Context condensing timed out: {{message}}',
})

/** Roo's final request of a summary (2025 and January 2026). */
const FINAL_REQUEST = 'Summarize the conversation so far, as described in the prompt instructions.'
/**
 * The system prompt of a fresh-start summary request when the host gives none (`requestSystemPrompt`;
 * a Roo host passes Roo's own): the instructions themselves go last, as the user's message.
 */
const FRESH_START_SYSTEM_PROMPT = `You summarize a conversation between a user and a coding agent so that the agent can continue the work from the summary alone.

Reply with text only: do not call any tool or function, none would be run.

The last message, which asks for this summary, is not the user's: judge the user's requests, intent and the next step from the conversation before it.`
const SYNTHETIC_REASONING = 'Condensing conversation context. The summary below captures the key information from the prior conversation.'
const SYNTHETIC_TOOL_RESULT = 'Context condensation triggered. Tool execution deferred.'

/**
 * Roo's API by era. `positional`: summarizeConversation's arguments; `condensingHandler`: the
 * 8th argument is a separate handler for condensing; `toolBlocks`: the tool_use blocks a kept
 * tool_result needs go into the summary (array content with a synthetic reasoning block);
 * `nonDestructive`: messages are tagged, not removed; `logs`: what Roo logs about handlers.
 */
const ERAS = Object.freeze({
  2025: Object.freeze({
    name: '2025',
    condensingHandler: true,
    toolBlocks: false,
    nonDestructive: false,
    logs: Object.freeze({
      fallback: 'Chosen API handler for condensing does not support message creation or is invalid, falling back to main apiHandler.',
      invalid: 'Main API handler is also invalid for condensing. Cannot proceed.',
    }),
  }),
  '2026-01': Object.freeze({
    name: '2026-01',
    condensingHandler: false,
    toolBlocks: true,
    nonDestructive: true,
    logs: Object.freeze({ fallback: undefined, invalid: 'API handler is invalid for condensing. Cannot proceed.' }),
  }),
  today: Object.freeze({
    name: 'today',
    condensingHandler: false,
    toolBlocks: true,
    nonDestructive: true,
    freshStart: true,
    logs: Object.freeze({ fallback: undefined, invalid: 'API handler is invalid for condensing. Cannot proceed.' }),
  }),
})

/** Roo never times out a summary; this bounds a host call that never settles (overridable). */
const DEFAULT_TIMEOUT_MS = 600_000
/** A stream longer than this (characters of text) is refused: a summary is never that long. */
const MAX_STREAM_CHARS = 4_000_000
/** The stream reader yields to the event loop at least this often (ms) and every so many chunks. */
const YIELD_EVERY_MS = 8
const YIELD_EVERY_CHUNKS = 256

// ---------------------------------------------------------------------------------------------
// Options: per call, over the defaults `configure` sets (each entry has its own).

const PROVIDERS = ['native', 'lossless', 'truncation', 'smart']
const CONFIG_KEYS = [
  'provider',
  'providerConfig',
  'nonDestructive',
  'telemetry',
  'pricing',
  'errors',
  'summarizeOptions',
  'generateId',
  'defaultPrompt',
  'prepareMessages',
  'summarizeConversation',
  'filesList',
  'strictGrowth',
  'timeoutMs',
  'maxStreamChars',
  'foldedFileContext',
  'requestSystemPrompt',
  'outlineFile',
]
const CALL_KEYS = [...CONFIG_KEYS, 'signal', 'targetTokens']

function checkKey(key, value, at) {
  const bad = (expected) => new TypeError(`${at}.${key}: expected ${expected}, got ${describe(value)}`)
  switch (key) {
    case 'provider':
      if (!PROVIDERS.includes(value)) throw bad(`one of ${PROVIDERS.map((p) => `"${p}"`).join(', ')}`)
      break
    case 'nonDestructive':
    case 'filesList':
    case 'strictGrowth':
      if (typeof value !== 'boolean') throw bad('true or false')
      break
    case 'generateId':
      if (typeof value !== 'function') throw bad('a function returning a unique string')
      break
    case 'prepareMessages':
      if (typeof value !== 'function') throw bad('a function (messages, apiHandler) => messages')
      break
    case 'summarizeConversation':
      if (typeof value !== 'function') throw bad("a function taking summarizeConversation's arguments")
      break
    case 'outlineFile':
      if (typeof value !== 'function')
        throw bad('a function (absolutePath, rooIgnoreController) => Promise<string | undefined> (an outline of the definitions in a file)')
      break
    case 'foldedFileContext':
      if (typeof value !== 'function') throw bad('a function (filesReadByRoo, { cwd, rooIgnoreController }) => Promise<{ sections: string[] }>')
      break
    case 'defaultPrompt':
    case 'requestSystemPrompt':
      if (typeof value !== 'string') throw bad('a string')
      break
    case 'timeoutMs':
    case 'maxStreamChars':
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw bad('a number > 0')
      break
    case 'targetTokens':
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw bad('a number of tokens >= 0')
      break
    case 'signal':
      if (!isObject(value) || typeof value.aborted !== 'boolean' || typeof value.addEventListener !== 'function') throw bad('an AbortSignal')
      break
    case 'errors':
      if (!isObject(value)) throw bad('an object of messages by Roo i18n key')
      for (const [k, v] of Object.entries(value)) {
        if (!(k in ROO_ERROR_MESSAGES)) throw new TypeError(`${at}.errors.${k}: unknown key, expected one of ${Object.keys(ROO_ERROR_MESSAGES).join(', ')}`)
        if (typeof v !== 'string') throw new TypeError(`${at}.errors.${k}: expected a string, got ${describe(v)}`)
      }
      break
    default: // providerConfig, telemetry, pricing, summarizeOptions: objects the engine checks further
      if (!isObject(value)) throw bad('an object')
  }
}

function readOptions(raw, keys, at, strict) {
  if (raw === undefined || raw === null) return {}
  if (!isObject(raw)) throw new TypeError(`${at}: expected an object, got ${describe(raw)}`)
  const out = {}
  for (const [key, value] of Object.entries(raw)) {
    if (!keys.includes(key)) {
      if (strict) throw new TypeError(`${at}.${key}: unknown option, expected one of ${keys.join(', ')}`)
      continue
    }
    if (value === undefined) continue
    checkKey(key, value, at)
    out[key] = value
  }
  return out
}

/** The options a call runs with: its own over its entry's configured defaults. */
function resolveOptions(state, raw, at) {
  const o = { ...state.defaults, ...readOptions(raw, CALL_KEYS, at, false) }
  return {
    ...o,
    era: state.era,
    provider: o.provider ?? 'native',
    nonDestructive: o.nonDestructive ?? state.era.nonDestructive,
    generateId: o.generateId ?? randomUUID,
    errors: o.errors ?? {},
    timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxStreamChars: o.maxStreamChars ?? MAX_STREAM_CHARS,
  }
}

function capture(telemetry, method, args) {
  if (!telemetry || typeof telemetry[method] !== 'function') return
  try {
    telemetry[method](...args)
  } catch {
    // Telemetry never stops a condensation.
  }
}

/** A message by Roo's key (the host's wording when it gave one), with {{name}} filled in. */
function message(o, key, vars = {}) {
  const text = o && o.errors && typeof o.errors[key] === 'string' ? o.errors[key] : ROO_ERROR_MESSAGES[key]
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole))
}

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

let enginePrompt

/** The engine's own summary prompt (its Native provider's), used when the host configures none. */
async function engineDefaultPrompt() {
  if (enginePrompt !== undefined) return enginePrompt
  await lib.condense(PROBE, {
    provider: 'native',
    summarize: async (request) => {
      enginePrompt = request.systemPrompt
      return { text: '.' }
    },
  })
  if (typeof enginePrompt !== 'string') enginePrompt = ''
  return enginePrompt
}

// ---------------------------------------------------------------------------------------------
// Token counts, as Roo takes them.

/** The engine's count of some content blocks (o200k). */
const engineCount = (blocks) => (blocks.length === 0 ? 0 : lib.countTokens([{ role: 'user', content: blocks }]))

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

// ---------------------------------------------------------------------------------------------
// Non-destructive histories: what is visible, the projection, rewinding.

/** For each message, whether the model is sent it. */
function visibility(messages) {
  const summaryAt = new Map()
  const markers = new Set()
  messages.forEach((m, i) => {
    if (!m) return
    if (m.isSummary && m.condenseId && !summaryAt.has(m.condenseId)) summaryAt.set(m.condenseId, i)
    if (m.isTruncationMarker && m.truncationId) markers.add(m.truncationId)
  })
  return messages.map((m, i) => {
    if (!m) return true
    const parent = m.condenseParent
    if (parent) {
      // Replaced by its summary (which follows what it replaces), or by its shortened copy.
      const at = summaryAt.get(parent)
      if (at !== undefined && i < at) return false
      const next = messages[i + 1]
      if (next && next.condensedBy === parent) return false
    }
    if (m.truncationParent && markers.has(m.truncationParent)) return false
    if (m.condensedBy) {
      // A shortened copy stands in for the message right before it, nothing else.
      const prev = messages[i - 1]
      if (!prev || prev.condenseParent !== m.condensedBy) return false
    }
    return true
  })
}

function checkArray(messages, fn) {
  if (!Array.isArray(messages)) throw new TypeError(`${fn}: messages: expected an array of messages, got ${shown(messages)}`)
}

/** The projection and, for each of its messages, its index in the stored history. */
function project(messages) {
  const visible = visibility(messages)
  const effective = []
  const index = []
  messages.forEach((m, i) => {
    if (visible[i]) {
      effective.push(m)
      index.push(i)
    }
  })
  return { effective, index, visible }
}

/**
 * After messages were removed from a non-destructive history (a rewind, a deletion): tags whose
 * summary, marker or copy is gone are cleared, so those messages are sent again, and shortened
 * copies whose message is gone are dropped. Untouched messages are the caller's own objects.
 */
function cleanupAfterTruncation(messages) {
  checkArray(messages, 'cleanupAfterTruncation')
  const summaryAt = new Map()
  const markers = new Set()
  messages.forEach((m, i) => {
    if (m && m.isSummary && m.condenseId && !summaryAt.has(m.condenseId)) summaryAt.set(m.condenseId, i)
    if (m && m.isTruncationMarker && m.truncationId) markers.add(m.truncationId)
  })
  const out = []
  messages.forEach((m, i) => {
    if (!m) return void out.push(m)
    if (m.condensedBy) {
      const prev = messages[i - 1]
      if (!prev || prev.condenseParent !== m.condensedBy) return // its message is gone
    }
    let clearCondense = false
    if (m.condenseParent) {
      const at = summaryAt.get(m.condenseParent)
      const next = messages[i + 1]
      clearCondense = !(at !== undefined && i < at) && !(next && next.condensedBy === m.condenseParent)
    }
    const clearTruncation = Boolean(m.truncationParent) && !markers.has(m.truncationParent)
    if (!clearCondense && !clearTruncation) return void out.push(m)
    const copy = { ...m }
    if (clearCondense) delete copy.condenseParent
    if (clearTruncation) delete copy.truncationParent
    out.push(copy)
  })
  return out
}

/**
 * Rewinds a non-destructive history: drops the stored messages from `at` on (an index, or the
 * first message whose ts is at or after a timestamp, as Roo rewinds) and restores what only the
 * dropped summaries, markers and copies were hiding. A shortened copy goes with its message.
 */
function rewindConversation(messages, at) {
  checkArray(messages, 'rewindConversation')
  let cut
  if (typeof at === 'number') cut = at
  else if (isObject(at) && typeof at.index === 'number') cut = at.index
  else if (isObject(at) && typeof at.ts === 'number') {
    cut = messages.findIndex((m) => m && typeof m.ts === 'number' && m.ts >= at.ts)
    if (cut < 0) cut = messages.length
  } else throw new TypeError(`rewindConversation: at: expected an index or { index } or { ts }, got ${describe(at)}`)
  if (!Number.isInteger(cut)) throw new TypeError(`rewindConversation: at: expected a whole index, got ${cut}`)
  cut = Math.max(0, Math.min(messages.length, cut))
  while (
    cut > 0 &&
    cut < messages.length &&
    messages[cut] &&
    messages[cut].condensedBy &&
    messages[cut - 1] &&
    messages[cut - 1].condenseParent === messages[cut].condensedBy
  )
    cut--
  return cleanupAfterTruncation(messages.slice(0, cut))
}

// ---------------------------------------------------------------------------------------------
// Where each message of a result comes from: `{ from, to, kind }` over the input, kind "same"
// (the caller's object), "changed" (a shortened copy of input[from]) or "summary" (a new summary
// standing for input[from..to)).

const sameTurn = (a, b) => Boolean(a) && Boolean(b) && a.role === b.role && a.ts === b.ts

/** Origins of a provider's output: one for one, or one span replaced by a new summary. */
function align(input, output) {
  const n = input.length
  const m = output.length
  const kind = (o, j) => (o === input[j] ? 'same' : 'changed')
  if (m === n) return output.map((o, i) => ({ from: i, to: i + 1, kind: kind(o, i) }))
  if (m > n) return null
  const inputs = new Set(input)
  const end = (s) => n - (m - s - 1)
  for (let s = 1; s < m; s++) {
    const o = output[s]
    if (inputs.has(o) || !o || o.isSummary !== true || end(s) <= s) continue
    let fits = true
    for (let i = 0; i < m && fits; i++) {
      if (i === s) continue
      const j = i < s ? i : end(s) + (i - s - 1)
      fits = output[i] === input[j] || sameTurn(output[i], input[j])
    }
    if (!fits) continue
    return output.map((o2, i) => {
      if (i < s) return { from: i, to: i + 1, kind: kind(o2, i) }
      if (i === s) return { from: s, to: end(s), kind: 'summary' }
      const j = end(s) + (i - s - 1)
      return { from: j, to: j + 1, kind: kind(o2, j) }
    })
  }
  return null
}

/** Origins over the first input of a second step's output (`b` over the first step's output). */
function compose(a, b) {
  return b.map((o) => {
    const first = a[o.from]
    const last = a[o.to - 1]
    const kind = o.kind !== 'same' ? o.kind : o.to - o.from === 1 ? first.kind : 'summary'
    return { from: first.from, to: last.to, kind }
  })
}

// ---------------------------------------------------------------------------------------------
// References left by the lossless operations ("⟨ Reference: … message #N · sha256:… ⟩") name
// positions; a summary after them moves or removes what they point at.

const REFERENCE = /⟨ Reference: [^\n]*?message #(\d+) · sha256:[0-9a-fA-F]{12} ⟩/g

/** The message with `fn` applied to each of its texts (the same object when nothing changes). */
function mapTexts(m, fn) {
  if (typeof m.content === 'string') {
    const t = fn(m.content)
    return t === m.content ? m : { ...m, content: t }
  }
  if (!Array.isArray(m.content)) return m
  let changed = false
  const content = m.content.map((b) => {
    if (!b || typeof b !== 'object') return b
    if (b.type === 'text' && typeof b.text === 'string') {
      const t = fn(b.text)
      if (t === b.text) return b
      changed = true
      return { ...b, text: t }
    }
    if (b.type === 'tool_result') {
      if (typeof b.content === 'string') {
        const t = fn(b.content)
        if (t === b.content) return b
        changed = true
        return { ...b, content: t }
      }
      if (Array.isArray(b.content)) {
        let partChanged = false
        const parts = b.content.map((p) => {
          if (!p || typeof p !== 'object' || typeof p.text !== 'string') return p
          const t = fn(p.text)
          if (t === p.text) return p
          partChanged = true
          return { ...p, text: t }
        })
        if (!partChanged) return b
        changed = true
        return { ...b, content: parts }
      }
    }
    return b
  })
  return changed ? { ...m, content } : m
}

function referencedIndices(m) {
  const out = []
  mapTexts(m, (t) => {
    for (const match of t.matchAll(REFERENCE)) out.push(Number(match[1]))
    return t
  })
  return out
}

/**
 * After a summary replaced `input[1..keepStart)` (the layout [input[0], summary, ...input[keepStart..]]),
 * the references in the messages a first step changed point at positions of `input`: those into
 * the summarized part are expanded back (the bytes are gone otherwise), the others renumbered.
 */
function fixReferences(input, output, keepStart, changedAt) {
  let expanded
  const renumber = (t) =>
    t.replace(REFERENCE, (whole, n) => {
      const k = Number(n)
      const now = k === 0 ? 0 : k >= keepStart ? k - keepStart + 2 : k
      return now === k ? whole : whole.replace(`message #${k}`, `message #${now}`)
    })
  const result = output.slice()
  for (let i = 0; i < output.length; i++) {
    if (i === 1) continue
    const j = i === 0 ? 0 : keepStart + i - 2
    if (!changedAt(j)) continue
    const refs = referencedIndices(input[j])
    if (refs.length === 0) continue
    let m = input[j]
    // A reference is sealed to its offset from its target: one into the summarized part, or
    // one whose target moves while it stays (or the reverse, around the first message), is
    // expanded back instead.
    if (refs.some((k) => (k >= 1 && k < keepStart) || (k === 0) !== (j === 0))) {
      expanded = expanded ?? lib.expandReferences(input)
      m = expanded[j]
    }
    result[i] = mapTexts(m, renumber)
  }
  return result
}

// ---------------------------------------------------------------------------------------------
// Results written into a non-destructive history.

const TAGS = ['condenseParent', 'truncationParent', 'condensedBy']

/**
 * The stored history after a condensation of its projection: messages a summary stands for get
 * `condenseParent` (unless something still hides them), the summary goes right after them; a
 * shortened message gets `condenseParent` and its copy (`condensedBy`) right after it. The first
 * message is never changed. Nothing is removed.
 */
function writeNonDestructive(stored, index, visible, effective, output, origins, id) {
  const n = stored.length
  const tagged = new Array(n).fill(false)
  const before = new Map()
  const after = new Map()
  const add = (map, at, m) => (map.has(at) ? map.get(at).push(m) : map.set(at, [m]))
  for (let i = 0; i < output.length; i++) {
    const o = origins[i]
    if (o.kind === 'same' || o.from === 0) continue
    if (o.kind === 'summary') {
      const start = index[o.from - 1] + 1
      const end = o.to < effective.length ? index[o.to] : n
      for (let si = start; si < end; si++) {
        // Already hidden by an earlier summary or copy: that one stays in charge of it.
        if (!(stored[si].condenseParent && !visible[si])) tagged[si] = true
      }
      add(before, end, output[i])
    } else {
      const si = index[o.from]
      tagged[si] = true
      const copy = { ...output[i] }
      for (const t of TAGS) delete copy[t]
      copy.condensedBy = id
      add(after, si, copy)
    }
  }
  const out = []
  for (let si = 0; si <= n; si++) {
    if (before.has(si)) out.push(...before.get(si))
    if (si === n) break
    out.push(tagged[si] ? { ...stored[si], condenseParent: id } : stored[si])
    if (after.has(si)) out.push(...after.get(si))
  }
  return out
}

/** Roo's summary message; non-destructive ones carry their id and a ts just before the kept part. */
function summaryMessage(content, firstKept, condenseId) {
  const m = { role: 'assistant', content }
  const ts = firstKept ? firstKept.ts : undefined
  if (ts !== undefined) m.ts = condenseId !== undefined && finite(ts) ? ts - 1 : ts
  m.isSummary = true
  if (condenseId !== undefined) m.condenseId = condenseId
  return m
}

// ---------------------------------------------------------------------------------------------
// Roo's helpers of today (the tool-block-to-text conversions, orphan tool calls, <command> blocks).

/** A tool_use block as text ("[Tool Use: name]" and its inputs), as Roo sends it for condensing. */
function toolUseToText(block) {
  let input
  if (typeof block.input === 'object' && block.input !== null) {
    input = Object.entries(block.input)
      .map(([key, value]) => `${key}: ${typeof value === 'object' && value !== null ? JSON.stringify(value, null, 2) : String(value)}`)
      .join('\n')
  } else input = String(block.input)
  return `[Tool Use: ${block.name}]\n${input}`
}

/** A tool_result block as text ("[Tool Result]" or "[Tool Result (Error)]" and its content). */
function toolResultToText(block) {
  const suffix = block.is_error ? ' (Error)' : ''
  if (typeof block.content === 'string') return `[Tool Result${suffix}]\n${block.content}`
  if (Array.isArray(block.content)) {
    const text = block.content.map((b) => (b && b.type === 'text' ? b.text : b && b.type === 'image' ? '[Image]' : `[${b && b.type}]`)).join('\n')
    return `[Tool Result${suffix}]\n${text}`
  }
  return `[Tool Result${suffix}]`
}

/** A message's content with its tool_use / tool_result blocks as text blocks (a string stays as it is). */
function convertToolBlocksToText(content) {
  if (!Array.isArray(content)) return content
  return content.map((b) => {
    if (b && b.type === 'tool_use') return { type: 'text', text: toolUseToText(b) }
    if (b && b.type === 'tool_result') return { type: 'text', text: toolResultToText(b) }
    return b
  })
}

/** Copies of the messages with their tool blocks as text (the request of a summary needs no tools). */
function transformMessagesForCondensing(messages) {
  return messages.map((m) => ({ ...m, content: convertToolBlocksToText(m.content) }))
}

/**
 * The messages, and when some assistant tool_use has no tool_result, one user message of
 * synthetic results for them ("Context condensation triggered. Tool execution deferred.").
 */
function injectSyntheticToolResults(messages) {
  checkArray(messages, 'injectSyntheticToolResults')
  const calls = new Set()
  const results = new Set()
  for (const m of messages) {
    if (!m || !Array.isArray(m.content)) continue
    for (const b of m.content) {
      if (m.role === 'assistant' && b && b.type === 'tool_use') calls.add(b.id)
      if (m.role === 'user' && b && b.type === 'tool_result') results.add(b.tool_use_id)
    }
  }
  const orphans = [...calls].filter((id) => !results.has(id))
  if (orphans.length === 0) return messages
  const content = orphans.map((id) => ({ type: 'tool_result', tool_use_id: id, content: SYNTHETIC_TOOL_RESULT }))
  return [...messages, { role: 'user', content, ts: Date.now() }]
}

/** The <command …>…</command> blocks of a message's text, joined by newlines ("" for none). */
function extractCommandBlocks(m) {
  const content = m ? m.content : undefined
  let text
  if (typeof content === 'string') text = content
  else if (Array.isArray(content))
    text = content
      .filter((b) => b && b.type === 'text')
      .map((b) => b.text)
      .join('\n')
  else return ''
  const matches = text.match(/<command[^>]*>[\s\S]*?<\/command>/g)
  return matches ? matches.join('\n') : ''
}

// ---------------------------------------------------------------------------------------------
// Roo's summary, positional eras (2025, January 2026), over a history in Roo's destructive layout.

const toolResults = (m) => (m && m.role === 'user' && Array.isArray(m.content) ? m.content.filter((b) => b && b.type === 'tool_result') : [])
const toolUseIn = (m, id) =>
  m && m.role === 'assistant' && Array.isArray(m.content) ? m.content.find((b) => b && b.type === 'tool_use' && b.id === id) : undefined
const reasoningIn = (m) => (m && m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((b) => b && b.type === 'reasoning') : [])

/**
 * Roo's getKeepMessagesWithToolBlocks: the last `keepCount` messages, and the tool_use blocks
 * (with their message's reasoning blocks) that the kept tool_results answer, found in the
 * `N_MESSAGES_TO_KEEP` messages before the kept ones.
 */
function getKeepMessagesWithToolBlocks(messages, keepCount) {
  checkArray(messages, 'getKeepMessagesWithToolBlocks')
  if (messages.length <= keepCount) return { keepMessages: messages, toolUseBlocksToPreserve: [], reasoningBlocksToPreserve: [] }
  const start = messages.length - keepCount
  const keepMessages = messages.slice(start)
  const toolUseBlocksToPreserve = []
  const reasoningBlocksToPreserve = []
  const seen = new Set()
  const searched = messages.slice(Math.max(0, start - N_MESSAGES_TO_KEEP), start)
  for (const kept of keepMessages) {
    for (const r of toolResults(kept)) {
      if (seen.has(r.tool_use_id)) continue
      for (let i = searched.length - 1; i >= 0; i--) {
        const use = toolUseIn(searched[i], r.tool_use_id)
        if (!use) continue
        toolUseBlocksToPreserve.push(use)
        seen.add(r.tool_use_id)
        reasoningBlocksToPreserve.push(...reasoningIn(searched[i]))
        break
      }
    }
  }
  return { keepMessages, toolUseBlocksToPreserve, reasoningBlocksToPreserve }
}

/** The files read and modified in `span`, as the engine's Native provider lists them ("" for none). */
async function filesListOf(span) {
  if (span.length === 0) return ''
  // The whole span is summarized: one stand-in message is kept after it.
  const r = await lib.condense([...span, { role: 'user', content: '.' }], {
    provider: 'native',
    config: { keepLast: 1 },
    summarize: async () => ({ text: '.' }),
  })
  if (r.error || typeof r.summary !== 'string' || !r.summary.startsWith('.')) return ''
  return r.summary.slice(1)
}

/** The host's image cleaning (Roo's maybeRemoveImageBlocks), or the messages as they are. */
function prepared(messages, apiHandler, o) {
  if (typeof o.prepareMessages !== 'function') return messages
  const out = o.prepareMessages(messages, apiHandler)
  if (!Array.isArray(out)) throw new HostError('invalid', `prepareMessages returned ${describe(out)}, expected an array of messages`)
  return out
}

/**
 * Roo's summary of `base` (positional eras): [first, summary, ...kept] and what Roo reports, or
 * `{ error }`. `prev` is the context size the result must stay under.
 */
async function positionalSummary(base, c) {
  const { o, apiHandler } = c
  const era = o.era
  const first = base[0]
  let keepMessages
  let toolUses = []
  let reasoning = []
  if (era.toolBlocks) {
    const k = getKeepMessagesWithToolBlocks(base, N_MESSAGES_TO_KEEP)
    keepMessages = k.keepMessages
    toolUses = k.toolUseBlocksToPreserve
    reasoning = k.reasoningBlocksToPreserve
  } else keepMessages = base.slice(-N_MESSAGES_TO_KEEP)
  const keepStart = Math.max(base.length - N_MESSAGES_TO_KEEP, 0)
  const sliceEnd = toolUses.length > 0 ? keepStart + 1 : keepStart
  const toSummarize = getMessagesSinceLastSummary(base.slice(0, sliceEnd))
  if (toSummarize.length <= 1) {
    return { error: message(o, base.length <= N_MESSAGES_TO_KEEP + 1 ? 'condense_not_enough_messages' : 'condensed_recently') }
  }
  if (keepMessages.some((m) => m && m.isSummary)) return { error: message(o, 'condensed_recently') }

  const request = prepared([...toSummarize, { role: 'user', content: FINAL_REQUEST }], apiHandler, o).map(({ role, content }) => ({ role, content }))
  const prompt = c.customPrompt !== undefined ? c.customPrompt : (o.defaultPrompt ?? (await engineDefaultPrompt()))
  let handler = era.condensingHandler ? c.condensingApiHandler || apiHandler : apiHandler
  if (!isHandler(handler)) {
    if (era.logs.fallback && handler !== apiHandler) {
      console.warn(era.logs.fallback)
      handler = apiHandler
    }
    if (!isHandler(handler)) {
      console.error(era.logs.invalid)
      return { error: message(o, 'condense_handler_invalid') }
    }
  }
  const reply = await callHandler(handler, prompt, request, o)
  c.spent.cost += reply.cost
  let text = reply.text.trim()
  if (text.length === 0) return { error: message(o, 'condense_failed') }
  if (o.filesList) text += await filesListOf(base.slice(1, keepStart))

  let content = text
  if (era.toolBlocks) {
    content = [{ type: 'reasoning', text: SYNTHETIC_REASONING }, ...(toolUses.length > 0 ? reasoning : []), { type: 'text', text }, ...toolUses]
  }
  const id = o.nonDestructive ? o.generateId() : undefined
  const summary = summaryMessage(content, keepMessages[0], id)
  // Roo's count: the system prompt and the kept messages by the main handler, plus the summary's
  // output tokens when the model reported them (the summary counted otherwise).
  const system = { role: 'user', content: typeof c.systemPrompt === 'string' ? c.systemPrompt : '' }
  const counted = reply.outputTokens ? [system, ...keepMessages] : [system, summary, ...keepMessages]
  const newContextTokens = reply.outputTokens + (await countWith(counted.flatMap(toBlocks), apiHandler, o))
  if (newContextTokens >= c.prev) return { error: message(o, 'condense_context_grew') }
  if (o.strictGrowth) {
    // Opt-in: the summary must also be smaller than what it replaces (both by the engine's count).
    if (engineCount(toBlocks(summary)) >= engineCount(base.slice(1, keepStart).flatMap(toBlocks))) return { error: message(o, 'condense_context_grew') }
  }
  return { out: [first, summary, ...keepMessages], keepStart, text, newContextTokens, id }
}

// ---------------------------------------------------------------------------------------------
// summarizeConversation (positional eras)

function prePassConfig(o) {
  const config = isObject(o.providerConfig) ? { ...o.providerConfig } : {}
  if (o.provider === 'smart' && config.preset === undefined && config.passes === undefined) config.preset = 'balanced'
  if ((o.provider === 'truncation' || o.provider === 'smart') && o.targetTokens !== undefined && config.targetTokens === undefined) {
    config.targetTokens = Math.floor(o.targetTokens)
  }
  return config
}

/** The first step's summarize callback (smart's summarize passes): the host's handler. */
function firstStepCallback(handler, o, spent) {
  if (!isHandler(handler)) return undefined
  return async (request) => {
    const reply = await callHandler(handler, request.systemPrompt, request.messages, o)
    spent.cost += reply.cost
    return { text: reply.text, cost: reply.cost }
  }
}

/**
 * summarizeConversation with Roo's positional arguments; with `keepFirstStep`, a first step's
 * result comes back (with `summaryError`) when the summary after it fails, even short of the
 * target, so the sliding window then starts from it rather than from the whole history.
 */
async function positional(state, args, keepFirstStep) {
  const [messages, apiHandler, systemPrompt, taskId, prevContextTokens, isAutomaticTrigger, customCondensingPrompt] = args
  const condensingApiHandler = state.era.condensingHandler ? args[7] : undefined
  let options = state.era.condensingHandler ? args[8] : args[7]
  // Newer Roo passed a useNativeTools boolean last: accepted and ignored (tool pairs stay whole).
  if (typeof options === 'boolean') options = undefined
  if (!state.era.condensingHandler && isObject(options) && typeof options.createMessage === 'function') options = undefined
  const telemetryArgs = [taskId, isAutomaticTrigger ?? false, typeof customCondensingPrompt === 'string' && customCondensingPrompt.trim() !== '']
  if (state.era.condensingHandler) telemetryArgs.push(Boolean(condensingApiHandler))
  const telemetry = isObject(options) && isObject(options.telemetry) ? options.telemetry : state.defaults.telemetry
  capture(telemetry, 'captureContextCondensed', telemetryArgs)
  const response = { messages, cost: 0, summary: '' }
  const spent = { cost: 0 }
  let o
  try {
    o = resolveOptions(state, options, 'summarizeConversation: options')
    checkArray(messages, 'summarizeConversation')
  } catch (e) {
    return { ...response, error: `${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}` }
  }
  try {
    const prev =
      prevContextTokens === undefined || prevContextTokens === null ? undefined : hostNumber(prevContextTokens, 'summarizeConversation: prevContextTokens')
    const c = { o, apiHandler, condensingApiHandler, systemPrompt, spent, prev, customPrompt: nonBlank(customCondensingPrompt) }
    return await summarizePositional(messages, c, keepFirstStep)
  } catch (e) {
    return { ...response, cost: spent.cost, error: failure(e, o) }
  }
}

const nonBlank = (s) => (typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined)

async function summarizePositional(messages, c, keepFirstStep) {
  const { o, spent } = c
  const response = { messages, cost: 0, summary: '' }
  const nd = o.nonDestructive
  const { effective, index, visible } = nd ? project(messages) : { effective: messages }
  const prev = c.prev !== undefined ? c.prev : lib.countTokens(effective) + lib.countTokens(typeof c.systemPrompt === 'string' ? c.systemPrompt : '')
  c.prev = prev

  // 1. The selected provider first, when it is not Roo's own.
  let base = effective
  let baseOrigins = effective.map((_, i) => ({ from: i, to: i + 1, kind: 'same' }))
  let baseSummary = ''
  let prePass
  if (o.provider !== 'native') {
    const handler = o.era.condensingHandler && isHandler(c.condensingApiHandler) ? c.condensingApiHandler : c.apiHandler
    const engineOpts = {
      provider: o.provider,
      config: prePassConfig(o),
      prevContextTokens: prev,
      summarizeOptions: { retries: 0, timeoutMs: o.timeoutMs, ...(o.summarizeOptions ?? {}) },
    }
    const cb = firstStepCallback(handler, o, spent)
    if (cb) engineOpts.summarize = cb
    if (o.signal) engineOpts.signal = o.signal
    const r = await lib.condense(effective, engineOpts)
    let out = r.error ? undefined : r.messages
    let tokens = r.newContextTokens
    // Roo always keeps the first message as it is (it may hold a slash command's text), in both
    // modes: a destructive result then holds exactly what the non-destructive projection shows.
    if (out && out.length > 0 && out[0] !== effective[0]) {
      tokens += lib.countTokens([effective[0]]) - lib.countTokens([out[0]])
      out = [effective[0], ...out.slice(1)]
    }
    const origins = out ? align(effective, out) : null
    if (out && origins && tokens < prev) {
      base = out
      baseOrigins = origins
      baseSummary = r.summary
      prePass = { messages: out, origins, tokens, summary: r.summary }
    }
    if (prePass && o.targetTokens !== undefined && prePass.tokens <= o.targetTokens) {
      return finishPrePass(messages, effective, index, visible, prePass, o, spent, undefined)
    }
  }

  // 2. Roo's summary.
  const r = await positionalSummary(base, { ...c, prev: prePass ? prePass.tokens : prev })
  if (r.error) {
    // The first step's result stands alone when nothing better came (and it reaches the target, if
    // any; for truncateConversationIfNeeded, which goes on from it, in any case).
    if (prePass && (o.targetTokens === undefined || keepFirstStep)) return finishPrePass(messages, effective, index, visible, prePass, o, spent, r.error)
    return { ...response, cost: spent.cost, error: r.error }
  }
  let out = r.out
  if (prePass) out = [out[0], out[1], ...fixReferences(base, out, r.keepStart, (j) => baseOrigins[j].kind !== 'same').slice(2)]
  const provider = prePass ? `${o.provider}+native` : 'native'
  const summary = baseSummary ? `${baseSummary}\n\n${r.text}` : r.text
  const extra = o.provider !== 'native' ? { provider } : {}
  if (!nd) return { messages: out, summary, cost: spent.cost, newContextTokens: r.newContextTokens, ...extra }
  const nativeOrigins = out.map((m, i) => {
    if (i === 0) return { from: 0, to: 1, kind: m === base[0] ? 'same' : 'changed' }
    if (i === 1) return { from: 1, to: r.keepStart, kind: 'summary' }
    const j = r.keepStart + i - 2
    return { from: j, to: j + 1, kind: m === base[j] ? 'same' : 'changed' }
  })
  const origins = compose(baseOrigins, nativeOrigins)
  const stored = writeNonDestructive(messages, index, visible, effective, out, origins, r.id)
  return { messages: stored, summary, cost: spent.cost, newContextTokens: r.newContextTokens, condenseId: r.id, ...extra }
}

/** The first step's result on its own (no summary after it, or the summary failed). */
function finishPrePass(messages, effective, index, visible, prePass, o, spent, summaryError) {
  const base = { summary: prePass.summary, cost: spent.cost, newContextTokens: prePass.tokens, provider: o.provider }
  if (summaryError) base.summaryError = summaryError
  if (!o.nonDestructive) return { messages: prePass.messages, ...base }
  const id = o.generateId()
  const hasSummary = prePass.origins.some((x) => x.kind === 'summary')
  const out = prePass.messages.map((m, i) => {
    const x = prePass.origins[i]
    return x.kind === 'summary' ? summaryMessage(m.content, effective[x.to], id) : m
  })
  const stored = writeNonDestructive(messages, index, visible, effective, out, prePass.origins, id)
  return hasSummary ? { messages: stored, ...base, condenseId: id } : { messages: stored, ...base }
}

// ---------------------------------------------------------------------------------------------
// summarizeConversation (today: an options object, fresh-start summaries)

/**
 * Today's first step (`provider`: lossless, truncation, or smart without model calls) on what the
 * model is sent now: when it alone brings the context to `o.targetTokens`, its shortened copies are
 * stored after their messages (tagged `condenseParent` / `condensedBy`, nothing removed) and no
 * summary is asked for. Undefined when it does not reach the target or would replace a span.
 */
async function freshFirstStep(messages, o, prevContextTokens) {
  if (o.signal && o.signal.aborted) throw new HostError('aborted', 'the condensation was aborted')
  const visible = visibility(messages)
  let at = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].isSummary === true) {
      at = i
      break
    }
  }
  const effective = []
  const index = []
  messages.forEach((m, i) => {
    if (i >= Math.max(at, 0) && visible[i] && !(m && m.isTruncationMarker)) {
      effective.push(m)
      index.push(i)
    }
  })
  if (effective.length < 2) return undefined
  const engineOpts = { provider: o.provider, config: prePassConfig(o), prevContextTokens }
  if (o.signal) engineOpts.signal = o.signal
  const r = await lib.condense(effective, engineOpts)
  if (r.error || !Array.isArray(r.messages)) return undefined
  if (o.signal && o.signal.aborted) throw new HostError('aborted', 'the condensation was aborted')
  // The first message (the task, or the summary) stays as it is; only one-for-one changes are kept.
  let tokens = r.newContextTokens
  let out = r.messages
  if (out.length !== effective.length) return undefined
  if (out[0] !== effective[0]) {
    tokens += lib.countTokens([effective[0]]) - lib.countTokens([out[0]])
    out = [effective[0], ...out.slice(1)]
  }
  if (!(tokens < prevContextTokens) || tokens > o.targetTokens) return undefined
  const origins = out.map((m, i) => ({ from: i, to: i + 1, kind: m === effective[i] ? 'same' : 'changed' }))
  if (!origins.some((x) => x.kind === 'changed')) return undefined
  const id = o.generateId()
  const stored = writeNonDestructive(messages, index, visible, effective, out, origins, id)
  return { messages: stored, summary: typeof r.summary === 'string' ? r.summary : '', cost: 0, newContextTokens: tokens, provider: o.provider }
}

const FRESH_KEYS = [
  'messages',
  'apiHandler',
  'systemPrompt',
  'taskId',
  'isAutomaticTrigger',
  'customCondensingPrompt',
  'metadata',
  'environmentDetails',
  'filesReadByRoo',
  'cwd',
  'rooIgnoreController',
  'prevContextTokens',
]

/** Roo's errorDetails of a failed request: the message and what the API error carries. */
function errorDetails(error) {
  if (!(error instanceof Error)) return String(error)
  let details = `Error: ${error.message}`
  if (error.status) details += `\n\nHTTP Status: ${error.status}`
  if (error.code) details += `\nError Code: ${error.code}`
  for (const [key, label] of [
    ['response', 'API Response'],
    ['body', 'Response Body'],
  ]) {
    if (!error[key]) continue
    try {
      details += `\n\n${label}:\n${JSON.stringify(error[key], null, 2)}`
    } catch {
      details += `\n\n${label}: [Unable to serialize]`
    }
  }
  return details
}

/**
 * Today's summary. `legacy` (the positional call of the first fresh-start Roo) counts the new
 * context as that Roo did (the summary's output tokens and the system prompt) and refuses a
 * result that is not under `legacy.prevContextTokens`.
 */
async function freshStart(state, params, legacy) {
  const p = isObject(params) ? params : {}
  const {
    messages,
    apiHandler,
    systemPrompt,
    taskId,
    isAutomaticTrigger,
    customCondensingPrompt,
    metadata,
    environmentDetails,
    filesReadByRoo,
    cwd,
    rooIgnoreController,
  } = p
  const extra = {}
  for (const [k, v] of Object.entries(p)) if (!FRESH_KEYS.includes(k)) extra[k] = v
  const telemetry = isObject(extra.telemetry) ? extra.telemetry : state.defaults.telemetry
  capture(telemetry, 'captureContextCondensed', [taskId, isAutomaticTrigger ?? false, Boolean(nonBlank(customCondensingPrompt))])
  const response = { messages, cost: 0, summary: '' }
  let o
  try {
    o = resolveOptions(state, extra, 'summarizeConversation: options')
    checkArray(messages, 'summarizeConversation')
  } catch (e) {
    return { ...response, error: `${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}` }
  }
  const toSummarize = getMessagesSinceLastSummary(messages)
  if (toSummarize.length <= 1) return { ...response, error: message(o, messages.length <= 1 ? 'condense_not_enough_messages' : 'condensed_recently') }
  if (toSummarize.some((m) => m && m.isSummary) && toSummarize.length <= 2) return { ...response, error: message(o, 'condensed_recently') }

  if (o.provider !== 'native' && o.targetTokens !== undefined && finite(p.prevContextTokens)) {
    try {
      const first = await freshFirstStep(messages, o, p.prevContextTokens)
      if (first) return first
    } catch (e) {
      if (e instanceof HostError && e.kind === 'aborted') return { ...response, error: failure(e, o) }
      // Otherwise the summary follows, as without a first step.
    }
  }

  const instructions = nonBlank(customCondensingPrompt) ?? o.defaultPrompt ?? (await engineDefaultPrompt())
  let cost = 0
  let text
  let outputTokens = 0
  try {
    const withResults = injectSyntheticToolResults(toSummarize)
    const request = transformMessagesForCondensing(prepared([...withResults, { role: 'user', content: instructions }], apiHandler, o)).map(
      ({ role, content }) => ({ role, content }),
    )
    if (!isHandler(apiHandler)) {
      console.error('API handler is invalid for condensing. Cannot proceed.')
      return { ...response, error: message(o, 'condense_handler_invalid') }
    }
    const reply = await callHandler(apiHandler, o.requestSystemPrompt ?? FRESH_START_SYSTEM_PROMPT, request, o, metadata)
    cost = reply.cost
    text = reply.text
    outputTokens = reply.outputTokens
  } catch (e) {
    if (e instanceof HostError && e.kind !== 'failed') return { ...response, cost, error: failure(e, o) }
    console.error('Error during condensing API call:', e)
    return { ...response, cost, error: message(o, 'condense_api_failed', { message: e && e.message ? e.message : String(e) }), errorDetails: errorDetails(e) }
  }
  const summary = text.trim()
  if (summary.length === 0) return { ...response, cost, error: message(o, 'condense_failed') }

  try {
    const content = [{ type: 'text', text: `## Conversation Summary\n${summary}` }]
    const commands = messages[0] ? extractCommandBlocks(messages[0]) : ''
    if (commands) {
      content.push({
        type: 'text',
        text: `<system-reminder>\n## Active Workflows\nThe following directives must be maintained across all future condensings:\n${commands}\n</system-reminder>`,
      })
    }
    if (o.filesList) {
      const files = await filesListOf(toSummarize)
      if (files) content.push({ type: 'text', text: files.trim() })
    }
    const fold =
      typeof o.foldedFileContext === 'function'
        ? o.foldedFileContext
        : typeof o.outlineFile === 'function'
          ? (files, x) => generateFoldedFileContext(files, { ...x, outlineFile: o.outlineFile })
          : undefined
    if (Array.isArray(filesReadByRoo) && filesReadByRoo.length > 0 && cwd && fold) {
      // The outlines are the host's (Roo builds them with tree-sitter): a failure is not fatal.
      try {
        const folded = await bounded(fold(filesReadByRoo, { cwd, rooIgnoreController }), o, 'foldedFileContext')
        for (const section of folded && Array.isArray(folded.sections) ? folded.sections : []) {
          if (typeof section === 'string' && section.trim()) content.push({ type: 'text', text: section })
        }
      } catch (e) {
        if (e instanceof HostError && e.kind === 'aborted') throw e
        console.error('[summarizeConversation] Failed to generate folded file context:', e)
      }
    }
    if (isAutomaticTrigger && typeof environmentDetails === 'string' && environmentDetails.trim()) content.push({ type: 'text', text: environmentDetails })

    const condenseId = o.generateId()
    const last = messages[messages.length - 1]
    const lastTs = last && finite(last.ts) ? last.ts : Date.now()
    const summaryMessage = { role: 'user', content, ts: lastTs + 1, isSummary: true, condenseId }
    const newMessages = o.nonDestructive ? messages.map((m) => (m && !m.condenseParent ? { ...m, condenseParent: condenseId } : m)) : []
    newMessages.push(summaryMessage)
    // The next request holds the system prompt, the summary and the tool definitions.
    const system = { role: 'user', content: typeof systemPrompt === 'string' ? systemPrompt : '' }
    if (legacy) {
      const counted = outputTokens ? [system] : [system, summaryMessage]
      const tokens = outputTokens + (await countWith(counted.flatMap(toBlocks), apiHandler, o))
      if (legacy.prevContextTokens !== undefined && tokens >= legacy.prevContextTokens) return { ...response, cost, error: message(o, 'condense_context_grew') }
      return { messages: newMessages, summary, cost, newContextTokens: tokens, condenseId }
    }
    let newContextTokens = await countWith([system, summaryMessage].flatMap(toBlocks), apiHandler, o)
    if (isObject(metadata) && Array.isArray(metadata.tools) && metadata.tools.length > 0) {
      newContextTokens += await countWith([{ text: JSON.stringify(metadata.tools), type: 'text' }], apiHandler, o)
    }
    return { messages: newMessages, summary, cost, newContextTokens, condenseId }
  } catch (e) {
    return { ...response, cost, error: failure(e, o) }
  }
}

// ---------------------------------------------------------------------------------------------
// Folded file context: the outlines of the files the task read, one <system-reminder> each.

const OUTLINE_ERRORS = ['This file does not exist', 'do not have permission', 'Unsupported file type:']

/**
 * Roo's folded file context: for each file (relative to `cwd`), the host's outline of its
 * definitions (`outlineFile`: Roo's tree-sitter parseSourceCodeDefinitionsForFile) in its own
 * `<system-reminder>## File Context: path …</system-reminder>` section, within `maxCharacters`
 * (the last section cut short with "... (truncated)"). Files without an outline, or whose outline
 * failed, are counted as skipped (one console.warn names the failed ones).
 */
async function generateFoldedFileContext(filePaths, options) {
  const o = isObject(options) ? options : {}
  const maxCharacters = o.maxCharacters ?? 50_000
  const result = { content: '', sections: [], filesProcessed: 0, filesSkipped: 0, characterCount: 0 }
  if (!Array.isArray(filePaths) || filePaths.length === 0) return result
  if (typeof o.outlineFile !== 'function')
    throw new TypeError(
      'generateFoldedFileContext: options.outlineFile: expected a function (absolutePath, rooIgnoreController) => Promise<string | undefined>',
    )
  const sections = []
  const failed = []
  let chars = 0
  const section = (file, body) => `<system-reminder>\n## File Context: ${file}\n${body}\n</system-reminder>`
  for (let i = 0; i < filePaths.length; i++) {
    const file = filePaths[i]
    const absolute = path.isAbsolute(file) ? file : path.resolve(o.cwd ?? '.', file)
    try {
      const outline = await o.outlineFile(absolute, o.rooIgnoreController)
      if (!outline || typeof outline !== 'string' || OUTLINE_ERRORS.some((e) => outline.includes(e))) {
        result.filesSkipped++
        continue
      }
      const text = section(file, outline)
      if (chars + text.length > maxCharacters) {
        const left = maxCharacters - chars
        if (left < 200) {
          result.filesSkipped += filePaths.length - i
          break
        }
        const cut = section(file, `${outline.substring(0, left - 100)}\n... (truncated)`)
        sections.push(cut)
        chars += cut.length
        result.filesProcessed++
        result.filesSkipped += filePaths.length - result.filesProcessed - result.filesSkipped
        break
      }
      sections.push(text)
      chars += text.length
      result.filesProcessed++
    } catch {
      failed.push(file)
      result.filesSkipped++
    }
  }
  if (failed.length > 0) {
    const more = failed.length > 5 ? ` and ${failed.length - 5} more` : ''
    console.warn(`Folded context generation: skipped ${failed.length} file(s) due to errors: ${failed.slice(0, 5).join(', ')}${more}`)
  }
  if (sections.length > 0) {
    result.sections = sections
    result.content = sections.join('\n')
    result.characterCount = result.content.length
  }
  return result
}

// ---------------------------------------------------------------------------------------------
// The sliding window.

const TRUNCATION_KEYS = ['telemetry', 'nonDestructive', 'generateId']

/**
 * Roo's sliding window: keeps the first message and removes an even number of the oldest others
 * (`fracToRemove` of them, rounded down to even). Non-destructive (the default since 2026): those
 * are tagged `truncationParent` instead, behind a marker message, and the result is
 * `{ messages, truncationId, messagesRemoved }`.
 */
function truncateWith(state, messages, fracToRemove, taskId, options) {
  checkArray(messages, 'truncateConversation')
  const o = { ...state.defaults, ...readOptions(options, [...TRUNCATION_KEYS, ...CALL_KEYS], 'truncateConversation: options', false) }
  capture(o.telemetry, 'captureSlidingWindowTruncation', [taskId])
  const nd = o.nonDestructive ?? state.era.nonDestructive
  if (!nd) return slidingWindow(messages, fracToRemove)
  const id = (o.generateId ?? randomUUID)()
  // What the sliding window sees: messages neither hidden by an earlier truncation nor markers.
  const visible = []
  messages.forEach((m, i) => {
    if (m && !m.truncationParent && !m.isTruncationMarker) visible.push(i)
  })
  const raw = Math.floor((visible.length - 1) * fracToRemove)
  const remove = raw - (raw % 2)
  if (!(remove > 0)) return { messages, truncationId: id, messagesRemoved: 0 }
  const hide = new Set(visible.slice(1, remove + 1))
  const boundary = visible[remove + 1] ?? messages.length
  const keptTs = messages[boundary] ? messages[boundary].ts : undefined
  const marker = {
    role: 'user',
    content: `[Sliding window truncation: ${remove} messages hidden to reduce context]`,
    ts: (finite(keptTs) ? keptTs : Date.now()) - 1,
    isTruncationMarker: true,
    truncationId: id,
  }
  const out = messages.map((m, i) => (hide.has(i) ? { ...m, truncationParent: id } : m))
  out.splice(boundary, 0, marker)
  return { messages: out, truncationId: id, messagesRemoved: remove }
}

/**
 * Roo's trigger, from the engine's one implementation (src/manager.rs): the threshold for the
 * profile (its own when 5..100, else the global one, with Roo's warning for an invalid one), the
 * allowed size (the window less a 10 % buffer and the reserved output).
 */
function decide(p, prevParts, warn, fn) {
  const config = { autoCondenseContext: Boolean(p.autoCondenseContext), autoCondenseContextPercent: p.autoCondenseContextPercent }
  const thresholds = {}
  if (isObject(p.profileThresholds)) {
    for (const [k, v] of Object.entries(p.profileThresholds)) if (finite(v)) thresholds[k] = v
  }
  config.profileThresholds = thresholds
  const situation = {
    totalTokens: Math.ceil(prevParts.totalTokens),
    lastMessageTokens: Math.ceil(prevParts.lastMessageTokens),
    contextWindow: Math.ceil(p.contextWindow),
  }
  if (p.maxTokens) situation.maxTokens = Math.ceil(p.maxTokens)
  if (typeof p.currentProfileId === 'string') situation.profileId = p.currentProfileId
  let engineConfig
  try {
    engineConfig = native.managerReadConfig(config)
  } catch (e) {
    // The engine's rules refuse a global threshold outside 5..100 (Roo's settings offer no other).
    const detail = String(e && e.message ? e.message : e)
      .replace(/^invalid options: /, '')
      .replace(/config\.threshold/g, 'autoCondenseContextPercent')
    throw new HostError('invalid', `${fn}: ${detail}`)
  }
  const d = native.managerDecide(engineConfig, situation)
  if (warn && d.threshold.warning) console.warn(d.threshold.warning)
  const prevContextTokens = prevParts.totalTokens + prevParts.lastMessageTokens
  return { ...d, prevContextTokens, summarize: Boolean(p.autoCondenseContext) && d.condense }
}

/** The numbers of a context-management call, checked: a clear error for each bad one. */
function checkNumbers(fn, p) {
  const need = (k, min, optional) => {
    const v = p[k]
    if (optional && (v === undefined || v === null)) return
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new HostError('invalid', `${fn}: ${k}: expected a number >= ${min}, got ${shown(v)}`)
  }
  need('totalTokens', 0)
  need('contextWindow', 1)
  need('maxTokens', 0, true)
  need('autoCondenseContextPercent', 0, !p.autoCondenseContext)
}

/** The last message's tokens, as Roo counts them (the handler's count of its blocks). */
async function lastMessageTokens(messages, apiHandler, o) {
  const last = messages[messages.length - 1]
  const content = last ? last.content : ''
  return countWith(Array.isArray(content) ? content : [{ type: 'text', text: typeof content === 'string' ? content : '' }], apiHandler, o)
}

/**
 * Roo Code's context management: condenses when the context reaches the effective threshold or
 * passes the allowed size, and falls back to the sliding window when condensing fails or is off
 * and the context is past the allowed size. `summarize(messages, prevContextTokens, o)` is the
 * era's summary call; `windowTokens` says how the context after the sliding window is counted.
 */
async function manage(state, params, fn, summarize) {
  const p = isObject(params) ? params : {}
  let messages = p.messages
  const extra = {}
  for (const [k, v] of Object.entries(p)) if (!MANAGE_KEYS.includes(k)) extra[k] = v
  const fail = (error, prevContextTokens = 0) => ({ messages: Array.isArray(messages) ? messages : [], summary: '', cost: 0, prevContextTokens, error })
  if (!Array.isArray(messages) || messages.length === 0) return fail(undefined)
  let o
  try {
    o = resolveOptions(state, extra, `${fn}: options`)
  } catch (e) {
    return fail(`${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}`)
  }
  let d
  try {
    checkNumbers(fn, p)
    // Counted even when the signal has fired already: the caller still learns the context's size.
    const last = await lastMessageTokens(messages, p.apiHandler, { ...o, signal: undefined })
    d = decide(p, { totalTokens: p.totalTokens, lastMessageTokens: last }, true, fn)
  } catch (e) {
    return fail(failure(e, o))
  }
  const prevContextTokens = d.prevContextTokens
  let error
  let errorDetails
  let cost = 0
  if (d.summarize) {
    // A first step is enough when the context ends under both triggers.
    const target = Math.max(0, Math.min(Math.floor(d.allowedTokens), Math.ceil((d.threshold.percent * p.contextWindow) / 100) - 1))
    const result = await summarize(messages, prevContextTokens, { ...extra, targetTokens: o.targetTokens ?? (finite(target) ? target : undefined) })
    if (result.error) {
      error = result.error
      errorDetails = result.errorDetails
      cost = result.cost
    } else if (result.summaryError && result.newContextTokens > d.allowedTokens) {
      // The first step saved something but not enough, and the summary failed: the sliding
      // window goes on from the first step's result.
      error = result.summaryError
      cost = result.cost
      messages = result.messages
    } else {
      return { ...result, prevContextTokens }
    }
  }
  const withDetails = errorDetails !== undefined ? { errorDetails } : {}
  if (d.overflow && !(o.signal && o.signal.aborted)) {
    const truncationOptions = { telemetry: o.telemetry, nonDestructive: o.nonDestructive, generateId: o.generateId }
    const t = truncateWith(state, messages, 0.5, p.taskId, truncationOptions)
    if (!o.nonDestructive) return { messages: t, prevContextTokens, summary: '', cost, error, ...withDetails }
    // The context after the window: the system prompt (Roo counts it since December 2025) and
    // every message neither hidden nor a marker.
    let newContextTokensAfterTruncation
    try {
      newContextTokensAfterTruncation = await countWith([{ type: 'text', text: typeof p.systemPrompt === 'string' ? p.systemPrompt : '' }], p.apiHandler, o)
      for (const m of t.messages) {
        if (!m || m.truncationParent || m.isTruncationMarker) continue
        if (Array.isArray(m.content)) newContextTokensAfterTruncation += await countWith(m.content, p.apiHandler, o)
        else if (typeof m.content === 'string') newContextTokensAfterTruncation += await countWith([{ type: 'text', text: m.content }], p.apiHandler, o)
      }
    } catch (e) {
      return {
        messages: t.messages,
        prevContextTokens,
        summary: '',
        cost,
        error: failure(e, o),
        truncationId: t.truncationId,
        messagesRemoved: t.messagesRemoved,
      }
    }
    return {
      messages: t.messages,
      prevContextTokens,
      summary: '',
      cost,
      error,
      ...withDetails,
      truncationId: t.truncationId,
      messagesRemoved: t.messagesRemoved,
      newContextTokensAfterTruncation,
    }
  }
  return { messages, summary: '', cost, prevContextTokens, error, ...withDetails }
}

const MANAGE_KEYS = [
  'messages',
  'totalTokens',
  'contextWindow',
  'maxTokens',
  'apiHandler',
  'autoCondenseContext',
  'autoCondenseContextPercent',
  'systemPrompt',
  'taskId',
  'customCondensingPrompt',
  'condensingApiHandler',
  'profileThresholds',
  'currentProfileId',
  'useNativeTools',
  'metadata',
  'environmentDetails',
  'filesReadByRoo',
  'cwd',
  'rooIgnoreController',
]

/** Roo's willManageContext: whether manageContext would condense or slide the window now. */
function willManageContext(params) {
  const p = isObject(params) ? params : {}
  checkNumbers('willManageContext', p)
  const last = p.lastMessageTokens ?? 0
  if (typeof last !== 'number' || !Number.isFinite(last) || last < 0)
    throw new TypeError(`willManageContext: lastMessageTokens: expected a number >= 0, got ${shown(last)}`)
  let d
  try {
    d = decide(p, { totalTokens: p.totalTokens, lastMessageTokens: last }, false, 'willManageContext')
  } catch (e) {
    throw new TypeError(e.message)
  }
  return d.summarize || d.overflow
}

// ---------------------------------------------------------------------------------------------

/**
 * The messages since the last summary, the summary included (all of them when there is none).
 * When that summary is not the user's (Roo's summaries before 2026), the task's original first
 * message comes first, as Roo does since its fix of the first-message regression; a stand-in line
 * only when that first message is not the user's either.
 */
function getMessagesSinceLastSummary(messages) {
  checkArray(messages, 'getMessagesSinceLastSummary')
  let last = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].isSummary) {
      last = i
      break
    }
  }
  if (last < 0) return messages
  const since = messages.slice(last)
  if (since[0].role === 'user') return since
  const first = messages[0]
  if (first && first.role === 'user') return [first, ...since]
  const ts = first && finite(first.ts) && first.ts ? first.ts - 1 : Date.now()
  return [{ role: 'user', content: 'Please continue from the following summary:', ts }, ...since]
}

/**
 * What the model is sent. Today (and after a fresh-start summary, a user one): from the last
 * summary on, without tool_results whose tool_use is gone and without what a marker
 * hides. Otherwise: the stored history without the messages a summary, a shortened copy or a
 * sliding-window marker stands in for. The caller's objects, never copied unless a block is dropped.
 */
function effectiveHistory(messages, era) {
  checkArray(messages, 'getEffectiveApiHistory')
  let at = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].isSummary === true) {
      at = i
      break
    }
  }
  // Today's Roo starts from its last summary, whatever its role; before, only a fresh-start (user)
  // summary is read that way.
  if (at >= 0 && (era.freshStart || messages[at].role === 'user')) {
    // A shortened copy (this package's first step) stands in for its message here too.
    const shown = visibility(messages)
    const from = messages.slice(at).filter((m, k) => shown[at + k] || (m && m.truncationParent))
    const uses = new Set()
    for (const m of from) {
      if (m && m.role === 'assistant' && Array.isArray(m.content)) for (const b of m.content) if (b && b.type === 'tool_use' && b.id) uses.add(b.id)
    }
    const markers = new Set(from.filter((m) => m && m.isTruncationMarker && m.truncationId).map((m) => m.truncationId))
    const out = []
    for (const m of from) {
      if (m && m.truncationParent && markers.has(m.truncationParent)) continue
      if (m && m.role === 'user' && Array.isArray(m.content)) {
        const kept = m.content.filter((b) => !(b && b.type === 'tool_result') || uses.has(b.tool_use_id))
        if (kept.length === 0) continue
        out.push(kept.length === m.content.length ? m : { ...m, content: kept })
      } else out.push(m)
    }
    return out
  }
  const visible = visibility(messages)
  return messages.filter((_, i) => visible[i])
}

// ---------------------------------------------------------------------------------------------
// The entries.

/** The API of one era, with its own configured defaults. */
function createEntry(eraName) {
  const state = { era: ERAS[eraName], defaults: {} }
  const configure = (options) => {
    const next = readOptions(options, CONFIG_KEYS, 'configure: options', true)
    const previous = state.defaults
    state.defaults = next
    return { ...previous }
  }
  const configuration = () => ({ ...state.defaults })
  const truncateConversation = (messages, fracToRemove, taskId, options) => truncateWith(state, messages, fracToRemove, taskId, options)

  /** The summary a context-management call asks for, through the host's seam when it gave one. */
  /**
   * This package's options of a context-management call, for a summary called through the seam:
   * only when there are any (the caller's own, or a first step the defaults select), so Roo's own
   * calls keep Roo's arguments exactly.
   */
  const seamOptions = (extra) => {
    const { targetTokens, summarizeConversation: _s, ...own } = isObject(extra) ? extra : {}
    const provider = own.provider ?? state.defaults.provider
    if (Object.keys(own).length === 0 && (provider === undefined || provider === 'native')) return undefined
    return targetTokens === undefined ? own : { ...own, targetTokens }
  }

  const summaryFor = (p) => async (messages, prevContextTokens, extra) => {
    const args = [messages, p.apiHandler, p.systemPrompt, p.taskId, prevContextTokens, true, p.customCondensingPrompt]
    if (state.era.condensingHandler) args.push(p.condensingApiHandler)
    const seam = isObject(extra) && typeof extra.summarizeConversation === 'function' ? extra.summarizeConversation : state.defaults.summarizeConversation
    if (seam) {
      const own = seamOptions(extra)
      return own === undefined ? seam(...args) : seam(...args, own)
    }
    args.push(extra)
    return positional(state, args, true)
  }

  const api = {
    truncateConversation,
    getMessagesSinceLastSummary,
    getEffectiveApiHistory: (messages) => effectiveHistory(messages, state.era),
    cleanupAfterTruncation,
    rewindConversation,
    estimateTokenCount,
    configure,
    configuration,
    N_MESSAGES_TO_KEEP,
    MIN_CONDENSE_THRESHOLD,
    MAX_CONDENSE_THRESHOLD,
    TOKEN_BUFFER_PERCENTAGE,
    ANTHROPIC_DEFAULT_MAX_TOKENS,
    ROO_ERROR_MESSAGES,
  }
  if (eraName === '2025') {
    api.summarizeConversation = (...args) => positional(state, args, false)
    api.truncateConversationIfNeeded = (params) => manage(state, params, 'truncateConversationIfNeeded', summaryFor(isObject(params) ? params : {}))
    return api
  }
  api.willManageContext = willManageContext
  if (eraName === '2026-01') {
    api.getKeepMessagesWithToolBlocks = getKeepMessagesWithToolBlocks
    api.summarizeConversation = (...args) => positional(state, args, false)
    api.manageContext = (params) => manage(state, params, 'manageContext', summaryFor(isObject(params) ? params : {}))
    return api
  }
  // Today's: an options object; positional calls are those of the first fresh-start Roo
  // (…, customCondensingPrompt, metadata), with this package's options after them.
  api.summarizeConversation = (...args) => {
    if (!Array.isArray(args[0])) return freshStart(state, args[0])
    const [messages, apiHandler, systemPrompt, taskId, prevContextTokens, isAutomaticTrigger, customCondensingPrompt, metadata, options] = args
    const call = { ...(isObject(options) ? options : {}), messages, apiHandler, systemPrompt, taskId, isAutomaticTrigger, customCondensingPrompt, metadata }
    if (prevContextTokens !== undefined && prevContextTokens !== null && !(finite(prevContextTokens) && prevContextTokens >= 0)) {
      return Promise.resolve({
        messages,
        cost: 0,
        summary: '',
        error: `${ROO_ERROR_MESSAGES.condense_failed}: summarizeConversation: prevContextTokens: expected a number >= 0, got ${shown(prevContextTokens)}`,
      })
    }
    return freshStart(state, call, { prevContextTokens: prevContextTokens ?? undefined })
  }
  api.manageContext = (params) => {
    const p = isObject(params) ? params : {}
    return manage(state, p, 'manageContext', async (messages, prevContextTokens, extra) => {
      const seam = isObject(extra) && typeof extra.summarizeConversation === 'function' ? extra.summarizeConversation : state.defaults.summarizeConversation
      const call = {
        messages,
        apiHandler: p.apiHandler,
        systemPrompt: p.systemPrompt,
        taskId: p.taskId,
        isAutomaticTrigger: true,
        customCondensingPrompt: p.customCondensingPrompt,
        metadata: p.metadata,
        environmentDetails: p.environmentDetails,
        filesReadByRoo: p.filesReadByRoo,
        cwd: p.cwd,
        rooIgnoreController: p.rooIgnoreController,
      }
      if (seam) {
        const own = seamOptions(extra)
        return seam(own === undefined ? call : { ...own, ...call })
      }
      const { summarizeConversation: _s, ...rest } = extra
      return freshStart(state, { ...call, ...rest, prevContextTokens })
    })
  }
  api.toolUseToText = toolUseToText
  api.toolResultToText = toolResultToText
  api.convertToolBlocksToText = convertToolBlocksToText
  api.transformMessagesForCondensing = transformMessagesForCondensing
  api.injectSyntheticToolResults = injectSyntheticToolResults
  api.extractCommandBlocks = extractCommandBlocks
  api.generateFoldedFileContext = generateFoldedFileContext
  return api
}

module.exports = { createEntry }
