// The host's summarize callback: concurrency cap, timeout, bounded retry, cancellation, its replies
// read and checked, and the engine's requests parsed a slice at a time.
'use strict'

const { describe, wholeNumber, checkTimeoutMs } = require('./values.js')
const scheduler = require('./scheduler.js')
const { whenAborted } = require('./abort.js')
const { fromEngine, PART_BYTES } = require('./crossing.js')

// ---------------------------------------------------------------------------------------------
// The host's summarize callback: concurrency cap, timeout, bounded retry, cancellation.

const SUMMARIZE_DEFAULTS = { concurrency: 4, timeoutMs: 120_000, retries: 2, retryDelayMs: 500 }
/** At most this many retries of a request after its first attempt. */
const MAX_RETRIES = 10
/** The wait between attempts doubles from `retryDelayMs` after each failure, up to this (ms). */
const MAX_RETRY_DELAY_MS = 60_000

/** The wait before retry number `attempt + 1`: `retryDelayMs` doubled per failure, at most MAX_RETRY_DELAY_MS. */
const retryDelay = (o, attempt) => Math.min(o.retryDelayMs * 2 ** attempt, MAX_RETRY_DELAY_MS)

function checkSummarizeOptions(raw, at = 'condense: options.summarizeOptions') {
  const o = { ...SUMMARIZE_DEFAULTS }
  if (raw === undefined) return o
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new TypeError(`${at}: expected an object, got ${describe(raw)}`)
  }
  for (const [key, value] of Object.entries(raw)) {
    if (!(key in SUMMARIZE_DEFAULTS)) {
      throw new TypeError(`${at}.${key}: unknown key, expected one of ${Object.keys(SUMMARIZE_DEFAULTS).join(', ')}`)
    }
    const where = `${at}.${key}`
    if (key === 'timeoutMs') o[key] = checkTimeoutMs(value, where)
    else if (key === 'concurrency') o[key] = wholeNumber(value, where, 1)
    else if (key === 'retries') o[key] = wholeNumber(value, where, 0, MAX_RETRIES)
    else o[key] = wholeNumber(value, where, 0, MAX_RETRY_DELAY_MS)
  }
  return o
}

const REPLY_NUMBERS = ['cost', 'inputTokens', 'outputTokens', 'cacheWriteTokens', 'cacheReadTokens']
const REPLY_SHAPE = '{ text: string, cost?, inputTokens?, outputTokens?, cacheWriteTokens?, cacheReadTokens? }'

/** A reply field read once; a getter (or proxy) that throws is reported, not thrown. */
function readField(value, key) {
  try {
    return { ok: true, value: value[key] }
  } catch (e) {
    return { ok: false, error: `options.summarize returned a reply whose ${key} could not be read: ${errorText(e)}` }
  }
}

/** The callback's answer as the engine reads it, or a reason it cannot be used. Never throws. */
function readReply(value) {
  if (typeof value === 'string') return { ok: true, reply: { text: value } }
  if (value === null || typeof value !== 'object') {
    return { ok: false, error: `options.summarize returned ${describe(value)}; expected a string or ${REPLY_SHAPE}` }
  }
  const text = readField(value, 'text')
  if (!text.ok) return text
  if (typeof text.value !== 'string') {
    return { ok: false, error: `options.summarize returned ${describe(value)} whose text is ${describe(text.value)}; expected a string or ${REPLY_SHAPE}` }
  }
  const reply = { text: text.value }
  for (const k of REPLY_NUMBERS) {
    const field = readField(value, k)
    if (!field.ok) return field
    const n = field.value
    if (n === undefined || n === null) continue
    if (typeof n !== 'number' || !Number.isFinite(n) || n < 0) {
      return { ok: false, error: `options.summarize returned ${k}: ${describe(n)}; expected a finite number >= 0` }
    }
    reply[k] = n
  }
  return { ok: true, reply }
}

function errorText(e) {
  return e instanceof Error ? e.message : String(e)
}

