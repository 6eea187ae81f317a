// The implementation behind context-condense/roo and its earlier eras (lib/roo.js, lib/roo-2025.js,
// lib/roo-2026-01.js are entries over it): Roo Code's condensing API (src/core/condense and
// src/core/context-management, and src/core/sliding-window as it was in 2025) on top of the engine,
// so a Roo-based host swaps its imports and keeps its call sites. One implementation serves every
// era of Roo's API; the differences between eras are data (`ERAS`) and the small argument adapters
// of each entry: `context-condense/roo` follows Roo Code as it is today (summarizeConversation with
// an options object, fresh-start summaries, manageContext; positional calls as the first
// fresh-start Roo made them); `context-condense/roo-2026-01` is Roo Code of January 2026
// (positional, non-destructive, tool_use blocks kept with the summary, manageContext);
// `context-condense/roo-2025` is Roo Code of 2025 (positional, destructive, condensingApiHandler,
// truncateConversationIfNeeded).
//
// What comes from the engine: the condensing trigger (threshold per profile, buffer, reserved
// output: src/manager/ through `ManagerRules.decide`), the sliding window (lib/manager.js), token
// counts when the host gives no countTokens, the files list (the engine's Native provider), and
// the optional first step (lossless, truncation or smart) before Roo's summary.
//
// Every host call (createMessage and its stream, countTokens) is bounded by `timeoutMs` and the
// abort signal; a stream yields to the event loop as it is read and is capped in size. Numbers the
// host gives (token totals, usage chunks, counts) are checked before any use. Nothing here throws
// for a call that can fail: problems come back in `error`, with the messages unchanged (a `messages`
// that is not an array throws: there is nothing to give back unchanged). It never mutates the
// caller's messages and never touches the host's files.
'use strict'

const { coded } = require('./internal/errors.js')
const { isObject, describe } = require('./internal/values.js')
const { PROVIDER } = require('./internal/registry.js')
const {
  N_MESSAGES_TO_KEEP,
  MIN_CONDENSE_THRESHOLD,
  MAX_CONDENSE_THRESHOLD,
  TOKEN_BUFFER_PERCENTAGE,
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ROO_ERROR_MESSAGES,
  ERAS,
  CONFIG_KEYS,
  readOptions,
  checkProviderConfig,
} = require('./roo/options.js')
const { shown, estimateTokenCount, checkArguments } = require('./roo/host.js')
const { cleanupAfterTruncation, rewindConversation, effectiveHistory } = require('./roo/history.js')
const {
  toolUseToText,
  toolResultToText,
  convertToolBlocksToText,
  transformMessagesForCondensing,
  injectSyntheticToolResults,
  extractCommandBlocks,
  getKeepMessagesWithToolBlocks,
  getMessagesSinceLastSummary,
} = require('./roo/tools.js')
const { positional } = require('./roo/summarize.js')
const { ConversationPool } = require('./internal/conversation-pool.js')
const { openConversation } = require('./conversation.js')
const { condense } = require('./functions.js')
const { freshStart, generateFoldedFileContext } = require('./roo/fresh.js')
const { truncateWith, manage, willManageContext } = require('./roo/manage.js')

// ---------------------------------------------------------------------------------------------
// The entries.

