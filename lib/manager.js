// The condensation manager: when to condense, with which provider, and what to do when that
// fails. Its decisions are made in Rust (src/manager/): the thresholds per profile, the trigger,
// overrides, config validation, estimates, and each call's course (`ManagerAttempt`: the fallback
// chain — the chosen provider, then Native when a summarize callback exists — the growth guard,
// the minimum gain worth breaking the host's prompt cache, the sliding window as the last resort
// when the context is past its allowed size, what each outcome reports) with the loop guard's
// state per task (`ManagerGuards`). This file runs what each step names: the four built-ins
// through `condense`, providers written in JavaScript (their output checked valid), the sliding
// window (Roo Code's `truncateConversation`), token counts off the JavaScript thread, telemetry.
// With `policy: 'cache-aware'` (the engine's rule, src/manager/policy.rs, run by
// lib/internal/cache-aware.js) each call runs that policy's rule
// instead, asking role managers made from this config (Lossless, Smart without model calls, an
// own summary) and this config itself. It never mutates the caller's messages.
'use strict'

const { coded, codeMethods, tag, withCode } = require('./internal/errors.js')
const { isObject, describe, wholeNumber, tokenCount } = require('./internal/values.js')
const { checkKnownKeys, checkOptionsObject, checkObject, optionalString, optionalBoolean, optionalFunction, optionalObject } = require('./internal/checks.js')
const { checkSummarizeOptions } = require('./internal/summarize.js')
const { abortError } = require('./internal/abort.js')
const { countMessagesAsync } = require('./internal/tokens.js')
const { findUnsupported, pathText, checkCrossable } = require('./internal/crossing.js')
const { cutToTail, cutWindow } = require('./internal/window.js')
const native = require('./internal/native.js')
const { PROVIDER } = require('./internal/registry.js')
const lib = require('./functions.js')
const { openConversation } = require('./conversation.js')
const { pushInChunks } = require('./internal/intake.js')
const { checkSignal } = require('./internal/abort.js')
const { ConversationPool, DEFAULT_MAX_TASKS } = require('./internal/conversation-pool.js')
const { readPricing } = require('./internal/prompt-cache.js')
const { readPolicy, describePolicy, roleConfigs, PolicyTasks, runCacheAware, TokenCounter } = require('./internal/cache-aware.js')

/** The engine's catalogue: the built-in providers (what each is and can do) and its constants. */
const CATALOGUE = native.providerCatalogue()
const BUILT_IN = Object.fromEntries(CATALOGUE.providers.map(({ id, name, description, capabilities }) => [id, { name, description, capabilities }]))
// What a situation holds besides its numbers' values (the engine checks those), refused as the
// engine refuses options (errorCode "invalid-options").
const refused = (detail) => withCode(new Error(`invalid options: ${detail}`), 'invalid-options')
const SITUATION_TYPES = {
  totalTokens: 'number',
  lastMessageTokens: 'number',
  contextWindow: 'number',
  maxTokens: 'number',
  profileId: 'string',
  provider: 'string',
}
/** The options `new CondensationManager` takes. */
const MANAGER_OPTIONS = ['config', 'policy', 'summarize', 'summarizeOptions', 'telemetry', 'now', 'conversations']
/** The callbacks `options.telemetry` may hold. */
const TELEMETRY_KEYS = ['captureContextCondensed', 'captureSlidingWindowTruncation']
/** The keys of a call's context (`condenseIfNeeded`, CondenseContext in lib/manager.d.ts). */
const CONTEXT_KEYS = [
  'contextWindow',
  'totalTokens',
  'lastMessageTokens',
  'maxTokens',
  'profileId',
  'taskId',
  'signal',
  'summarize',
  'force',
  'isAutomaticTrigger',
  'systemPromptTokens',
  'systemPrompt',
  'expectedTurns',
]
/** The keys of an estimate's options (`estimateReduction`, `estimateCost`). */
const ESTIMATE_KEYS = ['provider', 'pricing', 'summarize', 'prevContextTokens']
/** The members a custom provider may have (CustomProvider in lib/manager.d.ts): any other is refused. */
const PROVIDER_MEMBERS = ['id', 'name', 'description', 'capabilities', 'configSchema', 'validateConfig', 'condense', 'estimateReduction']

