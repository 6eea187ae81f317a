// context-condense/roo-2026-01: Roo Code's condensing API as Roo Code had it in January 2026, the
// last version before its fresh-start summaries (positional summarizeConversation, non-destructive
// condensing with the tool_use blocks a kept tool_result needs inside the summary, manageContext).
// The same implementation as context-condense/roo (lib/roo.js): only the era's data differs.
'use strict'

module.exports = require('./roo.js')._createEntry('2026-01')
