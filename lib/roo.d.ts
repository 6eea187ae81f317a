// Types of lib/roo.js (`context-condense/roo`): Roo Code's condensing API as Roo has it today
// (summarizeConversation with an options object and fresh-start summaries, manageContext,
// willManageContext, the tool-block helpers, the folded file context), and the first fresh-start
// Roo's positional summarizeConversation, over the engine, with this package's options beside Roo's
// arguments. It exports exactly the values lib/roo.js exports. The shapes shared with the earlier
// eras' entries (lib/roo-2026-01.d.ts, lib/roo-2025.d.ts) are declared here; lib/roo-types.d.ts
// lists them.
//
// The functions are generic over the caller's own message type `M` (Roo's ApiMessage, Anthropic's
// MessageParam, this package's ApiMessage): what goes in comes back typed as it went in. The shapes
// the entries read (RooMessage, RooContentBlock, ApiHandler) have no index signatures, so the
// Anthropic SDK's interfaces (MessageParam, TextBlockParam, ImageBlockParam, ToolUseBlockParam,
// ToolResultBlockParam) and Roo's ApiHandler fit them as they are.
import type { ApiMessage, ContentBlock, LosslessConfig, Pricing, SmartConfig, TruncationConfig } from './index'
import type { DefaultProvider, ProviderId } from './names'
import type { CacheAwarePolicy, ManagerPolicyName, PolicyReport } from './manager'

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

/** Roo's English strings by its i18n key, word for word ({{message}} is filled in);
 * `condense_aborted` and `condense_timeout` are this package's own. */
export const ROO_ERROR_MESSAGES: Readonly<{
  condense_failed: 'Failed to condense context'
  condense_not_enough_messages: 'Not enough messages to condense context'
  condensed_recently: 'Context was condensed recently; skipping this attempt'
  condense_handler_invalid: 'API handler for condensing context is invalid'
  condense_context_grew: 'Context size increased during condensing; skipping this attempt'
  condense_api_failed: 'Condensing API call failed: {{message}}'
  condense_aborted: 'Context condensing was aborted'
  condense_timeout: 'Context condensing timed out: {{message}}'
}>

export type RooErrorKey = keyof typeof ROO_ERROR_MESSAGES

// ---------------------------------------------------------------------------------------------
// Messages and content blocks, as the entries read them.

/** A text block (Anthropic's TextBlockParam fits). */
export interface RooTextBlock {
  type: 'text'
  text: string
}

/** An image block (Anthropic's ImageBlockParam fits). */
export interface RooImageBlock {
  type: 'image'
  source: { type: string; media_type?: string; data?: string; url?: string }
}

/** A tool call (Anthropic's ToolUseBlockParam fits). */
export interface RooToolUseBlock {
  type: 'tool_use'
  id: string
  name: string
  input: unknown
}

/** A tool's answer (Anthropic's ToolResultBlockParam fits). */
export interface RooToolResultBlock {
  type: 'tool_result'
  tool_use_id: string
  content?: string | Array<RooTextBlock | RooImageBlock | RooOtherBlock>
  is_error?: boolean
}

/** Any other block (thinking, reasoning, documents, …): passed through untouched. */
export interface RooOtherBlock {
  type: string
}

/** A content block of a message. Every object with a `type` is one; the named shapes say what the
 * entries read from text, images, tool calls and tool results. */
export type RooContentBlock = RooTextBlock | RooImageBlock | RooToolUseBlock | RooToolResultBlock | RooOtherBlock

/**
 * The least a message must be for the Roo entries: a role and content, and Roo's optional tags.
 * Roo's ApiMessage, Anthropic's MessageParam and this package's ApiMessage are all RooMessages;
 * the functions below take and return the caller's own type `M`. The messages the entries write
 * (summaries, truncation markers, tagged copies) are objects of Roo's shape: `{ role, content,
 * ts, isSummary?, condenseId?, condenseParent?, truncationId?, truncationParent?,
 * isTruncationMarker? }` and the caller's own fields on a tagged copy.
 */