/**
 * The fields of a situation (`decide`) or of a call's context (`condenseIfNeeded`) that decide,
 * their types checked here and their values by the engine; errors name them under `at`. `known`:
 * the keys the object may hold (a situation's, or a context's).
 */
function readSituation(situation, at, known = Object.keys(SITUATION_TYPES)) {
  if (!isObject(situation)) throw refused(`${at}: expected an object, got ${describe(situation)}`)
  checkKnownKeys(situation, known, at)
  for (const [k, type] of Object.entries(SITUATION_TYPES)) {
    const v = situation[k]
    // null is no number and no string: a field left out is absent, not null.
    if (v !== undefined && typeof v !== type) {
      throw refused(`${at}.${k}: expected ${type === 'number' ? 'a whole number >= 0' : 'a string'}, got ${describe(v)}`)
    }
  }
  const { totalTokens, lastMessageTokens = 0, contextWindow, maxTokens, profileId, provider } = situation
  return { totalTokens, lastMessageTokens, contextWindow, maxTokens, profileId, provider }
}

/**
 * A call's context (`condenseIfNeeded`) checked before anything runs, every key whatever the
 * policy reads: what decides (`readSituation`), the task id, the signal, the callback, the
 * switches and the cache-aware policy's figures. Errors name the key as `condenseIfNeeded: context.<key>`.
 */
function checkContext(context) {
  const at = 'condenseIfNeeded: context'
  if (!isObject(context) || !(typeof context.contextWindow === 'number' && context.contextWindow > 0)) {
    throw new TypeError(
      `${at}.contextWindow: expected the model's context window in tokens, got ${describe(isObject(context) ? context.contextWindow : context)}`,
    )
  }
  readSituation(context, at, CONTEXT_KEYS)
  optionalString(context.taskId, `${at}.taskId`)
  checkSignal(context.signal, `${at}.signal`)
  optionalFunction(context.summarize, `${at}.summarize`, 'an async function')
  optionalBoolean(context.force, `${at}.force`)
  optionalBoolean(context.isAutomaticTrigger, `${at}.isAutomaticTrigger`)
  if (context.systemPromptTokens !== undefined) wholeNumber(context.systemPromptTokens, `${at}.systemPromptTokens`, 0)
  optionalString(context.systemPrompt, `${at}.systemPrompt`)
  if (context.expectedTurns !== undefined) wholeNumber(context.expectedTurns, `${at}.expectedTurns`, 1)
}

/** `new CondensationManager`'s telemetry: an object of the two callbacks, each optional. */
function checkTelemetry(telemetry) {
  const at = 'CondensationManager: options.telemetry'
  if (telemetry === undefined) return
  checkObject(telemetry, at)
  checkKnownKeys(telemetry, TELEMETRY_KEYS, at)
  for (const k of TELEMETRY_KEYS) optionalFunction(telemetry[k], `${at}.${k}`)
}

/**
 * Every problem of a manager config as the engine reads it (src/manager/config.rs: types, ranges,
 * unknown keys, the built-in providers' configs), each `{ path, code, message }` with its path
 * from `config`; a value JSON has no form for (NaN, a cycle, a BigInt) is named first, by its
 * path, not by the conversion that would fail. What the manager's own providers add is its
 * `validateConfig`'s; the settings panel's previews check their settings here too.
 */
function configProblems(config) {
  const unsupported = findUnsupported(config, ['config'], { options: true })
  if (unsupported) return [{ path: pathText(unsupported.path), code: 'unsupported_value', message: unsupported.message }]
  // No config at all is a config that is not an object (undefined does not cross as a value).
  return native.managerValidateConfig(config === undefined ? null : config)
}

/** Providers that take a token target (the stop setting). */
const TAKES_TARGET = new Set(CATALOGUE.providers.filter((p) => p.takesTarget).map((p) => p.id))

/**
 * Roo Code's sliding window (lib/internal/window.js): keeps the first message and drops an even number of
 * the oldest others, `fracToRemove` (from 0 to 1) of them rounded down.
 */
