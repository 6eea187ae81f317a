// Types of lib/roo-2025.js (`context-condense/roo-2025`): Roo Code's condensing API as it was in
// 2025 (positional summarizeConversation with a condensingApiHandler, truncateConversationIfNeeded;
// destructive by default). It exports exactly the values lib/roo-2025.js exports; the shapes are
// those of lib/roo.d.ts (generic over the caller's message type `M`), with this era's positional
// summarizeConversation as the seam truncateConversationIfNeeded calls.
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
} from './roo'
export type * from './roo-types'
import type * as Today from './roo'
import type { ApiHandler, RooMessage, SummarizeResponse, TruncationOptions, TruncationResult } from './roo'

/** 2025's summarizeConversation as truncateConversationIfNeeded calls it through the seam
 * (`configure({ summarizeConversation })`): Roo's eight positional arguments, then this package's
 * options when the call has any. */
export type SummarizeConversationSeam = <M extends RooMessage>(
  messages: M[],
  apiHandler: ApiHandler,
  systemPrompt: string,
  taskId: string,
  prevContextTokens: number,
  isAutomaticTrigger?: boolean,
  customCondensingPrompt?: string,
  condensingApiHandler?: ApiHandler,
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
 * Roo Code's 2025 summarizeConversation: keeps the first message and the last N_MESSAGES_TO_KEEP,
 * summarizes what lies between since the last summary with `condensingApiHandler` (when its
 * createMessage is a function, else `apiHandler` after Roo's console.warn), and inserts
 * `{ role: "assistant", content: summary, ts: keptMessages[0].ts, isSummary: true }`. Problems are
 * an `error` result; only a `messages` that is not an array rejects (a TypeError, `errorCode`
 * "invalid-argument").
 * The ninth argument is this package's options.
 */
export function summarizeConversation<M extends RooMessage>(
  messages: M[],
  apiHandler: ApiHandler,
  systemPrompt: string,
  taskId: string,
  /** The context size the summary must stay under (a whole number of tokens >= 0); left out, the history and the system prompt are counted. */
  prevContextTokens?: number,
  isAutomaticTrigger?: boolean,
  customCondensingPrompt?: string,
  condensingApiHandler?: ApiHandler,
  options?: RooCallOptions | boolean,
): Promise<SummarizeResponse<M>>

/** Roo's sliding window (2025: destructive, the kept messages themselves, unless `nonDestructive:
 * true` is passed): the first message, then all but an even number (`fracToRemove` of the others,
 * rounded down to even) of the oldest others. Calls captureSlidingWindowTruncation. */
export function truncateConversation<M extends RooMessage>(messages: M[], fracToRemove: number, taskId: string, options: TruncationOptions & { nonDestructive: true }): TruncationResult<M>
export function truncateConversation<M extends RooMessage>(messages: M[], fracToRemove: number, taskId: string, options?: TruncationOptions & { nonDestructive?: false }): M[]
export function truncateConversation<M extends RooMessage>(messages: M[], fracToRemove: number, taskId: string, options?: TruncationOptions): M[] | TruncationResult<M>

/** Roo's options object of truncateConversationIfNeeded, plus this package's options beside its keys. */
export interface TruncateOptions<M extends RooMessage = Today.ApiMessage> extends Today.TruncateOptions<M, SummarizeConversationSeam> {}

/**
 * Roo Code's truncateConversationIfNeeded: condenses when 100 * prev / contextWindow reaches the
 * effective threshold or prev passes the allowed size (contextWindow * 0.9 - reserved), with the
 * positional summary, and falls back to `truncateConversation(messages, 0.5, taskId)` when
 * condensing fails or is off and prev is past the allowed size. The rules are the engine's
 * (ManagerRules.decide). Bad numbers (totalTokens, contextWindow, …), a countTokens that throws,
 * answers garbage or never answers, an element of `messages` that is not a message object: an
 * `error` result, never a throw or a hang. A `messages` that is not an array rejects (a TypeError,
 * `errorCode` "invalid-argument"): there is no history to give back.
 */
export function truncateConversationIfNeeded<M extends RooMessage>(options: TruncateOptions<M>): Promise<Today.TruncateResponse<M>>
