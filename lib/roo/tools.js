// Roo's tool-block helpers: tool blocks as text for a summary request, synthetic results for orphan
// tool calls, <command> blocks, the tool_use blocks kept messages need, and the messages since the
// last summary. Pure functions over messages; never calls the host.
'use strict'

const { N_MESSAGES_TO_KEEP, SYNTHETIC_TOOL_RESULT } = require('./options.js')
const { describe, isObject, wholeNumber } = require('../internal/values.js')
const { checkMessageObjects } = require('../internal/checks.js')
const { findUnsupported, pathText } = require('../internal/crossing.js')
const { finite, checkArray } = require('./host.js')

// ---------------------------------------------------------------------------------------------
// Roo's helpers of today (the tool-block-to-text conversions, orphan tool calls, <command> blocks).

/**
 * A block the helpers read: an object, else a TypeError naming it as `at()` answers
 * (`toolUseToText: block`). Places are named by a function, called only for an error: a summary
 * request converts thousands of blocks, and their names are needed for none of them.
 */
function checkBlock(block, at) {
  if (!isObject(block)) throw new TypeError(`${at()}: expected a content block (an object), got ${describe(block)}`)
}

/**
 * A tool_use block as text ("[Tool Use: name]" and its inputs), as Roo sends it for condensing (an
 * input that is not an object as Roo writes it, with String). `at` names the block in errors: an
 * input value JSON cannot write (a cycle, a BigInt) is named by its key.
 */
function toolUseText(block, at) {
  checkBlock(block, at)
  let input
  if (typeof block.input === 'object' && block.input !== null) {
    input = Object.entries(block.input)
      .map(([key, value]) => {
        if (typeof value !== 'object' || value === null) return `${key}: ${String(value)}`
        try {
          return `${key}: ${JSON.stringify(value, null, 2)}`
        } catch (e) {
          // A value JSON cannot write (a cycle, a BigInt) is named by its path.
          const found = findUnsupported(value, [key], { options: true })
          throw new TypeError(`${at()}.input.${found ? `${pathText(found.path)}: ${found.message}` : `${key}: ${e && e.message}`}`)
        }
      })
      .join('\n')
  } else input = String(block.input)
  return `[Tool Use: ${block.name}]\n${input}`
}

function toolUseToText(block) {
  return toolUseText(block, () => 'toolUseToText: block')
}

/** A tool_result block as text ("[Tool Result]" or "[Tool Result (Error)]" and its content). */
function toolResultToText(block) {
  return toolResultText(block, () => 'toolResultToText: block')
}

function toolResultText(block, at) {
  checkBlock(block, at)
  const suffix = block.is_error ? ' (Error)' : ''
  if (typeof block.content === 'string') return `[Tool Result${suffix}]\n${block.content}`
  if (Array.isArray(block.content)) {
    const text = block.content.map((b) => (b && b.type === 'text' ? b.text : b && b.type === 'image' ? '[Image]' : `[${b && b.type}]`)).join('\n')
    return `[Tool Result${suffix}]\n${text}`
  }
  return `[Tool Result${suffix}]`
}

/** A message's content with its tool_use / tool_result blocks as text blocks (a string stays as it is). */
function convertToolBlocksToText(content) {
  if (typeof content !== 'string' && !Array.isArray(content))
    throw new TypeError(`convertToolBlocksToText: content: expected a string or an array of content blocks, got ${describe(content)}`)
  return convertContent(content, () => 'convertToolBlocksToText: content')
}

/** `content` (a string, an array of blocks; anything else as it is: the history's own problem) with its tool blocks as text; `at()` names it. */
function convertContent(content, at) {
  if (!Array.isArray(content)) return content
  return content.map((b, i) => {
    if (b && b.type === 'tool_use') return { type: 'text', text: toolUseText(b, () => `${at()}[${i}]`) }
    if (b && b.type === 'tool_result') return { type: 'text', text: toolResultText(b, () => `${at()}[${i}]`) }
    return b
  })
}

/** Copies of the messages with their tool blocks as text (the request of a summary needs no tools). */
function transformMessagesForCondensing(messages) {
  checkArray(messages, 'transformMessagesForCondensing')
  checkMessageObjects(messages, 'transformMessagesForCondensing')
  return messages.map((m, i) => ({ ...m, content: convertContent(m.content, () => `transformMessagesForCondensing: messages[${i}].content`) }))
}

/**
 * The messages, and when some assistant tool_use has no tool_result, one user message of
 * synthetic results for them ("Context condensation triggered. Tool execution deferred.").
 */
