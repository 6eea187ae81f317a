// Splitting a recorded history into the requests the host made: one API request per assistant turn,
// holding the history up to that turn (the system prompt is priced apart, by its size). Also the
// per-message token counts, each message counted once and remembered by identity. Reads the
// history; never changes it.
'use strict'

const { countTokens } = require('../tokens.js')

/**
 * The turns of a recorded history: `append` is what the host added before the request (the
 * previous assistant reply and the user's message or tool results that followed it); `reply` is
 * the assistant message the request produced, appended at the start of the next turn.
 * @param {object[]} history
 * @returns {Array<{ index: number, append: object[], at: number }>}
 */
function splitTurns(history) {
  const turns = []
  let from = 0
  for (let i = 0; i < history.length; i++) {
    const m = history[i]
    if (m && m.role === 'assistant' && i > 0) {
      turns.push({ index: turns.length, append: history.slice(from, i), at: i })
      from = i
    }
  }
  // Messages after the last assistant turn were never sent: the task ended there.
  return turns
}

/** Token counts by message identity: a message is counted once, whatever history it is in. */
class TokenCounter {
  constructor() {
    this.known = new WeakMap()
  }

  of(message) {
    let n = this.known.get(message)
    if (n === undefined) {
      n = countTokens([message])
      this.known.set(message, n)
    }
    return n
  }

  total(messages) {
    let n = 0
    for (const m of messages) n += this.of(m)
    return n
  }
}

const fingerprints = new WeakMap()
function fingerprint(m) {
  let f = fingerprints.get(m)
  if (f === undefined) {
    f = JSON.stringify(m)
    fingerprints.set(m, f)
  }
  return f
}

/** Whether two messages are the same bytes: the same object, or equal once serialized. */
function sameMessage(a, b) {
  return a === b || (a !== null && b !== null && typeof a === 'object' && typeof b === 'object' && fingerprint(a) === fingerprint(b))
}

/** Index of the first message where two histories differ, or the shorter length. */
function firstChanged(before, after) {
  const n = Math.min(before.length, after.length)
  for (let i = 0; i < n; i++) if (!sameMessage(before[i], after[i])) return i
  return n
}

module.exports = { splitTurns, TokenCounter, firstChanged, sameMessage }
