// Types of lib/roo-2025.js (`context-condense/roo-2025`): Roo Code's condensing API as it was in
// 2025 (positional summarizeConversation with a condensingApiHandler, truncateConversationIfNeeded;
// destructive by default). The shapes are those of lib/roo.d.ts; only the 2025 names are exported.
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  MAX_CONDENSE_THRESHOLD,
  MIN_CONDENSE_THRESHOLD,
  N_MESSAGES_TO_KEEP,
  ROO_ERROR_MESSAGES,
  TOKEN_BUFFER_PERCENTAGE,
  cleanupAfterTruncation,
  configuration,
  configure,
  estimateTokenCount,
  getEffectiveApiHistory,
  getMessagesSinceLastSummary,
  rewindConversation,
  truncateConversation,
} from './roo'
export type * from './roo-types'
import type { TruncateConversationIfNeeded, ApiHandler, ApiMessage, RooCallOptions, SummarizeResponse } from './roo'

/**
 * Roo Code's 2025 summarizeConversation: keeps the first message and the last N_MESSAGES_TO_KEEP,
 * summarizes what lies between since the last summary with `condensingApiHandler` (when its
 * createMessage is a function, else `apiHandler` after Roo's console.warn), and inserts
 * `{ role: "assistant", content: summary, ts: keptMessages[0].ts, isSummary: true }`. Problems are
 * an `error` result; only a `messages` that is not an array rejects (a TypeError, `errorCode`
 * "invalid-argument").
 * The ninth argument is this package's options.
 */
export function summarizeConversation(
  messages: ApiMessage[],
  apiHandler: ApiHandler,
  systemPrompt: string,
  taskId: string,
  /** The context size the summary must stay under; left out, the history and the system prompt are counted. */
  prevContextTokens?: number,
  isAutomaticTrigger?: boolean,
  customCondensingPrompt?: string,
  condensingApiHandler?: ApiHandler,
  options?: RooCallOptions | boolean,
): Promise<SummarizeResponse>

export const truncateConversationIfNeeded: TruncateConversationIfNeeded