export interface RooMessage {
  role: 'user' | 'assistant'
  content: string | RooContentBlock[]
  /** Millisecond timestamp. */
  ts?: number
  /** A summary written by condensation. */
  isSummary?: boolean
  condenseId?: string
  condenseParent?: string
  truncationId?: string
  truncationParent?: string
  isTruncationMarker?: boolean
}

// ---------------------------------------------------------------------------------------------
// The host's API handler, as Roo Code's ApiHandler is shaped (only what is used here). Roo's own
// ApiHandler fits it as it is.

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

/** Any other chunk (reasoning, grounding, tool calls, …): ignored. */
export interface ApiStreamOtherChunk {
  type: string
}

export type ApiStreamChunk = ApiStreamTextChunk | ApiStreamUsageChunk | ApiStreamOtherChunk

/** What a summary request sends: the messages to summarize as they are (2025, January 2026: then
 * "Summarize the conversation so far, as described in the prompt instructions."), or with their
 * tool blocks as text and the instructions last (today). */
export interface ApiRequestMessage {
  role: 'user' | 'assistant'
  content: string | RooContentBlock[]
}

export interface ApiHandler {
  /** Called with the condensing prompt as system prompt; read to the end unless aborted (the
   * iterator's `return()` is then called). A promise of a stream is accepted too. The third
   * argument is the call's `metadata` (today's Roo), passed as it was given. */
  createMessage(systemPrompt: string, messages: ApiRequestMessage[], metadata?: unknown): AsyncIterable<ApiStreamChunk> | Promise<AsyncIterable<ApiStreamChunk>>
  /** Tokens of some content blocks (a number >= 0; anything else, a throw or no answer within
   * `timeoutMs` is an error result). Without it the engine's o200k count is used. */
  countTokens?(content: RooContentBlock[]): Promise<number>
}

/** Roo's TelemetryService methods this module calls (each optional; a throw is ignored). */
export interface RooTelemetry {
  /** The fourth argument only in 2025 (whether a condensing handler was given). */
  captureContextCondensed?(taskId: string, isAutomaticTrigger: boolean, usedCustomPrompt: boolean, usedCustomApiHandler?: boolean): void
  captureSlidingWindowTruncation?(taskId: string): void
}

// ---------------------------------------------------------------------------------------------
// This package's options: per call, over the defaults `configure` sets.

/** A callback the host gives (an option): its parameters are compared both ways, as a method's
 * are, so a callback written with the host's own types (Roo's ApiMessage and ApiHandler, its
 * RooIgnoreController) fits where the entry declares its own narrower shapes. */
export type HostCallback<F extends (...args: any[]) => any> = { bivarianceHack(...args: Parameters<F>): ReturnType<F> }['bivarianceHack']

/** A provider run before Roo's summary; the default provider is Roo's summary alone. */
export type RooProvider = ProviderId

/**
 * The options of every entry. `Seam` is the era's summarizeConversation as its context management
 * calls it (`summarizeConversation` below): today's takes an options object
 * (SummarizeConversationSeam); lib/roo-2026-01.d.ts and lib/roo-2025.d.ts name their positional ones.
 */
