// The JavaScript implementation the engine's repair (src/repair.rs) replaced, kept as the reference
// __test__/repair.test.ts compares it with on random histories; not part of the package.
// Repairs tool pairing in a native-format history, as newer Roo Code does before sending one:
// duplicate tool_use ids are renamed (with the result that answers them), a tool_use whose next
// message does not answer it gets a synthetic error result, a tool_result that answers no call
// becomes plain text (its content kept, only the pairing is dropped), and tool_results are moved
// before the other blocks of their message. Nothing else is touched: messages that need no repair
// are the caller's own objects, repaired ones are new objects, the caller's array is never
// changed. A tool_use in the last message is a call still running and is left alone. A user message
// answering calls with plain text gets its synthetic results first and keeps its text as a block.
'use strict'

const SYNTHETIC_RESULT = 'No result was recorded for this tool call (it was interrupted or its result was lost).'

const { isObject } = require('../../lib/internal/values.js')
const blocksOf = (m) => (isObject(m) && Array.isArray(m.content) ? m.content : [])
const isUse = (b) => isObject(b) && b.type === 'tool_use' && typeof b.id === 'string'
const isResult = (b) => isObject(b) && b.type === 'tool_result' && typeof b.tool_use_id === 'string'

/** The text of a tool_result's content, for turning an orphan into a text block. */
function resultText(block) {
  const c = block.content
  if (typeof c === 'string') return { text: c, rest: [] }
  if (!Array.isArray(c)) return { text: '', rest: [] }
  const texts = []
  const rest = []
  for (const part of c) {
    if (isObject(part) && part.type === 'text' && typeof part.text === 'string') texts.push(part.text)
    else rest.push(part)
  }
  return { text: texts.join('\n'), rest }
}

/**
 * @param {unknown[]} messages
 * @returns {{ messages: unknown[], repairs: Array<{ path: string, action: string }> }}
 */
function repairConversation(messages) {
  const steps = repairSteps(messages)
  for (;;) {
    const step = steps.next()
    if (step.done) return step.value
  }
}

/**
 * The repair as steps: the generator yields after each message it looks at (twice per message
 * in all, three times when messages are inserted), so a caller can spread a long history over many turns of the event loop; its return
 * value is repairConversation's.
 */
