// context-condense/roo-2026-01: Roo Code's condensing API as Roo Code had it in January 2026, the
// last version before its fresh-start summaries (positional summarizeConversation, non-destructive
// condensing with the tool_use blocks a kept tool_result needs inside the summary, manageContext).
// The same implementation as context-condense/roo (lib/roo-core.js): only the era's data differs.
'use strict'

const entry = require('./roo-core.js').createEntry('2026-01')

// One assignment per name, so Node's ESM loader finds each as a named export.
exports.truncateConversation = entry.truncateConversation
exports.getMessagesSinceLastSummary = entry.getMessagesSinceLastSummary
exports.getEffectiveApiHistory = entry.getEffectiveApiHistory
exports.cleanupAfterTruncation = entry.cleanupAfterTruncation
exports.rewindConversation = entry.rewindConversation
exports.estimateTokenCount = entry.estimateTokenCount
exports.configure = entry.configure
exports.configuration = entry.configuration
exports.N_MESSAGES_TO_KEEP = entry.N_MESSAGES_TO_KEEP
exports.MIN_CONDENSE_THRESHOLD = entry.MIN_CONDENSE_THRESHOLD
exports.MAX_CONDENSE_THRESHOLD = entry.MAX_CONDENSE_THRESHOLD
exports.TOKEN_BUFFER_PERCENTAGE = entry.TOKEN_BUFFER_PERCENTAGE
exports.ANTHROPIC_DEFAULT_MAX_TOKENS = entry.ANTHROPIC_DEFAULT_MAX_TOKENS
exports.ROO_ERROR_MESSAGES = entry.ROO_ERROR_MESSAGES
exports.willManageContext = entry.willManageContext
exports.getKeepMessagesWithToolBlocks = entry.getKeepMessagesWithToolBlocks
exports.summarizeConversation = entry.summarizeConversation
exports.manageContext = entry.manageContext