function slidingWindow(messages, fracToRemove = 0.5) {
  if (!Array.isArray(messages)) throw new TypeError(`slidingWindow: messages: expected an array of messages, got ${describe(messages)}`)
  if (typeof fracToRemove !== 'number' || !(fracToRemove >= 0 && fracToRemove <= 1)) {
    throw new TypeError(`slidingWindow: fracToRemove: expected a number from 0 to 1, got ${describe(fracToRemove)}`)
  }
  return cutWindow(messages, fracToRemove)
}

/** The keys of a provider's capabilities (ProviderCapabilities): booleans, and the speed. */
const CAPABILITY_FLAGS = ['supportsLossless', 'supportsBatchMode', 'supportsIndividualMode', 'supportsMultiPass', 'supportsLLMSummarization']
const SPEEDS = ['fast', 'medium', 'slow']

/** A provider written in JavaScript (CustomProvider): its required members and the optional ones it gives. */
function checkProvider(p) {
  const at = 'registerProvider: provider'
  checkObject(p, at, 'a provider { id, name, description, condense(messages, context) }')
  checkKnownKeys(p, PROVIDER_MEMBERS, at)
  for (const key of ['id', 'name', 'description']) {
    if (typeof p[key] !== 'string' || p[key] === '') throw new TypeError(`${at}.${key}: expected a non-empty string, got ${describe(p[key])}`)
  }
  if (typeof p.condense !== 'function')
    throw new TypeError(`${at}.condense: expected a function (messages, context) => Promise<{ messages }>, got ${describe(p.condense)}`)
  optionalFunction(p.validateConfig, `${at}.validateConfig`, 'a function (config) => problems')
  optionalFunction(p.estimateReduction, `${at}.estimateReduction`, 'an async function (messages, context) => estimate')
  optionalObject(p.configSchema, `${at}.configSchema`, 'a JSON Schema object')
  if (p.capabilities !== undefined) {
    const where = `${at}.capabilities`
    checkObject(p.capabilities, where)
    checkKnownKeys(p.capabilities, [...CAPABILITY_FLAGS, 'estimatedSpeed'], where)
    for (const k of CAPABILITY_FLAGS) optionalBoolean(p.capabilities[k], `${where}.${k}`)
    const speed = p.capabilities.estimatedSpeed
    if (speed !== undefined && !SPEEDS.includes(speed))
      throw new TypeError(`${where}.estimatedSpeed: expected "fast", "medium" or "slow", got ${describe(speed)}`)
  }
  if (p.id in BUILT_IN) throw new TypeError(`${at}.id: "${p.id}" is a built-in provider`)
}

class CondensationManager {
  /**
   * `conversations`: how many tasks' histories are kept in the engine between calls (keyed by
   * `context.taskId`), so a call with the same task's history again crosses only what changed; 0
   * keeps none.
   * `policy`: "default" (condense at the threshold with the config's provider), or "cache-aware" /
   * "cache-aware-strict" (lib/internal/cache-aware.js), as a name or `{ name, cache, pricing, expectedTurns,
   * workingSetTurns, summaryTokens, lookbackBlocks }`; it keeps per task what its rule needs
   * between calls, for as many tasks as `conversations` (4 when that is 0).
   * @param {{ config?: object, policy?: string | object, summarize?: Function, summarizeOptions?: object, telemetry?: object, now?: () => number, conversations?: number }} [options]
   */
  constructor(options = {}) {
    try {
      this._init(options)
    } catch (e) {
      throw tag(e)
    }
  }