function injectSyntheticToolResults(messages) {
  checkArray(messages, 'injectSyntheticToolResults')
  const calls = new Set()
  const results = new Set()
  for (const m of messages) {
    if (!m || !Array.isArray(m.content)) continue
    for (const b of m.content) {
      if (m.role === 'assistant' && b && b.type === 'tool_use') calls.add(b.id)
      if (m.role === 'user' && b && b.type === 'tool_result') results.add(b.tool_use_id)
    }
  }
  const orphans = [...calls].filter((id) => !results.has(id))
  if (orphans.length === 0) return messages
  const content = orphans.map((id) => ({ type: 'tool_result', tool_use_id: id, content: SYNTHETIC_TOOL_RESULT }))
  return [...messages, { role: 'user', content, ts: Date.now() }]
}

/** The <command …>…</command> blocks of a message's text, joined by newlines ("" for none). */
function extractCommandBlocks(m) {
  if (!isObject(m)) throw new TypeError(`extractCommandBlocks: message: expected a message object, got ${describe(m)}`)
  const content = m.content
  let text
  if (typeof content === 'string') text = content
  else if (Array.isArray(content))
    text = content
      .filter((b) => b && b.type === 'text')
      .map((b) => b.text)
      .join('\n')
  else return ''
  const matches = text.match(/<command[^>]*>[\s\S]*?<\/command>/g)
  return matches ? matches.join('\n') : ''
}

// ---------------------------------------------------------------------------------------------
// Roo's summary, positional eras (2025, January 2026), over a history in Roo's destructive layout.

const toolResults = (m) => (m && m.role === 'user' && Array.isArray(m.content) ? m.content.filter((b) => b && b.type === 'tool_result') : [])
const toolUseIn = (m, id) =>
  m && m.role === 'assistant' && Array.isArray(m.content) ? m.content.find((b) => b && b.type === 'tool_use' && b.id === id) : undefined
const reasoningIn = (m) => (m && m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((b) => b && b.type === 'reasoning') : [])

/**
 * Roo's getKeepMessagesWithToolBlocks: the last `keepCount` messages, and the tool_use blocks
 * (with their message's reasoning blocks) that the kept tool_results answer, found in the
 * `N_MESSAGES_TO_KEEP` messages before the kept ones.
 */
function getKeepMessagesWithToolBlocks(messages, keepCount) {
  checkArray(messages, 'getKeepMessagesWithToolBlocks')
  wholeNumber(keepCount, 'getKeepMessagesWithToolBlocks: keepCount', 0)
  if (messages.length <= keepCount) return { keepMessages: messages, toolUseBlocksToPreserve: [], reasoningBlocksToPreserve: [] }
  const start = messages.length - keepCount
  const keepMessages = messages.slice(start)
  const toolUseBlocksToPreserve = []
  const reasoningBlocksToPreserve = []
  const seen = new Set()
  const searched = messages.slice(Math.max(0, start - N_MESSAGES_TO_KEEP), start)
  for (const kept of keepMessages) {
    for (const r of toolResults(kept)) {
      if (seen.has(r.tool_use_id)) continue
      for (let i = searched.length - 1; i >= 0; i--) {
        const use = toolUseIn(searched[i], r.tool_use_id)
        if (!use) continue
        toolUseBlocksToPreserve.push(use)
        seen.add(r.tool_use_id)
        reasoningBlocksToPreserve.push(...reasoningIn(searched[i]))
        break
      }
    }
  }
  return { keepMessages, toolUseBlocksToPreserve, reasoningBlocksToPreserve }
}

/**
 * The messages since the last summary, the summary included (all of them when there is none).
 * When that summary is not the user's (Roo's summaries before 2026), the task's original first
 * message comes first, as Roo does since its fix of the first-message regression; a stand-in line
 * only when that first message is not the user's either.
 */
function getMessagesSinceLastSummary(messages) {
  checkArray(messages, 'getMessagesSinceLastSummary')
  let last = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].isSummary) {
      last = i
      break
    }
  }
  if (last < 0) return messages
  const since = messages.slice(last)
  if (since[0].role === 'user') return since
  const first = messages[0]
  if (first && first.role === 'user') return [first, ...since]
  const ts = first && finite(first.ts) && first.ts ? first.ts - 1 : Date.now()
  return [{ role: 'user', content: 'Please continue from the following summary:', ts }, ...since]
}

module.exports = {
  toolUseToText,
  toolResultToText,
  convertToolBlocksToText,
  transformMessagesForCondensing,
  injectSyntheticToolResults,
  extractCommandBlocks,
  getKeepMessagesWithToolBlocks,
  getMessagesSinceLastSummary,
}
