// Types of lib/manager.js: the condensation manager (when to condense, fallbacks, loop and growth
// guards; its decisions are the engine's, src/manager/). Re-exported by lib/index.d.ts.
import type { ApiMessage, CondenseMetrics, CondenseOptions, Pricing, SummarizeCallback, countTokens } from './index'
import type { ProviderId } from './names'

export const MIN_CONDENSE_THRESHOLD: 5
export const MAX_CONDENSE_THRESHOLD: 100
export const TOKEN_BUFFER_PERCENTAGE: 0.1
/** Reserved for the model's answer when the host gives no `maxTokens`. */
export const DEFAULT_MAX_TOKENS: 8192

export interface Triggers {
  /** Condense when the context reaches this % of the window (5..100). */
  triggerPercent?: number | null
  /** Aim for this % of the window (Truncation and Smart take it as `targetTokens`). */
  stopPercent?: number | null
  /** Skip a condensation that saves fewer tokens (keeps the host's prompt cache). */
  minGainTokens?: number | null
  /** Skip a condensation that saves less than this % of the context. */
  minGainPercent?: number | null
}

export interface ManagerConfig {
  /** `DefaultProvider` when not given. */
  provider?: string
  /** Each provider's `config`, by provider id. */
  providers?: Record<string, unknown>
  /** @default true */
  autoCondense?: boolean
  /** Global trigger, % of the window. @default 100 */
  threshold?: number
  /** Per API profile: 5..100, or -1 to inherit. */
  profileThresholds?: Record<string, number>
  triggers?: Triggers
  providerTriggers?: Record<string, Triggers>
  profileTriggers?: Record<string, Triggers>
  /** Native when a callback exists, then the sliding window. @default true */
  fallback?: boolean
  /** With `fallback`: past the allowed size, the sliding window cuts until the request fits, a
   * provider's result still past it included (false: Roo Code's way, one cut, and only when every
   * provider failed). @default true */
  cutUntilFits?: boolean
  loopGuard?: { maxAttempts?: number; coolDownMs?: number }
  /** null: none (as left out). */
  condensingProfileId?: string | null
  /** Roo Code's earlier keys, mapped onto the ones above. */
  autoCondenseContext?: boolean
  autoCondenseContextPercent?: number
  customCondensingPrompt?: string
  condensingApiConfigId?: string
}

export interface ProviderCapabilities {
  supportsLossless?: boolean
  supportsBatchMode?: boolean
  supportsIndividualMode?: boolean
  supportsMultiPass?: boolean
  supportsLLMSummarization?: boolean
  estimatedSpeed?: 'fast' | 'medium' | 'slow'
}

export interface ProviderContext {
  summarize?: SummarizeCallback
  signal?: AbortSignal
  prevContextTokens: number
  contextWindow: number
  targetTokens?: number
  config: unknown
  countTokens: typeof countTokens
  taskId?: string
}

/** A provider written in JavaScript. */
export interface CustomProvider {
  id: string
  name: string
  description: string
  capabilities?: ProviderCapabilities
  configSchema?: Record<string, unknown>
  validateConfig?(config: unknown): Array<{ path?: string; code: string; message: string }>
  condense(messages: ApiMessage[], context: ProviderContext): Promise<{ messages: ApiMessage[]; summary?: string; cost?: number; error?: string }>
  estimateReduction?(messages: ApiMessage[], context: { config: unknown }): Promise<Estimate>
}

export interface ProviderInfo {
  id: string
  name: string
  description: string
  builtIn: boolean
  capabilities: ProviderCapabilities
  configSchema: Record<string, unknown>
}

export interface Situation {
  totalTokens: number
  lastMessageTokens?: number
  contextWindow: number
  maxTokens?: number
  profileId?: string
  provider?: string
}

export interface Decision {
  condense: boolean
  reason: 'threshold' | 'overflow' | 'below-threshold' | 'disabled'
  prevContextTokens: number
  allowedTokens: number
  contextPercent: number
  threshold: { percent: number; source: 'global' | 'provider' | 'profile'; warning?: string }
  overflow: boolean
  targetTokens?: number
  minGainTokens: number
}

export interface Estimate {
  tokensBefore: number
  tokensAfter: number
  tokensSaved: number
  reductionPercent: number
  cost: number
  llmCalls: number
  inputTokens: number
  outputTokens: number
  /** No model call involved: the figures are what a run gives. */
  exact: boolean
  error?: string
}

/** `new CondensationManager({ policy })`: "default" condenses at the threshold with the config's
 * provider; the cache-aware policies also condense before it where that pays, priced by a
 * prompt-cache model (the engine's rule, src/manager/policy.rs; docs/replay.md). */