/** One request: each attempt raced against its timeout and the abort; rejections retried. */
async function summarizeOne(request, summarize, o, signal) {
  for (let attempt = 0; ; attempt++) {
    if (signal && signal.aborted) return { ok: false, error: 'aborted' }
    const attemptController = new AbortController()
    const unfollow = whenAborted(signal, () => attemptController.abort(signal.reason))
    let timer
    const outcome = await new Promise((resolve) => {
      timer = setTimeout(() => {
        resolve({ kind: 'timeout' })
        // Tell the callback too, so it can stop its request.
        attemptController.abort(new Error(`options.summarize did not answer within ${o.timeoutMs} ms`))
      }, o.timeoutMs)
      attemptController.signal.addEventListener('abort', () => resolve({ kind: 'aborted' }), { once: true })
      let pending
      try {
        pending = summarize(request, { signal: attemptController.signal })
      } catch (e) {
        resolve({ kind: 'threw', error: e })
        return
      }
      Promise.resolve(pending).then(
        (value) => resolve({ kind: 'value', value }),
        (error) => resolve({ kind: 'rejected', error }),
      )
    })
    clearTimeout(timer)
    unfollow()
    switch (outcome.kind) {
      case 'value':
        return readReply(outcome.value)
      case 'timeout':
        return { ok: false, error: `options.summarize did not answer within ${o.timeoutMs} ms` }
      case 'aborted':
        return { ok: false, error: 'aborted' }
      default: {
        const how = outcome.kind === 'threw' ? 'threw' : 'rejected'
        if (attempt >= o.retries) {
          return { ok: false, error: `options.summarize ${how} (${attempt + 1} ${attempt === 0 ? 'attempt' : 'attempts'}): ${errorText(outcome.error)}` }
        }
        await new Promise((r) => setTimeout(r, retryDelay(o, attempt)))
      }
    }
  }
}

/** A batch of requests, at most `concurrency` at a time, answers in request order. */
async function summarizeBatch(requests, summarize, o, signal) {
  const results = new Array(requests.length)
  let next = 0
  const worker = async () => {
    while (next < requests.length) {
      const i = next++
      results[i] = await summarizeOne(requests[i], summarize, o, signal)
    }
  }
  await Promise.all(Array.from({ length: Math.min(o.concurrency, requests.length) }, worker))
  return results
}

/**
 * A string of a message of `held` at `path` (`[message, "content", block, "text"]`): where the
 * engine names a string of a message it holds unchanged instead of sending a copy of it.
 */
function heldString(held, path) {
  let v = held
  for (const step of path) v = v === null || typeof v !== 'object' ? undefined : v[step]
  if (typeof v !== 'string')
    throw new Error(`the engine's summary request names messages${path.map((s) => `[${JSON.stringify(s)}]`).join('')}, which is not a string`)
  return v
}

/**
 * A request message as the callback receives it, `{ role, content }`. The engine sends the text of
 * a message changed by none of its passes as parts: texts it wrote (a tool call rendered, the
 * separators) and the paths of the strings in `held`, the history as JavaScript holds it. Put
 * together with `+`, the message shares those strings instead of holding copies of them.
 */
function assemble(line, held) {
  if (!Array.isArray(line.parts)) return line
  let content = ''
  for (const p of line.parts) content += typeof p === 'string' ? p : heldString(held, p)
  return { role: line.role, content }
}

/**
 * The engine's summary requests (lines of JSON, see `requests_parts` in crates/binding/src/codec.rs: the requests
 * with a count for `messages`, then one line per message), taken from the engine in parts of whole
 * lines (`readPart(maxBytes)`, null once read) and parsed a slice at a time, so no call makes or parses
 * the whole text at once. `held` is the history the engine's messages came from, as JavaScript holds it.
 */
async function readRequests(readPart, signal, held) {
  let lines = []
  let at = 0
  const nextLine = () => {
    while (at >= lines.length) {
      const text = readPart(PART_BYTES)
      if (text === null || text === undefined) return undefined
      lines = text.split('\n')
      at = 0
    }
    return lines[at++]
  }
  const first = nextLine()
  if (first === undefined) throw new Error('the engine asked for summaries but sent no requests')
  const heads = fromEngine(first)
  const total = heads.reduce((n, h) => n + h.messages, 0)
  const all = []
  await scheduler.run(
    (size) => {
      for (let k = 0; k < size && all.length < total; k++) {
        const line = nextLine()
        if (line === undefined) throw new Error(`the engine's summary requests ended after ${all.length} of ${total} messages`)
        all.push(assemble(fromEngine(line), held))
      }
      return all.length >= total
    },
    signal,
    16,
  )
  let from = 0
  for (const h of heads) {
    const n = h.messages
    h.messages = all.slice(from, from + n)
    from += n
  }
  return heads
}

module.exports = { checkSummarizeOptions, summarizeBatch, readRequests, MAX_RETRIES, MAX_RETRY_DELAY_MS }
