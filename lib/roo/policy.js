// The manager's policy (`policy: 'cache-aware'`, as `new CondensationManager({ policy })` takes it) on
// Roo's context management: a call runs through a CondensationManager the entry holds for that
// policy and Roo's settings, on what the model is sent now, for Roo's task (`taskId`), so the
// policy's per-task state lives where the manager keeps it; its summaries are written by the host's
// handler; its result is stored as the era stores one (replacing the history, or as tags). The
// policy's rule is the manager's (lib/internal/cache-aware.js): nothing here decides when to
// condense. Never mutates the caller's messages.
'use strict'

const { PROVIDER } = require('../internal/registry.js')
const { isObject } = require('../internal/values.js')
const { readPolicy, describePolicy } = require('../internal/cache-aware.js')
const { CondensationManager } = require('../manager.js')
const { N_MESSAGES_TO_KEEP, capture, message } = require('./options.js')
const { finite, HostError, isHandler, callHandler, failure } = require('./host.js')
const { project, projectFromSummary, writeNonDestructive } = require('./history.js')
const { nonBlank } = require('./summarize.js')
const { freshSummaryContent } = require('./fresh.js')

/** Whether the call's options name a policy other than the default. */
function usesPolicy(o) {
  return o.policy !== undefined && readPolicy(o.policy) !== undefined
}

/** Managers kept per entry: a host passes the same policy and settings on every call. */
const MANAGERS_KEPT = 8

/**
 * The manager for this policy and Roo's settings: Roo's trigger (its threshold, per profile, the
 * allowed size) as the manager's config reads Roo's keys, the summary Native's with the host's
 * prompt, and no fallback of its own (Roo's sliding window follows as the era has it).
 */
function managerFor(state, p, o) {
  const thresholds = {}
  if (isObject(p.profileThresholds)) for (const [k, v] of Object.entries(p.profileThresholds)) if (finite(v)) thresholds[k] = v
  const customPrompt = nonBlank(p.customCondensingPrompt) ?? o.defaultPrompt
  const config = {
    autoCondenseContext: true,
    autoCondenseContextPercent: p.autoCondenseContextPercent,
    profileThresholds: thresholds,
    provider: PROVIDER.native,
    providers: { [PROVIDER.native]: { keepLast: N_MESSAGES_TO_KEEP, ...(customPrompt !== undefined ? { customPrompt } : {}) } },
    fallback: false,
  }
  const policy = describePolicy(readPolicy(o.policy))
  const key = JSON.stringify({ policy, config })
  state.managers ??= new Map()
  let m = state.managers.get(key)
  if (m) {
    // Most recently used last.
    state.managers.delete(key)
    state.managers.set(key, m)
    return m
  }
  m = new CondensationManager({ config, policy, summarizeOptions: o.summarizeOptions ?? { retries: 0, timeoutMs: o.timeoutMs } })
  if (state.managers.size >= MANAGERS_KEPT) {
    const [oldest, dropped] = state.managers.entries().next().value
    state.managers.delete(oldest)
    dropped.closeConversations().catch(() => {})
  }
  state.managers.set(key, m)
  return m
}

/** Roo's storage tags: in the projection they hide nothing, and the engine would read them as Roo does. */
const TAGS = ['condenseParent', 'truncationParent', 'condensedBy']
/** Each stored message's untagged form, made once (so the manager sees the same object on every call). */
const untagged = new WeakMap()

/**
 * The projection as the manager is given it: a message of it that carries a storage tag (a
 * shortened copy's `condensedBy`, a tag whose summary is gone) without them — the engine reads the
 * tags as Roo does, and a copy taken out of its place is a message the model is not sent.
 */
function plain(effective) {
  return effective.map((m) => {
    if (!isObject(m) || !TAGS.some((t) => t in m)) return m
    let u = untagged.get(m)
    if (!u) {
      u = { ...m }
      for (const t of TAGS) delete u[t]
      untagged.set(m, u)
    }
    return u
  })
}

/**
 * Where each message of `output` comes from in `input` (`{ from, to, kind }`, history.js's
 * origins), read from which of `input`'s objects it still holds: between two kept messages, as
 * many new messages as messages gone are shortened copies, one for one; otherwise the new ones
 * stand for the run of messages gone (the first of them a summary). Null when messages are gone
 * with nothing in their place (no shape the manager's policy makes).
 */
function originsByIdentity(input, output) {
  const at = new Map(input.map((m, i) => [m, i]))
  const origins = new Array(output.length)
  let next = 0
  let pending = []
  const close = (end) => {
    const gone = end - next
    if (pending.length === gone) pending.forEach((i, k) => (origins[i] = { from: next + k, to: next + k + 1, kind: 'changed' }))
    else if (pending.length === 0) return false
    else for (const i of pending) origins[i] = { from: next, to: end, kind: 'summary' }
    pending = []
    return true
  }
  for (let i = 0; i < output.length; i++) {
    const j = at.get(output[i])
    if (j === undefined || j < next) {
      pending.push(i)
      continue
    }
    if (!close(j)) return null
    origins[i] = { from: j, to: j + 1, kind: 'same' }
    next = j + 1
  }
  return close(input.length) ? origins : null
}

/**
 * The stored history after the manager's result `output` of the projection `view` (history.js
 * `project`): destructive, the result itself; non-destructive, written as tags (each message it
 * replaced tagged `condenseParent`, a summary marked `isSummary` with the `condenseId`, a
 * shortened copy `condensedBy`). Null when it has no such form.
 */