export interface RooOptions<Seam = SummarizeConversationSeam> {
  /** Runs first; when its result reaches `targetTokens`, no summary is asked for. `DefaultProvider` (Roo's summary alone) when not given. */
  provider?: RooProvider
  /** The first provider's `config` (Smart defaults to the `DefaultPreset`). */
  providerConfig?: LosslessConfig | TruncationConfig | SmartConfig
  /** Tag instead of delete, as Roo does since 2026; send `getEffectiveApiHistory(messages)`.
   * @default true (context-condense/roo, context-condense/roo-2026-01), false (context-condense/roo-2025) */
  nonDestructive?: boolean
  telemetry?: RooTelemetry
  /** Prices a usage chunk without `totalCost`. */
  pricing?: Pricing
  /** Replaces Roo's messages (e.g. translated), by i18n key. */
  errors?: Partial<Record<RooErrorKey, string>>
  /** How a first step's (smart) summaries drive the handler. @default { retries: 0, timeoutMs: timeoutMs } */
  summarizeOptions?: { concurrency?: number; timeoutMs?: number; retries?: number; retryDelayMs?: number }
  /** Ids of summaries and truncation markers. @default crypto.randomUUID */
  generateId?: () => string
  /** The summary instructions when no custom condensing prompt is given (a Roo host passes Roo's
   * own: `supportPrompt.default.CONDENSE`, or in 2025 its `SUMMARY_PROMPT`). @default the engine's prompt */
  defaultPrompt?: string
  /** Today's summaries: the system prompt of the request (the instructions go last, as the user's;
   * a Roo host passes Roo's `SUMMARY_PROMPT`). @default this package's short prompt: text only, no
   * tools, the request is not the user's */
  requestSystemPrompt?: string
  /** The host's image cleaning (Roo's maybeRemoveImageBlocks), applied to a summary request's
   * messages (copies of the caller's, and the final instructions) with the main handler the call
   * was given. @default the messages as they are */
  prepareMessages?: HostCallback<(messages: ApiRequestMessage[], apiHandler: ApiHandler) => ApiRequestMessage[]>
  /** The summary truncateConversationIfNeeded / manageContext calls (Roo's module seam: a host
   * passes its condense module's export so spies on it see the call), with Roo's arguments. */
  summarizeConversation?: Seam
  /** Appends the files read and modified in the summarized part (from the history itself) to the
   * summary. @default false */
  filesList?: boolean
  /** Also refuses a summary whose own tokens are not fewer than those of what it replaces. Roo's
   * rule alone (the new context under prevContextTokens) by default. @default false */
  strictGrowth?: boolean
  /** Bounds every host call (createMessage, its stream, countTokens, foldedFileContext): whole
   * milliseconds from 1 to 2147483647 (the longest a Node.js timer waits). @default 600000 */
  timeoutMs?: number
  /** A stream with more text than this is refused. @default 4000000 */
  maxStreamChars?: number
  /** Today's folded file context (Roo builds it with tree-sitter): sections appended to the summary
   * when `filesReadByRoo` and `cwd` are given, with the call's `rooIgnoreController` as it was
   * given. A failure is logged, the summary stands. */
  foldedFileContext?: HostCallback<(files: string[], options: { cwd: string; rooIgnoreController?: unknown }) => Promise<{ sections: string[] }>>
  /** The outline of one file's definitions (Roo's tree-sitter parseSourceCodeDefinitionsForFile),
   * with the call's `rooIgnoreController` as it was given; with it and no `foldedFileContext`, the
   * folded file context is generateFoldedFileContext's. Without either, the outlines are the
   * engine's, made from the latest read or write of each file in the history (files it never
   * shows whole, or of other languages, are skipped). */
  outlineFile?: HostCallback<(absolutePath: string, rooIgnoreController?: unknown) => Promise<string | undefined>>
  /** The manager's policy, as `new CondensationManager({ policy })` takes it (a name, or `{ name,
   * cache, pricing, expectedTurns, ... }`). With "cache-aware" or "cache-aware-strict" and
   * `autoCondenseContext`, context management (manageContext, truncateConversationIfNeeded) runs
   * each call through a manager with that policy for the call's `taskId`, keeping the task's state
   * between calls: it may condense before the threshold where the prompt cache's price says it
   * pays; its summaries are written by the host's handler; Roo's sliding window follows when it
   * does not condense and the context is past the allowed size. Read by context management only.
   * A bad value is refused naming `options.policy`. @default "default" (Roo's own context management) */
  policy?: ManagerPolicyName | CacheAwarePolicy
}

