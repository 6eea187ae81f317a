// summarizeConversation of today's Roo (an options object): an optional first step that may be enough
// alone, then the fresh-start summary (a user message), with the folded file context of the files the
// task read. Problems come back in `error`, with the caller's messages unchanged.
'use strict'

const path = require('node:path')
const lib = require('../index.js')
const { PROVIDER } = require('../internal/registry.js')
const { isObject, describe, wholeNumber } = require('../internal/values.js')
const { checkKnownKeys, checkObject } = require('../internal/checks.js')
const { ROO_ERROR_MESSAGES, FRESH_START_SYSTEM_PROMPT, resolveOptions, capture, message } = require('./options.js')
const {
  finite,
  isHandler,
  HostError,
  bounded,
  callHandler,
  engineDefaultPrompt,
  countWith,
  toBlocks,
  failure,
  checkArray,
  checkMessageObjects,
  checkArguments,
  asAnswer,
  shown,
} = require('./host.js')
const { projectFromSummary, writeNonDestructive } = require('./history.js')
const { transformMessagesForCondensing, injectSyntheticToolResults, extractCommandBlocks, getMessagesSinceLastSummary } = require('./tools.js')
const { filesListOf, prepared, prePassConfig, nonBlank } = require('./summarize.js')

// ---------------------------------------------------------------------------------------------
// summarizeConversation (today: an options object, fresh-start summaries)

/**
 * Today's first step (`provider`: lossless, truncation, or smart without model calls) on what the
 * model is sent now: when it alone brings the context to `o.targetTokens`, its shortened copies are
 * stored after their messages (tagged `condenseParent` / `condensedBy`, nothing removed) and no
 * summary is asked for. Undefined when it does not reach the target or would replace a span.
 */
async function freshFirstStep(state, taskId, messages, o, prevContextTokens) {
  if (o.signal && o.signal.aborted) throw new HostError('aborted', 'the condensation was aborted')
  const { effective, index, visible } = projectFromSummary(messages)
  if (effective.length < 2) return undefined
  const engineOpts = { provider: o.provider, config: prePassConfig(o), prevContextTokens }
  if (o.signal) engineOpts.signal = o.signal
  const r = await state.conversations.condense(taskId, effective, engineOpts)
  if (r.error || !Array.isArray(r.messages)) return undefined
  if (o.signal && o.signal.aborted) throw new HostError('aborted', 'the condensation was aborted')
  // The first message (the task, or the summary) stays as it is; only one-for-one changes are kept.
  let tokens = r.newContextTokens
  let out = r.messages
  if (out.length !== effective.length) return undefined
  if (out[0] !== effective[0]) {
    tokens += (await lib.countTokensAsync([effective[0]])) - (await lib.countTokensAsync([out[0]]))
    out = [effective[0], ...out.slice(1)]
  }
  if (!(tokens < prevContextTokens) || tokens > o.targetTokens) return undefined
  const origins = out.map((m, i) => ({ from: i, to: i + 1, kind: m === effective[i] ? 'same' : 'changed' }))
  if (!origins.some((x) => x.kind === 'changed')) return undefined
  const id = o.generateId()
  const stored = writeNonDestructive(messages, index, visible, effective, out, origins, id)
  return { messages: stored, summary: typeof r.summary === 'string' ? r.summary : '', cost: 0, newContextTokens: tokens, provider: o.provider }
}

const FRESH_KEYS = [
  'messages',
  'apiHandler',
  'systemPrompt',
  'taskId',
  'isAutomaticTrigger',
  'customCondensingPrompt',
  'metadata',
  'environmentDetails',
  'filesReadByRoo',
  'cwd',
  'rooIgnoreController',
  'prevContextTokens',
]

/** The arguments of FRESH_KEYS that host.js checkArguments checks (messages apart; rooIgnoreController is the host's). */
const FRESH_ARGUMENTS = FRESH_KEYS.filter((k) => k !== 'messages' && k !== 'rooIgnoreController')

/** Roo's errorDetails of a failed request: the message and what the API error carries. */
function errorDetails(error) {
  if (!(error instanceof Error)) return String(error)
  let details = `Error: ${error.message}`
  if (error.status) details += `\n\nHTTP Status: ${error.status}`
  if (error.code) details += `\nError Code: ${error.code}`
  for (const [key, label] of [
    ['response', 'API Response'],
    ['body', 'Response Body'],
  ]) {
    if (!error[key]) continue
    try {
      details += `\n\n${label}:\n${JSON.stringify(error[key], null, 2)}`
    } catch {
      details += `\n\n${label}: [Unable to serialize]`
    }
  }
  return details
}

