// summarizeConversation of the positional eras (2025, January 2026): an optional first step by the
// engine, then Roo's summary through the host's handler, written destructively or as tags. Problems
// come back in `error`, with the caller's messages unchanged.
'use strict'

const lib = require('../index.js')
const { describe, isObject } = require('../internal/values.js')
const { PROVIDER } = require('../internal/registry.js')
const { N_MESSAGES_TO_KEEP, ROO_ERROR_MESSAGES, FINAL_REQUEST, SYNTHETIC_REASONING, resolveOptions, capture, message } = require('./options.js')
const {
  isHandler,
  HostError,
  callHandler,
  engineDefaultPrompt,
  engineCount,
  countWith,
  toBlocks,
  failure,
  checkArray,
  checkMessageObjects,
  checkArguments,
} = require('./host.js')
const { project, originsOf, compose, fixReferences, writeNonDestructive, summaryMessage } = require('./history.js')
const { getKeepMessagesWithToolBlocks, getMessagesSinceLastSummary } = require('./tools.js')

/** The files read and modified in `span`, as the engine's Native provider lists them ("" for none). */
async function filesListOf(span) {
  if (span.length === 0) return ''
  // The whole span is summarized: one stand-in message is kept after it.
  const r = await lib.condense([...span, { role: 'user', content: '.' }], {
    provider: PROVIDER.native,
    config: { keepLast: 1 },
    summarize: async () => ({ text: '.' }),
  })
  if (r.error || typeof r.summary !== 'string' || !r.summary.startsWith('.')) return ''
  return r.summary.slice(1)
}

/** The host's image cleaning (Roo's maybeRemoveImageBlocks), or the messages as they are. */
function prepared(messages, apiHandler, o) {
  if (typeof o.prepareMessages !== 'function') return messages
  const out = o.prepareMessages(messages, apiHandler)
  if (!Array.isArray(out)) throw new HostError('invalid', `prepareMessages returned ${describe(out)}, expected an array of messages`)
  return out
}

/**
 * Roo's summary of `base` (positional eras): [first, summary, ...kept] and what Roo reports, or
 * `{ error }`. `prev` is the context size the result must stay under.
 */
async function positionalSummary(base, c) {
  const { o, apiHandler } = c
  const era = o.era
  const first = base[0]
  let keepMessages
  let toolUses = []
  let reasoning = []
  if (era.toolBlocks) {
    const k = getKeepMessagesWithToolBlocks(base, N_MESSAGES_TO_KEEP)
    keepMessages = k.keepMessages
    toolUses = k.toolUseBlocksToPreserve
    reasoning = k.reasoningBlocksToPreserve
  } else keepMessages = base.slice(-N_MESSAGES_TO_KEEP)
  const keepStart = Math.max(base.length - N_MESSAGES_TO_KEEP, 0)
  const sliceEnd = toolUses.length > 0 ? keepStart + 1 : keepStart
  const toSummarize = getMessagesSinceLastSummary(base.slice(0, sliceEnd))
  if (toSummarize.length <= 1) {
    return { error: message(o, base.length <= N_MESSAGES_TO_KEEP + 1 ? 'condense_not_enough_messages' : 'condensed_recently') }
  }
  if (keepMessages.some((m) => m && m.isSummary)) return { error: message(o, 'condensed_recently') }

  const request = prepared([...toSummarize, { role: 'user', content: FINAL_REQUEST }], apiHandler, o).map(({ role, content }) => ({ role, content }))
  const prompt = c.customPrompt !== undefined ? c.customPrompt : (o.defaultPrompt ?? (await engineDefaultPrompt()))
  let handler = era.condensingHandler ? c.condensingApiHandler || apiHandler : apiHandler
  if (!isHandler(handler)) {
    if (era.logs.fallback && handler !== apiHandler) {
      console.warn(era.logs.fallback)
      handler = apiHandler
    }
    if (!isHandler(handler)) {
      console.error(era.logs.invalid)
      return { error: message(o, 'condense_handler_invalid') }
    }
  }
  const reply = await callHandler(handler, prompt, request, o)
  c.spent.cost += reply.cost
  let text = reply.text.trim()
  if (text.length === 0) return { error: message(o, 'condense_failed') }
  if (o.filesList) text += await filesListOf(base.slice(1, keepStart))

  let content = text
  if (era.toolBlocks) {
    content = [{ type: 'reasoning', text: SYNTHETIC_REASONING }, ...(toolUses.length > 0 ? reasoning : []), { type: 'text', text }, ...toolUses]
  }
  const id = o.nonDestructive ? o.generateId() : undefined
  const summary = summaryMessage(content, keepMessages[0], id)
  // Roo's count: the system prompt and the kept messages by the main handler, plus the summary's
  // output tokens when the model reported them (the summary counted otherwise).
  const system = { role: 'user', content: typeof c.systemPrompt === 'string' ? c.systemPrompt : '' }
  const counted = reply.outputTokens ? [system, ...keepMessages] : [system, summary, ...keepMessages]
  const newContextTokens = reply.outputTokens + (await countWith(counted.flatMap(toBlocks), apiHandler, o))
  if (newContextTokens >= c.prev) return { error: message(o, 'condense_context_grew') }
  if (o.strictGrowth) {
    // Opt-in: the summary must also be smaller than what it replaces (both by the engine's count).
    if ((await engineCount(toBlocks(summary))) >= (await engineCount(base.slice(1, keepStart).flatMap(toBlocks))))
      return { error: message(o, 'condense_context_grew') }
  }
  return { out: [first, summary, ...keepMessages], keepStart, text, newContextTokens, id }
}

