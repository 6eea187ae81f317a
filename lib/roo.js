// context-condense/roo: Roo Code's condensing API (src/core/condense and src/core/sliding-window,
// as ../../shared/seeds/002 describes them) on top of the engine, so a Roo-based host swaps its
// imports and keeps its call sites. The host's `ApiHandler` (createMessage -> async stream of text
// and usage chunks, countTokens) becomes the engine's summarize callback here; the summarization
// itself (what is kept, what is summarized, the checks) is the engine's Native provider.
//
// On top of Roo's behaviour:
// - an extra option (per call, or once for every call through `configure`) selects a provider that
//   runs first: lossless, truncation or smart. When it alone brings the context under the target,
//   no summary is asked for; otherwise Roo's summary follows, on its output.
// - non-destructive mode, as newer Roo does it: nothing is deleted. Messages a summary replaces
//   are tagged `condenseParent` (the summary's `condenseId`), messages the sliding window hides
//   `truncationParent` (with a marker message); a message a provider only shortened is tagged
//   `condenseParent` too and followed by its shortened copy (`condensedBy`). What the model is sent
//   is `getEffectiveApiHistory(messages)`; `cleanupAfterTruncation` / `rewindConversation` bring
//   tagged messages back when what hid them is removed.
// summarizeConversation never throws: problems come back in `error`, with the messages unchanged.
'use strict'

const { randomUUID } = require('node:crypto')
const lib = require('./index.js')
const { slidingWindow } = require('./manager.js')
const { describe, isObject } = require('./values.js')

const N_MESSAGES_TO_KEEP = 3
const MIN_CONDENSE_THRESHOLD = 5
const MAX_CONDENSE_THRESHOLD = 100
const TOKEN_BUFFER_PERCENTAGE = 0.1
/** Reserved for the model's answer when the host gives no maxTokens (Roo's ANTHROPIC_DEFAULT_MAX_TOKENS). */
const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192

/** Roo's error messages (seed 002), by Roo's i18n key; `options.errors` replaces any of them. */
const ROO_ERROR_MESSAGES = Object.freeze({
  condense_failed: 'Failed to condense context',
  condense_not_enough_messages: 'Not enough messages to condense',
  condensed_recently: 'Context was condensed recently',
  condense_handler_invalid: 'API handler for condensing context is invalid',
  condense_context_grew: 'Context size increased during condensing; skipping this attempt',
  /** Not Roo's: the caller's AbortSignal fired. */
  condense_aborted: 'Context condensing was aborted',
})

// What the engine's Native provider answers (src/providers/native.rs).
const ENGINE_NOT_ENOUGH = 'Not enough messages to condense'
const ENGINE_RECENT = 'Context was condensed recently'
const ENGINE_GREW = 'Context size increased during condensing; skipping this attempt'
const ENGINE_NO_CALLBACK = 'No summarize callback was given'
const ENGINE_FAILED = 'Failed to condense context'
const ENGINE_EMPTY = 'Failed to condense context: the summarize callback returned an empty summary'
// How the engine words a failing callback: here the callback is the host's ApiHandler.
const ENGINE_CALLBACK_FAILED = /^: options\.summarize (?:rejected|threw) \(\d+ attempts?\): /
const ENGINE_CALLBACK_TIMEOUT = /^: options\.summarize did not answer/

const HANDLER_FALLBACK_WARNING = 'Chosen API handler invalid, falling back to main apiHandler'
const HANDLER_INVALID_LOG = 'API handler for condensing context is invalid: neither condensingApiHandler nor apiHandler has a createMessage function'

/** Roo never times out or retries a summary; the engine's defaults are for batch use. */
const SUMMARIZE_DEFAULTS = { retries: 0, timeoutMs: 600_000 }

// ---------------------------------------------------------------------------------------------
// Options: per call, over the defaults `configure` sets.

