// Types of lib/roo.js (`context-condense/roo`): Roo Code's condensing API (summarizeConversation,
// truncateConversationIfNeeded, truncateConversation, getMessagesSinceLastSummary,
// estimateTokenCount, and newer Roo's non-destructive helpers) over the engine, with this
// package's options beside Roo's arguments.
import type { ApiMessage, ContentBlock, LosslessConfig, Pricing, SmartConfig, TruncationConfig } from './index'

export type { ApiMessage, ContentBlock } from './index'

// ---------------------------------------------------------------------------------------------
// Roo's constants.

/** Messages kept whole at the end of a summarized history. */
export const N_MESSAGES_TO_KEEP: 3
/** Lowest valid per-profile threshold, % of the context window. */
export const MIN_CONDENSE_THRESHOLD: 5
/** Highest valid per-profile threshold, % of the context window. */
export const MAX_CONDENSE_THRESHOLD: 100
/** Share of the context window kept free: allowed tokens are `contextWindow * (1 - 0.1) - reserved`. */
export const TOKEN_BUFFER_PERCENTAGE: 0.1
/** Reserved for the model's answer when `maxTokens` is not given (or 0). */
export const ANTHROPIC_DEFAULT_MAX_TOKENS: 8192

/** Roo's error messages by its i18n key (`condense_aborted` is this package's own). */
export const ROO_ERROR_MESSAGES: Readonly<{
  condense_failed: 'Failed to condense context'
  condense_not_enough_messages: 'Not enough messages to condense'
  condensed_recently: 'Context was condensed recently'
  condense_handler_invalid: 'API handler for condensing context is invalid'
  condense_context_grew: 'Context size increased during condensing; skipping this attempt'
  condense_aborted: 'Context condensing was aborted'
}>

export type RooErrorKey = keyof typeof ROO_ERROR_MESSAGES

// ---------------------------------------------------------------------------------------------
// The host's API handler, as Roo Code's ApiHandler is shaped (only what is used here).

export interface ApiStreamTextChunk {
  type: 'text'
  text: string
}

/** The last usage chunk of a stream gives the cost (`totalCost`, else priced from the tokens with
 * `options.pricing`, else 0) and the output tokens Roo counts the new context with. */
export interface ApiStreamUsageChunk {
  type: 'usage'
  inputTokens: number
  outputTokens: number
  cacheWriteTokens?: number
  cacheReadTokens?: number
  reasoningTokens?: number
  totalCost?: number
}

/** Any other chunk (reasoning, grounding, …): ignored. */
export interface ApiStreamOtherChunk {
  type: string
  [key: string]: unknown
}

export type ApiStreamChunk = ApiStreamTextChunk | ApiStreamUsageChunk | ApiStreamOtherChunk

/** What a summary request sends: the messages to summarize (tool blocks rendered as text), then
 * "Summarize the conversation so far, as described in the prompt instructions." */
export interface ApiRequestMessage {
  role: 'user' | 'assistant'
  content: string
}

export interface ApiHandler {
  /** Called with the condensing prompt as system prompt; read to the end unless aborted (the
   * iterator's `return()` is then called). A promise of a stream is accepted too. */
  createMessage(systemPrompt: string, messages: ApiRequestMessage[]): AsyncIterable<ApiStreamChunk> | Promise<AsyncIterable<ApiStreamChunk>>
  /** Tokens of some content blocks. Without it the engine's o200k count is used. */
  countTokens?(content: ContentBlock[]): Promise<number>
}

/** Roo's TelemetryService methods this module calls (each optional; a throw is ignored). */
export interface RooTelemetry {
  captureContextCondensed?(taskId: string, isAutomaticTrigger: boolean, usedCustomPrompt: boolean, usedCustomApiHandler: boolean): void
  captureSlidingWindowTruncation?(taskId: string): void
}

// ---------------------------------------------------------------------------------------------
// This package's options: per call, over the defaults `configure` sets.