// ---------------------------------------------------------------------------------------------
// summarizeConversation (positional eras)

function prePassConfig(o) {
  const config = { ...(isObject(o.providerConfig) ? o.providerConfig : {}) }
  if ((o.provider === PROVIDER.truncation || o.provider === PROVIDER.smart) && o.targetTokens !== undefined && config.targetTokens === undefined) {
    config.targetTokens = Math.floor(o.targetTokens)
  }
  return config
}

/** The first step's summarize callback (smart's summarize passes): the host's handler. */
function firstStepCallback(handler, o, spent) {
  if (!isHandler(handler)) return undefined
  return async (request) => {
    const reply = await callHandler(handler, request.systemPrompt, request.messages, o)
    spent.cost += reply.cost
    return { text: reply.text, cost: reply.cost }
  }
}

/**
 * summarizeConversation with Roo's positional arguments; with `keepFirstStep`, a first step's
 * result comes back (with `summaryError`) when the summary after it fails, even short of the
 * target, so the sliding window then starts from it rather than from the whole history.
 */
async function positional(state, args, keepFirstStep) {
  const [messages, apiHandler, systemPrompt, taskId, prevContextTokens, isAutomaticTrigger, customCondensingPrompt] = args
  checkArray(messages, 'summarizeConversation')
  const condensingApiHandler = state.era.condensingHandler ? args[7] : undefined
  let options = state.era.condensingHandler ? args[8] : args[7]
  // Newer Roo passed a useNativeTools boolean last: accepted and ignored (tool pairs stay whole).
  if (typeof options === 'boolean') options = undefined
  if (!state.era.condensingHandler && isObject(options) && typeof options.createMessage === 'function') options = undefined
  const response = { messages, cost: 0, summary: '' }
  // Roo's arguments, checked before anything is done (a refused call reports nothing to telemetry).
  try {
    const given = { apiHandler, systemPrompt, taskId, prevContextTokens, isAutomaticTrigger, customCondensingPrompt, condensingApiHandler }
    checkArguments('summarizeConversation', given, [
      'apiHandler',
      'systemPrompt',
      'taskId',
      'isAutomaticTrigger',
      'customCondensingPrompt',
      'condensingApiHandler',
      // The context size the summary must stay under; left out, the history and the system prompt are counted.
      'prevContextTokens',
    ])
  } catch (e) {
    return { ...response, error: `${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}` }
  }
  const telemetryArgs = [taskId, isAutomaticTrigger ?? false, typeof customCondensingPrompt === 'string' && customCondensingPrompt.trim() !== '']
  if (state.era.condensingHandler) telemetryArgs.push(Boolean(condensingApiHandler))
  const telemetry = isObject(options) && isObject(options.telemetry) ? options.telemetry : state.defaults.telemetry
  capture(telemetry, 'captureContextCondensed', telemetryArgs)
  const spent = { cost: 0 }
  let o
  try {
    o = resolveOptions(state, options, 'summarizeConversation: options')
  } catch (e) {
    return { ...response, error: `${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}` }
  }
  try {
    checkMessageObjects(messages, 'summarizeConversation')
    const prev = prevContextTokens
    const c = {
      o,
      apiHandler,
      condensingApiHandler,
      systemPrompt,
      spent,
      prev,
      customPrompt: nonBlank(customCondensingPrompt),
      taskId,
      pool: state.conversations,
    }
    return await summarizePositional(messages, c, keepFirstStep)
  } catch (e) {
    return { ...response, cost: spent.cost, error: failure(e, o) }
  }
}

