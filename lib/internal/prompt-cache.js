// The prompt-cache model over JavaScript messages: what one request costs given what earlier
// requests left in the provider's cache. Used by the manager's cache-aware policy
// (lib/internal/cache-aware.js), to price a condensing before taking it, and by the replay
// (lib/replay/), to price every request. The model itself is the engine's (src/cache_model.rs:
// the breakpoints, what is read, written and sent uncached, the lookback, the time to live, the
// minimums; its prices through src/cost.rs): `CacheModel` here holds the engine's `PromptCache`
// and hands it, per request, how many leading messages it shares with the previous one and the
// token count and shape of the others. Beside it: the reader of a price list (the prices and their
// check are the engine's, src/cost.rs), message identity, and per-message token counts. Never
// touches the messages.
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

// The model's rules and its defaults are the engine's (src/cache_model.rs): read once.
const CONSTANTS = native.promptCacheConstants()
/** Anthropic does not cache a prefix shorter than this (Claude Sonnet's minimum). */
const ANTHROPIC_MIN_CACHE_TOKENS = CONSTANTS.anthropicMinCacheTokens
/** OpenAI caches a prompt's prefix from this many tokens, in steps of `OPENAI_CACHE_STEP`. */
const OPENAI_MIN_CACHE_TOKENS = CONSTANTS.openaiMinCacheTokens
const OPENAI_CACHE_STEP = CONSTANTS.openaiCacheStep
/** How long an unused cache entry lives by default (5 minutes, src/cache_model.rs `DEFAULT_CACHE_TTL_MS`). */
const DEFAULT_CACHE_TTL_MS = CONSTANTS.defaultTtlMs
/** The cache lifetimes a host can ask for, in milliseconds: Anthropic's default ("5m") and its
 * extended one ("1h"). */
const CACHE_TTLS = deepFreeze({ '5m': DEFAULT_CACHE_TTL_MS, '1h': 60 * 60_000 })

/** The cache lifetime when none is named: Anthropic's default. */
const DEFAULT_CACHE_TTL = '5m'

/** A cache lifetime's name checked (`undefined`: the default), a TypeError naming it under `at` otherwise. */
function readCacheTtl(given, at) {
  const ttl = given === undefined ? DEFAULT_CACHE_TTL : given
  if (typeof ttl !== 'string' || !Object.hasOwn(CACHE_TTLS, ttl))
    throw new TypeError(
      `${at}: expected one of ${Object.keys(CACHE_TTLS)
        .map((k) => JSON.stringify(k))
        .join(', ')}, got ${typeof ttl === 'string' ? JSON.stringify(ttl) : describe(ttl)}`,
    )
  return ttl
}
/** How many content blocks before a breakpoint Anthropic looks for an entry by default (src/cache_model.rs). */
const DEFAULT_LOOKBACK_BLOCKS = CONSTANTS.defaultLookbackBlocks

/** A message's shape as the engine's model reads it: its content blocks as given (0 for a string
 * content) times two, plus one for a user message. */
function shapeOf(m) {
  if (m === null || typeof m !== 'object') return 0
  return (Array.isArray(m.content) ? m.content.length : 0) * 2 + (m.role === 'user' ? 1 : 0)
}

/**
 * The engine's prompt-cache model (src/cache_model.rs, `PromptCache`) over JavaScript messages:
 * what a request reads from and writes to the cache given what earlier requests left there, and
 * its cost. This facade says which leading messages a request shares with the previous one
 * (`sameMessage`) and hands the engine the others as numbers (tokens, shape); the rules (the
 * breakpoints, the lookback, the time to live, the minimums, the prices) are the engine's.
 */
class CacheModel {
  #native
  #pricing
  /** What the previous request sent (the engine holds its numbers; identity is compared here). */
  #prev = []

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
    this.lookbackBlocks = lookbackBlocks
    this.ttlMs = ttlMs
    this.systemTokens = systemTokens
    this.#native = new native.PromptCache(kind, pricing, systemTokens, lookbackBlocks, ttlMs)
    this.#pricing = pricing
  }

  /** The prices requests are priced at; setting them prices later requests (what is cached stays). */
  get pricing() {
    return this.#pricing
  }

  set pricing(p) {
    if (p === this.#pricing) return
    this.#native.setPricing(p)
    this.#pricing = p
  }

  /** A request's breakpoints (as message counts: the prefix through that message): the system
   * prompt (0) and the last two user messages, ascending. */
  static breakpoints(messages) {
    const user = new Uint8Array(messages.length)
    for (let i = 0; i < messages.length; i++) user[i] = messages[i] && messages[i].role === 'user' ? 1 : 0
    return native.cacheBreakpoints(user)
  }

  /** How many leading messages `messages` shares with the previous request, and the others as
   * the engine reads them (tokens and shape of each). */
  #split(messages, tokensOf) {
    const prev = this.#prev
    const n = Math.min(prev.length, messages.length)
    let d = 0
    while (d < n && sameMessage(prev[d], messages[d])) d++
    const tail = new Float64Array(2 * (messages.length - d))
    for (let i = d, k = 0; i < messages.length; i++, k += 2) {
      tail[k] = tokensOf(messages[i])
      tail[k + 1] = shapeOf(messages[i])
    }
    return { d, tail }
  }

  /** Whether nothing cached is alive at `at` (milliseconds): no request was sent, or every entry
   * outlived its time to live; the next request then reads nothing, whatever it sends. */
  expired(at) {
    return this.#native.expired(at)
  }

  /**
   * What a request of `messages` sent at `at` (milliseconds, optional) would cost, without
   * recording it (`request` records it).
   * @returns {{ tokens: number, cachedRead: number, cacheWrite: number, uncached: number, cost: number, firstChanged: number, cachedMessages: number }}
   */
  peek(messages, tokensOf, at) {
    const { d, tail } = this.#split(messages, tokensOf)
    return this.#native.peek(d, tail, at)
  }

  /** Prices a request sent at `at` (milliseconds, optional) and records what it leaves in the cache. */
  request(messages, tokensOf, at) {
    const { d, tail } = this.#split(messages, tokensOf)
    const row = this.#native.request(d, tail, at)
    this.#prev = messages.slice()
    return row
  }

  /**
   * What a request that shares no prefix with anything cached costs: `inputTokens` of prompt and
   * `outputTokens` of answer, sent with the breakpoints a host puts on every request (Anthropic:
   * written whole when long enough to be cached; OpenAI: plain input). The summary request of a
   * condensing is one.
   * @returns {{ inputCost: number, outputCost: number, cacheWrite: number }}
   */
  freshRequestCost(inputTokens, outputTokens) {
    return this.#native.freshRequestCost(inputTokens, outputTokens)
  }

  /** Extra price per million tokens of sending cached tokens again (written or uncached) instead of reading them. */
  rewritePremium() {
    return this.#native.rewritePremium
  }

  /** Whether a prompt of `tokens` ending at a breakpoint is written to the cache (Anthropic, from its minimum). */
  writesPrefix(tokens) {
    return this.#native.writesPrefix(tokens)
  }

  /** The least `tokens` sent `times` times can cost: uncached each time, or written once and then read. */
  leastCost(tokens, times) {
    return this.#native.leastCost(tokens, times)
  }

  /** One request's share of sending each message once: `appended` tokens written, the system
   * prompt written on the `first` request, else read. */
  sendOnceCost(appended, first) {
    return this.#native.sendOnceCost(appended, first)
  }
}

module.exports = {
  CacheModel,
  DEFAULT_CACHE_TTL_MS,
  CACHE_TTLS,
  DEFAULT_CACHE_TTL,
  readCacheTtl,
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
