// Types of lib/roo-2026-01.js (`context-condense/roo-2026-01`): Roo Code's condensing API as it was
// in January 2026 (positional summarizeConversation, non-destructive, manageContext,
// getKeepMessagesWithToolBlocks). It exports exactly the values lib/roo-2026-01.js exports; the
// shapes are those of lib/roo.d.ts (generic over the caller's message type `M`), with this era's
// positional summarizeConversation as the seam its context management calls.
export {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  MAX_CONDENSE_THRESHOLD,
  MIN_CONDENSE_THRESHOLD,
  N_MESSAGES_TO_KEEP,
  ROO_ERROR_MESSAGES,
  TOKEN_BUFFER_PERCENTAGE,
  cleanupAfterTruncation,
  estimateTokenCount,
  getEffectiveApiHistory,
  getMessagesSinceLastSummary,
  rewindConversation,
  truncateConversation,
  willManageContext,
} from './roo'
export type * from './roo-types'
import type * as Today from './roo'
import type { ApiHandler, RooContentBlock, RooMessage, RooToolUseBlock, SummarizeResponse, TruncateResponse } from './roo'

/** January 2026's summarizeConversation as manageContext calls it through the seam (`configure({
 * summarizeConversation })`): Roo's seven positional arguments, then this package's options when
 * the call has any. */
export type SummarizeConversationSeam = <M extends RooMessage>(
  messages: M[],
  apiHandler: ApiHandler,
  systemPrompt: string,
  taskId: string,
  prevContextTokens: number,
  isAutomaticTrigger?: boolean,
  customCondensingPrompt?: string,
  options?: RooCallOptions,
) => Promise<SummarizeResponse<M>>

/** This package's options (lib/roo.d.ts), with this era's seam. */
export interface RooOptions extends Today.RooOptions<SummarizeConversationSeam> {}
export interface RooCallOptions extends Today.RooCallOptions<SummarizeConversationSeam> {}

/** Sets the options every call uses unless it passes its own (replacing earlier defaults; no
 * argument clears them). Unknown keys and invalid values throw a TypeError. Returns the
 * defaults it replaced. */
export function configure(options?: RooOptions | null): RooOptions
/** The options `configure` set (a copy): `configure({ ...configuration(), telemetry })`. */
export function configuration(): RooOptions

/**
 * January 2026's summarizeConversation: keeps the first message and the last N_MESSAGES_TO_KEEP,
 * summarizes what lies between since the last summary and inserts an assistant summary whose
 * content is an array (a reasoning block, the text, the tool_use blocks a kept tool_result needs);
 * the replaced messages are tagged `condenseParent`. Problems are an `error` result; only a
 * `messages` that is not an array rejects (a TypeError, `errorCode` "invalid-argument"). The last
 * argument is this package's options.
 */
export function summarizeConversation<M extends RooMessage>(
  messages: M[],
  apiHandler: ApiHandler,
  systemPrompt: string,
  taskId: string,
  /** The context size the summary must stay under; left out, the history and the system prompt are counted. */
  prevContextTokens?: number,
  isAutomaticTrigger?: boolean,
  customCondensingPrompt?: string,
  options?: RooCallOptions | boolean,
): Promise<SummarizeResponse<M>>

/** January 2026's manageContext options (Roo's ContextManagementOptions), plus this package's. */
export interface ManageContextOptions<M extends RooMessage = Today.ApiMessage>
  extends Omit<Today.TruncateOptions<M, SummarizeConversationSeam>, 'condensingApiHandler'> {}

/** January 2026's manageContext: the engine's trigger, this summary, then the sliding window. */
export function manageContext<M extends RooMessage>(options: ManageContextOptions<M>): Promise<TruncateResponse<M>>

/** What getKeepMessagesWithToolBlocks answers (Roo's KeepMessagesResult). */
export interface KeepMessagesResult<M extends RooMessage = Today.ApiMessage> {
  keepMessages: M[]
  toolUseBlocksToPreserve: RooToolUseBlock[]
  reasoningBlocksToPreserve: RooContentBlock[]
}

/** Roo's getKeepMessagesWithToolBlocks: the last `keepCount` messages and the tool_use blocks (with
 * their message's reasoning blocks) that the kept tool_results answer. */
export function getKeepMessagesWithToolBlocks<M extends RooMessage>(messages: M[], keepCount: number): KeepMessagesResult<M>
