// The report's reading of messages: content types and their colors, the names of what can happen
// to a message, each message's parts, preview and tokens. Reads messages; never changes them.
'use strict'

const lib = require('../index.js')
const { deepFreeze } = require('../internal/values.js')

/** Content types, in the order of `analyze().byContentType`, with their colors (Tableau 10). */
const CONTENT_TYPES = deepFreeze([
  ['userText', 'user text', '#4c78a8'],
  ['assistantText', 'assistant text', '#54a24b'],
  ['thinking', 'thinking', '#b279a2'],
  ['toolCalls', 'tool calls', '#f58518'],
  ['toolResults', 'tool results', '#72b7b2'],
  ['environmentDetails', 'environment details', '#9d755d'],
  ['images', 'images', '#eeca3b'],
  ['summaries', 'summaries', '#ff9da6'],
  ['other', 'other', '#bab0ac'],
])

/** What can happen to a message, with the label of its badge. */
const KINDS = Object.freeze({
  kept: 'kept',
  deduplicated: 'deduplicated',
  superseded: 'superseded',
  omitted: 'omitted',
  truncated: 'truncated',
  suppressed: 'suppressed',
  summarized: 'summarized',
  removed: 'removed',
  changed: 'changed',
})

// ---------------------------------------------------------------------------------------------
// Reading messages

function imageNote(block) {
  const src = block.source && typeof block.source === 'object' ? block.source : {}
  const size = typeof src.data === 'string' ? `, ${src.data.length.toLocaleString('en-US')} characters of base64` : ''
  return `[image${src.media_type ? `: ${src.media_type}` : ''}${size}]`
}

function toolResultText(content) {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content, null, 2)
  return content
    .map((c) => (c && c.type === 'text' && typeof c.text === 'string' ? c.text : c && c.type === 'image' ? imageNote(c) : JSON.stringify(c)))
    .join('\n')
}

/** A message's content as labelled text parts, for the full-text panel. */
function partsOf(message) {
  const { content } = message
  if (typeof content === 'string') return [{ label: message.isSummary ? 'summary' : 'text', text: content }]
  if (!Array.isArray(content)) return [{ label: 'content', text: JSON.stringify(content, null, 2) ?? '' }]
  return content.map((b) => {
    if (!b || typeof b !== 'object') return { label: 'content', text: JSON.stringify(b) ?? '' }
    switch (b.type) {
      case 'text':
        return { label: /^\s*<environment_details>/.test(b.text) ? 'environment details' : message.isSummary ? 'summary' : 'text', text: String(b.text ?? '') }
      case 'thinking':
        return { label: 'thinking', text: String(b.thinking ?? '') }
      case 'redacted_thinking':
        return { label: 'redacted thinking', text: '[redacted]' }
      case 'tool_use':
        return { label: `tool call: ${b.name}`, text: JSON.stringify(b.input, null, 2) ?? '' }
      case 'tool_result':
        return { label: `tool result${b.is_error ? ' (error)' : ''}`, text: toolResultText(b.content) }
      case 'image':
        return { label: 'image', text: imageNote(b) }
      default:
        return { label: String(b.type ?? 'block'), text: JSON.stringify(b, null, 2) }
    }
  })
}

function preview(parts) {
  const first = parts.find((p) => p.label === 'text' || p.label === 'summary') ?? parts[0]
  const text = first ? first.text.replace(/\s+/g, ' ').trim() : ''
  return text.length > 140 ? `${text.slice(0, 139)}…` : text
}

/** Tokens of one message and their split by content type (the engine's own classification). */
function measure(message, encoding) {
  try {
    const a = lib.analyze([message], { encoding })
    const types = {}
    let sum = 0
    for (const [key] of CONTENT_TYPES) {
      const n = a.byContentType[key] ?? 0
      if (n > 0) types[key] = n
      sum += n
    }
    if (a.totalTokens > sum) types.other = a.totalTokens - sum
    return { tokens: a.totalTokens, types }
  } catch {
    const tokens = lib.countTokens(JSON.stringify(message.content ?? ''), { encoding })
    return { tokens, types: { other: tokens } }
  }
}

module.exports = { CONTENT_TYPES, KINDS, partsOf, preview, measure }
