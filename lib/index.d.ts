// Public types of context-condense. Hand-written for lib/index.js; the generated ../index.d.ts
// types the raw native binding, which is not the public API.
import type { OpenAIMessage } from './openai-format'
import type { Encoding, ErrorCode, ProviderId, ProviderOptions, SmartPreset } from './names'
export type { Encoding, ErrorCode, ProviderId, SmartPreset, DefaultProvider, DefaultPreset, DefaultEncoding, ProviderConfigs, ProviderOptions } from './names'
export type { OpenAIMessage, OpenAIContentPart, OpenAIToolCall, HistoryFormat } from './openai-format'

/** A content block of an Anthropic-style message. Unknown block types pass through untouched. */
export type ContentBlock =
  | { type: 'text'; text: string; [key: string]: unknown }
  | { type: 'image'; source: { type: string; media_type?: string; data?: string; [key: string]: unknown }; [key: string]: unknown }
  | { type: 'tool_use'; id: string; name: string; input: Record<string, unknown>; [key: string]: unknown }
  | {
      type: 'tool_result'
      tool_use_id: string
      content?: string | Array<{ type: string; text?: string; [key: string]: unknown }>
      is_error?: boolean
      [key: string]: unknown
    }
  | { type: 'thinking'; thinking: string; signature?: string; [key: string]: unknown }
  | { type: 'redacted_thinking'; data: string; [key: string]: unknown }
  | { type: string; [key: string]: unknown }

/** A message as Roo Code stores it: Anthropic's MessageParam plus its own fields. */
export interface ApiMessage {
  role: 'user' | 'assistant'
  content: string | ContentBlock[]
  /** Millisecond timestamp. */
  ts?: number
  /** A summary written by condensation. */
  isSummary?: boolean
  condenseId?: string
  condenseParent?: string
  truncationId?: string
  truncationParent?: string
  isTruncationMarker?: boolean
  [key: string]: unknown
}

// In the providers' configurations (and the manager's), a key the types let be null takes null as
// the key left out, as the engine's JSON Schemas (configSchema) say; nowhere else is null taken.

/** Configuration of the Lossless provider; every operation is on by default. */
export interface LosslessConfig {
  /** Repeated reads of a file become references to the copy that stays. @default true */
  deduplicateFileReads?: boolean
  /** Identical tool results become references; older reruns of a command are superseded
   * (only when removeObsoleteState is on too). @default true */
  consolidateToolResults?: boolean
  /** Restated environment details and older versions of re-read files become markers. @default true */
  removeObsoleteState?: boolean
  /** Which copy of repeated content stays whole. @default "first" */
  keep?: 'first' | 'latest'
}

export type Operation = 'keep' | 'suppress' | 'truncate' | 'summarize'

export interface TruncateParams {
  /** @default 20 */
  maxLines?: number
  /** @default 2000 */
  maxChars?: number
}

/** An operation, by name or with its parameters. */
export type OpSpec =
  | Operation
  | {
      operation: Operation
      params?: { truncate?: TruncateParams; summarize?: { maxTokens?: number | null; customPrompt?: string | null } }
    }

/** Configuration of the Truncation provider. */
export interface TruncationConfig {
  /** Most recent messages left whole. @default 6 */
  preserveRecentCount?: number
  /** @default "truncate" */
  toolResults?: Exclude<Operation, 'summarize'>
  /** @default "truncate" */
  toolParameters?: Exclude<Operation, 'summarize'>
  /** @default "suppress" */
  environmentDetails?: Exclude<Operation, 'summarize'>
  /** @default 10 */
  maxToolResultLines?: number
  /** @default 1000 */
  maxToolResultChars?: number
  /** @default 5 */
  maxToolParamLines?: number
  /** @default 400 */
  maxToolParamChars?: number
  /** @default true */
  preserveAssistantText?: boolean
  /** @default 1000 */
  maxMessageTextChars?: number
  /** @default true */
  preserveErrors?: boolean
  /** Stop once the context is at most this many tokens (oldest content first). */
  targetTokens?: number | null
}