  /** The constructor's work: every option checked before anything is kept. */
  _init(options) {
    checkOptionsObject(options, 'CondensationManager', MANAGER_OPTIONS)
    const { summarize, summarizeOptions, telemetry, now } = options
    optionalFunction(summarize, 'CondensationManager: options.summarize', 'an async function')
    optionalFunction(now, 'CondensationManager: options.now', 'a function answering the time in ms')
    checkTelemetry(telemetry)
    checkSummarizeOptions(summarizeOptions, 'CondensationManager: options.summarizeOptions')
    // Left out, not null: null is no number and no config.
    const keep = options.conversations === undefined ? DEFAULT_MAX_TASKS : wholeNumber(options.conversations, 'CondensationManager: options.conversations', 0)
    this._policy = readPolicy(options.policy)
    this.useConfig(options.config === undefined ? {} : options.config)
    this.summarize = summarize
    this.summarizeOptions = summarizeOptions
    this.telemetry = telemetry
    // The clock's every answer is checked here, the one place it is read from: the loop guard and
    // the policy's cache expiry take a time in milliseconds, and nothing else.
    this.now =
      now === undefined
        ? Date.now
        : () => {
            const t = now()
            if (typeof t !== 'number' || !Number.isFinite(t))
              throw new TypeError(`CondensationManager: options.now: expected a function answering the time in ms, it answered ${describe(t)}`)
            return t
          }
    this.providers = new Map()
    // The loop guard's state per task (the engine's, bounded: src/manager/attempt.rs).
    this.guards = new native.ManagerGuards()
    this.conversations = keep > 0 ? new ConversationPool({ openConversation, condense: lib.condense }, keep) : undefined
    if (this._policy) {
      this._policyTasks = new PolicyTasks(keep > 0 ? keep : DEFAULT_MAX_TASKS)
      this._counter = new TokenCounter()
    }
  }

  /** The policy, as it could be given again: `{ name: "default" }` or the cache-aware settings. */
  get policy() {
    return describePolicy(this._policy)
  }

  /** Lets go of the histories kept for tasks (all of them, or one task's), and the policy's state for them. */
  async closeConversations(taskId) {
    optionalString(taskId, 'closeConversations: taskId')
    if (this._policyTasks) this._policyTasks.forget(taskId)
    // The loop guard's state for the task (for every task, without one).
    this.guards.forget(taskId)
    if (this._roles) for (const role of Object.values(this._roles)) await role.closeConversations(taskId)
    if (!this.conversations) return
    if (taskId === undefined) await this.conversations.clear()
    else await this.conversations.close(taskId)
  }

  registerProvider(provider) {
    checkProvider(provider)
    this.providers.set(provider.id, provider)
  }

  unregisterProvider(id) {
    if (typeof id !== 'string') throw new TypeError(`unregisterProvider: id: expected a provider id (a string), got ${describe(id)}`)
    return this.providers.delete(id)
  }

  /** Every provider with its capabilities and the JSON Schema of its config. */
  listProviders() {
    const builtIns = Object.entries(BUILT_IN).map(([id, p]) => ({ id, ...p, builtIn: true, configSchema: lib.configSchema(id) }))
    const mine = [...this.providers.values()].map((p) => ({
      id: p.id,
      name: p.name,
      description: p.description,
      builtIn: false,
      capabilities: p.capabilities ?? {},
      configSchema: p.configSchema ?? { type: 'object' },
    }))
    return [...builtIns, ...mine]
  }

  /** Every problem of a manager config (legacy Roo keys accepted), each with its path. */
  validateConfig(config) {
    const problems = configProblems(config)
    if (problems.length > 0 && problems[0].code === 'unsupported_value') return problems
    const given = config && typeof config === 'object' ? config.providers : undefined
    const provider = config && typeof config === 'object' ? config.provider : undefined
    if (typeof provider === 'string' && !(provider in BUILT_IN) && !this.providers.has(provider)) {
      problems.push({
        path: 'config.provider',
        code: 'unknown_provider',
        message: `unknown provider "${provider}", expected one of ${[...Object.keys(BUILT_IN), ...this.providers.keys()].join(', ')}`,
      })
    }
    if (given && typeof given === 'object') {
      for (const [id, c] of Object.entries(given)) {
        const p = this.providers.get(id)
        if (p && typeof p.validateConfig === 'function') {
          for (const problem of p.validateConfig(c) ?? [])
            problems.push({ ...problem, path: `config.providers.${id}${problem.path ? `.${problem.path}` : ''}` })
        }
      }
    }
    return problems
  }

  /** Replaces the config; throws with every problem when it is invalid. */
  setConfig(config) {
    const problems = this.validateConfig(config)
    if (problems.length > 0) throw new TypeError(`CondensationManager: ${problems.map((p) => `${p.path}: ${p.message}`).join('; ')}`)
    this.useConfig(config)
  }