export interface RooCallOptions<Seam = SummarizeConversationSeam> extends RooOptions<Seam> {
  /** Stops the summary request; the answer is then `error: "Context condensing was aborted"`. */
  signal?: AbortSignal
  /** The first provider's result is used alone when it is at most this many tokens (host units).
   * Context management sets it: under both the threshold and the allowed size. */
  targetTokens?: number
}

/** Sets the options every call uses unless it passes its own (replacing earlier defaults; no
 * argument clears them). Unknown keys and invalid values throw a TypeError. Returns the
 * defaults it replaced. */
export function configure(options?: RooOptions | null): RooOptions
/** The options `configure` set (a copy): `configure({ ...configuration(), telemetry })`. */
export function configuration(): RooOptions

// ---------------------------------------------------------------------------------------------
// summarizeConversation

export interface SummarizeResponse<M extends RooMessage = ApiMessage> {
  /** After condensing; on error, the input array itself. */
  messages: M[]
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
  /** Today's summaries: what the failed request's error carried (status, code, response, body). */
  errorDetails?: string
  /** Which step produced `messages`: Roo's summary alone, a first provider alone, or a first
   * provider then Roo's summary (`<first>+<summary>`). */
  provider?: RooProvider | `${Exclude<ProviderId, DefaultProvider>}+${DefaultProvider}`
  /** Why the summary after a first provider failed (no `targetTokens` given): that provider's
   * result was then used alone. */
  summaryError?: string
}

/** Today's summarizeConversation options (Roo's), plus this package's options beside them. */
export interface SummarizeConversationOptions<M extends RooMessage = ApiMessage> extends RooCallOptions {
  messages: M[]
  apiHandler: ApiHandler
  systemPrompt: string
  taskId: string
  isAutomaticTrigger?: boolean
  customCondensingPrompt?: string
  /** Passed to createMessage as its third argument; its `tools` (an array) are counted in
   * newContextTokens. */
  metadata?: object
  /** Appended to the summary on an automatic trigger. */
  environmentDetails?: string
  /** With `cwd`, given to the folded file context. */
  filesReadByRoo?: string[]
  cwd?: string
  /** The host's own controller (Roo's RooIgnoreController), handed to `foldedFileContext` /
   * `outlineFile` as it is. */
  rooIgnoreController?: unknown
}

/** Today's summarizeConversation as manageContext calls it through the seam (`configure({
 * summarizeConversation })`): one options object. */
export type SummarizeConversationSeam = <M extends RooMessage>(options: SummarizeConversationOptions<M>) => Promise<SummarizeResponse<M>>

/**
 * Today's summarizeConversation (fresh start): summarizes every message since the last summary
 * (orphan tool calls answered, tool blocks as text, the instructions as the final user message),
 * tags every message `condenseParent` and appends one user summary: "## Conversation Summary",
 * the <command> blocks of the first message, folded file context, environment details. Problems
 * are an `error` result; only a `messages` that is not an array rejects (a TypeError, `errorCode`
 * "invalid-argument").
 */
export function summarizeConversation<M extends RooMessage>(options: SummarizeConversationOptions<M>): Promise<SummarizeResponse<M>>
/**
 * The positional call of the first fresh-start Roo: the same summary (`prevContextTokens` is not
 * used: a fresh start always shrinks the context to the summary). The last argument is this
 * package's options. (January 2026's and 2025's positional APIs: context-condense/roo-2026-01,
 * context-condense/roo-2025.)
 */
export function summarizeConversation<M extends RooMessage>(
  messages: M[],
  apiHandler: ApiHandler,
  systemPrompt: string,
  taskId: string,
  prevContextTokens?: number,
  isAutomaticTrigger?: boolean,
  customCondensingPrompt?: string,
  metadata?: object,
  options?: RooCallOptions,
): Promise<SummarizeResponse<M>>

