// Splitting a recorded history into the requests the host made: one API request per assistant turn,
// holding the history up to that turn (the system prompt is priced apart, by its size). (Message
// identity and per-message token counts are lib/prompt-cache.js's, which the manager shares.)
// Reads the history; never changes it.
'use strict'

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

module.exports = { splitTurns }