const PROVIDERS = ['native', 'lossless', 'truncation', 'smart']
const CONFIG_KEYS = ['provider', 'providerConfig', 'nonDestructive', 'telemetry', 'pricing', 'errors', 'summarizeOptions', 'generateId', 'defaultPrompt', 'prepareMessages', 'summarizeConversation', 'filesList', 'strictGrowth', 'timeoutMs']
const CALL_KEYS = [...CONFIG_KEYS, 'signal', 'targetTokens']

let defaults = {}



function checkKey(key, value, at) {
  const bad = (expected) => new TypeError(`${at}.${key}: expected ${expected}, got ${describe(value)}`)
  switch (key) {
    case 'provider':
      if (!PROVIDERS.includes(value)) throw bad(`one of ${PROVIDERS.map((p) => `"${p}"`).join(', ')}`)
      break
    case 'nonDestructive':
      if (typeof value !== 'boolean') throw bad('true or false')
      break
    case 'generateId':
      if (typeof value !== 'function') throw bad('a function returning a unique string')
      break
    case 'prepareMessages':
      if (typeof value !== 'function') throw bad('a function (messages, apiHandler) => messages')
      break
    case 'summarizeConversation':
      if (typeof value !== 'function') throw bad('a function with summarizeConversation\'s parameters')
      break
    case 'filesList':
    case 'strictGrowth':
      if (typeof value !== 'boolean') throw bad('true or false')
      break
    case 'timeoutMs':
      if (typeof value !== 'number' || !(value > 0)) throw bad('a number of milliseconds > 0')
      break
    case 'defaultPrompt':
      if (typeof value !== 'string') throw bad('a string')
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

/** The options a call runs with: its own over the configured defaults. */
function resolveOptions(raw, at) {
  const o = { ...defaults, ...readOptions(raw, CALL_KEYS, at, false) }
  return {
    ...o,
    provider: o.provider ?? 'native',
    nonDestructive: o.nonDestructive ?? false,
    generateId: o.generateId ?? randomUUID,
    errors: o.errors ?? {},
  }
}

/**
 * Sets the options every call uses unless it passes its own (replacing earlier defaults), so a
 * host selects a provider or the non-destructive mode without touching its call sites.
 * Returns the defaults it replaced.
 */
function configure(options) {
  const next = readOptions(options, CONFIG_KEYS, 'configure: options', true)
  const previous = defaults
  defaults = next
  return { ...previous }
}

/** The options `configure` set (a copy), so a host adds to them: `configure({ ...configuration(), x })`. */
function configuration() {
  return { ...defaults }
}

/** The telemetry a call reports to: its own when it is an object, else the configured one. */
function pickTelemetry(raw) {
  if (isObject(raw) && isObject(raw.telemetry)) return raw.telemetry
  return defaults.telemetry
}

function capture(telemetry, method, args) {
  if (!telemetry || typeof telemetry[method] !== 'function') return
  try {
    telemetry[method](...args)
  } catch {
    // Telemetry never stops a condensation.
  }
}

const message = (o, key) => (o && o.errors && typeof o.errors[key] === 'string' ? o.errors[key] : ROO_ERROR_MESSAGES[key])

/** The engine's error as Roo words it (the host's wording when it gave one). */
function rooError(error, o) {
  if (error === ENGINE_NOT_ENOUGH) return message(o, 'condense_not_enough_messages')
  if (error === ENGINE_RECENT) return message(o, 'condensed_recently')
  if (error === ENGINE_GREW) return message(o, 'condense_context_grew')
  if (error.startsWith(ENGINE_NO_CALLBACK)) return message(o, 'condense_handler_invalid')
  // An empty summary is Roo's condense_failed, word for word.
  if (error === ENGINE_EMPTY) return message(o, 'condense_failed')
  if (error.startsWith(ENGINE_FAILED)) {
    if (typeof o.errors.condense_failed === 'string') return o.errors.condense_failed
    // A stream that failed: the detail names the handler, not the engine's callback option.
    const detail = error
      .slice(ENGINE_FAILED.length)
      .replace(ENGINE_CALLBACK_FAILED, ': the API handler failed: ')
      .replace(ENGINE_CALLBACK_TIMEOUT, ': the API handler did not answer')
    return `${ENGINE_FAILED}${detail}`
  }
  return error
}

// ---------------------------------------------------------------------------------------------
// The ApiHandler as the engine's summarize callback.

const finite = (x) => typeof x === 'number' && Number.isFinite(x)
const isHandler = (h) => Boolean(h) && typeof h.createMessage === 'function'

/** The cost of a usage chunk: its totalCost, else priced from its tokens, else 0. */
function usageCost(usage, pricing) {
  if (!usage) return 0
  if (finite(usage.totalCost)) return usage.totalCost
  if (!isObject(pricing)) return 0
  const n = (x) => (finite(x) && x > 0 ? x : 0)
  const price = (x) => (finite(x) ? x : 0)
  const input = n(usage.inputTokens)
  const cacheWrite = n(usage.cacheWriteTokens)
  const cacheRead = n(usage.cacheReadTokens)
  // "openai": input counts include the cached tokens; "anthropic" (default): they do not.
  const uncached = pricing.accounting === 'openai' ? Math.max(0, input - cacheWrite - cacheRead) : input
  return (
    (price(pricing.inputPrice) * uncached +
      price(pricing.outputPrice) * n(usage.outputTokens) +
      price(pricing.cacheWritesPrice) * cacheWrite +
      price(pricing.cacheReadsPrice) * cacheRead) /
    1_000_000
  )
}

const ABORTED = Symbol('aborted')

function abortError(signal) {
  if (signal.reason !== undefined) return signal.reason
  return new DOMException('This operation was aborted', 'AbortError')
}

/** Text chunks joined, and the last usage chunk (Roo keeps the final one); stops on abort. */
async function readStream(stream, signal) {
  const iterator = stream[Symbol.asyncIterator]()
  let text = ''
  let usage
  let onAbort
  const aborted = new Promise((resolve) => {
    onAbort = () => resolve(ABORTED)
    if (signal.aborted) resolve(ABORTED)
    else signal.addEventListener('abort', onAbort, { once: true })
  })
  try {
    for (;;) {
      const step = await Promise.race([iterator.next(), aborted])
      if (step === ABORTED) {
        // Tell the stream to stop (its request is then cancelled by the handler's own cleanup).
        if (typeof iterator.return === 'function') Promise.resolve().then(() => iterator.return()).catch(() => {})
        throw abortError(signal)
      }
      if (step.done) break
      const chunk = step.value
      if (!chunk || typeof chunk !== 'object') continue
      if (chunk.type === 'text' && typeof chunk.text === 'string') text += chunk.text
      else if (chunk.type === 'usage') usage = chunk
    }
  } finally {
    signal.removeEventListener('abort', onAbort)
  }
  return { text, usage }
}

/**
 * A summarize callback that streams from `handler`: `createMessage(systemPrompt, messages)`, the
 * text chunks joined, cost and tokens from the usage chunk. `stage` records the output tokens of
 * the last call (Roo counts the new context with them), `spent` every call's cost.
 */
function handlerCallback(handler, stage, spent, pricing, beforeCall) {
  return async (request, { signal }) => {
    beforeCall()
    let stream = handler.createMessage(request.systemPrompt, request.messages)
    if (stream && typeof stream.then === 'function') stream = await stream
    if (!stream || typeof stream[Symbol.asyncIterator] !== 'function') {
      throw new TypeError(`createMessage returned ${describe(stream)}, expected an async stream of chunks`)
    }
    const { text, usage } = await readStream(stream, signal)
    const cost = usageCost(usage, pricing)
    spent.cost += cost
    stage.outputTokens = usage && finite(usage.outputTokens) ? usage.outputTokens : 0
    const reply = { text, cost }
    for (const k of ['inputTokens', 'outputTokens', 'cacheWriteTokens', 'cacheReadTokens']) {
      if (usage && finite(usage[k]) && usage[k] >= 0) reply[k] = usage[k]
    }
    return reply
  }
}

// ---------------------------------------------------------------------------------------------
// Token counts, as Roo takes them.

/** Tokens of some content blocks by the handler's countTokens (the engine's o200k count without one). */
async function estimateTokenCount(content, apiHandler) {
  if (!content || content.length === 0) return 0
  if (apiHandler && typeof apiHandler.countTokens === 'function') return apiHandler.countTokens(content)
  return lib.countTokens([{ role: 'user', content }])
}

const toBlocks = (m) => (typeof m.content === 'string' ? [{ type: 'text', text: m.content }] : Array.isArray(m.content) ? m.content : [])

/**
 * Roo's size of the context after a summary: the system prompt and the kept messages counted by
 * the main handler, plus the summary's output tokens when the model reported them (the summary
 * counted otherwise).
 */
async function rooContextTokens(apiHandler, systemPrompt, outputTokens, summaryMessage, keep) {
  const system = { role: 'user', content: typeof systemPrompt === 'string' ? systemPrompt : '' }
  const context = outputTokens ? [system, ...keep] : [system, summaryMessage, ...keep]
  const blocks = context.flatMap(toBlocks)
  let counted
  try {
    counted = await estimateTokenCount(blocks, apiHandler)
  } catch {
    counted = undefined
  }
  if (!finite(counted)) counted = lib.countTokens([{ role: 'user', content: blocks }])
  return outputTokens + counted
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
  if (!Array.isArray(messages)) throw new TypeError(`${fn}: messages: expected an array of messages, got ${describe(messages)}`)
}

/**
 * What the model is sent: the stored history without the messages a summary, a shortened copy
 * or a sliding-window marker stands in for. The caller's own objects, in their order, never
 * copied: the same stored history gives the same bytes every time.
 */
function getEffectiveApiHistory(messages) {
  checkArray(messages, 'getEffectiveApiHistory')
  const visible = visibility(messages)
  return messages.filter((_, i) => visible[i])
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
  while (cut > 0 && cut < messages.length && messages[cut] && messages[cut].condensedBy && messages[cut - 1] && messages[cut - 1].condenseParent === messages[cut].condensedBy) cut--
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
    if (refs.some((k) => k >= 1 && k < keepStart)) {
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
// summarizeConversation

function prePassConfig(o) {
  const config = isObject(o.providerConfig) ? { ...o.providerConfig } : {}
  if (o.provider === 'smart' && config.preset === undefined && config.passes === undefined) config.preset = 'balanced'
  if ((o.provider === 'truncation' || o.provider === 'smart') && o.targetTokens !== undefined && config.targetTokens === undefined) {
    config.targetTokens = Math.floor(o.targetTokens)
  }
  return config
}

function engineOptions(o, provider, config, prevContextTokens, summarize) {
  const options = { provider, config, prevContextTokens, summarizeOptions: { ...SUMMARIZE_DEFAULTS, ...(o.summarizeOptions ?? {}) } }
  if (summarize) options.summarize = summarize
  if (o.signal) options.signal = o.signal
  return options
}

/**
 * Roo Code's summarizeConversation: keeps the first message and the last N_MESSAGES_TO_KEEP,
 * summarizes what lies between since the last summary with `condensingApiHandler` (when its
 * createMessage is a function) or `apiHandler`, and inserts the summary. Never throws.
 * The ninth argument is this package's options (newer Roo passes a useNativeTools boolean there,
 * which is accepted and ignored: tool pairs are always kept whole).
 */
async function summarizeConversation(
  messages,
  apiHandler,
  systemPrompt,
  taskId,
  prevContextTokens,
  isAutomaticTrigger,
  customCondensingPrompt,
  condensingApiHandler,
  options,
) {
  return summarizeWith(messages, apiHandler, systemPrompt, taskId, prevContextTokens, isAutomaticTrigger, customCondensingPrompt, condensingApiHandler, options, false)
}

/**
 * summarizeConversation, and for truncateConversationIfNeeded: with `keepFirstStep`, a first
 * step's result comes back (with `summaryError`) when the summary after it fails, even short of
 * the target, so the sliding window then starts from it rather than from the whole history.
 */
async function summarizeWith(messages, apiHandler, systemPrompt, taskId, prevContextTokens, isAutomaticTrigger, customCondensingPrompt, condensingApiHandler, options, keepFirstStep) {
  if (typeof options === 'boolean') options = undefined
  capture(pickTelemetry(options), 'captureContextCondensed', [
    taskId,
    isAutomaticTrigger ?? false,
    typeof customCondensingPrompt === 'string' && customCondensingPrompt.trim() !== '',
    Boolean(condensingApiHandler),
  ])
  const response = { messages, cost: 0, summary: '' }
  const spent = { cost: 0 }
  let o
  try {
    o = resolveOptions(options, 'summarizeConversation: options')
  } catch (e) {
    return { ...response, error: `${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}` }
  }
  try {
    return await summarize(messages, apiHandler, systemPrompt, prevContextTokens, customCondensingPrompt, condensingApiHandler, o, spent, keepFirstStep)
  } catch (e) {
    if (o.signal && o.signal.aborted) return { ...response, cost: spent.cost, error: message(o, 'condense_aborted') }
    return { ...response, cost: spent.cost, error: `${message(o, 'condense_failed')}: ${e && e.message ? e.message : String(e)}` }
  }
}

async function summarize(messages, apiHandler, systemPrompt, prevContextTokens, customCondensingPrompt, condensingApiHandler, o, spent, keepFirstStep) {
  checkArray(messages, 'summarizeConversation')
  const response = { messages, cost: 0, summary: '' }
  const nd = o.nonDestructive
  const { effective, index, visible } = nd ? project(messages) : { effective: messages }
  const prev = finite(prevContextTokens) ? prevContextTokens : lib.countTokens(effective) + lib.countTokens(typeof systemPrompt === 'string' ? systemPrompt : '')

  // The handler: the condensing one when it can create messages, else the main one.
  const chosen = condensingApiHandler || apiHandler
  const handler = isHandler(chosen) ? chosen : isHandler(apiHandler) ? apiHandler : undefined
  let warned = false
  const warnFallback = () => {
    // Roo warns once it gets to the call, after its checks passed.
    if (!warned && !isHandler(chosen)) console.warn(HANDLER_FALLBACK_WARNING)
    warned = true
  }
  const callback = (stage) => (handler ? handlerCallback(handler, stage, spent, o.pricing, warnFallback) : undefined)

  // 1. The selected provider first, when it is not Roo's own.
  let base = effective
  let baseOrigins = effective.map((_, i) => ({ from: i, to: i + 1, kind: 'same' }))
  let baseTokens = prev
  let baseSummary = ''
  let prePass
  if (o.provider !== 'native') {
    const r = await lib.condense(effective, engineOptions(o, o.provider, prePassConfig(o), prev, callback({ outputTokens: 0 })))
    let out = r.error ? undefined : r.messages
    let tokens = r.newContextTokens
    // Roo always keeps the first message as it is (it may hold a slash command's text), in both
    // modes: a destructive result then holds exactly what the non-destructive projection shows.
    // (A history's count is the sum of its messages' counts: only the first one is recounted.)
    if (out && out.length > 0 && out[0] !== effective[0]) {
      tokens += lib.countTokens([effective[0]]) - lib.countTokens([out[0]])
      out = [effective[0], ...out.slice(1)]
    }
    const origins = out ? align(effective, out) : null
    if (out && origins) {
      if (tokens < prev) {
        base = out
        baseOrigins = origins
        baseTokens = tokens
        baseSummary = r.summary
        prePass = { messages: out, origins, tokens, summary: r.summary }
      }
    }
    if (prePass && o.targetTokens !== undefined && prePass.tokens <= o.targetTokens) {
      return finishPrePass(messages, effective, index, visible, prePass, o, spent, undefined)
    }
  }

  // 2. Roo's summary (the engine's Native provider).
  const customPrompt = typeof customCondensingPrompt === 'string' && customCondensingPrompt.trim() !== '' ? customCondensingPrompt : o.defaultPrompt
  const config = customPrompt !== undefined ? { customPrompt } : {}
  const stage = { outputTokens: 0 }
  const r = await lib.condense(base, engineOptions(o, 'native', config, baseTokens, callback(stage)))
  let error
  if (r.error) {
    if (r.error.startsWith(ENGINE_NO_CALLBACK)) {
      warnFallback()
      console.error(HANDLER_INVALID_LOG)
    }
    error = rooError(r.error, o)
  }
  let result
  if (!error) {
    // [first, summary, ...kept]; the kept ones are the caller's (or the first step's) objects.
    const keepStart = base.length - (r.messages.length - 2)
    let out = r.messages
    if (prePass) out = fixReferences(base, out, keepStart, (j) => baseOrigins[j].kind !== 'same')
    const keep = out.slice(2)
    const id = nd ? o.generateId() : undefined
    const summary = summaryMessage(out[1].content, keep[0], id)
    out = [out[0], summary, ...keep]
    const newContextTokens = await rooContextTokens(apiHandler, systemPrompt, stage.outputTokens, summary, keep)
    if (newContextTokens >= prev) error = message(o, 'condense_context_grew')
    else result = { out, keepStart, summary, newContextTokens, id }
  }
  if (error) {
    // The first step's result stands alone when nothing better came (and it reaches the target, if
    // any; for truncateConversationIfNeeded, which goes on from it, in any case).
    if (prePass && (o.targetTokens === undefined || keepFirstStep)) return finishPrePass(messages, effective, index, visible, prePass, o, spent, error)
    return { ...response, cost: spent.cost, error }
  }

  const provider = prePass ? `${o.provider}+native` : 'native'
  const summaryText = typeof r.summary === 'string' && r.summary !== '' ? r.summary : String(result.summary.content)
  const combined = baseSummary ? `${baseSummary}\n\n${summaryText}` : summaryText
  if (!nd) return { messages: result.out, summary: combined, cost: spent.cost, newContextTokens: result.newContextTokens, provider }
  // Where each final message comes from, over the projection.
  const nativeOrigins = result.out.map((m, i) => {
    if (i === 0) return { from: 0, to: 1, kind: m === base[0] ? 'same' : 'changed' }
    if (i === 1) return { from: 1, to: result.keepStart, kind: 'summary' }
    const j = result.keepStart + i - 2
    return { from: j, to: j + 1, kind: m === base[j] ? 'same' : 'changed' }
  })
  const origins = compose(baseOrigins, nativeOrigins)
  const stored = writeNonDestructive(messages, index, visible, effective, result.out, origins, result.id)
  return { messages: stored, summary: combined, cost: spent.cost, newContextTokens: result.newContextTokens, condenseId: result.id, provider }
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
// The sliding window.

const TRUNCATION_KEYS = ['telemetry', 'nonDestructive', 'generateId']

/**
 * Roo's sliding window: keeps the first message and removes an even number of the oldest others
 * (`fracToRemove` of them, rounded down to even). Non-destructive: those are tagged
 * `truncationParent` instead, behind a marker message, and the result is
 * `{ messages, truncationId, messagesRemoved }` as newer Roo returns it.
 */
function truncateConversation(messages, fracToRemove, taskId, options) {
  checkArray(messages, 'truncateConversation')
  const o = { ...defaults, ...readOptions(options, [...TRUNCATION_KEYS, ...CALL_KEYS], 'truncateConversation: options', false) }
  capture(o.telemetry, 'captureSlidingWindowTruncation', [taskId])
  if (!o.nonDestructive) return slidingWindow(messages, fracToRemove)
  const id = (o.generateId ?? randomUUID)()
  // What the model sees now, markers aside (they are never hidden).
  const shown = visibility(messages)
  const visible = []
  messages.forEach((m, i) => {
    if (shown[i] && !(m && m.isTruncationMarker)) visible.push(i)
  })
  const raw = Math.floor((visible.length - 1) * fracToRemove)
  const remove = raw - (raw % 2)
  if (!(remove > 0)) return { messages, truncationId: id, messagesRemoved: 0 }
  const hide = new Set(visible.slice(1, remove + 1))
  const boundary = visible[remove + 1] ?? messages.length
  const marker = { role: 'user', content: `[Sliding window truncation: ${remove} messages hidden to reduce context]` }
  const keptTs = messages[boundary] ? messages[boundary].ts : undefined
  if (finite(keptTs)) marker.ts = keptTs - 1
  marker.isTruncationMarker = true
  marker.truncationId = id
  const out = []
  messages.forEach((m, i) => {
    if (i === boundary) out.push(marker)
    out.push(hide.has(i) ? { ...m, truncationParent: id } : m)
  })
  if (boundary === messages.length) out.push(marker)
  return { messages: out, truncationId: id, messagesRemoved: remove }
}

/** Roo's threshold for a profile: its own when 5..100, the global one for -1, missing or invalid (with a warning). */
function effectiveThreshold(autoCondenseContextPercent, profileThresholds, currentProfileId) {
  const own = isObject(profileThresholds) ? profileThresholds[currentProfileId] : undefined
  if (own === undefined || own === -1) return autoCondenseContextPercent
  if (own >= MIN_CONDENSE_THRESHOLD && own <= MAX_CONDENSE_THRESHOLD) return own
  console.warn(`Invalid profile threshold ${own} for profile "${currentProfileId}". Using global default of ${autoCondenseContextPercent}%`)
  return autoCondenseContextPercent
}

/**
 * Roo Code's truncateConversationIfNeeded: condenses when the context reaches the effective
 * threshold or passes the allowed size (the window less a 10 % buffer and the reserved output),
 * and falls back to the sliding window when condensing fails or is off and the context is past
 * the allowed size. Takes Roo's options object, plus this package's options beside them.
 */
async function truncateConversationIfNeeded(params) {
  let messages = params?.messages
  const {
    messages: _messages,
    totalTokens,
    contextWindow,
    maxTokens,
    apiHandler,
    autoCondenseContext,
    autoCondenseContextPercent,
    systemPrompt,
    taskId,
    customCondensingPrompt,
    condensingApiHandler,
    profileThresholds,
    currentProfileId,
    useNativeTools: _useNativeTools,
    ...extra
  } = params ?? {}
  if (!Array.isArray(params?.messages) || params.messages.length === 0) return { messages: [], summary: '', cost: 0, prevContextTokens: 0, error: undefined }
  let o
  try {
    o = resolveOptions(extra, 'truncateConversationIfNeeded: options')
  } catch (e) {
    return { messages, summary: '', cost: 0, prevContextTokens: 0, error: `${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}` }
  }
  let error
  let cost = 0
  const reservedTokens = maxTokens || ANTHROPIC_DEFAULT_MAX_TOKENS
  // The last message (always the user's) is not in totalTokens yet.
  const last = messages[messages.length - 1]
  const lastContent = last ? last.content : ''
  const lastMessageTokens = Array.isArray(lastContent)
    ? await estimateTokenCount(lastContent, apiHandler)
    : await estimateTokenCount([{ type: 'text', text: lastContent }], apiHandler)
  const prevContextTokens = totalTokens + lastMessageTokens
  const allowedTokens = contextWindow * (1 - TOKEN_BUFFER_PERCENTAGE) - reservedTokens
  const threshold = effectiveThreshold(autoCondenseContextPercent, profileThresholds, currentProfileId)

  if (autoCondenseContext) {
    const contextPercent = (100 * prevContextTokens) / contextWindow
    if (contextPercent >= threshold || prevContextTokens > allowedTokens) {
      // A first step is enough when the context ends under both triggers.
      const targetTokens = Math.max(0, Math.min(Math.floor(allowedTokens), Math.ceil((threshold * contextWindow) / 100) - 1))
      const callOptions = { ...extra, targetTokens: o.targetTokens ?? (finite(targetTokens) ? targetTokens : undefined) }
      const result = await summarizeWith(messages, apiHandler, systemPrompt, taskId, prevContextTokens, true, customCondensingPrompt, condensingApiHandler, callOptions, true)
      if (result.error) {
        error = result.error
        cost = result.cost
      } else if (result.summaryError && result.newContextTokens > allowedTokens) {
        // The first step saved something but not enough, and the summary failed: the sliding
        // window goes on from the first step's result.
        error = result.summaryError
        cost = result.cost
        messages = result.messages
      } else {
        return { ...result, prevContextTokens }
      }
    }
  }

  if (prevContextTokens > allowedTokens && !(o.signal && o.signal.aborted)) {
    const truncationOptions = { telemetry: o.telemetry, nonDestructive: o.nonDestructive, generateId: o.generateId }
    if (!o.nonDestructive) {
      return { messages: truncateConversation(messages, 0.5, taskId, truncationOptions), prevContextTokens, summary: '', cost, error }
    }
    const t = truncateConversation(messages, 0.5, taskId, truncationOptions)
    let newContextTokensAfterTruncation = 0
    for (const m of getEffectiveApiHistory(t.messages)) {
      if (m.isTruncationMarker) continue
      if (Array.isArray(m.content)) newContextTokensAfterTruncation += await estimateTokenCount(m.content, apiHandler)
      else if (typeof m.content === 'string') newContextTokensAfterTruncation += await estimateTokenCount([{ type: 'text', text: m.content }], apiHandler)
    }
    return {
      messages: t.messages,
      prevContextTokens,
      summary: '',
      cost,
      error,
      truncationId: t.truncationId,
      messagesRemoved: t.messagesRemoved,
      newContextTokensAfterTruncation,
    }
  }
  return { messages, summary: '', cost, prevContextTokens, error }
}

// ---------------------------------------------------------------------------------------------

/**
 * The messages since the last summary, the summary included (all of them when there is none). A
 * summary that is not the user's is preceded by "Please continue from the following summary:",
 * since some APIs need the user to speak first.
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
  // Roo's timestamp: just before the first message's, or now when it has none.
  const firstTs = messages[0] ? messages[0].ts : undefined
  const bridge = { role: 'user', content: 'Please continue from the following summary:', ts: finite(firstTs) && firstTs ? firstTs - 1 : Date.now() }
  return [bridge, ...since]
}

module.exports = {
  summarizeConversation,
  truncateConversationIfNeeded,
  truncateConversation,
  getMessagesSinceLastSummary,
  estimateTokenCount,
  getEffectiveApiHistory,
  cleanupAfterTruncation,
  rewindConversation,
  configure,
  configuration,
  N_MESSAGES_TO_KEEP,
  MIN_CONDENSE_THRESHOLD,
  MAX_CONDENSE_THRESHOLD,
  TOKEN_BUFFER_PERCENTAGE,
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ROO_ERROR_MESSAGES,
}
