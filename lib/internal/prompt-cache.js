// Prompt-cache pricing models: what one request costs given what earlier requests left in the
// provider's cache. Used by the manager's cache-aware policy (lib/internal/cache-aware.js), to price a
// condensing before taking it, and by the replay (lib/replay/), to price every request. Anthropic: cache breakpoints where Anthropic's API and Roo Code put them (the
// system prompt and the last two user messages); the longest cached prefix still valid is read at
// the cache-read price, the rest up to the last breakpoint is written at the cache-write price,
// anything after it is plain input; an entry is found only within `lookbackBlocks` content blocks
// before a breakpoint. OpenAI: automatic prefix caching of what the previous request sent, from
// 1,024 tokens in steps of 128, read at the cache-read price, no write surcharge. Either way an
// entry unused for longer than its time to live (`ttlMs`, on the clock the requests give) is gone. Pure
// arithmetic over token counts and message identity; never touches the messages. Beside it: the
// reader of a price list (the prices and their check are the engine's, src/cost.rs), message
// identity, and per-message token counts.
'use strict'

const { countTokens, countEachAsync } = require('./tokens.js')
const scheduler = require('./scheduler.js')
const native = require('./native.js')
const { DEFAULT_ENCODING } = require('./registry.js')
const { describe, deepFreeze, isObject } = require('./values.js')

/**
 * A price list (the `Pricing` fields the cost estimate takes) filled in for a cache model by the
 * engine's one price table and checker (src/cost.rs `resolve_pricing`): missing prices are the
 * model's defaults, scaled by the input price when only that is given; `accounting` is accepted
 * and not used; with `cacheTtl` "1h", Anthropic's one-hour cache writes at its rate unless a write
 * price is given. Throws a TypeError naming the field (`${at}.inputPrice: ...`).
 * @param {unknown} given
 * @param {'anthropic' | 'openai'} cache
 * @param {string} at where the prices were given, for errors
 * @param {'5m' | '1h'} [cacheTtl] how long a cache entry lives (five minutes when not given)
 */
function readPricing(given, cache, at, cacheTtl) {
  if (given !== undefined && !isObject(given)) throw new TypeError(`${at}: expected an object, got ${describe(given)}`)
  // Each value crosses as a number, or as the words an error names it by.
  const entries =
    given === undefined
      ? null
      : Object.keys(given).map((key) => {
          const value = given[key] // read once: a getter is asked one time
          return typeof value === 'number' ? { key, price: value } : { key, shown: describe(value) }
        })
  try {
    return native.resolvePricing(entries, cache, at, cacheTtl)
  } catch (e) {
    throw new TypeError(e.message)
  }
}

/** Prices in dollars per million tokens when none are given, per cache model: the engine's (src/cost.rs
 * `CacheModel::default_pricing`: Claude Sonnet's list prices for Anthropic, GPT-4o's for OpenAI). */
const DEFAULT_PRICING = deepFreeze({ anthropic: readPricing(undefined, 'anthropic', 'pricing'), openai: readPricing(undefined, 'openai', 'pricing') })

/**
 * Token counts by message identity: a message is counted once, whatever history it is in. `prepare`
 * counts a history's new messages off the JavaScript thread; `of` and `total` then only look them
 * up (a message not prepared is counted on the calling thread).
 */
class TokenCounter {
  constructor() {
    this.known = new WeakMap()
  }

  /** Counts the messages of `messages` not known yet, in slices and off the JavaScript thread. */
  async prepare(messages) {
    const unknown = []
    let i = 0
    await scheduler.run(
      (size) => {
        const stop = Math.min(messages.length, i + size)
        for (; i < stop; i++) {
          const m = messages[i]
          if (m !== null && typeof m === 'object' && !this.known.has(m)) unknown.push(m)
        }
        return i >= messages.length
      },
      undefined,
      1024,
    )
    if (unknown.length === 0) return
    const counts = await countEachAsync(unknown, DEFAULT_ENCODING, 'countTokens')
    for (let k = 0; k < unknown.length; k++) this.known.set(unknown[k], counts[k])
  }

  of(message) {
    let n = this.known.get(message)
    if (n === undefined) {
      n = countTokens([message])
      this.known.set(message, n)
    }
    return n
  }

  total(messages) {
    let n = 0
    for (const m of messages) n += this.of(m)
    return n
  }
}

const fingerprints = new WeakMap()
function fingerprint(m) {
  let f = fingerprints.get(m)
  if (f === undefined) {
    f = JSON.stringify(m)
    fingerprints.set(m, f)
  }
  return f
}

