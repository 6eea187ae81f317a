// Types of lib/ai-sdk.js: Vercel AI SDK histories (`ModelMessage[]` of the `ai` package) condensed,
// and a `prepareStep` for its agent loops. The types mirror the SDK's (ai@6) so this entry needs
// no `ai` types installed; the SDK's own `ModelMessage` is assignable to `AiSdkMessage`.
import type { ApiMessage, CondenseOptions, CondenseResult, SummarizeCallback } from './index'
import type { CacheAwarePolicy, ManagerConfig, ManagerPolicyName } from './manager'
import type { ProviderId } from './names'

type JSONValue = null | string | number | boolean | { [key: string]: JSONValue | undefined } | JSONValue[]
/** `providerOptions` of a message or part: kept as they are on every message and part. */
export type AiSdkProviderOptions = Record<string, Record<string, JSONValue | undefined>>
type DataContent = string | Uint8Array | ArrayBuffer

type WithOptions = { providerOptions?: AiSdkProviderOptions }

export type AiSdkToolResultOutput =
  | ({ type: 'text'; value: string } & WithOptions)
  | ({ type: 'json'; value: JSONValue } & WithOptions)
  | ({ type: 'execution-denied'; reason?: string } & WithOptions)
  | ({ type: 'error-text'; value: string } & WithOptions)
  | ({ type: 'error-json'; value: JSONValue } & WithOptions)
  | {
      type: 'content'
      value: Array<
        | ({ type: 'text'; text: string } & WithOptions)
        | { type: 'media'; data: string; mediaType: string }
        | ({ type: 'file-data'; data: string; mediaType: string; filename?: string } & WithOptions)
        | ({ type: 'file-url'; url: string; mediaType?: string } & WithOptions)
        | ({ type: 'file-id'; fileId: string | Record<string, string> } & WithOptions)
        | ({ type: 'image-data'; data: string; mediaType: string } & WithOptions)
        | ({ type: 'image-url'; url: string } & WithOptions)
        | ({ type: 'image-file-id'; fileId: string | Record<string, string> } & WithOptions)
        | ({ type: 'custom' } & WithOptions)
      >
    }

export type AiSdkTextPart = { type: 'text'; text: string } & WithOptions
export type AiSdkImagePart = { type: 'image'; image: DataContent | URL; mediaType?: string } & WithOptions
export type AiSdkFilePart = { type: 'file'; data: DataContent | URL; mediaType: string; filename?: string } & WithOptions
export type AiSdkReasoningPart = { type: 'reasoning'; text: string } & WithOptions
export type AiSdkToolCallPart = { type: 'tool-call'; toolCallId: string; toolName: string; input: unknown; providerExecuted?: boolean } & WithOptions
export type AiSdkToolResultPart = { type: 'tool-result'; toolCallId: string; toolName: string; output: AiSdkToolResultOutput } & WithOptions
export type AiSdkToolApprovalRequest = { type: 'tool-approval-request'; approvalId: string; toolCallId: string; signature?: string; inputSchemaInput?: unknown }
export type AiSdkToolApprovalResponse = { type: 'tool-approval-response'; approvalId: string; approved: boolean; reason?: string; providerExecuted?: boolean }

/** A message of an AI SDK history (`ModelMessage`): the SDK's own messages are these. */
export type AiSdkMessage =
  | ({ role: 'system'; content: string } & WithOptions)
  | ({ role: 'user'; content: string | Array<AiSdkTextPart | AiSdkImagePart | AiSdkFilePart> } & WithOptions)
  | ({
      role: 'assistant'
      content: string | Array<AiSdkTextPart | AiSdkFilePart | AiSdkReasoningPart | AiSdkToolCallPart | AiSdkToolResultPart | AiSdkToolApprovalRequest>
    } & WithOptions)
  | ({ role: 'tool'; content: Array<AiSdkToolResultPart | AiSdkToolApprovalResponse> } & WithOptions)

export interface AiSdkConversion<M = AiSdkMessage> {
  /** The history in the engine's (Anthropic) form: system messages set aside, each tool message
   * one user message of tool_result blocks, each part one block. */
  messages: ApiMessage[]
  /** The system messages set aside, in order. */
  system: M[]
  /** The way back, for the converted messages or a condensation of them: messages nothing changed
   * are the caller's own objects; a changed one is the original with its new content. */
  restore(condensed: ApiMessage[]): M[]
  /** Rewrites every `messages[n]…` path of the converted history in a text as the SDK history's place. */
  locate(text: string): string
  /** A condense result on the converted messages, as the SDK history's. */
  finish(result: CondenseResult): CondenseResult<M>
}