// ---------------------------------------------------------------------------------------------
// The sliding window.

export interface TruncationOptions {
  telemetry?: RooTelemetry
  nonDestructive?: boolean
  generateId?: () => string
}

/** Newer Roo's non-destructive truncation. */
export interface TruncationResult<M extends RooMessage = ApiMessage> {
  /** Every message kept; the hidden ones tagged `truncationParent`, a marker message before the rest. */
  messages: M[]
  truncationId: string
  messagesRemoved: number
}

/** Roo's sliding window: the first message, then all but an even number (`fracToRemove` of the
 * others, rounded down to even) of the oldest others. Calls captureSlidingWindowTruncation.
 * Non-destructive (a TruncationResult) unless `nonDestructive: false` is passed, or set with
 * `configure` (then pass it per call too, so the type says an array). */
export function truncateConversation<M extends RooMessage>(messages: M[], fracToRemove: number, taskId: string, options: TruncationOptions & { nonDestructive: false }): M[]
export function truncateConversation<M extends RooMessage>(messages: M[], fracToRemove: number, taskId: string, options?: TruncationOptions & { nonDestructive?: true }): TruncationResult<M>
export function truncateConversation<M extends RooMessage>(messages: M[], fracToRemove: number, taskId: string, options?: TruncationOptions): M[] | TruncationResult<M>

// ---------------------------------------------------------------------------------------------
// Context management.

/** Roo's options object of context management (truncateConversationIfNeeded, manageContext), plus
 * this package's options beside its keys. `Seam`: the era's summarizeConversation seam. */
export interface TruncateOptions<M extends RooMessage = ApiMessage, Seam = SummarizeConversationSeam> extends RooCallOptions<Seam> {
  messages: M[]
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
  /** Roo 2025's separate handler for summaries. */
  condensingApiHandler?: ApiHandler
  /** Per API profile: 5..100, or -1 to inherit the global threshold. */
  profileThresholds: Record<string, number>
  currentProfileId: string
  /** Newer Roo's flag; accepted and ignored (tool pairs are always kept whole). */
  useNativeTools?: boolean
}

export interface TruncateResponse<M extends RooMessage = ApiMessage> extends SummarizeResponse<M> {
  /** totalTokens plus the last message's tokens. */
  prevContextTokens: number
  /** With a cache-aware `policy`, when it condensed: what it saw and each step it asked for, taken or
   * not (the manager's `ManagedResult.policy`). */
  policy?: PolicyReport
  /** Non-destructive sliding window: its marker's id, the messages hidden, the context after. */
  truncationId?: string
  messagesRemoved?: number
  newContextTokensAfterTruncation?: number
}

/** manageContext's options: today's Roo (its summary is the fresh-start one). */
export interface ManageContextOptions<M extends RooMessage = ApiMessage> extends Omit<TruncateOptions<M>, 'condensingApiHandler' | 'useNativeTools'> {
  metadata?: SummarizeConversationOptions<M>['metadata']
  environmentDetails?: string
  filesReadByRoo?: string[]
  cwd?: string
  rooIgnoreController?: unknown
}

/**
 * Today's Roo context management: condenses when 100 * prev / contextWindow reaches the effective
 * threshold or prev passes the allowed size (contextWindow * 0.9 - reserved), with the fresh-start
 * summary, and falls back to `truncateConversation(messages, 0.5, taskId)` when condensing fails or
 * is off and prev is past the allowed size. The rules are the engine's (ManagerRules.decide). Bad
 * numbers (totalTokens, contextWindow, …), a countTokens that throws, answers garbage or never
 * answers, an element of `messages` that is not a message object: an `error` result, never a throw
 * or a hang. A `messages` that is not an array rejects (a TypeError, `errorCode`
 * "invalid-argument"): there is no history to give back.
 */
export function manageContext<M extends RooMessage>(options: ManageContextOptions<M>): Promise<TruncateResponse<M>>

