// Context management (manageContext, truncateConversationIfNeeded, willManageContext) and the sliding
// window: the engine decides when to condense; the era's summary runs; the window follows when it
// fails or is off. Never mutates the caller's messages.
'use strict'

const { randomUUID } = require('node:crypto')
const native = require('../internal/native.js')
const { windowCut, cutWindow } = require('../internal/window.js')
const { isObject, describe } = require('../internal/values.js')
const { checkKnownKeys } = require('../internal/checks.js')
const { ROO_ERROR_MESSAGES, CALL_KEYS, readOptions, resolveOptions, capture } = require('./options.js')
const { finite, HostError, shown, countWith, failure, checkArray, checkMessageObjects, checkArguments, asAnswer } = require('./host.js')
const { usesPolicy, managePolicy } = require('./policy.js')

// ---------------------------------------------------------------------------------------------
// The sliding window.

const TRUNCATION_KEYS = ['telemetry', 'nonDestructive', 'generateId']

/**
 * Roo's sliding window (lib/internal/window.js): keeps the first message and removes an even number of the
 * oldest others (`fracToRemove` of them, rounded down to even). Non-destructive (the default since
 * 2026): the same cut, over the messages an earlier truncation left visible, tags them
 * `truncationParent` instead, behind a marker message, and the result is
 * `{ messages, truncationId, messagesRemoved }`; a cut that removes none (a fraction that is not a
 * number, or not above 0) changes nothing, as Roo's later eras do.
 */
