// The manager's cache-aware policy (`new CondensationManager({ policy: 'cache-aware' })`): where
// the default condenses only at the threshold, this one also condenses before it, in batches and
// only where the reads saved beat re-writing the host's prompt cache, and summarizes on its own
// at most half as often as the default would. Each request reads the cached prefix at a fraction
// of the input price (a tenth with Anthropic, half with OpenAI); a change at message k makes every
// later request read a smaller context, but the next request writes (or sends uncached) everything
// from k again. Per call it:
// - works in batches: it asks again only once the context has grown by the batch that minimises
//   re-writes plus reads per turn (B = sqrt(2 x premium x growth x rewritten / read price), where
//   `rewritten` is what the last condensing made the next request write again);
// - asks for two candidates, Lossless and Smart without model calls (old tool output, tool
//   parameters and environment details suppressed; the working set's turns, the last
//   `2 x workingSetTurns` messages, kept whole; what the user typed and errors kept), and takes the
//   one whose reads saved until the trigger (at most the expected remaining turns) exceed, by the
//   most, what it costs now: the next request priced by the cache model (lib/internal/prompt-cache.js) with
//   and without it, so a change after the last cached breakpoint costs nothing and one near the
//   start re-writes it all; Lossless wins a tie;
// - summarizes (Native, keeping the working set's turns whole) at most half as often as the
//   default would at this growth and while it has made fewer than half the summaries of its
//   shadow of the default (below), and then only when the reads the summary saves until the next
//   one may run exceed its price (its call, priced by what it leaves, and the re-write after it);
// - at the trigger, of Lossless, Smart (keeping the working set's turns whole, else the last
//   `AT_TRIGGER_KEEP` messages) that leave room under the trigger for a turn's growth, and Roo's
//   summary (while it has made fewer than half as many as Roo's default), takes the one that
//   costs least per turn until the context is back at the trigger (its price now plus the reads of
//   that cycle); when the summary wins or nothing leaves room, what the manager's config does
//   (Native by default, the sliding window past the allowed size);
// - keeps a shadow of Roo's default on the same task (its history, a summary at the trigger,
//   priced by a cache model of its own) and takes a step it need not take (a batch candidate, a
//   summary of its own) only when, were the task to end with this request, its bill would stay
//   within `1 + RISK` times the shadow's: on a task too short to pay a step back, it costs what
//   Roo's default costs.
// Remaining turns: `expectedTurns` when given, else as many as have elapsed (a task seen at turn t
// is taken to be half done), at least `MIN_REMAINING`.
//
// `cache-aware-strict` is the same without the Lossless operations that turn a newer copy into a
// reference to an older one (repeated file reads, identical tool results): no message ever
// points at another. (With them, nothing is lost either: when a run, or a later one, shortens
// the older copy, a reference in a message it kept gets the bytes back.)
//
// Between calls it keeps per task (`context.taskId`) what the rule needs: the cache model fed
// with what each request sent and the bill so far, the shadow, the turn count, the tokens
// appended, and when it last tried, re-wrote and summarized. This module reads options and runs the rule; the manager (lib/manager.js)
// runs each role's condensing. Never changes the caller's messages.
'use strict'

const native = require('./native.js')
const { describe, wholeNumber: checkWhole } = require('./values.js')
const { checkKnownKeys } = require('./checks.js')
const { PROVIDER } = require('./registry.js')
const { countTokensAsync } = require('./tokens.js')
const { CacheModel, TokenCounter, firstChanged, readPricing, sameMessage } = require('./prompt-cache.js')

const POLICY_NAMES = Object.freeze(['default', 'cache-aware', 'cache-aware-strict'])
const POLICY_KEYS = ['name', 'cache', 'pricing', 'expectedTurns', 'workingSetTurns', 'summaryTokens', 'lookbackBlocks']
/** Turns still to come at least, when the task's length is not known. */
const MIN_REMAINING = 10
/** Messages Smart keeps whole at the trigger, where the alternative is a summary keeping the last 3. */
const AT_TRIGGER_KEEP = 6
const DEFAULT_WORKING_SET_TURNS = 10
/**
 * The most a step it need not take may leave a task billed above Roo's default, as a fraction of
 * Roo's bill, were the task to end right after it: the tolerance the policy promises per task.
 */