/** What willManageContext reads (Roo's WillManageContextOptions). */
export interface WillManageContextOptions {
  totalTokens: number
  contextWindow: number
  maxTokens?: number | null
  autoCondenseContext: boolean
  autoCondenseContextPercent: number
  profileThresholds: Record<string, number>
  currentProfileId: string
  lastMessageTokens: number
}

/** Whether manageContext would condense or slide the window now (no model call). Throws a
 * TypeError naming a bad number. */
export function willManageContext(options: WillManageContextOptions): boolean

// ---------------------------------------------------------------------------------------------
// Helpers.

/** The messages since the last summary, the summary included (the array itself when there is
 * none); a summary that is not the user's is preceded by the task's first message (Roo's fix for
 * a summary that lost the task), or, when that is not the user's either, by
 * `{ role: "user", content: "Please continue from the following summary:", ts }`. */
export function getMessagesSinceLastSummary<M extends RooMessage>(messages: M[]): M[]

/** Tokens of content blocks: `apiHandler.countTokens` when it has one, else the engine's count; 0 for none. */
export function estimateTokenCount(content: RooContentBlock[], apiHandler?: Pick<ApiHandler, 'countTokens'> | null): Promise<number>

/** What the model is sent from a non-destructive history. After a fresh-start (user) summary:
 * from it on, without tool_result blocks whose tool_use is gone. Otherwise the caller's own
 * objects, in order, without the messages an existing summary, shortened copy or truncation
 * marker stands for. */
export function getEffectiveApiHistory<M extends RooMessage>(messages: M[]): M[]

/** After messages were removed from a non-destructive history: tags whose summary, marker or copy
 * is gone are cleared (those messages are sent again); copies whose message is gone are dropped. */
export function cleanupAfterTruncation<M extends RooMessage>(messages: M[]): M[]

/** Drops the stored messages from `at` on (an index, `{ index }`, or `{ ts }`: the first message
 * at or after that timestamp), then cleanupAfterTruncation. */
export function rewindConversation<M extends RooMessage>(messages: M[], at: number | { index: number } | { ts: number }): M[]

/** "[Tool Use: name]" and one "key: value" line per input. */
export function toolUseToText(block: RooToolUseBlock): string
/** "[Tool Result]" (or "[Tool Result (Error)]") and its content as text ("[Image]" for images). */
export function toolResultToText(block: RooToolResultBlock): string
/** A message's content with its tool blocks as text blocks (a string stays as it is). */
export function convertToolBlocksToText<B extends RooContentBlock>(content: string | B[]): string | Array<B | RooTextBlock>
/** Copies of the messages with their tool blocks as text. */
export function transformMessagesForCondensing<M extends { role: string; content: string | RooContentBlock[] }>(messages: M[]): M[]
/** The messages and, when some tool_use has no tool_result, one user message answering them
 * ("Context condensation triggered. Tool execution deferred."). */
export function injectSyntheticToolResults<M extends RooMessage>(messages: M[]): M[]
/** The `<command …>…</command>` blocks of a message's text, joined by newlines ("" for none). */
export function extractCommandBlocks<M extends RooMessage>(message: M): string

export interface FoldedFileContextResult {
  content: string
  sections: string[]
  filesProcessed: number
  filesSkipped: number
  characterCount: number
}

/** Roo's folded file context: each file's outline (`outlineFile`, the host's, given the
 * `rooIgnoreController` as it was passed) in its own `<system-reminder>` section, within
 * `maxCharacters` (default 50000). Skips files without an outline; one console.warn names those
 * whose outline failed. */
export function generateFoldedFileContext<Controller = unknown>(
  filePaths: string[],
  options: {
    cwd: string
    maxCharacters?: number
    rooIgnoreController?: Controller
    outlineFile: (absolutePath: string, rooIgnoreController?: Controller) => Promise<string | undefined>
  },
): Promise<FoldedFileContextResult>
