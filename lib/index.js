// context-condense: the public JavaScript API, gathered from the modules that define it, in layers
// (no module below requires one above): functions.js (the functions over the native engine:
// condense, the counts, schemas, conversations), manager.js (the condensation manager, which runs
// on those functions) and replay/ (a replay of a history, which runs the manager). This file only
// re-exports, in forms Node's ESM import reads (a spread require, names written out), so it finds
// every named export.
'use strict'

const {
  CondensationManager,
  managerConfigSchema,
  slidingWindow,
  MIN_CONDENSE_THRESHOLD,
  MAX_CONDENSE_THRESHOLD,
  TOKEN_BUFFER_PERCENTAGE,
  DEFAULT_MAX_TOKENS,
} = require('./manager.js')
const { replay, REPLAY_POLICIES } = require('./replay/index.js')

module.exports = {
  // Every export of functions.js is public (Node's ESM import sees a spread require as re-exports).
  ...require('./functions.js'),
  CondensationManager,
  managerConfigSchema,
  slidingWindow,
  MIN_CONDENSE_THRESHOLD,
  MAX_CONDENSE_THRESHOLD,
  TOKEN_BUFFER_PERCENTAGE,
  DEFAULT_MAX_TOKENS,
  replay,
  REPLAY_POLICIES,
}
