// `replay(history, options)`: replays a recorded task request by request under a context window,
// a threshold and a condensing policy, and prices every request with a prompt-cache model. The
// modules beside it: options.js (checks), messages.js (the requests of a history),
// policies.js, run.js (the turn loop), summarizer.js, checks.js (end of task); the pricing is the
// engine's prompt-cache model (src/cache_model.rs through lib/internal/prompt-cache.js), which the
// manager's cache-aware policy uses too.
// Never changes the caller's history or options.
'use strict'

const { checkMessagesArray, checkMessageObjects } = require('../internal/checks.js')
const { coded } = require('../internal/errors.js')
const { readOptions } = require('./options.js')
const { splitTurns } = require('./messages.js')
const { REPLAY_POLICIES, policyNamed } = require('./policies.js')
const { runReplay } = require('./run.js')

async function replayUncoded(history, options) {
  checkMessagesArray(history, 'replay', 'history')
  // Every element (a hole in a sparse array too) is a message with a role a request can have.
  checkMessageObjects(history, 'replay', (i) => `history[${i}]`)
  history.forEach((m, i) => {
    if (m.role !== 'user' && m.role !== 'assistant')
      throw new TypeError(`replay: history[${i}].role: expected "user" or "assistant", got ${JSON.stringify(m.role) ?? 'nothing'}`)
  })
  const settings = readOptions(options, REPLAY_POLICIES)
  const turns = splitTurns(history)
  return runReplay(history, turns, policyNamed(settings.policy), settings)
}

// Its errors carry `errorCode` as the main entry's do (lib/errors.js).
const replay = coded(replayUncoded)

exports.replay = replay
exports.REPLAY_POLICIES = REPLAY_POLICIES