const taskId = (id) => (typeof id === 'string' ? id : undefined)
const nonBlank = (s) => (typeof s === 'string' && s.trim() !== '' ? s.trim() : undefined)

async function summarizePositional(messages, c, keepFirstStep) {
  const { o, spent } = c
  const response = { messages, cost: 0, summary: '' }
  const nd = o.nonDestructive
  const { effective, index, visible } = nd ? project(messages) : { effective: messages }
  const prev =
    c.prev !== undefined
      ? c.prev
      : (await lib.countTokensAsync(effective)) + (await lib.countTokensAsync(typeof c.systemPrompt === 'string' ? c.systemPrompt : ''))
  c.prev = prev

  // 1. The selected provider first, when it is not Roo's own.
  let base = effective
  // Where each message of `base` came from; null while `base` is `effective` itself.
  let baseOrigins = null
  let baseSummary = ''
  let prePass
  if (o.provider !== PROVIDER.native) {
    const handler = o.era.condensingHandler && isHandler(c.condensingApiHandler) ? c.condensingApiHandler : c.apiHandler
    const engineOpts = {
      provider: o.provider,
      config: prePassConfig(o),
      prevContextTokens: prev,
      summarizeOptions: { retries: 0, timeoutMs: o.timeoutMs, ...(o.summarizeOptions ?? {}) },
      provenance: true, // where each message came from, for writing the result back
    }
    const cb = firstStepCallback(handler, o, spent)
    if (cb) engineOpts.summarize = cb
    if (o.signal) engineOpts.signal = o.signal
    // Through the task's conversation when there is a task id: a call on the same task again crosses only what changed.
    const r = await c.pool.condense(taskId(c.taskId), effective, engineOpts)
    let out = r.error ? undefined : r.messages
    let tokens = r.newContextTokens
    // Roo always keeps the first message as it is (it may hold a slash command's text), in both
    // modes: a destructive result then holds exactly what the non-destructive projection shows.
    if (out && out.length > 0 && out[0] !== effective[0]) {
      tokens += (await lib.countTokensAsync([effective[0]])) - (await lib.countTokensAsync([out[0]]))
      out = [effective[0], ...out.slice(1)]
    }
    const origins = out ? originsOf(r.provenance.origins, effective, out) : null
    if (out && origins && tokens < prev) {
      base = out
      baseOrigins = origins
      baseSummary = r.summary
      prePass = { messages: out, origins, tokens, summary: r.summary }
    }
    if (prePass && o.targetTokens !== undefined && prePass.tokens <= o.targetTokens) {
      return finishPrePass(messages, effective, index, visible, prePass, o, spent, undefined)
    }
  }

  // 2. Roo's summary.
  const r = await positionalSummary(base, { ...c, prev: prePass ? prePass.tokens : prev })
  if (r.error) {
    // The first step's result stands alone when nothing better came (and it reaches the target, if
    // any; for truncateConversationIfNeeded, which goes on from it, in any case).
    if (prePass && (o.targetTokens === undefined || keepFirstStep)) return finishPrePass(messages, effective, index, visible, prePass, o, spent, r.error)
    return { ...response, cost: spent.cost, error: r.error }
  }
  let out = r.out
  if (prePass) out = [out[0], out[1], ...(await fixReferences(base, out, r.keepStart, (j) => baseOrigins[j].kind !== 'same', o.signal)).slice(2)]
  const provider = prePass ? `${o.provider}+${PROVIDER.native}` : PROVIDER.native
  const summary = baseSummary ? `${baseSummary}\n\n${r.text}` : r.text
  const extra = o.provider !== PROVIDER.native ? { provider } : {}
  if (!nd) return { messages: out, summary, cost: spent.cost, newContextTokens: r.newContextTokens, ...extra }
  const nativeOrigins = out.map((m, i) => {
    if (i === 0) return { from: 0, to: 1, kind: m === base[0] ? 'same' : 'changed' }
    if (i === 1) return { from: 1, to: r.keepStart, kind: 'summary' }
    const j = r.keepStart + i - 2
    return { from: j, to: j + 1, kind: m === base[j] ? 'same' : 'changed' }
  })
  const origins = baseOrigins ? compose(baseOrigins, nativeOrigins) : nativeOrigins
  const stored = writeNonDestructive(messages, index, visible, effective, out, origins, r.id)
  return { messages: stored, summary, cost: spent.cost, newContextTokens: r.newContextTokens, condenseId: r.id, ...extra }
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

module.exports = { filesListOf, prepared, prePassConfig, positional, nonBlank }