/** Whether two messages are the same bytes: the same object, or equal once serialized. */
function sameMessage(a, b) {
  return a === b || (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && fingerprint(a) === fingerprint(b))
}

/** Index of the first message where two histories differ, or the shorter length. */
function firstChanged(before, after) {
  const n = Math.min(before.length, after.length)
  for (let i = 0; i < n; i++) if (!sameMessage(before[i], after[i])) return i
  return n
}

/** Anthropic does not cache a prefix shorter than this (Claude Sonnet's minimum). */
const ANTHROPIC_MIN_CACHE_TOKENS = 1024
const OPENAI_MIN_CACHE_TOKENS = 1024
const OPENAI_CACHE_STEP = 128

/** Content blocks of a message (a string content is one). */
function blockCount(m) {
  return m && Array.isArray(m.content) ? Math.max(1, m.content.length) : 1
}

/** How long an unused cache entry lives by default: Anthropic's default time to live (5 minutes;
 * each read or write of an entry starts it again). OpenAI keeps a prefix 5 to 10 minutes after its
 * last use (up to an hour off-peak): 5 minutes is the short end. */
const DEFAULT_CACHE_TTL_MS = 5 * 60_000
/** Anthropic looks for a cache entry only this many content blocks before each breakpoint of a
 * request (its documentation: about 20); an entry further back is not found, and is written again. */
const DEFAULT_LOOKBACK_BLOCKS = 20

class CacheModel {
  /**
   * @param {'anthropic' | 'openai'} kind
   * @param {{ inputPrice: number, cacheWritesPrice: number, cacheReadsPrice: number }} pricing
   * @param {number} systemTokens
   * @param {number} [lookbackBlocks] Anthropic: how many content blocks before a breakpoint an
   *   entry is looked for (undefined: any entry still valid)
   * @param {number} [ttlMs] how long an entry lives after its last use, in milliseconds, on the
   *   clock of the `at` each request is given (undefined, or a request without `at`: for ever)
   */
  constructor(kind, pricing, systemTokens, lookbackBlocks, ttlMs) {
    this.kind = kind
    /** Anthropic: how many content blocks before a breakpoint it looks for an entry (undefined: any). */
    this.lookbackBlocks = lookbackBlocks
    this.ttlMs = ttlMs
    this.pricing = pricing
    this.systemTokens = systemTokens
    /** What the previous request sent, and its prefix sums (prefix[i] = system + messages[0..i)). */
    this.prev = []
    this.prefix = [systemTokens]
    /** When the previous request was sent (undefined: not known). */
    this.prevAt = undefined
    /** Anthropic: cached prefixes still valid, as message counts (`end`; 0 = the system prompt
     * alone), ascending, each with when it was last written or read (`used`; undefined: not known). */
    this.entries = []
  }

  /** Whether an entry last used at `used` is still alive at `at`. */
  _alive(used, at) {
    return this.ttlMs === undefined || at === undefined || used === undefined || at - used <= this.ttlMs
  }

  /** Common prefix with the previous request, and the prefix sums of `messages`. */
  _align(messages, tokensOf) {
    let d = 0
    const n = Math.min(this.prev.length, messages.length)
    while (d < n && sameMessage(this.prev[d], messages[d])) d++
    const prefix = this.prefix.slice(0, d + 1)
    for (let i = d; i < messages.length; i++) prefix.push(prefix[i] + tokensOf(messages[i]))
    return { d, prefix }
  }

  /** The last two user messages' breakpoints (as message counts: the prefix through that message). */
  static breakpoints(messages) {
    const out = [0]
    let found = 0
    for (let i = messages.length - 1; i >= 0 && found < 2; i--) {
      if (messages[i] && messages[i].role === 'user') {
        out.push(i + 1)
        found++
      }
    }
    return out.sort((a, b) => a - b)
  }

