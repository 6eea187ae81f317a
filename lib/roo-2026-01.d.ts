// Types of lib/roo-2026-01.js (`context-condense/roo-2026-01`): Roo Code's condensing API as it was
// in January 2026 (positional summarizeConversation, non-destructive, manageContext). The shapes are
// those of lib/roo.d.ts; only that version's names are exported.
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
  willManageContext,
} from './roo'
export type * from './roo-types'
import type { GetKeepMessagesWithToolBlocks, ApiHandler, ApiMessage, ManageContextOptions, RooCallOptions, SummarizeResponse, TruncateResponse } from './roo'

/**
 * January 2026's summarizeConversation: keeps the first message and the last N_MESSAGES_TO_KEEP,
 * summarizes what lies between since the last summary and inserts an assistant summary whose
 * content is an array (a reasoning block, the text, the tool_use blocks a kept tool_result needs);
 * the replaced messages are tagged `condenseParent`. Problems are an `error` result; only a
 * `messages` that is not an array rejects (a TypeError, `errorCode` "invalid-argument"). The last
 * argument is this package's options.
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
  options?: RooCallOptions | boolean,
): Promise<SummarizeResponse>

/** January 2026's manageContext: the engine's trigger, this summary, then the sliding window. */
export function manageContext(options: ManageContextOptions): Promise<TruncateResponse>

export const getKeepMessagesWithToolBlocks: GetKeepMessagesWithToolBlocks