/** A provider run before Roo's summary; "native" is Roo's summary alone. */
export type RooProvider = 'native' | 'lossless' | 'truncation' | 'smart'

export interface RooOptions {
  /** Runs first; when its result reaches `targetTokens`, no summary is asked for. @default "native" */
  provider?: RooProvider
  /** The first provider's `config` (Smart defaults to the "balanced" preset). */
  providerConfig?: LosslessConfig | TruncationConfig | SmartConfig
  /** Tag instead of delete, as newer Roo does; send `getEffectiveApiHistory(messages)`. @default false */
  nonDestructive?: boolean
  telemetry?: RooTelemetry
  /** Prices a usage chunk without `totalCost`. */
  pricing?: Pricing
  /** Replaces Roo's messages (e.g. translated), by i18n key. */
  errors?: Partial<Record<RooErrorKey, string>>
  /** How the handler is driven. @default { retries: 0, timeoutMs: 600000 } */
  summarizeOptions?: { concurrency?: number; timeoutMs?: number; retries?: number; retryDelayMs?: number }
  /** Ids of summaries and truncation markers. @default crypto.randomUUID */
  generateId?: () => string
  /** The summary prompt when no custom condensing prompt is given. @default the engine's prompt */
  defaultPrompt?: string
}

export interface RooCallOptions extends RooOptions {
  /** Stops the summary request; the answer is then `error: "Context condensing was aborted"`. */
  signal?: AbortSignal
  /** The first provider's result is used alone when it is at most this many tokens (host units).
   * truncateConversationIfNeeded sets it: under both the threshold and the allowed size. */
  targetTokens?: number
}

/** Sets the options every call uses unless it passes its own (replacing earlier defaults; no
 * argument clears them). Unknown keys and invalid values throw a TypeError. Returns the
 * defaults it replaced. */
export function configure(options?: RooOptions | null): RooOptions

// ---------------------------------------------------------------------------------------------
// summarizeConversation

export interface SummarizeResponse {
  /** After condensing; on error, the input array itself. */
  messages: ApiMessage[]
  /** The summary text; "" when there is none. */
  summary: string
  /** What the model calls cost, in dollars. */
  cost: number
  /** Tokens of the context for the next request. */
  newContextTokens?: number
  /** Set iff the operation failed; `messages` is then unchanged. */
  error?: string
  /** Non-destructive mode: the id of the summary the replaced messages point to. */
  condenseId?: string
  /** Which step produced `messages`: "native", a first provider alone, or e.g. "lossless+native". */
  provider?: RooProvider | 'lossless+native' | 'truncation+native' | 'smart+native'
  /** Why the summary after a first provider failed (no `targetTokens` given): that provider's
   * result was then used alone. */
  summaryError?: string
}

/**
 * Roo Code's summarizeConversation: keeps the first message and the last N_MESSAGES_TO_KEEP,
 * summarizes what lies between since the last summary with `condensingApiHandler` (when its
 * createMessage is a function, else `apiHandler` after a console.warn), and inserts
 * `{ role: "assistant", content: summary, ts: keptMessages[0].ts, isSummary: true }`. Never throws.
 * The ninth argument is this package's options (newer Roo's `useNativeTools` boolean is accepted).
 */
export function summarizeConversation(
  messages: ApiMessage[],
  apiHandler: ApiHandler,
  systemPrompt: string,
  taskId: string,
  prevContextTokens: number,
  isAutomaticTrigger?: boolean,
  customCondensingPrompt?: string,
  condensingApiHandler?: ApiHandler,
  options?: RooCallOptions | boolean,
): Promise<SummarizeResponse>

// ---------------------------------------------------------------------------------------------
// The sliding window.

export interface TruncationOptions {
  telemetry?: RooTelemetry
  nonDestructive?: boolean
  generateId?: () => string
}

/** Newer Roo's non-destructive truncation. */
export interface TruncationResult {
  /** Every message kept; the hidden ones tagged `truncationParent`, a marker message before the rest. */
  messages: ApiMessage[]
  truncationId: string
  messagesRemoved: number
}

