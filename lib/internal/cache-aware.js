// The manager's cache-aware policy (`new CondensationManager({ policy: 'cache-aware' })`): where
// the default condenses only at the threshold, this one also condenses before it, in batches and
// only where the reads saved beat re-writing the host's prompt cache, and summarizes on its own at
// most half as often as the default would. The rule, its constants and what it keeps per task are
// the engine's (src/manager/policy.rs, whose doc says what it does; `PolicyTask` and `PolicyCall`
// in crates/binding/src/policy.rs). This module reads the policy's options and runs each step the engine
// names: the roles' condensings (through the manager, lib/manager.js), the prompt-cache model's
// prices (lib/internal/prompt-cache.js) and the manager's decisions; it keeps per task
// (`context.taskId`) what only JavaScript can hold: the messages whose identity the cache models
// align requests by (what the last call handed back, Roo's default's history on the same task).
//
// `cache-aware-strict` is the same without the Lossless operations that turn a newer copy into a
// reference to an older one (repeated file reads, identical tool results): no message ever
// points at another. (With them, nothing is lost either: when a run, or a later one, shortens
// the older copy, a reference in a message it kept gets the bytes back.)
//
// Never changes the caller's messages.
'use strict'

const native = require('./native.js')
const { describe, wholeNumber: checkWhole } = require('./values.js')
const { checkKnownKeys } = require('./checks.js')
const { countTokensAsync } = require('./tokens.js')
const { CacheModel, CACHE_TTLS, TokenCounter, firstChanged, readCacheTtl, readPricing, sameMessage } = require('./prompt-cache.js')

const POLICY_NAMES = Object.freeze(['default', 'cache-aware', 'cache-aware-strict'])
const POLICY_KEYS = ['name', 'cache', 'cacheTtl', 'pricing', 'expectedTurns', 'workingSetTurns', 'summaryTokens', 'lookbackBlocks']
// The rule's constants and the defaults of its settings are the engine's (src/manager/policy.rs).
const {
  defaultWorkingSetTurns: DEFAULT_WORKING_SET_TURNS,
  defaultSummaryTokens: DEFAULT_SUMMARY_TOKENS,
  minRemaining: MIN_REMAINING,
  atTriggerKeep: AT_TRIGGER_KEEP,
} = native.policyConstants()

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
  const cacheTtl = readCacheTtl(o.cacheTtl, `${AT}.cacheTtl`)
  return Object.freeze({
    name,
    strict: name === 'cache-aware-strict',
    cache,
    cacheTtl,
    // A one-hour write costs more: without a write price of the caller's, the engine's table prices it.
    pricing: o.pricing === undefined ? undefined : Object.freeze(readPricing(o.pricing, cache, `${AT}.pricing`, cacheTtl)),
    expectedTurns: o.expectedTurns === undefined ? undefined : wholeNumber(o.expectedTurns, 'expectedTurns', 1),
    workingSetTurns: o.workingSetTurns === undefined ? DEFAULT_WORKING_SET_TURNS : wholeNumber(o.workingSetTurns, 'workingSetTurns', 1),
    summaryTokens: o.summaryTokens === undefined ? DEFAULT_SUMMARY_TOKENS : wholeNumber(o.summaryTokens, 'summaryTokens', 1),
    lookbackBlocks,
  })
}

/** The policy as the caller would write it again (`manager.policy`). */
function describePolicy(p) {
  if (!p) return { name: 'default' }
  const out = { name: p.name, cache: p.cache, cacheTtl: p.cacheTtl }
  if (p.pricing) out.pricing = { ...p.pricing }
  if (p.expectedTurns !== undefined) out.expectedTurns = p.expectedTurns
  out.workingSetTurns = p.workingSetTurns
  out.summaryTokens = p.summaryTokens
  if (p.lookbackBlocks !== undefined) out.lookbackBlocks = p.lookbackBlocks
  return out
}

/**
 * The configs of the roles the rule asks besides the manager's own config (which is the role
 * "summary"): the engine's (src/manager/policy.rs `role_configs`: the manager's config with
 * another provider and no fallback of its own; Lossless, Smart without model calls keeping the
 * working set's turns, Smart keeping fewer at the trigger, its own Native summary).
 */
function roleConfigs(config, p) {
  return native.policyRoleConfigs(config, p.strict, p.workingSetTurns)
}

/**
 * What a task keeps between calls: the engine's state of the rule (`PolicyTask`), and what only
 * JavaScript can hold, the messages whose identity the prompt-cache models align requests by.
 */