async function stored(messages, view, output, o, fresh) {
  if (!o.nonDestructive) return { messages: output }
  const origins = originsByIdentity(view.given, output)
  if (!origins) return null
  const id = o.generateId()
  const marked = []
  for (let i = 0; i < output.length; i++) {
    const m = output[i]
    const from = origins[i]
    // The first of the new messages that stand for a run is its summary.
    if (from.kind === 'summary' && !(i > 0 && origins[i - 1].kind === 'summary' && origins[i - 1].from === from.from)) {
      const s = { ...m, isSummary: true, condenseId: id }
      // Today's Roo is sent from its last summary on, so the summary is written as Roo writes its
      // own, from the whole stored history as Roo's own reads it: a user message (the requests
      // begin with it) with the task's active workflows (the first message's command blocks), the
      // folded file context and the environment details, which would otherwise no longer be sent.
      if (fresh) {
        s.role = 'user'
        s.content = await freshSummaryContent(fresh.summary, messages, view.given.slice(from.from, from.to), fresh.params, o)
      }
      const next = view.effective[from.to]
      if (next && finite(next.ts)) s.ts = next.ts - 1
      marked.push(s)
    } else marked.push(m)
  }
  return { messages: writeNonDestructive(messages, view.index, view.visible, view.effective, marked, origins, id), condenseId: id, rewritten: Boolean(fresh) }
}

/**
 * One context-management call under the policy. `d` is Roo's decision (its trigger, from the
 * host's numbers). Answers `{ result }` when the call is over (condensed, or a failure Roo reports
 * without its sliding window), else `{ error, cost }` for the caller's sliding window to follow.
 */
async function managePolicy(state, p, o, d, fn) {
  const messages = p.messages
  // What the model is sent now: today's Roo from its last summary on, else the visible messages.
  const view = (state.era.freshStart && projectFromSummary(messages)) || project(messages)
  view.given = plain(view.effective)
  // The first message is never changed (Roo keeps the task's first message as it is).
  const first = view.given[0]
  const manager = managerFor(state, p, o)
  const handler = isHandler(p.apiHandler) ? p.apiHandler : undefined
  const metadata = state.era.freshStart ? [p.metadata] : []
  const summarize = handler
    ? async (request) => {
        const reply = await callHandler(handler, request.systemPrompt, request.messages, o, ...metadata)
        return { text: reply.text, cost: reply.cost }
      }
    : undefined
  const context = {
    contextWindow: Math.ceil(p.contextWindow),
    profileId: typeof p.currentProfileId === 'string' ? p.currentProfileId : undefined,
    taskId: typeof p.taskId === 'string' && p.taskId !== '' ? p.taskId : undefined,
    isAutomaticTrigger: true,
  }
  if (finite(p.maxTokens)) context.maxTokens = Math.ceil(p.maxTokens)
  if (typeof p.systemPrompt === 'string') context.systemPrompt = p.systemPrompt
  else context.systemPromptTokens = 0
  if (o.signal) context.signal = o.signal
  if (summarize) context.summarize = summarize
  let r
  try {
    r = await manager.condenseIfNeeded(view.given, context)
  } catch (e) {
    if (o.signal && o.signal.aborted) return { result: fail(messages, d, message(o, 'condense_aborted')) }
    if (e instanceof HostError) return { result: fail(messages, d, failure(e, o)) }
    return { error: `${message(o, 'condense_failed')}: ${e && e.message ? e.message : String(e)}`, cost: 0 }
  }
  if (o.signal && o.signal.aborted) return { result: fail(messages, d, message(o, 'condense_aborted'), r.cost) }
  if (!r.condensed) return { error: r.error ? `${message(o, 'condense_failed')}: ${r.error}` : undefined, cost: r.cost }
  let output = r.messages
  let newContextTokens = r.newContextTokens
  if (output[0] !== first && first !== undefined) output = [first, ...output.slice(1)]
  const fresh =
    state.era.freshStart && typeof r.summary === 'string' && r.summary !== '' ? { summary: r.summary, params: { ...p, isAutomaticTrigger: true } } : undefined
  let written
  try {
    written = await stored(messages, view, output, o, fresh)
  } catch (e) {
    if (e instanceof HostError) return { result: fail(messages, d, failure(e, o), r.cost) }
    throw e
  }
  if (!written) return { error: `${message(o, 'condense_failed')}: ${fn}: the policy's result has no stored form`, cost: r.cost }
  // The manager counted what it handed back; a first message put back or a summary written as
  // Roo writes it is not that.
  if (output !== r.messages || written.rewritten) newContextTokens = undefined
  const telemetryArgs = [p.taskId, true, nonBlank(p.customCondensingPrompt) !== undefined]
  if (state.era.condensingHandler) telemetryArgs.push(Boolean(p.condensingApiHandler))
  capture(o.telemetry, 'captureContextCondensed', telemetryArgs)
  const result = { messages: written.messages, summary: r.summary ?? '', cost: r.cost, prevContextTokens: d.prevContextTokens, policy: r.policy }
  if (newContextTokens !== undefined) result.newContextTokens = newContextTokens
  if (written.condenseId !== undefined) result.condenseId = written.condenseId
  return { result }
}

function fail(messages, d, error, cost = 0) {
  return { messages, summary: '', cost, prevContextTokens: d.prevContextTokens, error }
}

module.exports = { usesPolicy, managePolicy, originsByIdentity }
