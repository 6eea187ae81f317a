// context-condense/roo-2025: Roo Code's condensing API as Roo Code had it in 2025 (positional
// summarizeConversation, src/core/sliding-window's truncateConversationIfNeeded). Same
// implementation as context-condense/roo; only the era's differences are set here.
'use strict'

module.exports = require('./roo.js')