/** Prices in dollars per million tokens; `accounting` says whether input counts include cached tokens. */
export interface Pricing {
  inputPrice?: number
  outputPrice?: number
  cacheWritesPrice?: number
  cacheReadsPrice?: number
  /** "anthropic": input excludes cached tokens; "openai": it includes them. @default "anthropic" */
  accounting?: 'anthropic' | 'openai'
}

/** Configuration of the Native provider (Roo Code's summarization). */
export interface NativeConfig {
  /** Replaces the default summary prompt when not blank. */
  customPrompt?: string | null
  /** Messages kept whole at the end. @default 3 */
  keepLast?: number
  pricing?: Pricing | null
  taskId?: string | null
  maxTokens?: number | null
}

export interface ContentTypeOps {
  messageText?: OpSpec | null
  toolParameters?: OpSpec | null
  toolResults?: OpSpec | null
  environmentDetails?: OpSpec | null
}

export interface SmartPass {
  id: string
  name?: string | null
  description?: string | null
  selection?:
    | { type: 'preserve_recent'; keepRecentCount: number }
    | { type: 'preserve_percent'; keepPercentage: number }
    | { type: 'custom'; messageIndices: number[] }
  mode: 'batch' | 'individual'
  individualConfig?: {
    defaults?: ContentTypeOps
    overrides?: Array<{ messageIndex: number; operations: ContentTypeOps }>
    /** Content under this many tokens is left alone, per type. */
    thresholds?: { messageText?: number; toolParameters?: number; toolResults?: number; environmentDetails?: number }
  } | null
  batchConfig?: {
    operation?: 'keep' | 'summarize'
    summarizationConfig?: { customPrompt?: string | null; keepFirst?: number; keepLast?: number; maxTokens?: number | null }
  } | null
  execution?: { type: 'always' } | { type: 'conditional'; condition: { tokenThreshold: number } }
}

/** Configuration of the Smart provider: a preset, or passes (keys beside a preset replace its own); with neither, the default preset (`DefaultPreset`) with the keys given replacing its own. */
export interface SmartConfig {
  preset?: SmartPreset | null
  losslessPrelude?: { enabled?: boolean; operations?: LosslessConfig } | null
  passes?: SmartPass[] | null
  targetTokens?: number | null
  /** 0-100 */
  targetReductionPercent?: number | null
  /** @default true */
  preserveUserText?: boolean
  /** @default true */
  preserveErrors?: boolean
  pricing?: Pricing | null
  taskId?: string | null
  /** Keep the working set whatever the passes do. Absent: the preset's (every preset keeps it), off without a preset; null: off. */
  workingSet?: WorkingSetConfig | null
}

/** Which files make the working set, and how much of it stays whole. */
export interface WorkingSetConfig {
  /** The files touched in this many of the latest assistant turns (after the latest summary). @default 10 */
  turns?: number
  /** Tokens of the files kept whole, most recently touched first; the others keep an outline of their definitions. Absent (or null in a Smart config): a third of the context being condensed (for `workingSet()`, of the messages given). */
  budgetTokens?: number | null
}

/** Where one piece of a file's state lives: message index, content block index (null when the content is one string), its tokens. */
export interface WorkingSetPiece {
  kind: 'read' | 'write' | 'edit'
  message: number
  content: number | null
  tokens: number
}

/** One file of the working set, most recently touched first. */
export interface WorkingSetFile {
  path: string
  /** How Smart keeps it: whole, as an outline of its definitions (beyond the budget), or not at all (no outline for its language). */
  keep: 'full' | 'outline' | 'none'
  /** The latest message that touched it. */
  touched: number
  /** Tokens of the base and the edits. */
  tokens: number
  /** The latest read or whole-file write (null when the history only has edits of it). */
  base: WorkingSetPiece | null
  /** Edits after the base, oldest first. */
  edits: WorkingSetPiece[]
  /** With `text: true`: the base's text (numbered lines of a read, or the content written). */
  text?: string | null
  /** With `text: true`: the outline of the base's definitions (what stands for it when `keep` is 'outline'); null when its language has none. */
  outline?: string | null
}