  /** Reads the config once: `rules` answers thresholds, triggers and the loop guard from it. */
  useConfig(config) {
    checkCrossable(config, 'CondensationManager', ['config'])
    const rules = new native.ManagerRules(config)
    const checked = rules.config()
    if (this._policy) {
      // The policy's prices: its own, else those the cost estimate uses (the provider's `pricing`), else the known ones.
      const providers = checked.providers ?? {}
      const from = this._policy.pricing ? undefined : providers[checked.provider]?.pricing !== undefined ? checked.provider : PROVIDER.native
      const pricing =
        this._policy.pricing ??
        readPricing(providers[from]?.pricing, this._policy.cache, `CondensationManager: config.providers.${from}.pricing`, this._policy.cacheTtl)
      const roles = roleConfigs(checked, this._policy)
      // The role managers keep their loop guards across config changes.
      if (this._roles) for (const [role, c] of Object.entries(roles)) this._roles[role].useConfig(c)
      else for (const c of Object.values(roles)) new native.ManagerRules(c)
      this._roleConfigs = roles
      this._pricing = pricing
    }
    this.rules = rules
    this.config = checked
  }

  /** The manager of one of the policy's roles, made on first use; it shares this manager's conversations. */
  _role(role) {
    if (!this._roles) {
      this._roles = {}
      for (const [name, config] of Object.entries(this._roleConfigs)) {
        const m = new CondensationManager({ config, now: () => this.now(), conversations: 0 })
        m.conversations = this.conversations
        this._roles[name] = m
      }
    }
    const m = this._roles[role]
    m.summarizeOptions = this.summarizeOptions
    return m
  }

  /** The config as JSON, to store or share as a preset. */
  exportConfig() {
    return JSON.stringify(this.config, null, 2)
  }

  /** A config from `exportConfig` (or hand-written JSON); throws with every problem. */
  importConfig(json) {
    if (typeof json !== 'string') throw new TypeError(`importConfig: json: expected the JSON text of a manager config, got ${describe(json)}`)
    let parsed
    try {
      parsed = JSON.parse(json)
    } catch (e) {
      throw new TypeError(`importConfig: json: not JSON: ${e.message}`)
    }
    if (!isObject(parsed)) throw new TypeError(`importConfig: json: expected the JSON of a manager config (an object), got ${describe(parsed)}`)
    this.setConfig(parsed)
  }

  /** The trigger threshold for a profile, % of the window. */
  getEffectiveThreshold(profileId, provider) {
    optionalString(profileId, 'getEffectiveThreshold: profileId')
    optionalString(provider, 'getEffectiveThreshold: provider')
    const t = this.rules.threshold(provider, profileId)
    if (t.warning) console.warn(t.warning)
    return t.percent
  }

  /** The full decision: condense or not, why, and the figures behind it. */
  decide(situation) {
    return this._decideAs(situation, 'situation')
  }

  /** `decide`, its errors naming the situation's fields under `at`. */
  _decideAs(situation, at) {
    return this.rules.decide(readSituation(situation, at), at)
  }

  /** Whether to condense now (see `decide`). */
  shouldCondense(situation) {
    return this.decide(situation).condense
  }

  _providerOptions(id, decision) {
    const config = { ...(this.config.providers[id] ?? {}) }
    // The manager's target goes to every provider that takes one and was not given its own; a
    // Smart config naming neither a preset nor passes is the default preset (the engine's rule),
    // so it gets the target as that preset named would.
    if (decision && decision.targetTokens !== undefined && TAKES_TARGET.has(id) && config.targetTokens === undefined)
      config.targetTokens = decision.targetTokens
    return config
  }

