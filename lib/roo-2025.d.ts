// Types of lib/roo-2025.js (`context-condense/roo-2025`): Roo Code's condensing API as it was in
// 2025 (positional summarizeConversation with a condensingApiHandler, truncateConversationIfNeeded;
// destructive by default). The shapes are those of lib/roo.d.ts.
export * from './roo'
