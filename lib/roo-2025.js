// context-condense/roo-2025: Roo Code's condensing API as Roo Code had it in 2025 (src/core/condense
// with a positional summarizeConversation and a condensingApiHandler, src/core/sliding-window's
// truncateConversationIfNeeded; destructive: summarized and truncated messages are removed). The
// same implementation as context-condense/roo (lib/roo.js): only the era's data differs.
'use strict'

module.exports = require('./roo.js')._createEntry('2025')