/** Converts SDK messages to the Anthropic form the engine condenses. */
export function toEngine<M extends AiSdkMessage>(messages: M[]): AiSdkConversion<M>

/** An Anthropic (Roo Code) history as SDK messages: tool_use blocks become tool-call parts, the
 * tool_result blocks of a user message a tool message before the rest of it, thinking blocks
 * reasoning parts. */
export function fromEngine(messages: ApiMessage[]): AiSdkMessage[]

/** Condenses an SDK history with the main `condense`'s options (`format` aside): messages nothing
 * changed come back as the caller's own objects, changed ones as the originals with new content. */
export function condense<M extends AiSdkMessage>(messages: M[], options: Omit<CondenseOptions, 'format'>): Promise<CondenseResult<M>>

/** Every reference marker of an SDK history replaced by what it stands for. */
export function expandReferences<M extends AiSdkMessage>(messages: M[]): M[]

/** What one step of a run did (`prepareStep.steps`, `onCondense`). */
export interface AiSdkStepRecord {
  stepNumber: number
  condensed: boolean
  /** The provider whose result was used ("sliding-window" for the last resort). */
  provider?: string
  /** Messages the SDK gave the step, and messages the model got. */
  messagesIn: number
  messagesOut: number
  prevContextTokens: number
  newContextTokens: number
  summary: string
  cost: number
  report?: string
  /** Why nothing was condensed (the manager's reason, or "min-gain"). */
  skipped?: string
  error?: string
}

export interface PrepareStepOptions {
  /** The model's context window in tokens. */
  contextWindow: number
  /** Tokens reserved for the reply. @default 8192 */
  maxTokens?: number
  /** Condense when the context reaches this percentage of the window (the manager's `threshold`). */
  threshold?: number
  /** The provider that condenses (Smart when not given: its default preset keeps the working set). */
  provider?: ProviderId
  /** The provider's config (as `condense` takes it). */
  config?: Record<string, unknown>
  /** The manager's policy (`new CondensationManager({ policy })`). */
  policy?: ManagerPolicyName | CacheAwarePolicy
  /** The manager's fallback chain (Native, then the sliding window). @default true */
  fallback?: ManagerConfig['fallback']
  /** The run's system prompt: the cache-aware policy counts it (prepareStep is not given it), and
   * with `anthropicCacheControl` the step hands it back as a system message with a breakpoint. */
  systemPrompt?: string
  /** Anthropic's prompt caching: each step hands the SDK copies of the last two user or tool
   * messages with `providerOptions.anthropic.cacheControl` (and the system prompt, when
   * `systemPrompt` is given), where the cache-aware policy's cache model puts breakpoints.
   * @default false */
  anthropicCacheControl?: boolean
  /** The host's own summary callback; or `summarizeModel` with `generateText`. */
  summarize?: SummarizeCallback
  /** The model that writes summaries, called with the host's `generateText`. */
  summarizeModel?: unknown
  /** The AI SDK's `generateText`, passed in: this package does not depend on `ai`. It is called
   * with `{ model, system, messages, maxOutputTokens, abortSignal }` and its `text` (and `usage`) read. */
  generateText?: (options: never) => PromiseLike<{ text: string }>
  summarizeOptions?: CondenseOptions['summarizeOptions']
  /** Called after each step that condensed, with what it did and the messages the model gets. */
  onCondense?: (step: AiSdkStepRecord & { messages: AiSdkMessage[] }) => void
  /** Stops a condensation in progress. */
  signal?: AbortSignal
}

/** The `prepareStep` a run's `generateText` / `streamText` takes. */
export interface AiSdkPrepareStep {
  (options: {
    messages: AiSdkMessage[]
    stepNumber: number
    [key: string]: unknown
  }): Promise<{ messages: AiSdkMessage[]; system?: { role: 'system'; content: string; providerOptions: AiSdkProviderOptions } } | undefined>
  /** What each step did, in order. */
  readonly steps: AiSdkStepRecord[]
  /** The last step's record. */
  readonly last: AiSdkStepRecord | undefined
  /** Lets go of what the engine holds for the run; later steps throw. */
  close(): Promise<void>
}

/** A `prepareStep` that condenses a run's messages with the manager's policy, one per run. */
export function createPrepareStep(options: PrepareStepOptions): AiSdkPrepareStep