export type ManagerPolicyName = 'default' | 'cache-aware' | 'cache-aware-strict'

export interface CacheAwarePolicy {
  name: ManagerPolicyName
  /** How the provider caches prompts: "anthropic" (breakpoints, writes at a premium) or "openai" (automatic prefix). @default "anthropic" */
  cache?: 'anthropic' | 'openai'
  /** How long the provider keeps an unused cache entry: "5m" (Anthropic's default) or "1h" (its
   * extended cache, whose writes cost more). Measured on the manager's clock (`options.now`) between
   * calls: after a longer pause the next request writes everything again, so a condensing then
   * costs no re-write and the policy condenses. @default "5m" */
  cacheTtl?: '5m' | '1h'
  /** Dollars per million tokens, the fields the cost estimate takes. Default: the config's provider's
   * `pricing` (what `estimateCost` uses), else Claude Sonnet's list prices for "anthropic", GPT-4o's for
   * "openai" (the engine's price table, as `replay` reports them in `settings.pricing`); an input price
   * alone scales the others. */
  pricing?: Pricing
  /** The task's length in requests, if known (`context.expectedTurns` per call overrides it). Default: a task seen at turn t is half done. */
  expectedTurns?: number
  /** The working set: the last 2 x this many messages are kept whole by Smart and the own summaries. @default 10 */
  workingSetTurns?: number
  /** What a summary is taken to weigh before the first one is made. @default 2000 */
  summaryTokens?: number
  /** Anthropic: how many content blocks before a breakpoint a cache entry is found (about 20); default any. */
  lookbackBlocks?: number
}

/** One thing the cache-aware policy asked for on a call, taken or not, and why. */
export interface PolicyStep {
  /** A provider's id: that provider as a batch candidate (Lossless and Smart); "ownSummary": its own
   * summary; "smartAtTrigger": Smart keeping fewer messages at the trigger; "summary": the
   * manager's config itself. */
  role: ProviderId | 'smartAtTrigger' | 'ownSummary' | 'summary'
  provider?: string
  taken: boolean
  /** Prompt tokens (the system prompt included) before and after it. */
  tokensBefore: number
  tokensAfter: number
  /** The first message it changed (taken steps): the cache is read up to it at most. */
  firstChanged?: number
  why: string
}

/** What the cache-aware policy saw and did on one call (`ManagedResult.policy`). */
export interface PolicyReport {
  name: 'cache-aware' | 'cache-aware-strict'
  /** The request this call is for, from 0 (calls for the task so far). */
  turn: number
  /** The prompt before (the system prompt included), and where the config's threshold puts the trigger. */
  promptTokens: number
  triggerTokens: number
  /** Growth since the last try after which it asks again. */
  batchTokens: number
  /** Tokens appended per request so far. */
  growthTokens: number
  /** The turns a saving is counted over at most. */
  remainingTurns: number
  /**
   * Dollars, by the policy's cache model and prices: what the task's requests before this call and
   * the summaries it has made (this call's included) are billed; and the same for Roo's default on
   * the same task (its shadow: a summary at the trigger, its requests up to the last one sent). A
   * step the policy need not take is taken only while this call's request would leave `billed`
   * within 1.02 times `rooDefaultBilled`.
   */
  billed: number
  rooDefaultBilled: number
  steps: PolicyStep[]
}

/** One attempt of a condensing call: the provider and how it went. */
export interface ManagerAttemptRecord {
  provider: string
  error?: string
  skipped?: string
  tokensSaved?: number
}

/**
 * What the engine's course of a condensing call (the binding's `ManagerAttempt`) tells the
 * manager to do next: run a provider, cut the sliding window, or end the call (a last step
 * carries the call's `attempts`).
 */
export type ManagerStep =
  | { action: 'run'; provider: string; allowedTokens?: number }
  | { action: 'window'; fracToRemove: number; error: string; afterResult: boolean; keepLast?: number }
  | { action: 'adopt'; provider: string; newContextTokens: number; report: string; attempts: ManagerAttemptRecord[] }
  | { action: 'min-gain'; report: string; attempts: ManagerAttemptRecord[] }
  | { action: 'truncated'; provider: string; newContextTokens: number; error: string; report: string; attempts: ManagerAttemptRecord[] }
  | { action: 'give-up'; error: string; report: string; attempts: ManagerAttemptRecord[] }

/**
 * What the engine's cache-aware rule (the binding's `PolicyCall`) tells the manager to do next:
 * ask roles of the history as it is (priced: with the next request's cost with and without each
 * candidate), price the shadow's next request, say whether the manager's config condenses now,
 * price the next request as it is and as Roo's summary would leave it, take a candidate, or end.
 */