function* repairSteps(messages) {
  if (!Array.isArray(messages)) throw new TypeError('repairConversation: messages: expected an array of messages')
  const out = messages.slice()
  const repairs = []
  const seen = new Set()
  // Copies a message (and its content array) the first time it is repaired.
  const own = (i) => {
    if (out[i] === messages[i]) out[i] = { ...messages[i], content: blocksOf(messages[i]).slice() }
    return out[i]
  }
  const inserted = [] // [index to insert before, message]
  for (let i = 0; i < out.length; i++) {
    yield
    const m = out[i]
    if (!isObject(m) || m.role !== 'assistant') continue
    // 1. Duplicate ids: a fresh id for the call, and for the first result answering the old one.
    const renames = new Map()
    blocksOf(m).forEach((b, j) => {
      if (!isUse(b)) return
      if (!seen.has(b.id)) {
        seen.add(b.id)
        return
      }
      let n = 2
      while (seen.has(`${b.id}_${n}`)) n++
      const fresh = `${b.id}_${n}`
      seen.add(fresh)
      own(i).content[j] = { ...b, id: fresh }
      renames.set(j, { from: b.id, to: fresh })
      repairs.push({ path: `messages[${i}].content[${j}].id`, action: `renamed duplicate tool_use id "${b.id}" to "${fresh}"` })
    })
    const uses = blocksOf(out[i]).filter(isUse)
    if (uses.length === 0 || i === out.length - 1) continue
    const next = out[i + 1]
    if (!isObject(next) || next.role !== 'user') {
      // Nobody answered: a user message with a synthetic result for each call goes in between.
      const content = uses.map((u) => ({ type: 'tool_result', tool_use_id: u.id, content: SYNTHETIC_RESULT, is_error: true }))
      inserted.push([i + 1, { role: 'user', content }])
      repairs.push({ path: `messages[${i}]`, action: `added a user message with ${content.length} synthetic tool_result(s) after it` })
      continue
    }
    const claimed = new Set()
    for (const { from, to } of renames.values()) {
      // The call keeps its answer: the first result for the old id when no other call of this
      // message still has that id (a repeat from an earlier message), else the next one.
      const sameMessage = blocksOf(out[i]).some((b) => isUse(b) && b.id === from)
      const answers = []
      blocksOf(next).forEach((b, x) => {
        if (isResult(b) && b.tool_use_id === from && !claimed.has(x)) answers.push(x)
      })
      const x = answers[sameMessage ? 1 : 0]
      if (x === undefined) continue
      claimed.add(x)
      own(i + 1).content[x] = { ...blocksOf(next)[x], tool_use_id: to }
      repairs.push({ path: `messages[${i + 1}].content[${x}].tool_use_id`, action: `now answers the renamed call "${to}"` })
    }
  }
  for (let i = 0; i < out.length; i++) {
    yield
    const m = out[i]
    if (!isObject(m) || m.role !== 'user') continue
    const prev = out[i - 1]
    const ids = new Set(
      isObject(prev) && prev.role === 'assistant'
        ? blocksOf(prev)
            .filter(isUse)
            .map((b) => b.id)
        : [],
    )
    if (typeof m.content === 'string') {
      // A plain-text answer to calls: the synthetic results first, then the user's text as a block
      // (an empty text block is one the provider APIs refuse, so an empty string adds none).
      if (ids.size === 0) continue
      const content = [...ids].map((id) => ({ type: 'tool_result', tool_use_id: id, content: SYNTHETIC_RESULT, is_error: true }))
      for (const id of ids) repairs.push({ path: `messages[${i}]`, action: `added a synthetic tool_result for "${id}"` })
      if (m.content !== '') content.push({ type: 'text', text: m.content })
      if (out[i] === messages[i]) out[i] = { ...messages[i] }
      out[i].content = content
      continue
    }
    if (!Array.isArray(m.content)) continue
    const answered = new Set()
    const results = []
    const others = []
    let orphans = false
    let misplaced = false
    m.content.forEach((b, j) => {
      if (!isResult(b)) {
        others.push(b)
        return
      }
      if (ids.has(b.tool_use_id) && !answered.has(b.tool_use_id)) {
        answered.add(b.tool_use_id)
        if (others.length > 0) misplaced = true
        results.push(b)
        return
      }
      // An orphan (or a second answer): its content stays, as text.
      const { text, rest } = resultText(b)
      const why = ids.has(b.tool_use_id) ? 'a second result' : 'a result'
      others.push({ type: 'text', text: `[${why} for tool call "${b.tool_use_id}", which is not in the previous message]\n${text}` }, ...rest)
      orphans = true
      repairs.push({ path: `messages[${i}].content[${j}]`, action: `turned ${why} for "${b.tool_use_id}" with no matching call into text` })
    })
    // Calls of the previous message left unanswered get a synthetic result.
    const missing = [...ids].filter((id) => !answered.has(id))
    for (const id of missing) {
      results.push({ type: 'tool_result', tool_use_id: id, content: SYNTHETIC_RESULT, is_error: true })
      repairs.push({ path: `messages[${i}]`, action: `added a synthetic tool_result for "${id}"` })
    }
    if (misplaced) repairs.push({ path: `messages[${i}]`, action: 'moved tool_result blocks before the other blocks' })
    if (orphans || misplaced || missing.length > 0) own(i).content = [...results, ...others]
  }
  if (inserted.length === 0) return { messages: out, repairs }
  // The inserted messages merged in, in one pass (they are in index order).
  const merged = []
  let k = 0
  for (let i = 0; i < out.length; i++) {
    yield
    while (k < inserted.length && inserted[k][0] === i) merged.push(inserted[k++][1])
    merged.push(out[i])
  }
  while (k < inserted.length) merged.push(inserted[k++][1])
  return { messages: merged, repairs }
}

module.exports = { repairConversation, repairSteps, SYNTHETIC_RESULT }