const RISK = 0.02

/**
 * What `usage` ({ inputTokens, cacheWriteTokens, cacheReadTokens }) costs in dollars at `pricing`,
 * by the engine's price table (src/cost.rs `usage_cost`): this module does no price arithmetic.
 */
const costOf = (usage, pricing) => native.usageCost(usage, pricing)
/** What a summary is taken to weigh before one has been made. */
const DEFAULT_SUMMARY_TOKENS = 2000

const AT = 'CondensationManager: options.policy'

const wholeNumber = (value, name, min) => checkWhole(value, `${AT}.${name}`, min)

/**
 * The checked policy: undefined for the default, else its settings (frozen). `pricing` is the
 * policy's own price list, filled in, or undefined (then the manager's config gives it).
 * @param {unknown} given `"default" | "cache-aware" | "cache-aware-strict"` or `{ name, ... }`
 */
function readPolicy(given) {
  if (given === undefined) return undefined
  const o = typeof given === 'string' ? { name: given } : given
  if (o === null || typeof o !== 'object' || Array.isArray(o))
    throw new TypeError(
      `${AT}: expected one of ${POLICY_NAMES.map((n) => `"${n}"`).join(', ')} or an object { name, cache, pricing, ... }, got ${describe(given)}`,
    )
  checkKnownKeys(o, POLICY_KEYS, AT)
  const name = o.name
  if (!POLICY_NAMES.includes(name))
    throw new TypeError(
      `${AT}${typeof given === 'string' ? '' : '.name'}: expected one of ${POLICY_NAMES.join(', ')}, got ${typeof name === 'string' ? JSON.stringify(name) : describe(name)}`,
    )
  if (name === 'default') {
    const extra = Object.keys(o).find((k) => k !== 'name')
    if (extra) throw new TypeError(`${AT}.${extra}: the default policy takes no settings`)
    return undefined
  }
  const cache = o.cache === undefined ? 'anthropic' : o.cache
  if (cache !== 'anthropic' && cache !== 'openai')
    throw new TypeError(`${AT}.cache: expected "anthropic" or "openai", got ${typeof cache === 'string' ? JSON.stringify(cache) : describe(cache)}`)
  let lookbackBlocks
  if (o.lookbackBlocks !== undefined) {
    if (cache !== 'anthropic') throw new TypeError(`${AT}.lookbackBlocks: applies to the "anthropic" cache model only`)
    lookbackBlocks = wholeNumber(o.lookbackBlocks, 'lookbackBlocks', 0)
  }
  return Object.freeze({
    name,
    strict: name === 'cache-aware-strict',
    cache,
    pricing: o.pricing === undefined ? undefined : Object.freeze(readPricing(o.pricing, cache, `${AT}.pricing`)),
    expectedTurns: o.expectedTurns === undefined ? undefined : wholeNumber(o.expectedTurns, 'expectedTurns', 1),
    workingSetTurns: o.workingSetTurns === undefined ? DEFAULT_WORKING_SET_TURNS : wholeNumber(o.workingSetTurns, 'workingSetTurns', 1),
    summaryTokens: o.summaryTokens === undefined ? DEFAULT_SUMMARY_TOKENS : wholeNumber(o.summaryTokens, 'summaryTokens', 1),
    lookbackBlocks,
  })
}

/** The policy as the caller would write it again (`manager.policy`). */
function describePolicy(p) {
  if (!p) return { name: 'default' }
  const out = { name: p.name, cache: p.cache }
  if (p.pricing) out.pricing = { ...p.pricing }
  if (p.expectedTurns !== undefined) out.expectedTurns = p.expectedTurns
  out.workingSetTurns = p.workingSetTurns
  out.summaryTokens = p.summaryTokens
  if (p.lookbackBlocks !== undefined) out.lookbackBlocks = p.lookbackBlocks
  return out
}