  /** Runs the provider a step names; answers { messages, tokens, summary, cost, error? } (its validity checked). */
  async _run(step, messages, prev, decision, context, summarize, held) {
    const id = step.provider
    const signal = context.signal
    let out
    if (id in BUILT_IN) {
      const options = {
        provider: id,
        config: this._providerOptions(id, decision),
        prevContextTokens: prev,
        // Given when the window would cut a result past it: Native then asks no summary that cut would
        // remove (a whole number: a count of tokens is at or past a fractional size exactly when it
        // is at or past its ceiling).
        ...(step.allowedTokens !== undefined ? { allowedTokens: Math.max(0, Math.ceil(step.allowedTokens)) } : {}),
        summarize,
        summarizeOptions: this.summarizeOptions,
        signal,
      }
      // Through the task's conversation, taken on only if the host gets this result.
      const r = held ? await held.conv.condense({ ...options, adopt: false }) : await lib.condense(messages, options)
      out = { messages: r.messages, summary: r.summary, cost: r.cost, error: r.error, metrics: r.metrics, tokens: r.newContextTokens }
      if (held && !r.error) out.adopt = () => held.conv.adopt(r)
    } else {
      const p = this.providers.get(id)
      if (!p) return { error: `unknown provider "${id}"` }
      let r
      try {
        r = await p.condense(messages, {
          summarize,
          signal,
          prevContextTokens: prev,
          contextWindow: context.contextWindow,
          targetTokens: decision && decision.targetTokens,
          config: this.config.providers[id] ?? {},
          countTokens: lib.countTokens,
          taskId: context.taskId,
        })
      } catch (e) {
        if (signal && signal.aborted) throw e
        return { error: `provider "${id}" threw: ${e && e.message ? e.message : String(e)}` }
      }
      if (r === null || typeof r !== 'object' || !Array.isArray(r.messages)) return { error: `provider "${id}" answered without a messages array` }
      if (typeof r.error === 'string' && r.error) return { error: r.error, cost: r.cost }
      const before = lib.validateConversation(messages).length
      const after = lib.validateConversation(r.messages)
      if (after.length > before) return { error: `provider "${id}" returned an invalid history: ${after[0].path}: ${after[0].message}`, cost: r.cost }
      // Its own count is not trusted: the context is measured the same way for every provider.
      const saved = (await lib.countTokensAsync(messages)) - (await lib.countTokensAsync(r.messages))
      out = { messages: r.messages, summary: r.summary ?? '', cost: Number.isFinite(r.cost) ? r.cost : 0, tokens: prev - saved }
    }
    // Whether it shrank the context is the engine's check (ManagerAttempt.produced).
    return out
  }

  /**
   * Condenses when the decision says so, through the fallback chain and the guards.
   * @param {object[]} messages
   * @param {{ contextWindow: number, totalTokens?: number, lastMessageTokens?: number, maxTokens?: number, profileId?: string, taskId?: string, signal?: AbortSignal, summarize?: Function, force?: boolean, isAutomaticTrigger?: boolean }} context
   */
  async condenseIfNeeded(messages, context) {
    if (!Array.isArray(messages)) throw new TypeError(`condenseIfNeeded: messages: expected an array of messages, got ${describe(messages)}`)
    // Every key of the context checked before anything runs (named as the caller passed them).
    checkContext(context)
    if (this._policy) return this._condenseWithPolicy(messages, context)
    return this._ask(messages, context)
  }

  /** The config's own condensing: the decision, the fallback chain, the guards. */
  async _ask(messages, context) {
    const held = await this._held(messages, context)
    try {
      return await this._condenseIfNeeded(messages, context, held)
    } finally {
      if (held) held.release()
    }
  }

  /** One call under the cache-aware policy: the engine's rule (run by lib/internal/cache-aware.js) with the task's state. */
  async _condenseWithPolicy(messages, context) {
    const taskId = typeof context.taskId === 'string' ? context.taskId : ''
    return this._policyTasks.run(taskId, (state) =>
      runCacheAware({
        policy: this._policy,
        pricing: this._pricing,
        state,
        messages,
        context,
        counter: this._counter,
        now: () => this.now(),
        autoCondense: this.config.autoCondense !== false,
        ask: (role, m, c) => {
          const ctx = { ...c, summarize: c.summarize ?? this.summarize }
          return role === 'summary' ? this._ask(m, ctx) : this._role(role).condenseIfNeeded(m, ctx)
        },
        decide: (situation) => this._decideAs(situation, 'condenseIfNeeded: context'),
        onTaken: (role) => {
          if (this.telemetry && typeof this.telemetry.captureContextCondensed === 'function') {
            const customPrompt = role === 'ownSummary' && Boolean(this.config.providers.native && this.config.providers.native.customPrompt)
            this.telemetry.captureContextCondensed(taskId, context.isAutomaticTrigger ?? true, customPrompt, Boolean(this.config.condensingProfileId))
          }
        },
      }),
    )
  }

