// Feeding a history to the engine without holding the event loop: chunks through the scheduler,
// the long strings a chunk left out sent in parts after it, and the abort signal's checks. Shared
// by lib/index.js, lib/manager.js and lib/conversation.js.
'use strict'

const scheduler = require('./scheduler.js')
const { pushChunk } = require('./crossing.js')

// ---------------------------------------------------------------------------------------------
// Feeding a history to the engine without holding the event loop.

/**
 * Pushes `messages` in chunks, through the scheduler (every call's chunks share one budget of
 * event-loop time), and the strings a chunk names as holding U+FFFD again, a part at a time, before
 * the next chunk; answers the problem when a value cannot cross (the target is then rejected),
 * rejects with the signal's reason once it aborts. `target` is what takes the messages in: a
 * native History, or a held conversation's intake.
 */
async function pushInChunks(target, messages, signal) {
  let i = 0
  let problem
  let send
  const later = (step) => {
    send = step
  }
  // Sizes learnt across the runs below (one run per stretch of chunks without such strings).
  const chunks = { size: 4 }
  const parts = { size: 1 }
  do {
    await scheduler.run(
      (size) => {
        if (i >= messages.length) return true
        const end = Math.min(messages.length, i + size)
        problem = pushChunk(target, messages.slice(i, end), i, later)
        if (problem) {
          // A value the engine cannot take: the run refuses with where it is, like any other
          // structural problem, and the messages come back unchanged.
          target.reject(problem)
          return true
        }
        i = end
        return i >= messages.length || send !== undefined
      },
      signal,
      chunks,
    )
    if (send !== undefined) {
      await scheduler.run(send, signal, parts)
      send = undefined
    }
  } while (i < messages.length && problem === undefined)
  return problem
}

module.exports = { pushInChunks }