function truncateWith(state, messages, fracToRemove, taskId, options) {
  checkArray(messages, 'truncateConversation')
  // Any number: Roo's own arithmetic decides what NaN or a fraction past 1 does (see cutWindow).
  if (typeof fracToRemove !== 'number') throw new TypeError(`truncateConversation: fracToRemove: expected a number from 0 to 1, got ${describe(fracToRemove)}`)
  checkArguments('truncateConversation', { taskId }, ['taskId'])
  const o = { ...state.defaults, ...readOptions(options, TRUNCATION_KEYS, 'truncateConversation: options') }
  capture(o.telemetry, 'captureSlidingWindowTruncation', [taskId])
  const nd = o.nonDestructive ?? state.era.nonDestructive
  if (!nd) return cutWindow(messages, fracToRemove)
  const id = (o.generateId ?? randomUUID)()
  // What the sliding window sees: messages neither hidden by an earlier truncation nor markers.
  const visible = []
  messages.forEach((m, i) => {
    if (m && !m.truncationParent && !m.isTruncationMarker) visible.push(i)
  })
  const { remove, keptFrom } = windowCut(visible.length, fracToRemove)
  if (!(remove > 0)) return { messages, truncationId: id, messagesRemoved: 0 }
  const hide = new Set(visible.slice(1, keptFrom))
  const boundary = visible[keptFrom] ?? messages.length
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

// The engine's rules for the last few settings seen: a host passes the same ones on every call.
const RULES_KEPT = 8
const rulesCache = new Map()

function rulesFor(config) {
  const key = JSON.stringify(config)
  let rules = rulesCache.get(key)
  if (rules) return rules
  rules = new native.ManagerRules(config)
  if (rulesCache.size >= RULES_KEPT) rulesCache.delete(rulesCache.keys().next().value)
  rulesCache.set(key, rules)
  return rules
}

/**
 * Roo's trigger, from the engine's one implementation (src/manager/): the threshold for the
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
  let rules
  try {
    rules = rulesFor(config)
  } catch (e) {
    // The engine's rules refuse a global threshold outside 5..100 (Roo's settings offer no other).
    const detail = String(e && e.message ? e.message : e)
      .replace(/^invalid options: /, '')
      .replace(/config\.(threshold|autoCondenseContextPercent)/g, 'autoCondenseContextPercent')
    throw new HostError('invalid', `${fn}: ${detail}`)
  }
  const d = rules.decide(situation)
  if (warn && d.threshold.warning) console.warn(d.threshold.warning)
  const prevContextTokens = prevParts.totalTokens + prevParts.lastMessageTokens
  return { ...d, prevContextTokens, summarize: Boolean(p.autoCondenseContext) && d.condense }
}

/**
 * The arguments of a context-management call (`willManageContext` too), checked: a TypeError naming
 * each bad one (`manageContext: totalTokens: expected a number >= 0, got string "5"`). `names`:
 * the other arguments the call takes (host.js checkArguments).
 */
function checkManageArguments(fn, p, names) {
  const need = (k, min, optional) => {
    const v = p[k]
    // maxTokens: null is Roo's own "not given" (ANTHROPIC_DEFAULT_MAX_TOKENS then).
    if (optional && (v === undefined || (v === null && k === 'maxTokens'))) return
    if (typeof v !== 'number' || !Number.isFinite(v) || v < min) throw new TypeError(`${fn}: ${k}: expected a number >= ${min}, got ${shown(v)}`)
  }
  need('totalTokens', 0)
  need('contextWindow', 1)
  need('maxTokens', 0, true)
  need('autoCondenseContextPercent', 0, !p.autoCondenseContext)
  checkArguments(fn, p, ['autoCondenseContext', 'currentProfileId', 'profileThresholds', ...names])
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
  if (!isObject(params)) throw new TypeError(`${fn}: options: expected an object of Roo's arguments, got ${describe(params)}`)
  const p = params
  let messages = p.messages
  checkArray(messages, fn, 'options.messages')
  const extra = {}
  for (const k of Object.keys(p)) if (!MANAGE_KEYS.has(k)) extra[k] = p[k]
  const fail = (error, prevContextTokens = 0) => ({ messages, summary: '', cost: 0, prevContextTokens, error })
  if (messages.length === 0) return fail(undefined)
  let o
  try {
    o = resolveOptions(state, extra, `${fn}: options`)
  } catch (e) {
    return fail(`${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}`)
  }
  let d
  try {
    checkMessageObjects(messages, fn)
    asAnswer(() => checkManageArguments(fn, p, MANAGE_ARGUMENTS[fn]))
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
  if (p.autoCondenseContext && usesPolicy(o)) {
    // The manager's policy decides when and how to condense (before the trigger too); Roo's
    // sliding window follows below when it did not and the context is past the allowed size.
    const r = await managePolicy(state, p, o, d, fn)
    if (r.result) return r.result
    error = r.error
    cost = r.cost ?? 0
  } else if (d.summarize) {
    // A first step is enough when the context ends under both triggers.
    const target = Math.max(0, Math.min(Math.floor(d.allowedTokens), Math.ceil((d.threshold.percent * p.contextWindow) / 100) - 1))
    // The summary takes a whole token count (values.js tokenCount); the host's counts may have
    // fractions, rounded up as the trigger rounds them. The result reports the host's own sum.
    const result = await summarize(messages, Math.ceil(prevContextTokens), {
      ...extra,
      targetTokens: o.targetTokens ?? (finite(target) ? target : undefined),
    })
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

const MANAGE_KEYS = new Set([
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
])

/** The arguments each context-management call takes besides its numbers and the profile's (`checkManageArguments`). */
const MANAGE_ARGUMENTS = {
  truncateConversationIfNeeded: ['apiHandler', 'systemPrompt', 'taskId', 'customCondensingPrompt', 'condensingApiHandler', 'useNativeTools'],
  manageContext: [
    'apiHandler',
    'systemPrompt',
    'taskId',
    'customCondensingPrompt',
    'useNativeTools',
    'metadata',
    'environmentDetails',
    'filesReadByRoo',
    'cwd',
  ],
}
/**
 * The keys willManageContext reads. Roo's type for its options is "a subset of
 * ContextManagementOptions", so a host may pass its manageContext options as they are: their other
 * keys are taken and not read; any other key is refused.
 */
const WILL_MANAGE_KEYS = [
  'totalTokens',
  'contextWindow',
  'maxTokens',
  'autoCondenseContext',
  'autoCondenseContextPercent',
  'profileThresholds',
  'currentProfileId',
  'lastMessageTokens',
]

/** Roo's willManageContext: whether manageContext would condense or slide the window now. */
function willManageContext(params) {
  if (!isObject(params)) throw new TypeError(`willManageContext: options: expected an object, got ${describe(params)}`)
  const p = params
  checkKnownKeys(p, [...WILL_MANAGE_KEYS, ...MANAGE_KEYS, ...CALL_KEYS], 'willManageContext: options')
  checkManageArguments('willManageContext', p, ['lastMessageTokens'])
  const last = p.lastMessageTokens
  let d
  try {
    d = decide(p, { totalTokens: p.totalTokens, lastMessageTokens: last }, false, 'willManageContext')
  } catch (e) {
    throw new TypeError(e.message)
  }
  return d.summarize || d.overflow
}

module.exports = { truncateWith, manage, willManageContext }
