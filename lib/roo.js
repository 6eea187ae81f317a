// context-condense/roo: Roo Code's condensing API as Roo Code has it today (fresh-start summaries,
// manageContext, an options object for summarizeConversation). The implementation, shared with the
// entries of earlier eras (roo-2025, roo-2026-01), is lib/roo-core.js: only the era's data differs.
'use strict'

const today = require('./roo-core.js').createEntry('today')

// One assignment per name, so Node's ESM loader finds each as a named export.
exports.truncateConversation = today.truncateConversation
exports.getMessagesSinceLastSummary = today.getMessagesSinceLastSummary
exports.getEffectiveApiHistory = today.getEffectiveApiHistory
exports.cleanupAfterTruncation = today.cleanupAfterTruncation
exports.rewindConversation = today.rewindConversation
exports.estimateTokenCount = today.estimateTokenCount
exports.configure = today.configure
exports.configuration = today.configuration
exports.N_MESSAGES_TO_KEEP = today.N_MESSAGES_TO_KEEP
exports.MIN_CONDENSE_THRESHOLD = today.MIN_CONDENSE_THRESHOLD
exports.MAX_CONDENSE_THRESHOLD = today.MAX_CONDENSE_THRESHOLD
exports.TOKEN_BUFFER_PERCENTAGE = today.TOKEN_BUFFER_PERCENTAGE
exports.ANTHROPIC_DEFAULT_MAX_TOKENS = today.ANTHROPIC_DEFAULT_MAX_TOKENS
exports.ROO_ERROR_MESSAGES = today.ROO_ERROR_MESSAGES
exports.willManageContext = today.willManageContext
exports.summarizeConversation = today.summarizeConversation
exports.manageContext = today.manageContext
exports.toolUseToText = today.toolUseToText
exports.toolResultToText = today.toolResultToText
exports.convertToolBlocksToText = today.convertToolBlocksToText
exports.transformMessagesForCondensing = today.transformMessagesForCondensing
exports.injectSyntheticToolResults = today.injectSyntheticToolResults
exports.extractCommandBlocks = today.extractCommandBlocks
exports.generateFoldedFileContext = today.generateFoldedFileContext