  /**
   * What a request of `messages` sent at `at` (milliseconds, optional) would cost, without
   * recording it (`request` records it).
   * @returns {{ tokens: number, cachedRead: number, cacheWrite: number, uncached: number, cost: number, firstChanged: number, cachedMessages: number }}
   */
  peek(messages, tokensOf, at) {
    const { d, prefix } = this._align(messages, tokensOf)
    const total = prefix[messages.length]
    const p = this.pricing
    let cachedRead = 0
    let cacheWrite = 0
    let cachedMessages = 0
    let entries
    if (this.kind === 'anthropic') {
      // Entries written through a message that changed since are gone, and so are those unused
      // for longer than their time to live; the longest left is read.
      const alive = this.entries.filter((e) => e.end <= d && this._alive(e.used, at))
      const bps = CacheModel.breakpoints(messages).filter((b) => prefix[b] >= ANTHROPIC_MIN_CACHE_TOKENS)
      // With a lookback, an entry is found only within that many content blocks before one of
      // this request's breakpoints (the system prompt's own breakpoint finds its entry).
      let readable = alive
      if (this.lookbackBlocks !== undefined && alive.length > 0) {
        const blocks = [0]
        for (let i = 0; i < messages.length; i++) blocks.push(blocks[i] + blockCount(messages[i]))
        readable = alive.filter((e) => e.end === 0 || bps.some((b) => b >= e.end && blocks[b] - blocks[e.end] <= this.lookbackBlocks))
      }
      if (readable.length > 0) {
        cachedMessages = readable[readable.length - 1].end
        cachedRead = prefix[cachedMessages]
      }
      const last = bps.length > 0 ? bps[bps.length - 1] : -1
      if (last >= 0 && prefix[last] > cachedRead) cacheWrite = prefix[last] - cachedRead
      // What this request reads or writes lives again from now; the other entries keep their age.
      const next = new Map(alive.map((e) => [e.end, e.used]))
      if (readable.length > 0) next.set(cachedMessages, at)
      for (const b of bps) next.set(b, at)
      entries = [...next].map(([end, used]) => ({ end, used })).sort((a, b) => a.end - b.end)
    } else if (this.prevSent && this._alive(this.prevAt, at)) {
      // The previous request's prompt is cached in steps of 128 tokens (until its time to live
      // runs out); this one reads the part it shares.
      const common = Math.min(prefix[d], this.prefix[Math.min(d, this.prev.length)])
      if (common >= OPENAI_MIN_CACHE_TOKENS) cachedRead = common - (common % OPENAI_CACHE_STEP)
      cachedMessages = d
    }
    const uncached = total - cachedRead - cacheWrite
    // Priced by the engine, as it prices a summary reply's usage (src/cost.rs usage_cost).
    const cost = native.usageCost({ inputTokens: uncached, cacheWriteTokens: cacheWrite, cacheReadTokens: cachedRead }, p)
    return { tokens: total, cachedRead, cacheWrite, uncached, cost, firstChanged: d, cachedMessages, _prefix: prefix, _entries: entries }
  }

  /** Prices a request sent at `at` (milliseconds, optional) and records what it leaves in the cache. */
  request(messages, tokensOf, at) {
    const r = this.peek(messages, tokensOf, at)
    this.prev = messages.slice()
    this.prefix = r._prefix
    this.prevSent = true
    this.prevAt = at
    if (r._entries) this.entries = r._entries
    const { _prefix, _entries, ...row } = r
    return row
  }

  /**
   * What a request that shares no prefix with anything cached costs: `inputTokens` of prompt and
   * `outputTokens` of answer, sent with the breakpoints a host puts on every request. Anthropic:
   * its prompt ends with a user message, so all of it is written to the cache (when it is long
   * enough to be cached); OpenAI: plain input. The summary request of a condensing is one.
   */
  freshRequestCost(inputTokens, outputTokens) {
    const written = this.kind === 'anthropic' && inputTokens >= ANTHROPIC_MIN_CACHE_TOKENS ? inputTokens : 0
    const cost = native.usageCost({ inputTokens: inputTokens - written, cacheWriteTokens: written, outputTokens: 0 }, this.pricing)
    const outputCost = native.usageCost({ outputTokens }, this.pricing)
    return { inputCost: cost, outputCost, cacheWrite: written }
  }

  /** Extra cost of sending `tokens` tokens uncached-or-written again instead of reading them. */
  rewritePremium() {
    const p = this.pricing
    return this.kind === 'anthropic' ? p.cacheWritesPrice - p.cacheReadsPrice : p.inputPrice - p.cacheReadsPrice
  }
}

module.exports = {
  CacheModel,
  DEFAULT_CACHE_TTL_MS,
  DEFAULT_LOOKBACK_BLOCKS,
  ANTHROPIC_MIN_CACHE_TOKENS,
  OPENAI_MIN_CACHE_TOKENS,
  OPENAI_CACHE_STEP,
  DEFAULT_PRICING,
  readPricing,
  TokenCounter,
  sameMessage,
  firstChanged,
}