export interface WorkingSetOptions extends WorkingSetConfig {
  /** Tokens of the files kept whole (see `WorkingSetConfig`); absent or null: a third of the messages given. */
  budgetTokens?: number | null
  /** Also return each file's base text and outline. @default false */
  text?: boolean
  encoding?: Encoding
}

/** What the summarize callback is asked. Tool blocks in `messages` are rendered as text. */
export interface SummarizeRequest {
  purpose: 'conversation' | 'toolResult' | 'toolParameters' | 'messageText'
  systemPrompt: string
  messages: Array<{ role: 'user' | 'assistant'; content: string }>
  maxTokens?: number
  taskId?: string
}

/** What the summarize callback answers. */
export type SummarizeReply =
  | string
  | { text: string; cost?: number; inputTokens?: number; outputTokens?: number; cacheWriteTokens?: number; cacheReadTokens?: number }

export type SummarizeCallback = (request: SummarizeRequest, context: { signal: AbortSignal }) => Promise<SummarizeReply> | SummarizeReply

interface CommonOptions {
  /** The history's format. "openai": OpenAI chat messages (system/developer messages set aside and
   * put back in place, tool_calls and tool messages as tool blocks), condensed by the same engines
   * and returned in OpenAI's format; "auto": detected (see `detectFormat` in lib/openai-format.js);
   * omitted: Anthropic's. The result then says which it was in `format`. */
  format?: 'openai' | 'anthropic' | 'auto'
  /** The context size the host measured; when given, only changed text is counted. */
  prevContextTokens?: number
  /** The size past which a sliding window will cut the request (give it only then), counted as
   * `prevContextTokens` is. Native then asks no summary that cut would remove: when the messages
   * it keeps are by themselves at or past it, it answers `window-cuts-summary` without a call. */
  allowedTokens?: number
  /** `DefaultEncoding` when not given. */
  encoding?: Encoding
  /** Stops a condensation in progress, callbacks included; the call then rejects with an AbortError. */
  signal?: AbortSignal
  /** The host's LLM call (Native, and Smart's summarize operations). */
  summarize?: SummarizeCallback
  /** Repair tool pairing first (see `repairConversation`); the result then lists `repairs`. */
  repair?: boolean
  /** Hand back `result.provenance`: every change each pass made and where each message of the
   * result came from (what the HTML report reads). Off by default: it costs a little per change. */
  provenance?: boolean
  /** How the callback is driven. */
  summarizeOptions?: {
    /** Calls at once. @default 4 */
    concurrency?: number
    /** Per attempt, whole milliseconds from 1 to 2147483647 (the longest a Node.js timer waits,
     * about 24.8 days; a longer one is refused). @default 120000 */
    timeoutMs?: number
    /** Retries after a rejection or a throw, 0 to 10, with exponential backoff. @default 2 */
    retries?: number
    /** The wait before the first retry, 0 to 60000 ms; it doubles after each failure, at most
     * 60000 ms. @default 500 */
    retryDelayMs?: number
  }
}

/** The common options with a built-in provider and its config (lib/names.d.ts, from the engine's registry). */
export type CondenseOptions = CommonOptions & ProviderOptions

export interface PassMetrics {
  id: string
  name: string
  tokensBefore: number
  tokensAfter: number
  durationMs: number
  callbackCalls: number
  suppressed: number
  truncated: number
  summarized: number
  /** Replaced by a reference to an identical copy kept elsewhere. */
  deduplicated: number
  /** Replaced by a marker naming what supersedes it. */
  superseded: number
  /** References whose copy a later pass shortened or summarized (no longer expandable). */
  omitted: number
  /** Messages this pass changed or replaced. */
  messagesChanged: number
  reversibleTokensSaved: number
  supersededTokensSaved: number
  /** Summaries asked for that were truncated instead (no callback, a failure, not shorter). */
  summarizeFallbacks: number
  cost: number
  /** Why the pass did not run or was undone. */
  skipped?: string
  errors?: string[]
  /**
   * Set on the row that is not a pass (id `afterPasses`, last): what changed the context after
   * the passes ended (references renumbered, their bytes put back or an Omitted note written), so
   * the rows' savings add up to `tokensBefore - tokensAfter` of the whole condensation. It has no
   * counts of its own.
   */
  afterPasses?: true
}

