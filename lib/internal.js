// What the library's own modules share and the package does not export: the chunked intake of
// lib/index.js (which sets it when it loads), used by lib/manager.js to feed its estimate sessions.
// Holds references only; it is no part of the public API, and nothing here runs on its own.
'use strict'

module.exports = {
  /** lib/index.js's pushInChunks(session, messages, signal): resolves to a problem string or undefined. */
  pushInChunks: undefined,
}