  /** The task's conversation, holding `messages` (undefined without a task id or when none are kept). */
  async _held(messages, context) {
    if (!this.conversations || typeof context.taskId !== 'string' || context.taskId === '') return undefined
    try {
      return await this.conversations.get(context.taskId, messages, { signal: context.signal })
    } catch (e) {
      // A history the engine cannot hold: the stateless path answers with the problem.
      if (e instanceof TypeError) return undefined
      throw e
    }
  }

  async _condenseIfNeeded(messages, context, held) {
    const n = messages.length
    const last = n > 0 ? messages[n - 1] : undefined
    // Counted off the JavaScript thread: the task's conversation counts what it took in since the
    // last turn (its counts then only read), else the messages are counted in slices.
    let lastMessageTokens = context.lastMessageTokens
    let totalTokens = context.totalTokens
    const missing = (v) => v === undefined || v === null
    if (held && (missing(lastMessageTokens) || missing(totalTokens))) {
      const all = await held.conv.count()
      const lastOwn = n > 0 ? held.conv.tokensOf(n - 1) : 0
      lastMessageTokens ??= lastOwn
      totalTokens ??= all - lastOwn
    }
    lastMessageTokens ??= last ? await countMessagesAsync([last], 'condenseIfNeeded', n - 1) : 0
    totalTokens ??= await countMessagesAsync(messages.slice(0, -1), 'condenseIfNeeded')
    const situation = { totalTokens, lastMessageTokens, contextWindow: context.contextWindow, maxTokens: context.maxTokens, profileId: context.profileId }
    const decision = this._decideAs(situation, 'condenseIfNeeded: context')
    const prev = decision.prevContextTokens
    const base = {
      messages,
      condensed: false,
      provider: undefined,
      prevContextTokens: prev,
      newContextTokens: prev,
      summary: '',
      cost: 0,
      decision,
      attempts: [],
    }
    if (!decision.condense && !context.force) return { ...base, skipped: decision.reason }

    // The call's course is the engine's (src/manager/attempt.rs): which provider runs next, what
    // each outcome means, when the sliding window is the last resort, what is reported, and the
    // task's loop guard. This loop runs what each step names and hands the outcome back.
    const taskId = context.taskId ?? ''
    const summarize = context.summarize ?? this.summarize
    const attempt = new native.ManagerAttempt(this.rules, decision, taskId, Boolean(summarize))
    let step = attempt.start(this.guards, this.now())
    let r
    let cost = 0
    // An aborted call rejects with the signal's reason, whatever a provider written in JavaScript did with it.
    const stopIfAborted = () => {
      if (context.signal && context.signal.aborted) throw abortError(context.signal)
    }
    while (step.action === 'run') {
      r = await this._run(step, messages, prev, decision, context, summarize, held)
      stopIfAborted()
      cost += r.cost ?? 0
      step = r.error ? attempt.failed(this.guards, r.error, this.now()) : attempt.produced(this.guards, r.tokens, this.now())
    }
    if (step.action === 'window') {
      // The window cuts the history, or the result just produced when that is still past the
      // allowed size (the engine says which, and whether to cut again).
      let current = messages
      const adopted = step.afterResult ? r : undefined
      if (adopted) current = adopted.messages
      if (this.telemetry && typeof this.telemetry.captureSlidingWindowTruncation === 'function') this.telemetry.captureSlidingWindowTruncation(taskId)
      // Counted as the call counts the history (a message that is not one is named by its place).
      let before = await countMessagesAsync(current, 'condenseIfNeeded')
      while (step.action === 'window') {
        const truncated = step.keepLast !== undefined ? cutToTail(current, step.keepLast) : slidingWindow(current, step.fracToRemove)
        const after = await countMessagesAsync(truncated, 'condenseIfNeeded')
        stopIfAborted()
        step = attempt.windowed(before, after)
        current = truncated
        before = after
      }
      // The provider's result is taken (and the task's conversation holds it) once the call is over.
      if (adopted) {
        if (adopted.adopt) adopted.adopt()
        this._condensed(taskId, context)
      }
      return {
        ...base,
        messages: current,
        condensed: true,
        provider: step.provider,
        newContextTokens: step.newContextTokens,
        cost,
        attempts: step.attempts,
        ...(step.error ? { error: step.error } : {}),
        // A result the window could not cut is still the provider's, with its summary.
        ...(adopted && step.provider !== 'sliding-window' ? { summary: adopted.summary ?? '', metrics: adopted.metrics } : {}),
        report: step.report,
      }
    }
    const ended = { ...base, cost, attempts: step.attempts }
    if (step.action === 'min-gain') return { ...ended, skipped: 'min-gain', report: step.report }
    if (step.action === 'give-up') return { ...ended, error: step.error, report: step.report }
    // 'adopt': the provider's result becomes the host's.
    if (r.adopt) r.adopt()
    this._condensed(taskId, context)
    return {
      ...ended,
      messages: r.messages,
      condensed: true,
      provider: step.provider,
      newContextTokens: step.newContextTokens,
      summary: r.summary ?? '',
      metrics: r.metrics,
      report: step.report,
    }
  }

