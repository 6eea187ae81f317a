// The turn loop of a replay: appends each recorded turn to the running history, lets the policy
// condense through the manager (what it takes replaces the running history; later recorded turns
// append to it), applies the host's sliding window when the prompt is still past the allowed
// size, then prices the request with the cache model at the time it was sent (so an entry unused
// for longer than the cache's time to live is written again). Never changes the recorded messages: the
// running history is its own array, and the manager hands back new objects for what it changes.
'use strict'

// Read when a replay runs: lib/manager.js requires lib/index.js, which requires this module.
const managerModule = require('../manager.js')
const { CacheModel, TokenCounter, firstChanged } = require('../internal/prompt-cache.js')
const native = require('../internal/native.js')
const { makeSummarizer } = require('./summarizer.js')
const { expectations, runChecks } = require('./checks.js')

const TASK_ID = 'replay'

/**
 * @param {object[]} history the recorded history
 * @param {Array<{ index: number, append: object[], at: number }>} turns
 * @param {object} policy
 * @param {object} settings the checked options
 */
async function runReplay(history, turns, policy, settings) {
  const started = performance.now()
  const counter = new TokenCounter()
  const tokensOf = (m) => counter.of(m)
  const cache = new CacheModel(settings.cache, settings.pricing, settings.systemTokens, settings.lookbackBlocks, settings.cacheTtlMs)
  const { summarize, tally } = makeSummarizer(settings, cache)
  const roles = policy.config(settings)
  const managers = {}
  const managerPolicy = policy.policy ? policy.policy(settings) : undefined
  for (const [role, config] of Object.entries(roles)) {
    const own = role === 'main' && managerPolicy ? { policy: managerPolicy } : {}
    // The manager runs on the requests' clock (the recorded times, else `REQUEST_SPACING_MS`
    // apart), as in a host: its loop guard's cool-downs and the cache-aware policy's view of
    // the prompt cache's expiry are those of the recorded pace.
    managers[role] = new managerModule.CondensationManager({ config, ...own, summarize, conversations: 1, now: () => sentAt })
  }
  const { contextWindow, maxTokens, systemTokens } = settings

  let messages = []
  let messageTokens = 0
  const condensings = []
  const perRequest = []
  let requestsOverLimit = 0
  let requestsOverWindow = 0
  /** Requests no policy keeping the first message and the request's last one whole fits in the window. */
  let requestsOverWindowUnavoidable = 0
  let peakContext = 0
  let turn = 0
  let appendedTokens = 0
  /** Each recorded message written to the cache once, the system prompt read on every request after the first. */
  let sendOnce = 0
  /** The least any policy can pay that sends each recorded message and the system prompt, and
   * each request's last message again in the next request (see `floorCost`). */
  let floor = 0
  // What every request sends first, whatever the policy: the system prompt and the task's first message.
  const headTokens = systemTokens + (history.length > 0 ? tokensOf(history[0]) : 0)
  /** Anthropic writes what sits before a request's last breakpoint (its last user message) once
   * the prompt there reaches the cache's minimum, which the head alone does here. */
  const writesNew = cache.writesPrefix(headTokens)
  /** Tokens sent afresh that the cache does not have to write: at the cheaper of the two prices. */
  const fresh = settings.pricing.inputPrice <= settings.pricing.cacheWritesPrice ? 'inputTokens' : 'cacheWriteTokens'
  const cacheFloorUsage = { inputTokens: 0, cacheWriteTokens: 0, cacheReadTokens: 0 }
  /** The previous request's last message (a user message), which this request sends again. */
  let carried = 0
  let previousAt
  /** When the request being made is sent (the recorded clock, lib/replay/messages.js). */
  let sentAt = 0

  const promptTokens = () => systemTokens + messageTokens
  const situation = () => {
    const n = messages.length
    const last = n > 0 ? tokensOf(messages[n - 1]) : 0
    return { totalTokens: promptTokens() - last, lastMessageTokens: last, contextWindow, maxTokens }
  }
  const manager = (role) => {
    const m = managers[role]
    if (!m)
      throw new TypeError(`replay: policy "${policy.name}" asked for role "${role}", which its config does not name (${Object.keys(managers).join(', ')})`)
    return m
  }
  const anyManager = managers[Object.keys(managers)[0]]
  const allowedTokens = anyManager.decide({ totalTokens: 0, lastMessageTokens: 0, contextWindow, maxTokens }).allowedTokens
  const take = (next, role, provider, before) => {
    const changed = firstChanged(messages, next)
    messages = next
    messageTokens = counter.total(next)
    condensings.push({ turn, role, provider, tokensBefore: before, tokensAfter: promptTokens(), firstChanged: changed })
  }

  const step = {
    settings,
    memo: {},
    get turn() {
      return turn
    },
    get messages() {
      return messages
    },
    promptTokens,
    allowedTokens: () => allowedTokens,
    /** Where the threshold puts the trigger: threshold % of the window, or the allowed size if lower. */
    triggerTokens: () => Math.min(Math.floor((settings.threshold / 100) * contextWindow), allowedTokens),
    /** What the request would cost now, and what the cache holds of it (recorded by nothing). */
    peekCache: (candidate = messages) => cache.peek(candidate, tokensOf, sentAt),
    decide: (role) => manager(role).decide(situation()),
    /**
     * Asks the role's manager; takes its result when it condensed and `accept` (given the candidate
     * with its figures and what the next request would cost with and without it) agrees.
     */
    async condenseIfNeeded(role, { force = false, accept } = {}) {
      const c = await step.propose(role, { force })
      if (!c.condensed) return { ...c.result, taken: false }
      if (accept && !accept(c)) return { ...c.result, taken: false }
      c.take()
      return { ...c.result, taken: true }
    },
    /**
     * Asks the role's manager and hands back what it answered without taking it: `condensed`, the
     * candidate history with its size, the first message it changes, what the next request would
     * cost with it and without it (`cacheIfTaken`, `cacheNow`), and `take()`.
     */
    async propose(role, { force = false } = {}) {
      const before = promptTokens()
      const held = messages
      const r = await manager(role).condenseIfNeeded(messages, {
        ...situation(),
        taskId: TASK_ID,
        force,
        signal: settings.signal,
        systemPromptTokens: systemTokens,
      })
      if (!r.condensed) return { condensed: false, result: r }
      return {
        condensed: true,
        result: r,
        role,
        provider: r.provider,
        messages: r.messages,
        tokensBefore: before,
        tokensAfter: systemTokens + counter.total(r.messages),
        firstChanged: firstChanged(held, r.messages),
        get cacheNow() {
          return step.peekCache(held)
        },
        get cacheIfTaken() {
          return step.peekCache(r.messages)
        },
        take() {
          if (messages !== held) throw new Error(`replay: policy "${policy.name}" took a candidate made for a history that has changed since`)
          if (!r.policy) return take(r.messages, role, r.provider, before)
          // The manager's policy may have condensed more than once: each step it took is a condensing.
          messages = r.messages
          messageTokens = counter.total(r.messages)
          for (const s of r.policy.steps) {
            if (s.taken)
              condensings.push({
                turn,
                role: s.role,
                provider: s.provider,
                tokensBefore: s.tokensBefore,
                tokensAfter: s.tokensAfter,
                firstChanged: s.firstChanged,
              })
          }
        },
      }
    },
    /** Extra price per million tokens of sending cached tokens again (written or uncached) instead of reading them. */
    rewritePremium: () => cache.rewritePremium(),
    /** Tokens of the recorded messages appended so far (the task's growth). */
    get appendedTokens() {
      return appendedTokens
    },
  }

  const turnFn = policy.turn ? (s) => policy.turn(s) : (s) => s.condenseIfNeeded('main')
  for (const t of turns) {
    if (settings.signal && settings.signal.aborted) throw settings.signal.reason ?? new Error('replay: aborted')
    turn = t.index
    sentAt = t.sentAt
    for (const m of t.append) {
      messages.push(m)
      messageTokens += tokensOf(m)
      appendedTokens += tokensOf(m)
    }
    await turnFn(step)
    // What the policy would send: past the window, a host without a last resort fails the request.
    if (promptTokens() + maxTokens > contextWindow) requestsOverWindow++
    // The request's last message: sent whole by any policy, and again in the next request.
    const last = t.append[t.append.length - 1]
    if (systemTokens + tokensOf(history[0]) + (last && last !== history[0] ? tokensOf(last) : 0) + maxTokens > contextWindow) requestsOverWindowUnavoidable++
    if (promptTokens() > allowedTokens) {
      // The host's last resort, as Roo does: drop half of the oldest (after the first message) until it fits.
      requestsOverLimit++
      const before = promptTokens()
      let next = messages
      while (systemTokens + counter.total(next) > allowedTokens && next.length > 2) {
        const cut = managerModule.slidingWindow(next, 0.5)
        if (cut.length === next.length) break
        next = cut
      }
      // A cut that removed nothing (the policy's manager cut as far as the window goes) is no condensing.
      if (next !== messages) take(next, 'host', 'sliding-window', before)
    }
    let added = 0
    const lastUser = t.append.map((m) => m.role).lastIndexOf('user')
    // The head and the previous request's last message are read when the previous request was
    // recent enough to have kept them in the cache, else sent again: written when `writesNew`
    // (both sit before this request's last breakpoint), else at the cheaper of the two prices.
    const headLives = previousAt !== undefined && (settings.cacheTtlMs === undefined || t.sentAt - previousAt <= settings.cacheTtlMs)
    cacheFloorUsage[headLives ? 'cacheReadTokens' : writesNew ? 'cacheWriteTokens' : fresh] += headTokens + carried
    carried = last && last.role === 'user' && last !== history[0] ? tokensOf(last) : 0
    t.append.forEach((m, k) => {
      added += tokensOf(m)
      floor += cache.leastCost(tokensOf(m), m === last && m.role !== 'assistant' && t.index + 1 < turns.length ? 2 : 1)
      // New since the previous request: nothing of it can be read; written when before the last
      // breakpoint, else plain input (the OpenAI model writes nothing).
      if (m !== history[0])
        cacheFloorUsage[writesNew && k <= lastUser ? 'cacheWriteTokens' : settings.cache === 'anthropic' ? fresh : 'inputTokens'] += tokensOf(m)
    })
    previousAt = t.sentAt
    sendOnce += cache.sendOnceCost(added, t.index === 0)
    const row = cache.request(messages, tokensOf, sentAt)
    peakContext = Math.max(peakContext, row.tokens)
    perRequest.push({
      turn,
      tokens: row.tokens,
      cachedRead: row.cachedRead,
      cacheWrite: row.cacheWrite,
      uncached: row.uncached,
      cost: row.cost,
      firstChanged: row.firstChanged,
    })
  }
  for (const m of Object.values(managers)) await m.closeConversations()

  const sum = (k) => perRequest.reduce((a, r) => a + r[k], 0)
  const inputTokens = sum('tokens')
  const inputCost = sum('cost') // the requests' input, priced by the cache model
  const expected = expectations(history, turns, settings.workingSetTurns)
  return {
    policy: policy.name,
    description: policy.description,
    requests: perRequest.length,
    inputTokens,
    cachedReadTokens: sum('cachedRead'),
    cacheWriteTokens: sum('cacheWrite'),
    uncachedTokens: sum('uncached'),
    cacheHitRate: inputTokens > 0 ? sum('cachedRead') / inputTokens : 0,
    requestsCost: inputCost,
    summaryInputCost: tally.inputCost,
    billedInputCost: inputCost + tally.inputCost,
    summaryOutputCost: tally.outputCost,
    summaryCost: tally.inputCost + tally.outputCost,
    billedCost: inputCost + tally.inputCost + tally.outputCost,
    sendOnceCost: sendOnce,
    // Priced by the engine (src/cost.rs least_cost, send_once_cost).
    floorCost: floor + cache.leastCost(systemTokens, perRequest.length),
    // Priced by the engine, as the requests are (src/cost.rs usage_cost).
    cacheFloorCost: native.usageCost(cacheFloorUsage, settings.pricing),
    summaries: tally.calls,
    summaryCalls: { ...tally.byPurpose },
    summaryInputTokens: tally.inputTokens,
    summaryOutputTokens: tally.outputTokens,
    summaryCacheWriteTokens: tally.cacheWriteTokens,
    condensings,
    peakContext,
    requestsOverLimit,
    requestsOverWindow,
    requestsOverWindowUnavoidable,
    checks: runChecks(expected, messages),
    messages,
    perRequest,
    settings: {
      contextWindow,
      threshold: settings.threshold,
      maxTokens,
      systemTokens,
      summaryTokens: settings.summaryTokens,
      cache: settings.cache,
      ...(settings.lookbackBlocks !== undefined ? { lookbackBlocks: settings.lookbackBlocks } : {}),
      cacheTtl: settings.cacheTtl,
      requestTimes: turns.length > 0 && turns[0].timeRecorded ? 'recorded' : 'spaced',
      pricing: settings.pricing,
      allowedTokens,
      summarizer: settings.llmUrl ? settings.llmUrl : settings.summarize ? 'callback' : 'stand-in',
      ...(settings.expectedTurns !== undefined ? { expectedTurns: settings.expectedTurns } : {}),
    },
    timeMs: performance.now() - started,
  }
}

module.exports = { runReplay }