/** The Lossless operations: all, or (strict) only those that point an older copy at a newer one. */
const operations = (strict) => ({ deduplicateFileReads: !strict, consolidateToolResults: !strict, removeObsoleteState: true })

/** Smart without model calls: old tool output suppressed, the last `keep` messages kept whole. */
function suppressOld(keep, strict) {
  return {
    losslessPrelude: { enabled: true, operations: operations(strict) },
    passes: [
      {
        id: 'suppress-old-output',
        name: 'Suppress old tool output',
        mode: 'individual',
        selection: { type: 'preserve_recent', keepRecentCount: keep },
        individualConfig: { defaults: { toolResults: 'suppress', toolParameters: 'suppress', environmentDetails: 'suppress' } },
      },
    ],
  }
}

/**
 * The configs of the roles the rule asks besides the manager's own config (which is the role
 * "summary"): the manager's config with another provider and no fallback of their own, so its
 * threshold, triggers, minimum gain and loop guard apply to them too.
 */
function roleConfigs(config, p) {
  const keep = 2 * p.workingSetTurns
  const providers = config.providers ?? {}
  const role = (provider, own) => ({ ...config, provider, providers: { ...providers, [provider]: own }, fallback: false })
  return {
    // The batch candidates' roles are named after their providers.
    [PROVIDER.lossless]: role(PROVIDER.lossless, operations(p.strict)),
    [PROVIDER.smart]: role(PROVIDER.smart, suppressOld(keep, p.strict)),
    smartAtTrigger: role(PROVIDER.smart, suppressOld(AT_TRIGGER_KEEP, p.strict)),
    ownSummary: role(PROVIDER.native, { ...(providers[PROVIDER.native] ?? {}), keepLast: keep }),
  }
}

/** What the rule keeps per task between calls. */
function newTaskState() {
  return {
    /** The cache model, fed with what each request sent; remade when the system prompt changes. */
    cache: undefined,
    systemTokens: undefined,
    systemPrompt: undefined,
    /** What the last call handed back (the request the host then sent, unless it changed it). */
    returned: undefined,
    /** Requests so far less one (the turn of the current call, from 0). */
    turn: -1,
    appendedTokens: 0,
    lastTry: 0,
    rewritten: 0,
    lastSummaryTurn: 0,
    afterSummary: undefined,
    /** Summaries this policy has made (its own and the manager's config's). */
    summaries: 0,
    /** What the requests sent so far and this policy's summaries are billed, by the cache model. */
    bill: 0,
    /** Roo's default on the same task (`newShadow`), priced by a cache model of its own. */
    shadow: undefined,
  }
}

/**
 * Roo's default on the same task, priced as the policy prices itself: the host's history as it
 * was first seen, each turn's appended messages, and a summary at the trigger (the first message,
 * a summary of `summaryTokens` tokens, the last `ROO_KEEP_LAST` messages). Roo's sliding window
 * past the allowed size is not modelled: it only ever makes Roo's bill smaller by dropping
 * messages, and the shadow only bounds what this policy spends.
 */
function newShadow(cache) {
  return { cache, messages: [], bill: 0, summaries: 0 }
}

/** Messages Roo's summary keeps after the first (Native's `N_MESSAGES_TO_KEEP`). */
const ROO_KEEP_LAST = 3

/**
 * What a summary call that reads `input` tokens costs, priced as a host sends it (nothing of it
 * cached, `CacheModel.freshRequestCost`), with an answer of `summaryTokens` tokens (at most half of
 * what it summarizes). The same price for this policy's summaries and for the shadow's.
 */
function summaryBill(cache, input, summaryTokens) {
  const { inputCost, outputCost } = cache.freshRequestCost(input, Math.max(1, Math.min(summaryTokens, Math.floor(input / 2))))
  return inputCost + outputCost
}