/** The lossless operations; each is a pass of the Lossless provider. */
export type LosslessOperationId = 'deduplicateFileReads' | 'consolidateToolResults' | 'removeObsoleteState'

/** What a change did. */
export type Action =
  | 'deduplicated'
  | 'superseded'
  /** A reference whose copy a later pass shortened or summarized: no longer expandable. */
  | 'omitted'
  | 'suppressed'
  | 'truncated'
  | 'summarized'

/** Counts of changes by action. */
export type ActionCounts = Record<Action, number>

/** One change a pass made, as the engine recorded it. */
export interface Act {
  /** Index of the pass in `metrics.passes`. */
  pass: number
  action: Action
  /** The kind of content changed; "message" for a message replaced by a summary of a run. */
  content: 'messageText' | 'toolParameters' | 'toolResults' | 'environmentDetails' | 'message'
  /** The changed message's index in the history given to condense. */
  message: number
  /** The message holding the copy a reference points at, or the content that supersedes. */
  refersTo?: number
  tokensSaved: number
}

/** Where a message of the result came from. */
export type Origin =
  /** The message at this index of the input, `changed` when a pass changed it. */
  | { from: number; changed: boolean }
  /** A summary written in place of the input's messages `covers[0]..covers[1]`. */
  | { covers: [number, number] | null; summary: true }

export interface Provenance {
  acts: Act[]
  /** One per message of `result.messages`. */
  origins: Origin[]
}

export interface CondenseMetrics {
  provider: string
  encoding: Encoding
  tokensBefore: number
  tokensAfter: number
  tokensSaved: number
  reductionPercent: number
  reversibleTokensSaved: number
  supersededTokensSaved: number
  messagesChanged: number
  /** Messages replaced by a summary. */
  messagesRemoved: number
  /** Edits undone because the string they were in would not have got smaller. */
  editsRolledBack: number
  /** Passes run, in order: Lossless's three operations, Truncation's and Native's one pass, Smart's prelude and passes. */
  passes: PassMetrics[]
  /** Every change by action: the sum of the passes' counts. */
  actions: ActionCounts
  callbackCalls: number
  cost: number
  durationMs: number
}

/** The `errorCode` of what the library throws: the engine's list (src/error.rs), generated into lib/names.d.ts. */
export type ThrownErrorCode = ErrorCode

/** Why a provider left the history as it was. */
export type RefusalCode =
  /** The history's structure (or a value the engine cannot take) stops it; the error says where. */
  | 'invalid-history'
  /** Native: too few messages between the first and the kept tail. */
  | 'not-enough-messages'
  /** Native: a summary is already among the kept messages. */
  | 'condensed-recently'
  /** Native needs `summarize`, and none was given. */
  | 'no-summarizer'
  /** The summarize callback failed (rejected, threw, timed out, answered with an error). */
  | 'summarize-failed'
  /** The summarize callback answered with an empty summary. */
  | 'empty-summary'
  /** The summary would not make the context smaller. */
  | 'context-grew'
  /** Native asked no summary: the messages it keeps are by themselves past `allowedTokens`, so the
   * sliding window would cut the summary away. */
  | 'window-cuts-summary'