export type PolicyCallStep =
  | { action: 'propose'; roles: Array<PolicyStep['role']>; force: boolean; priced: boolean }
  | { action: 'price-shadow' }
  | { action: 'decide' }
  | { action: 'price-now'; roo: { keepStart: number; standIn: number } | null }
  | { action: 'take'; index: number; role: PolicyStep['role'] }
  | { action: 'done' }

export interface ManagedResult {
  messages: ApiMessage[]
  condensed: boolean
  /** Which provider's result was used ("sliding-window" for the last resort). */
  provider?: string
  prevContextTokens: number
  newContextTokens: number
  summary: string
  cost: number
  decision: Decision
  attempts: ManagerAttemptRecord[]
  /** Why nothing was done: the decision's reason, or "min-gain". */
  skipped?: string
  error?: string
  report?: string
  metrics?: CondenseMetrics
  /** With a cache-aware policy: what it saw and each step it asked for, taken or not. Its token
   * figures (and `prevContextTokens`, `newContextTokens`) include the system prompt. */
  policy?: PolicyReport
}

export interface CondenseContext {
  contextWindow: number
  /** Tokens of everything but the last message (the API's usage figure); counted when omitted. */
  totalTokens?: number
  lastMessageTokens?: number
  maxTokens?: number
  profileId?: string
  taskId?: string
  signal?: AbortSignal
  summarize?: SummarizeCallback
  /** Condense even below the threshold (a manual trigger). */
  force?: boolean
  isAutomaticTrigger?: boolean
  /** Cache-aware policy: the system prompt's size in tokens (it needs this or `systemPrompt`). With
   * a policy the manager counts the history itself: `totalTokens` and `lastMessageTokens` are not used. */
  systemPromptTokens?: number
  /** Cache-aware policy: the system prompt, counted when `systemPromptTokens` is not given (a change of it empties the modelled cache). */
  systemPrompt?: string
  /** Cache-aware policy: this task's length in requests, when the host knows it. */
  expectedTurns?: number
}

export class CondensationManager {
  constructor(options?: {
    config?: ManagerConfig
    /** Which policy condenses: a name, or the cache-aware settings. @default "default" */
    policy?: ManagerPolicyName | CacheAwarePolicy
    summarize?: SummarizeCallback
    summarizeOptions?: CondenseOptions['summarizeOptions']
    telemetry?: { captureContextCondensed?(taskId: string, isAutomaticTrigger: boolean, usedCustomPrompt: boolean, usedCustomApiHandler: boolean): void; captureSlidingWindowTruncation?(taskId: string): void }
    /** The clock (ms) the loop guard's cool-downs and the cache-aware policy's cache expiry read, once
     * per call; an answer that is not a finite number rejects the call. @default Date.now */
    now?: () => number
    /** How many tasks' histories are kept in the engine between calls, keyed by
     * `context.taskId` (a call on the same task again crosses only what changed); 0 keeps none.
     * A cache-aware policy keeps its per-task state for as many tasks (4 when this is 0). @default 4 */
    conversations?: number
  })
  /** The policy in use, as it could be given again. */
  readonly policy: { name: 'default' } | (Required<Pick<CacheAwarePolicy, 'name' | 'cache' | 'workingSetTurns' | 'summaryTokens'>> & CacheAwarePolicy)
  registerProvider(provider: CustomProvider): void
  unregisterProvider(id: string): boolean
  listProviders(): ProviderInfo[]
  validateConfig(config: unknown): Array<{ path: string; code: string; message: string }>
  setConfig(config: ManagerConfig): void
  exportConfig(): string
  importConfig(json: string): void
  getEffectiveThreshold(profileId?: string, provider?: string): number
  decide(situation: Situation): Decision
  shouldCondense(situation: Situation): boolean
  condenseIfNeeded(messages: ApiMessage[], context: CondenseContext): Promise<ManagedResult>
  estimateReduction(messages: ApiMessage[], options?: { provider?: string; pricing?: Pricing; summarize?: SummarizeCallback; prevContextTokens?: number }): Promise<Estimate>
  estimateCost(messages: ApiMessage[], options?: { provider?: string; pricing?: Pricing; summarize?: SummarizeCallback; prevContextTokens?: number }): Promise<number>
  /** Lets go of the histories kept for tasks (and the policy's state for them): one task's, or all. */
  closeConversations(taskId?: string): Promise<void>
}

/** The JSON Schema of the manager config, for settings UIs. */
export function managerConfigSchema(): Record<string, unknown>

/** Roo Code's sliding window: the first message, then all but an even number of the oldest others
 * (`fracToRemove`, from 0 to 1, of them rounded down; anything else throws). */
export function slidingWindow(messages: ApiMessage[], fracToRemove?: number): ApiMessage[]