/** Per-task states, the least recently used dropped past `max`; calls for one task run one after another. */
class PolicyTasks {
  #max
  #tasks = new Map()

  constructor(max) {
    this.#max = max
  }

  async run(taskId, fn) {
    let entry = this.#tasks.get(taskId)
    if (entry) this.#tasks.delete(taskId)
    else entry = { state: newTaskState(), turn: Promise.resolve() }
    this.#tasks.set(taskId, entry)
    while (this.#tasks.size > this.#max) this.#tasks.delete(this.#tasks.keys().next().value)
    const previous = entry.turn
    let done
    entry.turn = new Promise((resolve) => {
      done = resolve
    })
    await previous
    try {
      return await fn(entry.state)
    } finally {
      done()
    }
  }

  forget(taskId) {
    if (taskId === undefined) this.#tasks.clear()
    else this.#tasks.delete(taskId)
  }

  /** Task ids with a state, least recently used first. */
  get tasks() {
    return [...this.#tasks.keys()]
  }
}

/**
 * The system prompt's size from the call's context (its keys checked by the manager first):
 * `systemPromptTokens`, else `systemPrompt` counted (off the JavaScript thread).
 */
async function systemPromptOf(context) {
  const n = context.systemPromptTokens
  if (n !== undefined) return { tokens: n, text: undefined }
  if (typeof context.systemPrompt === 'string') return { tokens: await countTokensAsync(context.systemPrompt), text: context.systemPrompt }
  throw new TypeError(
    'condenseIfNeeded: context.systemPromptTokens: the cache-aware policy prices each request with its system prompt; give its size in tokens (or context.systemPrompt, to be counted)',
  )
}

function lastIndexOfRole(messages, role) {
  for (let i = messages.length - 1; i >= 0; i--) if (messages[i] && messages[i].role === role) return i
  return -1
}

function beginsWith(messages, prefix) {
  if (prefix.length > messages.length) return false
  for (let i = 0; i < prefix.length; i++) if (!sameMessage(messages[i], prefix[i])) return false
  return true
}

/**
 * Brings the task's state up to this call: the request the host sent last (what the manager handed
 * back when this history begins with it, else this history up to its last assistant message, the
 * reply to that request) goes into the cache model, the turn advances, and what was appended since
 * is added to the growth. A task first seen mid-way counts its assistant messages as its turns.
 */
function account(state, messages, system, policy, pricing, counter) {
  const fresh = state.turn < 0
  let changed = false
  if (state.cache === undefined || state.systemTokens !== system.tokens || (system.text !== undefined && state.systemPrompt !== system.text)) {
    // Nothing cached is valid under another system prompt: a new model, fed from this call on.
    changed = state.cache !== undefined
    state.cache = new CacheModel(policy.cache, pricing, system.tokens, policy.lookbackBlocks)
    const shadow = state.shadow
    state.shadow = newShadow(new CacheModel(policy.cache, pricing, system.tokens, policy.lookbackBlocks))
    if (shadow) Object.assign(state.shadow, { messages: shadow.messages, bill: shadow.bill, summaries: shadow.summaries })
    state.systemTokens = system.tokens
    state.systemPrompt = system.text
  }
  state.cache.pricing = pricing
  state.shadow.cache.pricing = pricing
  let previous
  let appendedFrom = 0
  if (fresh) {
    state.turn = messages.reduce((n, m) => n + (m && m.role === 'assistant' ? 1 : 0), 0)
    const reply = lastIndexOfRole(messages, 'assistant')
    if (reply >= 0) previous = messages.slice(0, reply)
  } else {
    state.turn++
    if (state.returned && beginsWith(messages, state.returned)) previous = state.returned
    else {
      const reply = lastIndexOfRole(messages, 'assistant')
      if (reply >= 0) previous = messages.slice(0, reply)
    }
    appendedFrom = previous ? previous.length : firstChanged(state.returned ?? [], messages)
  }
  // The previous request went out under the old system prompt when it changed: nothing of it is cached now.
  const tokensOf = (m) => counter.of(m)
  const shadow = state.shadow
  if (previous && !changed) {
    state.bill += state.cache.request(previous, tokensOf).cost
    // Roo's default sent its own history last time (the same as this one's on the first call).
    shadow.bill += shadow.cache.request(fresh ? previous : shadow.messages, tokensOf).cost
  }
  if (fresh) shadow.messages = messages.slice()
  else for (let i = appendedFrom; i < messages.length; i++) shadow.messages.push(messages[i])
  for (let i = appendedFrom; i < messages.length; i++) state.appendedTokens += counter.of(messages[i])
}

/**
 * Roo's default at this call: a summary when its history has reached the trigger (by the manager's
 * own decision, `decide`), billed to the shadow and put in its history.
 */
function shadowTurn(shadow, system, context, policy, counter, decide) {
  const m = shadow.messages
  const n = m.length
  const last = n > 0 ? counter.of(m[n - 1]) : 0
  const total = system + counter.total(m)
  const d = decide({
    totalTokens: total - last,
    lastMessageTokens: last,
    contextWindow: context.contextWindow,
    maxTokens: context.maxTokens,
    profileId: context.profileId,
  })
  if (!d.condense) return
  const roo = rooSummary(m, counter, policy.summaryTokens, shadow.summaries + 1)
  if (!roo) return
  shadow.bill += summaryBill(shadow.cache, roo.input, policy.summaryTokens)
  shadow.summaries++
  shadow.messages = roo.messages
}

/**
 * What Roo's summary would leave of `messages`: the first message, a stand-in for the summary
 * (a message of its own, counted as `summaryTokens`, at most half of what it summarizes), the
 * last `ROO_KEEP_LAST`; and `input`, the tokens it summarizes. Undefined when there is too little
 * to summarize.
 */
function rooSummary(messages, counter, summaryTokens, k) {
  const keepStart = messages.length - ROO_KEEP_LAST
  if (keepStart <= 2) return undefined
  const input = counter.total(messages.slice(1, keepStart))
  const summary = { role: 'user', content: `Roo's summary ${k} (a stand-in for pricing, never sent)` }
  counter.known.set(summary, Math.max(1, Math.min(summaryTokens, Math.floor(input / 2))))
  return { messages: [messages[0], summary, ...messages.slice(keepStart)], input }
}

const dollars = (x) => `$${x.toFixed(4)}`

/**
 * One call under the cache-aware policy.
 * @param {object} o
 * @param {object} o.policy the checked policy (readPolicy)
 * @param {object} o.pricing the prices in use
 * @param {object} o.state the task's state
 * @param {object[]} o.messages the caller's history (never changed)
 * @param {object} o.context the call's context
 * @param {TokenCounter} o.counter
 * @param {boolean} o.autoCondense the manager's config allows condensing before the allowed size
 * @param {(role: string, messages: object[], context: object) => Promise<object>} o.ask runs a role's condensing
 * @param {(situation: object) => object} o.decide the manager's decision for its own config
 * @param {(role: string, result: object) => void} [o.onTaken] told of each result taken from a role other than "summary"
 */
async function runCacheAware(o) {
  const { policy: p, pricing, state, context, counter } = o
  const system = await systemPromptOf(context)
  const sys = system.tokens
  const expectedTurns = context.expectedTurns ?? p.expectedTurns
  // Every count below is a look-up: what is new is counted here, off the JavaScript thread.
  await counter.prepare(o.messages)
  if (state.returned) await counter.prepare(state.returned)
  account(state, o.messages, system, p, pricing, counter)
  shadowTurn(state.shadow, sys, context, p, counter, o.decide)
  const turn = state.turn
  const tokensOf = (m) => counter.of(m)
  let shadowNext
  /**
   * What Roo's default is billed once this call's request is sent (the shadow's request peeked on
   * first use: most calls weigh no step they need not take).
   */
  const shadowBill = () => {
    if (shadowNext === undefined) shadowNext = state.shadow.cache.peek(state.shadow.messages, tokensOf).cost
    return state.shadow.bill + shadowNext
  }
  /** Summaries this policy took on this call, priced (added to its bill at the end). */
  let spent = 0
  /**
   * Whether a step it need not take leaves the task, were it to end with this request (whose
   * cost with the step is `next`), billed at most `1 + RISK` times what Roo's default is billed.
   */
  const affordable = (next) => state.bill + spent + next <= (1 + RISK) * shadowBill()
  /** Whether one more summary it chooses leaves it at most half as many as Roo's default has made. */
  const underHalf = () => state.summaries + 1 <= Math.floor(state.shadow.summaries / 2)

  let current = o.messages
  let tokens = sys + counter.total(current)
  const situation = () => {
    const n = current.length
    const last = n > 0 ? tokensOf(current[n - 1]) : 0
    return {
      totalTokens: tokens - last,
      lastMessageTokens: last,
      contextWindow: context.contextWindow,
      maxTokens: context.maxTokens,
      profileId: context.profileId,
    }
  }
  const peek = (candidate) => state.cache.peek(candidate, tokensOf)
  const decision = o.decide(situation())
  const promptTokens = tokens
  const trigger = Math.min(Math.floor((decision.threshold.percent / 100) * context.contextWindow), decision.allowedTokens)
  const growth = Math.max(1, state.appendedTokens / (turn + 1))
  const remaining = expectedTurns !== undefined ? Math.max(1, expectedTurns - turn) : Math.max(MIN_REMAINING, turn)
  const premium = state.cache.rewritePremium()
  const rewritten = Math.max(state.rewritten, growth)
  const batch = Math.min(trigger / 2, Math.sqrt((2 * premium * growth * rewritten) / pricing.cacheReadsPrice))

  const steps = []
  const attempts = []
  let cost = 0
  let summary = ''
  let metrics
  let last

  /** Asks a role and hands back its candidate, with what the next request would cost with and without it. */
  async function propose(role, force) {
    const held = current
    const before = tokens
    const r = await o.ask(role, held, {
      ...situation(),
      taskId: context.taskId,
      force,
      signal: context.signal,
      summarize: context.summarize,
      isAutomaticTrigger: context.isAutomaticTrigger,
    })
    cost += r.cost ?? 0
    for (const a of r.attempts ?? []) attempts.push({ role, ...a })
    if (role === 'summary') last = r
    if (!r.condensed) return { condensed: false, result: r, role }
    await counter.prepare(r.messages)
    const after = sys + counter.total(r.messages)
    const c = {
      condensed: true,
      result: r,
      role,
      provider: r.provider,
      tokensBefore: before,
      tokensAfter: after,
      firstChanged: firstChanged(held, r.messages),
      get cacheNow() {
        return peek(held)
      },
      get cacheIfTaken() {
        return peek(r.messages)
      },
      take(why) {
        if (current !== held) throw new Error(`condenseIfNeeded: ${p.name}: a candidate made for a history that has changed since`)
        if (r.provider === PROVIDER.native) {
          const kept = new Set(r.messages)
          spent += summaryBill(
            state.cache,
            held.reduce((n, m) => n + (kept.has(m) ? 0 : tokensOf(m)), 0),
            p.summaryTokens,
          )
        }
        current = r.messages
        tokens = after
        steps.push({ role, provider: r.provider, taken: true, tokensBefore: before, tokensAfter: after, firstChanged: c.firstChanged, why })
        if (r.summary) summary = r.summary
        if (r.metrics) metrics = r.metrics
        if (role !== 'summary' && o.onTaken) o.onTaken(role, r)
      },
    }
    return c
  }
  const notTaken = (c, why) =>
    steps.push({
      role: c.role,
      provider: c.provider ?? c.result.attempts?.[0]?.provider,
      taken: false,
      tokensBefore: c.tokensBefore ?? tokens,
      tokensAfter: c.tokensAfter ?? tokens,
      why,
    })
  const notCondensed = (r) => r.error ?? r.report ?? r.skipped ?? 'nothing to condense'
  const summarized = () => {
    state.summaries++
    state.lastSummaryTurn = turn
    state.afterSummary = tokens
    state.lastTry = tokens
  }

  if (o.autoCondense && !context.force) {
    // A batch's worth of growth since the last try, under the trigger: the candidate worth most, if any pays.
    const n = tokens
    if (n - state.lastTry >= batch && n < trigger) {
      const horizon = Math.min(remaining, Math.max(1, (trigger - n) / growth))
      const worth = (c) => {
        const saved = c.tokensBefore - c.tokensAfter
        if (saved <= 0) return { v: -Infinity, reads: 0, rewrite: 0 }
        const reads = costOf({ cacheReadTokens: saved }, pricing) * horizon
        const rewrite = c.cacheIfTaken.cost - c.cacheNow.cost
        return { v: reads - rewrite, reads, rewrite }
      }
      const candidates = []
      let best
      for (const role of [PROVIDER.lossless, PROVIDER.smart]) {
        const c = await propose(role, true)
        if (!c.condensed) {
          notTaken(c, notCondensed(c.result))
          continue
        }
        const w = worth(c)
        const why = `saves ${c.tokensBefore - c.tokensAfter} tokens: reads over ${Math.round(horizon)} turns ${dollars(w.reads)} against ${dollars(w.rewrite)} more for the next request`
        const x = { c, w, why, affordable: affordable(c.cacheIfTaken.cost) }
        candidates.push(x)
        if (w.v > 0 && x.affordable && (!best || w.v > best.w.v)) best = x
      }
      for (const x of candidates) {
        if (x === best) continue
        const reason =
          x.w.v <= 0
            ? 'does not pay'
            : !x.affordable
              ? `would bill the task more than ${1 + RISK} times what Roo's default is billed (${dollars(shadowBill())}) if it ended now`
              : `${best.c.role} is worth more`
        notTaken(x.c, `${x.why}: ${reason}`)
      }
      if (best) {
        const next = best.c.cacheIfTaken
        state.rewritten = next.tokens - next.cachedRead
        best.c.take(`${best.why}: worth most`)
      }
      state.lastTry = tokens
    }
    // A summary of its own: no sooner than twice the default's cycle at this growth after the
    // last one, while it has made fewer than half the shadow's summaries, and when the reads it
    // saves until the next may run beat its price.
    const rooCycle = Math.max(1, (trigger - (state.afterSummary ?? sys)) / growth)
    const since = turn - state.lastSummaryTurn
    const m = tokens
    const keep = 2 * p.workingSetTurns
    const held = current.length
    if (since >= 2 * rooCycle && m < trigger && held > keep + 2 && underHalf()) {
      // What it leaves: the first message, the summary, the working set's turns kept whole.
      const input = counter.total(current.slice(1, held - keep))
      const after = sys + tokensOf(current[0]) + Math.min(p.summaryTokens, Math.floor(input / 2)) + counter.total(current.slice(held - keep))
      // Its price: its call, and the next request writing all after the system prompt again; what
      // it saves: reading `m - after` fewer tokens on each request until the next may run.
      const next = costOf({ cacheReadTokens: sys, cacheWriteTokens: after - sys }, pricing)
      const price = summaryBill(state.cache, input, p.summaryTokens) + next
      const saves = costOf({ cacheReadTokens: Math.max(0, m - after) }, pricing) * Math.min(remaining, 2 * rooCycle)
      if (saves > price && affordable(price)) {
        const c = await propose('ownSummary', true)
        const why = `${since} turns since the last summary (the default's cycle here: ${Math.round(rooCycle)}); saves ${dollars(saves)} of reads against its price ${dollars(price)}`
        if (c.condensed) {
          c.take(why)
          if (c.provider === PROVIDER.native) summarized()
        } else notTaken(c, `${why}: ${notCondensed(c.result)}`)
      }
    }
    // At the trigger: of Lossless, Smart (the working set's turns whole, else the last
    // `AT_TRIGGER_KEEP` messages) that leave room for a turn's growth, and the summary (while it
    // has made fewer than half the summaries Roo's default has), the one that costs least per turn
    // until the context is back at the trigger: its price now (the summary call, and what the next
    // request costs more than without it) plus the reads of each turn of that cycle. One that
    // leaves little room pays its price over few turns, so the comparison, not a margin, rules it out.
    if (o.decide(situation()).condense) {
      const perTurn = (after, price) => {
        const turns = Math.max(1, Math.min(remaining, (trigger - after) / growth))
        return (price + costOf({ cacheReadTokens: after + (growth * (turns - 1)) / 2 }, pricing) * turns) / turns
      }
      const now = peek(current).cost
      let summaryCost = Infinity
      const roo = underHalf() ? rooSummary(current, counter, p.summaryTokens, 0) : undefined
      if (roo) {
        const next = peek(roo.messages)
        summaryCost = perTurn(next.tokens, summaryBill(state.cache, roo.input, p.summaryTokens) + next.cost - now)
      }
      const room = []
      for (const role of [PROVIDER.lossless, PROVIDER.smart, 'smartAtTrigger']) {
        const c = await propose(role, true)
        if (!c.condensed) {
          notTaken(c, `at the trigger: ${notCondensed(c.result)}`)
          continue
        }
        if (c.tokensAfter + growth > trigger) {
          notTaken(c, `at the trigger: does not leave room under the trigger (${trigger}) for a turn's growth (${Math.round(growth)})`)
          continue
        }
        room.push({ c, cost: perTurn(c.tokensAfter, c.cacheIfTaken.cost - now) })
      }
      let best
      for (const x of room) if (!best || x.cost < best.cost) best = x
      for (const x of room) {
        const each = `${dollars(x.cost)} a turn until the trigger`
        if (x === best && x.cost <= summaryCost) x.c.take(`at the trigger: ${each}, the least`)
        else notTaken(x.c, `at the trigger: ${each}, ${x === best || x.cost > summaryCost ? `the summary ${dollars(summaryCost)}` : `${best.c.role} less`}`)
      }
      if (tokens < trigger) state.lastTry = tokens
    }
  }
  // The manager's own config: at the threshold (or forced), past the allowed size its fallbacks.
  const c = await propose('summary', Boolean(context.force))
  if (c.condensed) {
    c.take(c.result.report)
    if (c.provider === PROVIDER.native) summarized()
  }
  // A copy: hosts append to their own array in place (the next call's history may be this very array).
  state.returned = current.slice()
  state.bill += spent

  const taken = steps.filter((s) => s.taken)
  const result = {
    messages: current,
    condensed: taken.length > 0,
    provider: taken.length > 0 ? taken[taken.length - 1].provider : undefined,
    prevContextTokens: promptTokens,
    newContextTokens: tokens,
    summary,
    cost,
    decision,
    attempts,
    policy: {
      name: p.name,
      turn,
      promptTokens,
      triggerTokens: trigger,
      batchTokens: batch,
      growthTokens: growth,
      remainingTurns: remaining,
      billed: state.bill,
      rooDefaultBilled: state.shadow.bill,
      steps,
    },
  }
  if (metrics) result.metrics = metrics
  if (last && last.error) result.error = last.error
  if (taken.length === 0) {
    result.skipped = last && last.skipped ? last.skipped : 'not-worth-it'
    result.report = `Context not condensed (${p.name}): ${steps.length > 0 ? steps.map((s) => `${s.role}: ${s.why}`).join('; ') : last && last.report ? last.report : 'no batch due, under the threshold'}`
  } else {
    result.report = `Context condensed (${p.name}): ${taken.map((s) => `${s.role} (${s.provider}) ${s.tokensBefore} -> ${s.tokensAfter}`).join(', then ')}`
  }
  return result
}

module.exports = { POLICY_NAMES, readPolicy, describePolicy, roleConfigs, PolicyTasks, runCacheAware, MIN_REMAINING, AT_TRIGGER_KEEP, TokenCounter }