/** Roo's sliding window: the first message, then all but an even number (`fracToRemove` of the
 * others, rounded down to even) of the oldest others. Calls captureSlidingWindowTruncation. */
export function truncateConversation(messages: ApiMessage[], fracToRemove: number, taskId: string, options: TruncationOptions & { nonDestructive: true }): TruncationResult
export function truncateConversation(messages: ApiMessage[], fracToRemove: number, taskId: string, options: TruncationOptions & { nonDestructive: false }): ApiMessage[]
/** Without `nonDestructive`, the mode `configure` set (destructive unless changed). */
export function truncateConversation(messages: ApiMessage[], fracToRemove: number, taskId: string, options?: TruncationOptions): ApiMessage[] | TruncationResult

// ---------------------------------------------------------------------------------------------
// truncateConversationIfNeeded

/** Roo's options object, plus this package's options beside its keys. */
export interface TruncateOptions extends RooCallOptions {
  messages: ApiMessage[]
  /** The API's usage figure: everything but the last message. */
  totalTokens: number
  contextWindow: number
  /** Reserved for the answer; ANTHROPIC_DEFAULT_MAX_TOKENS when undefined, null or 0. */
  maxTokens?: number | null
  apiHandler: ApiHandler
  autoCondenseContext: boolean
  /** Global threshold, % of the context window. */
  autoCondenseContextPercent: number
  systemPrompt: string
  taskId: string
  customCondensingPrompt?: string
  condensingApiHandler?: ApiHandler
  /** Per API profile: 5..100, or -1 to inherit the global threshold. */
  profileThresholds: Record<string, number>
  currentProfileId: string
  /** Newer Roo's flag; accepted and ignored (tool pairs are always kept whole). */
  useNativeTools?: boolean
}

export interface TruncateResponse extends SummarizeResponse {
  /** totalTokens plus the last message's tokens. */
  prevContextTokens: number
  /** Non-destructive sliding window: its marker's id, the messages hidden, the context after. */
  truncationId?: string
  messagesRemoved?: number
  newContextTokensAfterTruncation?: number
}

/**
 * Roo Code's truncateConversationIfNeeded: condenses when 100 * prev / contextWindow reaches the
 * effective threshold or prev passes the allowed size (contextWindow * 0.9 - reserved), and falls
 * back to `truncateConversation(messages, 0.5, taskId)` when condensing fails or is off and prev
 * is past the allowed size. Problems come back in `error`; a countTokens that rejects rejects
 * the call, as in Roo.
 */
export function truncateConversationIfNeeded(options: TruncateOptions): Promise<TruncateResponse>

// ---------------------------------------------------------------------------------------------
// Helpers.

/** The messages since the last summary, the summary included (the array itself when there is
 * none); a summary that is not the user's is preceded by
 * `{ role: "user", content: "Please continue from the following summary:", ts }`. */
export function getMessagesSinceLastSummary(messages: ApiMessage[]): ApiMessage[]

/** Tokens of content blocks: `apiHandler.countTokens` when it has one, else the engine's count; 0 for none. */
export function estimateTokenCount(content: ContentBlock[], apiHandler?: Partial<ApiHandler> | null): Promise<number>

/** What the model is sent from a non-destructive history: the caller's own objects, in order,
 * without the messages an existing summary, shortened copy or truncation marker stands for. */
export function getEffectiveApiHistory<M extends ApiMessage>(messages: M[]): M[]

/** After messages were removed from a non-destructive history: tags whose summary, marker or copy
 * is gone are cleared (those messages are sent again); copies whose message is gone are dropped. */
export function cleanupAfterTruncation(messages: ApiMessage[]): ApiMessage[]

/** Drops the stored messages from `at` on (an index, `{ index }`, or `{ ts }`: the first message
 * at or after that timestamp), then cleanupAfterTruncation. */
export function rewindConversation(messages: ApiMessage[], at: number | { index: number } | { ts: number }): ApiMessage[]
