// Repairs tool pairing in a native-format history, as newer Roo Code does before sending one
// (the engine's rule, src/repair.rs): duplicate tool_use ids renamed with the result that answers
// them, synthetic error results for unanswered calls, orphan results turned into text, results
// moved first. Here only the crossing: messages that need no repair are the caller's own objects,
// repaired ones are new objects, the caller's array is never changed.
'use strict'

const native = require('./native.js')
const { fromEngine, pushAll } = require('./crossing.js')
const { describe } = require('./values.js')

/** The repaired history from the engine's answer: changed messages by index, insertions before an index. */
function assemble(messages, answer) {
  const { changed, inserted, repairs } = fromEngine(answer)
  const out = messages.slice()
  for (const [i, m] of changed) out[i] = m
  if (inserted.length === 0) return { messages: out, repairs }
  const merged = []
  let k = 0
  for (let i = 0; i < out.length; i++) {
    while (k < inserted.length && inserted[k][0] === i) merged.push(inserted[k++][1])
    merged.push(out[i])
  }
  while (k < inserted.length) merged.push(inserted[k++][1])
  return { messages: merged, repairs }
}

/**
 * @param {unknown[]} messages
 * @returns {{ messages: unknown[], repairs: Array<{ path: string, action: string }> }}
 */
function repairConversation(messages) {
  if (!Array.isArray(messages)) throw new TypeError(`repairConversation: messages: expected an array of messages, got ${describe(messages)}`)
  const history = new native.History()
  const problem = pushAll(history, messages)
  if (problem) throw new TypeError(`repairConversation: ${problem}`)
  return repairPushed(history, messages)
}

/** The repair of the messages pushed into `history` (a native History, which then holds the repaired history). */
function repairPushed(history, messages) {
  return assemble(messages, history.repair())
}

module.exports = { repairConversation, repairPushed }