export interface CondenseResult<M = ApiMessage> {
  /** The condensed history. Messages nothing changed are the caller's own objects (shared, not
   * copied); changed ones are new objects. The input array is never modified. */
  messages: M[]
  /** With `options.format`: the format the history was read and returned in. */
  format?: 'openai' | 'anthropic'
  /** The summary text, for providers that write one ("" otherwise). */
  summary: string
  /** What the summaries cost, in dollars (0 without LLM calls). */
  cost: number
  prevContextTokens: number
  newContextTokens: number
  /** A problem with the data, or the provider declining; `messages` is then a copy of the input, unchanged. */
  error?: string
  /** The stable code of `error`, to branch on (the text may change): see `RefusalCode`. */
  errorCode?: RefusalCode
  metrics: CondenseMetrics
  /** A readable account of what was done. */
  report: string
  /** With `repair: true`: what was repaired before condensing (paths name places in the input). */
  repairs?: Repair[]
  /** With `provenance: true`: what each pass did and where each message came from. */
  provenance?: Provenance
}

export interface Repair {
  path: string
  action: string
}

export interface Problem {
  /** Where it is: `messages[12].content[3]`. */
  path: string
  code:
    | 'not_an_array'
    | 'invalid_message'
    | 'invalid_role'
    | 'invalid_content'
    | 'invalid_block'
    | 'empty_content'
    | 'empty_text'
    | 'first_not_user'
    | 'duplicate_tool_use_id'
    | 'missing_tool_result'
    | 'orphan_tool_result'
    | 'duplicate_tool_result'
    | 'tool_result_not_first'
    /** A value JSON cannot carry (NaN, a cycle, nesting deeper than 128 levels). */
    | 'unsupported_value'
  message: string
}

export interface Analysis {
  messages: number
  totalTokens: number
  byContentType: {
    userText: number
    assistantText: number
    thinking: number
    toolCalls: number
    toolResults: number
    environmentDetails: number
    images: number
    summaries: number
  }
  byTool: Array<{ tool: string; results: number; resultTokens: number; errors: number }>
  byFile: Array<{ path: string; reads: number; tokens: number }>
  /** What Lossless with its default config removes, by operation (run, not estimated). */
  lossless: Array<{ operation: LosslessOperationId; edits: number; tokens: number }>
  losslessTokensSaved: number
}

export interface CountOptions {
  /** `DefaultEncoding` when not given. */
  encoding?: Encoding
  /** As `CondenseOptions.format`; OpenAI system and developer messages are not counted (they are
   * set aside, as Anthropic's system prompt is). */
  format?: 'openai' | 'anthropic' | 'auto'
}

/** Condenses a history with the chosen provider. Invalid options throw; problems with the data
 * come back in `error` with the messages unchanged. An OpenAI chat history (`format: "openai"` or
 * `"auto"`) comes back in OpenAI's format. */
export { openConversation, Conversation } from './conversation'
export type { OpenConversationOptions, ConversationCondenseOptions, ConversationCondenseResult } from './conversation'

export function condense(messages: OpenAIMessage[], options: CondenseOptions & { format: 'openai' | 'auto' }): Promise<CondenseResult<OpenAIMessage>>
export function condense(messages: ApiMessage[], options: CondenseOptions): Promise<CondenseResult>
/** Tokens of a string or a history: text, thinking, tool name + JSON input, tool results;
 * images by Roo Code's estimate. Cached by content, so a recount is nearly free. */
export function countTokens(input: string | ApiMessage[] | OpenAIMessage[], options?: CountOptions): number
/** countTokens with the counting off the JavaScript thread. */
export function countTokensAsync(input: string | ApiMessage[] | OpenAIMessage[], options?: CountOptions): Promise<number>
/** A built-in provider, as the engine's catalogue describes it. */
import type { ProviderCapabilities } from './manager'