/** The API of one era, with its own configured defaults. */
function createEntry(eraName) {
  // `conversations`: the engine's copy of recent tasks' histories, so a task's next first step crosses only what changed.
  const state = { era: ERAS[eraName], defaults: {}, conversations: new ConversationPool({ openConversation, condense }) }
  const configure = (options) => {
    const next = readOptions(options, CONFIG_KEYS, 'configure: options', true)
    // A providerConfig set without its provider is checked against the provider calls run with by default.
    if (next.providerConfig !== undefined && next.provider === undefined) checkProviderConfig(PROVIDER.native, next.providerConfig, 'configure: options')
    const previous = state.defaults
    state.defaults = next
    return { ...previous }
  }
  const configuration = () => ({ ...state.defaults })
  const truncateConversation = (messages, fracToRemove, taskId, options) => truncateWith(state, messages, fracToRemove, taskId, options)

  /** The summary a context-management call asks for, through the host's seam when it gave one. */
  /**
   * This package's options of a context-management call, for a summary called through the seam:
   * only when there are any (the caller's own, or a first step the defaults select), so Roo's own
   * calls keep Roo's arguments exactly.
   */
  const seamOptions = (extra) => {
    const { targetTokens, summarizeConversation: _s, ...own } = isObject(extra) ? extra : {}
    const provider = own.provider ?? state.defaults.provider
    if (Object.keys(own).length === 0 && (provider === undefined || provider === PROVIDER.native)) return undefined
    return targetTokens === undefined ? own : { ...own, targetTokens }
  }

  const summaryFor = (p) => async (messages, prevContextTokens, extra) => {
    const args = [messages, p.apiHandler, p.systemPrompt, p.taskId, prevContextTokens, true, p.customCondensingPrompt]
    if (state.era.condensingHandler) args.push(p.condensingApiHandler)
    const seam = isObject(extra) && typeof extra.summarizeConversation === 'function' ? extra.summarizeConversation : state.defaults.summarizeConversation
    if (seam) {
      const own = seamOptions(extra)
      return own === undefined ? seam(...args) : seam(...args, own)
    }
    args.push(extra)
    return positional(state, args, true)
  }

  const api = {
    truncateConversation,
    getMessagesSinceLastSummary,
    getEffectiveApiHistory: (messages) => effectiveHistory(messages, state.era),
    cleanupAfterTruncation,
    rewindConversation,
    estimateTokenCount,
    configure,
    configuration,
    N_MESSAGES_TO_KEEP,
    MIN_CONDENSE_THRESHOLD,
    MAX_CONDENSE_THRESHOLD,
    TOKEN_BUFFER_PERCENTAGE,
    ANTHROPIC_DEFAULT_MAX_TOKENS,
    ROO_ERROR_MESSAGES,
  }
  if (eraName === '2025') {
    api.summarizeConversation = (...args) => positional(state, args, false)
    api.truncateConversationIfNeeded = (params) => manage(state, params, 'truncateConversationIfNeeded', summaryFor(isObject(params) ? params : {}))
    return withCodes(api)
  }
  api.willManageContext = willManageContext
  if (eraName === '2026-01') {
    api.getKeepMessagesWithToolBlocks = getKeepMessagesWithToolBlocks
    api.summarizeConversation = (...args) => positional(state, args, false)
    api.manageContext = (params) => manage(state, params, 'manageContext', summaryFor(isObject(params) ? params : {}))
    return withCodes(api)
  }
  // Today's: an options object; positional calls are those of the first fresh-start Roo
  // (…, customCondensingPrompt, metadata), with this package's options after them.
  api.summarizeConversation = (...args) => {
    // An options object is today's call, an array the positional one; anything else is neither.
    if (!Array.isArray(args[0]) && !isObject(args[0]))
      throw new TypeError(`summarizeConversation: expected an options object, or the messages array of the positional call, first; got ${describe(args[0])}`)
    if (!Array.isArray(args[0])) return freshStart(state, args[0])
    const [messages, apiHandler, systemPrompt, taskId, prevContextTokens, isAutomaticTrigger, customCondensingPrompt, metadata, options] = args
    const failed = (text) => Promise.resolve({ messages, cost: 0, summary: '', error: `${ROO_ERROR_MESSAGES.condense_failed}: ${text}` })
    const refused = (detail) => failed(`summarizeConversation: ${detail}`)
    try {
      checkArguments('summarizeConversation', { prevContextTokens }, ['prevContextTokens'])
    } catch (e) {
      return failed(e.message)
    }
    // This package's options come last, as an object (its keys are checked with the call's).
    if (options !== undefined && !isObject(options)) return refused(`options: expected an object, got ${shown(options)}`)
    const call = { ...(options ?? {}), messages, apiHandler, systemPrompt, taskId, isAutomaticTrigger, customCondensingPrompt, metadata }
    return freshStart(state, call, { prevContextTokens })
  }
  api.manageContext = (params) => {
    const p = isObject(params) ? params : {}
    return manage(state, params, 'manageContext', async (messages, prevContextTokens, extra) => {
      const seam = isObject(extra) && typeof extra.summarizeConversation === 'function' ? extra.summarizeConversation : state.defaults.summarizeConversation
      const call = {
        messages,
        apiHandler: p.apiHandler,
        systemPrompt: p.systemPrompt,
        taskId: p.taskId,
        isAutomaticTrigger: true,
        customCondensingPrompt: p.customCondensingPrompt,
        metadata: p.metadata,
        environmentDetails: p.environmentDetails,
        filesReadByRoo: p.filesReadByRoo,
        cwd: p.cwd,
        rooIgnoreController: p.rooIgnoreController,
      }
      if (seam) {
        const own = seamOptions(extra)
        return seam(own === undefined ? call : { ...own, ...call })
      }
      const { summarizeConversation: _s, ...rest } = extra
      return freshStart(state, { ...call, ...rest, prevContextTokens })
    })
  }
  api.toolUseToText = toolUseToText
  api.toolResultToText = toolResultToText
  api.convertToolBlocksToText = convertToolBlocksToText
  api.transformMessagesForCondensing = transformMessagesForCondensing
  api.injectSyntheticToolResults = injectSyntheticToolResults
  api.extractCommandBlocks = extractCommandBlocks
  api.generateFoldedFileContext = generateFoldedFileContext
  return withCodes(api)
}

/**
 * The entry's functions with `errorCode` on what they throw or reject with (lib/internal/errors.js): a
 * `messages` that is not an array, a bad option given to `configure`, bad numbers given to
 * `willManageContext` are TypeErrors, "invalid-argument".
 */
function withCodes(api) {
  const out = {}
  for (const [name, value] of Object.entries(api)) out[name] = typeof value === 'function' ? coded(value) : value
  return out
}

module.exports = { createEntry }
