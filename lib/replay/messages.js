// Splitting a recorded history into the requests the host made: one API request per assistant turn,
// holding the history up to that turn (the system prompt is priced apart, by its size), and when
// each was sent: the recorded time of its last message (Roo Code stamps each message with `ts`,
// milliseconds), or, when the history does not carry times for every request in order, requests
// `REQUEST_SPACING_MS` apart. (Message
// identity and per-message token counts are lib/internal/prompt-cache.js's, which the manager shares.)
// Reads the history; never changes it.
'use strict'

/** The time between two requests when a history records none: 20 s, within the 8 to 50 s
 * median gaps of the seven recorded Roo Code tasks. */
const REQUEST_SPACING_MS = 20_000

/**
 * The turns of a recorded history: `append` is what the host added before the request (the
 * previous assistant reply and the user's message or tool results that followed it); `reply` is
 * the assistant message the request produced, appended at the start of the next turn; `sentAt`
 * is when the request was sent (milliseconds from the first request; `timeRecorded`: from the
 * recorded times, else `REQUEST_SPACING_MS` apart).
 * @param {object[]} history
 * @returns {Array<{ index: number, append: object[], at: number, sentAt: number, timeRecorded: boolean }>}
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
  const stamps = turns.map((t) => history[t.at - 1] && history[t.at - 1].ts)
  const recorded = stamps.every((ts, k) => typeof ts === 'number' && Number.isFinite(ts) && (k === 0 || ts >= stamps[k - 1]))
  for (const t of turns) {
    t.sentAt = recorded ? stamps[t.index] - stamps[0] : t.index * REQUEST_SPACING_MS
    t.timeRecorded = recorded
  }
  return turns
}

module.exports = { splitTurns, REQUEST_SPACING_MS }