export interface CatalogueProvider {
  id: ProviderId
  name: string
  description: string
  /** Takes a token target (the manager's stop setting). */
  takesTarget: boolean
  capabilities: ProviderCapabilities
}
/** The engine's one list of built-in providers, the Smart presets' names and its constants. */
export function providerCatalogue(): {
  providers: CatalogueProvider[]
  presets: SmartPreset[]
  /** The provider a host runs when its config names none. */
  defaultProvider: ProviderId
  /** The preset a Smart config with neither a preset nor passes runs. */
  defaultPreset: SmartPreset
  /** The general presets (the others are for one use case). */
  generalPresets: SmartPreset[]
  /** The token encodings, the default first. */
  encodings: Encoding[]
  defaultEncoding: Encoding
  constants: { minCondenseThreshold: number; maxCondenseThreshold: number; tokenBufferPercentage: number; defaultMaxTokens: number }
}
/** The JSON Schema (draft 2020-12) of a provider's `config`, for settings UIs. */
export function configSchema(provider: ProviderId): Record<string, unknown>
/** A Smart preset's configuration: a starting point to edit and pass back as `config`. */
export function smartPreset(name: SmartPreset): SmartConfig
/** Empties the token-count caches (they are bounded anyway; for memory pressure or benchmarks). */
export function clearTokenCache(): void
export interface ExpandOptions {
  /** As `CondenseOptions.format`. A marker names a message by its position in the array it is in,
   * so a history expands as it is in either format: an OpenAI history `condense` returned
   * (`format: "openai"`) names its own messages. */
  format?: 'openai' | 'anthropic' | 'auto'
}
/** Restores every reference left by condensing, byte for byte. Superseded markers stay, and so do
 * "Omitted" notes (what a later condensing shortened away). */
export function expandReferences(messages: OpenAIMessage[], options: ExpandOptions & { format: 'openai' | 'auto' }): OpenAIMessage[]
export function expandReferences(messages: ApiMessage[], options?: ExpandOptions): ApiMessage[]
/** What the provider APIs would reject; empty when the history is valid. */
export function validateConversation(messages: unknown): Problem[]

/** Tool pairing repaired as newer Roo Code does: duplicate tool_use ids renamed (with the result
 * answering them), unanswered calls given a synthetic error result, results answering no call
 * turned into text, tool_results moved first. A tool_use in the last message is left pending.
 * Unrepaired messages are the caller's own objects; the input array is never modified. */
export function repairConversation(messages: ApiMessage[]): { messages: ApiMessage[]; repairs: Repair[] }
/** What fills the context: tokens by content type, tool and file, and what Lossless finds. */
export function analyze(messages: ApiMessage[] | OpenAIMessage[], options?: CountOptions): Analysis
/** analyze, off the JavaScript thread. */
export function analyzeAsync(messages: ApiMessage[] | OpenAIMessage[], options?: CountOptions): Promise<Analysis>
/** The working set: the files touched in the latest turns, where the latest state of each lives, and whether Smart keeps it whole or as an outline. */
export function workingSet(messages: ApiMessage[], options?: WorkingSetOptions): WorkingSetFile[]
/** `workingSet` with the history crossing in slices and the work off the JavaScript thread. */
export function workingSetAsync(messages: ApiMessage[], options?: WorkingSetOptions): Promise<WorkingSetFile[]>

// The condensation manager (lib/manager.js, decisions in src/manager/): types in lib/manager.d.ts.
export { MIN_CONDENSE_THRESHOLD, MAX_CONDENSE_THRESHOLD, TOKEN_BUFFER_PERCENTAGE, DEFAULT_MAX_TOKENS, CondensationManager, managerConfigSchema, slidingWindow } from './manager'
export type { Triggers, ManagerConfig, ProviderCapabilities, ProviderContext, CustomProvider, ProviderInfo, Situation, Decision, Estimate, ManagedResult, CondenseContext, ManagerPolicyName, CacheAwarePolicy, PolicyStep, PolicyReport } from './manager'

// Replaying a recorded task request by request, priced with a prompt-cache model (lib/replay/): types in lib/replay.d.ts.
export { replay, REPLAY_POLICIES } from './replay'
export type { ReplayOptions, ReplayResult, ReplayCondensing, ReplayRequest, ReplayCheck, ReplayPolicyName } from './replay'