/**
 * The content of today's summary message, as Roo writes it: the summary under "## Conversation
 * Summary", the first message's command blocks as the task's active workflows, the files list (an
 * option), the folded file context of `filesReadByRoo` (the host's, or the engine's outlines of the
 * files the history shows), and the environment details when the trigger is automatic. `messages`
 * is the history whose first message is the task's; `toSummarize` what the summary replaces.
 */
async function freshSummaryContent(summary, messages, toSummarize, p, o) {
  const { isAutomaticTrigger, environmentDetails, filesReadByRoo, cwd, rooIgnoreController } = p
  const content = [{ type: 'text', text: `## Conversation Summary\n${summary}` }]
  const commands = messages[0] ? extractCommandBlocks(messages[0]) : ''
  if (commands) {
    content.push({
      type: 'text',
      text: `<system-reminder>\n## Active Workflows\nThe following directives must be maintained across all future condensings:\n${commands}\n</system-reminder>`,
    })
  }
  if (o.filesList) {
    const files = await filesListOf(toSummarize)
    if (files) content.push({ type: 'text', text: files.trim() })
  }
  // The host's folded file context, or its outlines; without either, the engine's outline of the
  // latest state of each file in the history (the one Smart keeps for its working set).
  const fold =
    typeof o.foldedFileContext === 'function'
      ? o.foldedFileContext
      : (files, x) =>
          generateFoldedFileContext(files, { ...x, outlineFile: typeof o.outlineFile === 'function' ? o.outlineFile : historyOutlines(messages, x.cwd) })
  if (Array.isArray(filesReadByRoo) && filesReadByRoo.length > 0 && cwd) {
    // The outlines are the host's (Roo builds them with tree-sitter) or the engine's: a failure is not fatal.
    try {
      const folded = await bounded(fold(filesReadByRoo, { cwd, rooIgnoreController }), o, 'foldedFileContext')
      for (const section of folded && Array.isArray(folded.sections) ? folded.sections : []) {
        if (typeof section === 'string' && section.trim()) content.push({ type: 'text', text: section })
      }
    } catch (e) {
      if (e instanceof HostError && e.kind === 'aborted') throw e
      console.error('[summarizeConversation] Failed to generate folded file context:', e)
    }
  }
  if (isAutomaticTrigger && typeof environmentDetails === 'string' && environmentDetails.trim()) content.push({ type: 'text', text: environmentDetails })

  return content
}

/**
 * Today's summary. `legacy` (the positional call of the first fresh-start Roo) counts the new
 * context as that Roo did (the summary's output tokens and the system prompt) and refuses a
 * result that is not under `legacy.prevContextTokens`.
 */