function newTaskState() {
  return {
    task: new native.PolicyTask(),
    /** The cache model, fed with what each request sent; remade when the system prompt changes. */
    cache: undefined,
    /** What the last call handed back (the request the host then sent, unless it changed it). */
    returned: undefined,
    /** Roo's default on the same task: its history (a stand-in for each summary), priced by a cache model of its own. */
    shadowMessages: [],
    shadowCache: undefined,
    /** When the previous call was made (the request it answered was sent then), on the manager's clock. */
    sentAt: undefined,
  }
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

/** Each message's tokens, as the engine reads a history, and their sum. */
function tokensArray(messages, counter) {
  const out = new Float64Array(messages.length)
  let sum = 0
  for (let i = 0; i < messages.length; i++) {
    out[i] = counter.of(messages[i])
    sum += out[i]
  }
  return { each: out, sum }
}

/** The manager's situation for a history of `tokens` (the system prompt's and its messages'). */
function situationOf(messages, tokens, context, counter) {
  const n = messages.length
  const last = n > 0 ? counter.of(messages[n - 1]) : 0
  return {
    totalTokens: tokens - last,
    lastMessageTokens: last,
    contextWindow: context.contextWindow,
    maxTokens: context.maxTokens,
    profileId: context.profileId,
  }
}

/**
 * Brings the task up to this call (the engine's `account` says whether it is new and whether the
 * system prompt changed): the request the host sent last (what the manager handed back when this
 * history begins with it, else this history up to its last assistant message, the reply to that
 * request) is priced in the policy's cache model and the shadow's, and what was appended since is
 * told to the engine and appended to the shadow's history.
 */
function account(call, state, messages, system, policy, pricing, counter, at) {
  const task = state.task
  const assistants = messages.reduce((n, m) => n + (m && m.role === 'assistant' ? 1 : 0), 0)
  const a = call.account(task, system.tokens, system.text ?? null, assistants)
  if (a.remake) {
    // Nothing cached is valid under another system prompt: new models, fed from this call on.
    state.cache = new CacheModel(policy.cache, pricing, system.tokens, policy.lookbackBlocks, CACHE_TTLS[policy.cacheTtl])
    state.shadowCache = new CacheModel(policy.cache, pricing, system.tokens, policy.lookbackBlocks, CACHE_TTLS[policy.cacheTtl])
  }
  state.cache.pricing = pricing
  state.shadowCache.pricing = pricing
  let previous
  let appendedFrom = 0
  if (a.fresh) {
    const reply = lastIndexOfRole(messages, 'assistant')
    if (reply >= 0) previous = messages.slice(0, reply)
  } else {
    if (state.returned && beginsWith(messages, state.returned)) previous = state.returned
    else {
      const reply = lastIndexOfRole(messages, 'assistant')
      if (reply >= 0) previous = messages.slice(0, reply)
    }
    appendedFrom = previous ? previous.length : firstChanged(state.returned ?? [], messages)
  }
  const tokensOf = (m) => counter.of(m)
  if (previous && a.bill) {
    // Roo's default sent its own history last time (the same as this one's on the first call).
    const own = state.cache.request(previous, tokensOf, state.sentAt).cost
    call.billed(task, own, state.shadowCache.request(a.fresh ? previous : state.shadowMessages, tokensOf, state.sentAt).cost)
  }
  state.sentAt = at
  if (a.fresh) state.shadowMessages = messages.slice()
  else for (let i = appendedFrom; i < messages.length; i++) state.shadowMessages.push(messages[i])
  let appended = 0
  for (let i = appendedFrom; i < messages.length; i++) appended += counter.of(messages[i])
  call.appended(task, appended)
}

/**
 * Roo's default at this call: when the manager's decision says its history has reached the
 * trigger, the engine bills its summary and JavaScript puts the stand-in in its history.
 */
function shadowTurn(call, state, system, context, counter, decide) {
  const m = state.shadowMessages
  const d = decide(situationOf(m, system + counter.total(m), context, counter))
  const keepStart = call.shadowSummaryDue(state.task, d.condense, m.length)
  if (keepStart === null || keepStart === undefined) return
  const tokens = call.shadowSummarized(state.task, counter.total(m.slice(1, keepStart)))
  state.shadowMessages = rooSummary(m, keepStart, tokens, counter, state.task.shadowSummaries)
}

/**
 * What Roo's summary leaves of `messages` (the engine says where it keeps them from and the
 * summary's size): the first message, a stand-in for the summary (a message of its own, counted
 * as `tokens`), the messages from `keepStart` on.
 */
function rooSummary(messages, keepStart, tokens, counter, k) {
  const summary = { role: 'user', content: `Roo's summary ${k} (a stand-in for pricing, never sent)` }
  counter.known.set(summary, tokens)
  return [messages[0], summary, ...messages.slice(keepStart)]
}

/**
 * One call under the cache-aware policy: the engine's rule (src/manager/policy.rs `PolicyCall`)
 * names each step, and this runs it: the roles' condensings, the prompt-cache model's prices, the
 * manager's decisions and the token counts.
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
 * @param {() => number} o.now the manager's clock (its answers checked there): when this call's request is sent
 */
async function runCacheAware(o) {
  const { policy: p, pricing, state, context, counter } = o
  const system = await systemPromptOf(context)
  const sys = system.tokens
  const expectedTurns = context.expectedTurns ?? p.expectedTurns
  // Every count below is a look-up: what is new is counted here, off the JavaScript thread.
  await counter.prepare(o.messages)
  if (state.returned) await counter.prepare(state.returned)
  const call = new native.PolicyCall({ name: p.name, cache: p.cache, pricing, workingSetTurns: p.workingSetTurns, summaryTokens: p.summaryTokens })
  const task = state.task
  const at = o.now()
  account(call, state, o.messages, system, p, pricing, counter, at)
  shadowTurn(call, state, sys, context, counter, o.decide)
  const tokensOf = (m) => counter.of(m)

  let current = o.messages
  let counted = tokensArray(current, counter)
  let tokens = sys + counted.sum
  const situation = () => situationOf(current, tokens, context, counter)
  const decision = o.decide(situation())
  let cost = 0
  let summary = ''
  let metrics
  let last
  const attempts = []
  /** The results of the last proposal, in its order, and what the next request costs as the history is. */
  let results = []
  let nowCost

  /** Asks a role and hands the engine what it found (priced when the step asks). */
  async function propose(role, force, priced) {
    const held = current
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
    results.push(r)
    const report = r.condensed ? (r.report ?? '') : (r.error ?? r.report ?? r.skipped ?? 'nothing to condense')
    if (!r.condensed) return { condensed: false, provider: r.provider ?? r.attempts?.[0]?.provider, report }
    await counter.prepare(r.messages)
    const kept = new Set(r.messages)
    const c = {
      condensed: true,
      provider: r.provider,
      report,
      tokensAfter: sys + counter.total(r.messages),
      firstChanged: firstChanged(held, r.messages),
      removedTokens: held.reduce((n, m) => n + (kept.has(m) ? 0 : tokensOf(m)), 0),
    }
    if (priced) {
      const ifTaken = state.cache.peek(r.messages, tokensOf, at)
      c.ifTakenCost = ifTaken.cost
      c.ifTakenTokens = ifTaken.tokens
      c.ifTakenCachedRead = ifTaken.cachedRead
      nowCost ??= state.cache.peek(held, tokensOf, at).cost
      c.nowCost = nowCost
    }
    return c
  }

  let step = call.start(task, sys, counted.each, {
    thresholdPercent: decision.threshold.percent,
    allowedTokens: decision.allowedTokens,
    contextWindow: context.contextWindow,
    expectedTurns,
    autoCondense: o.autoCondense,
    force: Boolean(context.force),
    // Nothing cached is alive (it expired, or the task is new here): the request writes
    // everything, so a condensing now re-writes nothing it would not write anyway.
    coldCache: state.cache.expired(at),
  })
  for (;;) {
    if (step.action === 'propose') {
      results = []
      nowCost = undefined
      const found = []
      for (const role of step.roles) found.push(await propose(role, step.force, step.priced))
      step = call.proposed(task, found)
    } else if (step.action === 'price-shadow') {
      step = call.shadowPriced(task, state.shadowCache.peek(state.shadowMessages, tokensOf, at).cost)
    } else if (step.action === 'decide') {
      step = call.decided(task, o.decide(situation()).condense)
    } else if (step.action === 'price-now') {
      const now = state.cache.peek(current, tokensOf, at).cost
      let roo = null
      if (step.roo) {
        const r = state.cache.peek(rooSummary(current, step.roo.keepStart, step.roo.standIn, counter, 0), tokensOf, at)
        roo = { tokens: r.tokens, cost: r.cost }
      }
      step = call.pricedNow(now, roo)
    } else if (step.action === 'take') {
      const r = results[step.index]
      current = r.messages
      counted = tokensArray(current, counter)
      tokens = sys + counted.sum
      if (r.summary) summary = r.summary
      if (r.metrics) metrics = r.metrics
      const role = step.role
      step = call.taken(task, counted.each)
      if (role !== 'summary' && o.onTaken) o.onTaken(role, r)
    } else break
  }
  // A copy: hosts append to their own array in place (the next call's history may be this very array).
  state.returned = current.slice()
  const done = call.finish(task, last && last.report ? String(last.report) : null)

  const result = {
    messages: current,
    condensed: done.condensed,
    provider: done.provider ?? undefined,
    prevContextTokens: done.promptTokens,
    newContextTokens: done.newContextTokens,
    summary,
    cost,
    decision,
    attempts,
    policy: {
      name: p.name,
      turn: done.turn,
      promptTokens: done.promptTokens,
      triggerTokens: done.triggerTokens,
      batchTokens: done.batchTokens,
      growthTokens: done.growthTokens,
      remainingTurns: done.remainingTurns,
      billed: done.billed,
      rooDefaultBilled: done.rooDefaultBilled,
      steps: done.steps,
    },
  }
  if (metrics) result.metrics = metrics
  if (last && last.error) result.error = last.error
  if (!done.condensed) result.skipped = last && last.skipped ? last.skipped : 'not-worth-it'
  result.report = done.report
  return result
}

module.exports = { POLICY_NAMES, readPolicy, describePolicy, roleConfigs, PolicyTasks, runCacheAware, MIN_REMAINING, AT_TRIGGER_KEEP, TokenCounter }