  /** Tells the host's telemetry that a provider's result was taken. */
  _condensed(taskId, context) {
    if (this.telemetry && typeof this.telemetry.captureContextCondensed === 'function') {
      this.telemetry.captureContextCondensed(
        taskId,
        context.isAutomaticTrigger ?? true,
        Boolean(this.config.providers.native && this.config.providers.native.customPrompt),
        Boolean(this.config.condensingProfileId),
      )
    }
  }

  async _estimate(messages, options, fn) {
    if (!Array.isArray(messages)) throw new TypeError(`${fn}: messages: expected an array of messages, got ${describe(messages)}`)
    const opts = checkOptionsObject(options, fn, ESTIMATE_KEYS)
    optionalString(opts.provider, `${fn}: options.provider`)
    optionalFunction(opts.summarize, `${fn}: options.summarize`, 'an async function')
    if (opts.prevContextTokens !== undefined) tokenCount(opts.prevContextTokens, `${fn}: options.prevContextTokens`)
    optionalObject(opts.pricing, `${fn}: options.pricing`)
    checkCrossable(opts.pricing, fn, ['options', 'pricing'])
    const id = opts.provider ?? this.config.provider
    if (!(id in BUILT_IN)) {
      const p = this.providers.get(id)
      if (p && typeof p.estimateReduction === 'function') return p.estimateReduction(messages, { config: this.config.providers[id] ?? {} })
      throw new TypeError(`${fn}: options.provider: provider "${id}" does not estimate`)
    }
    const config = this._providerOptions(id)
    const pricing = opts.pricing ?? config.pricing
    const run = new native.Run({ provider: id, config, ...(opts.prevContextTokens !== undefined ? { prevContextTokens: opts.prevContextTokens } : {}) })
    const history = new native.History()
    const problem = await pushInChunks(history, messages, undefined)
    if (problem) throw new TypeError(`${fn}: ${problem}`)
    return run.estimate(history, pricing ?? null, Boolean(opts.summarize ?? this.summarize))
  }

  /** What the provider would save, from a run with a stand-in model (exact without model calls). */
  async estimateReduction(messages, opts) {
    return this._estimate(messages, opts, 'estimateReduction')
  }

  /** What the provider's model calls would cost, in dollars (0 without a pricing). */
  async estimateCost(messages, opts) {
    return (await this._estimate(messages, opts, 'estimateCost')).cost
  }
}

/** The JSON Schema of the manager config, for settings UIs. */
function managerConfigSchema() {
  return native.managerConfigSchema()
}

// Its methods throw and reject with `errorCode` set (lib/internal/errors.js), as the main entry's functions.
codeMethods(CondensationManager)

exports.CondensationManager = CondensationManager
exports.managerConfigSchema = coded(managerConfigSchema)
exports.slidingWindow = coded(slidingWindow)
exports.configProblems = configProblems
exports.MIN_CONDENSE_THRESHOLD = CATALOGUE.constants.minCondenseThreshold
exports.MAX_CONDENSE_THRESHOLD = CATALOGUE.constants.maxCondenseThreshold
exports.TOKEN_BUFFER_PERCENTAGE = CATALOGUE.constants.tokenBufferPercentage
exports.DEFAULT_MAX_TOKENS = CATALOGUE.constants.defaultMaxTokens