async function freshStart(state, params, legacy) {
  if (!isObject(params)) throw new TypeError(`summarizeConversation: options: expected an object of Roo's arguments, got ${describe(params)}`)
  const p = params
  const { messages, apiHandler, systemPrompt, taskId, isAutomaticTrigger, customCondensingPrompt, metadata } = p
  checkArray(messages, 'summarizeConversation', legacy ? 'messages' : 'options.messages')
  const response = { messages, cost: 0, summary: '' }
  const extra = {}
  for (const [k, v] of Object.entries(p)) if (!FRESH_KEYS.includes(k)) extra[k] = v
  let o
  try {
    o = resolveOptions(state, extra, 'summarizeConversation: options')
  } catch (e) {
    return { ...response, error: `${ROO_ERROR_MESSAGES.condense_failed}: ${e.message}` }
  }
  // The history and Roo's arguments, checked before anything is done (a refused call reports
  // nothing to telemetry).
  try {
    checkMessageObjects(messages, 'summarizeConversation')
    asAnswer(() => checkArguments('summarizeConversation', p, FRESH_ARGUMENTS, legacy ? '' : 'options.'))
  } catch (e) {
    return { ...response, error: failure(e, o) }
  }
  const telemetry = isObject(extra.telemetry) ? extra.telemetry : state.defaults.telemetry
  capture(telemetry, 'captureContextCondensed', [taskId, isAutomaticTrigger ?? false, Boolean(nonBlank(customCondensingPrompt))])
  const toSummarize = getMessagesSinceLastSummary(messages)
  if (toSummarize.length <= 1) return { ...response, error: message(o, messages.length <= 1 ? 'condense_not_enough_messages' : 'condensed_recently') }
  if (toSummarize.some((m) => m && m.isSummary) && toSummarize.length <= 2) return { ...response, error: message(o, 'condensed_recently') }

  if (o.provider !== PROVIDER.native && o.targetTokens !== undefined && finite(p.prevContextTokens)) {
    try {
      const first = await freshFirstStep(state, taskId, messages, o, p.prevContextTokens)
      if (first) return first
    } catch (e) {
      if (e instanceof HostError && e.kind === 'aborted') return { ...response, error: failure(e, o) }
      // Otherwise the summary follows, as without a first step.
    }
  }

  const instructions = nonBlank(customCondensingPrompt) ?? o.defaultPrompt ?? (await engineDefaultPrompt())
  let cost = 0
  let text
  let outputTokens = 0
  try {
    const withResults = injectSyntheticToolResults(toSummarize)
    const request = transformMessagesForCondensing(prepared([...withResults, { role: 'user', content: instructions }], apiHandler, o)).map(
      ({ role, content }) => ({ role, content }),
    )
    if (!isHandler(apiHandler)) {
      console.error('API handler is invalid for condensing. Cannot proceed.')
      return { ...response, error: message(o, 'condense_handler_invalid') }
    }
    const reply = await callHandler(apiHandler, o.requestSystemPrompt ?? FRESH_START_SYSTEM_PROMPT, request, o, metadata)
    cost = reply.cost
    text = reply.text
    outputTokens = reply.outputTokens
  } catch (e) {
    if (e instanceof HostError && e.kind !== 'failed') return { ...response, cost, error: failure(e, o) }
    console.error('Error during condensing API call:', e)
    return { ...response, cost, error: message(o, 'condense_api_failed', { message: e && e.message ? e.message : String(e) }), errorDetails: errorDetails(e) }
  }
  const summary = text.trim()
  if (summary.length === 0) return { ...response, cost, error: message(o, 'condense_failed') }

  try {
    const content = await freshSummaryContent(summary, messages, toSummarize, p, o)
    const condenseId = o.generateId()
    const last = messages[messages.length - 1]
    const lastTs = last && finite(last.ts) ? last.ts : Date.now()
    const summaryMessage = { role: 'user', content, ts: lastTs + 1, isSummary: true, condenseId }
    const newMessages = o.nonDestructive ? messages.map((m) => (m && !m.condenseParent ? { ...m, condenseParent: condenseId } : m)) : []
    newMessages.push(summaryMessage)
    // The next request holds the system prompt, the summary and the tool definitions.
    const system = { role: 'user', content: typeof systemPrompt === 'string' ? systemPrompt : '' }
    if (legacy) {
      const counted = outputTokens ? [system] : [system, summaryMessage]
      const tokens = outputTokens + (await countWith(counted.flatMap(toBlocks), apiHandler, o))
      if (legacy.prevContextTokens !== undefined && tokens >= legacy.prevContextTokens) return { ...response, cost, error: message(o, 'condense_context_grew') }
      return { messages: newMessages, summary, cost, newContextTokens: tokens, condenseId }
    }
    let newContextTokens = await countWith([system, summaryMessage].flatMap(toBlocks), apiHandler, o)
    if (isObject(metadata) && Array.isArray(metadata.tools) && metadata.tools.length > 0) {
      newContextTokens += await countWith([{ text: JSON.stringify(metadata.tools), type: 'text' }], apiHandler, o)
    }
    return { messages: newMessages, summary, cost, newContextTokens, condenseId }
  } catch (e) {
    return { ...response, cost, error: failure(e, o) }
  }
}

// ---------------------------------------------------------------------------------------------
// Folded file context: the outlines of the files the task read, one <system-reminder> each.

const OUTLINE_ERRORS = ['This file does not exist', 'do not have permission', 'Unsupported file type:']

/**
 * An `outlineFile` over the history itself: the engine's outline of the latest read or write of
 * each file the history shows (workingSet over every turn, no file kept whole), by absolute path.
 * A file the history never shows whole, or of a language without an outline, has none.
 */
function historyOutlines(messages, cwd) {
  let byPath // found once, off the JavaScript thread, on the first file asked for
  const find = async () => {
    const out = new Map()
    for (const f of await lib.workingSetAsync(messages, { turns: 1_000_000, budgetTokens: 0, text: true })) {
      if (f.outline) out.set(path.resolve(cwd, f.path), f.outline.slice(f.outline.indexOf('\n') + 1).trimEnd())
    }
    return out
  }
  return async (absolute) => (await (byPath ??= find())).get(absolute)
}

/**
 * Roo's folded file context: for each file (relative to `cwd`), the host's outline of its
 * definitions (`outlineFile`: Roo's tree-sitter parseSourceCodeDefinitionsForFile) in its own
 * `<system-reminder>## File Context: path …</system-reminder>` section, within `maxCharacters`
 * (the last section cut short with "... (truncated)"). Files without an outline, or whose outline
 * failed, are counted as skipped (one console.warn names the failed ones).
 */
async function generateFoldedFileContext(filePaths, options) {
  const at = 'generateFoldedFileContext'
  if (!Array.isArray(filePaths)) throw new TypeError(`${at}: filePaths: expected an array of file paths, got ${describe(filePaths)}`)
  for (let i = 0; i < filePaths.length; i++) {
    if (typeof filePaths[i] !== 'string') throw new TypeError(`${at}: filePaths[${i}]: expected a file path (a string), got ${shown(filePaths[i])}`)
  }
  const o = checkObject(options, `${at}: options`, '{ cwd, outlineFile, maxCharacters?, rooIgnoreController? }')
  checkKnownKeys(o, ['cwd', 'maxCharacters', 'rooIgnoreController', 'outlineFile'], `${at}: options`)
  if (typeof o.cwd !== 'string') throw new TypeError(`${at}: options.cwd: expected a folder (a string), got ${shown(o.cwd)}`)
  const maxCharacters = o.maxCharacters === undefined ? 50_000 : wholeNumber(o.maxCharacters, `${at}: options.maxCharacters`, 0)
  if (typeof o.outlineFile !== 'function')
    throw new TypeError(
      `${at}: options.outlineFile: expected a function (absolutePath, rooIgnoreController) => Promise<string | undefined>, got ${shown(o.outlineFile)}`,
    )
  const result = { content: '', sections: [], filesProcessed: 0, filesSkipped: 0, characterCount: 0 }
  if (filePaths.length === 0) return result
  const sections = []
  const failed = []
  let chars = 0
  const section = (file, body) => `<system-reminder>\n## File Context: ${file}\n${body}\n</system-reminder>`
  for (let i = 0; i < filePaths.length; i++) {
    const file = filePaths[i]
    const absolute = path.isAbsolute(file) ? file : path.resolve(o.cwd, file)
    try {
      const outline = await o.outlineFile(absolute, o.rooIgnoreController)
      if (!outline || typeof outline !== 'string' || OUTLINE_ERRORS.some((e) => outline.includes(e))) {
        result.filesSkipped++
        continue
      }
      const text = section(file, outline)
      if (chars + text.length > maxCharacters) {
        const left = maxCharacters - chars
        if (left < 200) {
          result.filesSkipped += filePaths.length - i
          break
        }
        const cut = section(file, `${outline.substring(0, left - 100)}\n... (truncated)`)
        sections.push(cut)
        chars += cut.length
        result.filesProcessed++
        result.filesSkipped += filePaths.length - result.filesProcessed - result.filesSkipped
        break
      }
      sections.push(text)
      chars += text.length
      result.filesProcessed++
    } catch {
      failed.push(file)
      result.filesSkipped++
    }
  }
  if (failed.length > 0) {
    const more = failed.length > 5 ? ` and ${failed.length - 5} more` : ''
    console.warn(`Folded context generation: skipped ${failed.length} file(s) due to errors: ${failed.slice(0, 5).join(', ')}${more}`)
  }
  if (sections.length > 0) {
    result.sections = sections
    result.content = sections.join('\n')
    result.characterCount = result.content.length
  }
  return result
}

module.exports = { errorDetails, freshStart, freshSummaryContent, generateFoldedFileContext }
