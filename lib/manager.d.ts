// Types of lib/manager.js: the condensation manager (when to condense, fallbacks, loop and growth
// guards; its decisions are the engine's, src/manager/). Re-exported by lib/index.d.ts.
import type { ApiMessage, CondenseMetrics, CondenseOptions, Pricing, SummarizeCallback, countTokens } from './index'

export const MIN_CONDENSE_THRESHOLD: 5
export const MAX_CONDENSE_THRESHOLD: 100
export const TOKEN_BUFFER_PERCENTAGE: 0.1
/** Reserved for the model's answer when the host gives no `maxTokens`. */
export const DEFAULT_MAX_TOKENS: 8192

export interface Triggers {
  /** Condense when the context reaches this % of the window (5..100). */
  triggerPercent?: number
  /** Aim for this % of the window (Truncation and Smart take it as `targetTokens`). */
  stopPercent?: number
  /** Skip a condensation that saves fewer tokens (keeps the host's prompt cache). */
  minGainTokens?: number
  /** Skip a condensation that saves less than this % of the context. */
  minGainPercent?: number
}

export interface ManagerConfig {
  /** @default "native" */
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
  loopGuard?: { maxAttempts?: number; coolDownMs?: number }
  condensingProfileId?: string
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
  attempts: Array<{ provider: string; error?: string; skipped?: string; tokensSaved?: number }>
  /** Why nothing was done: the decision's reason, or "min-gain". */
  skipped?: string
  error?: string
  report?: string
  metrics?: CondenseMetrics
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
}

export class CondensationManager {
  constructor(options?: {
    config?: ManagerConfig
    summarize?: SummarizeCallback
    summarizeOptions?: CondenseOptions['summarizeOptions']
    telemetry?: { captureContextCondensed?(taskId: string, isAutomaticTrigger: boolean, usedCustomPrompt: boolean, usedCustomApiHandler: boolean): void; captureSlidingWindowTruncation?(taskId: string): void }
    now?: () => number
    /** How many tasks' histories are kept in the engine between calls, keyed by
     * `context.taskId` (a call on the same task again crosses only what changed); 0 keeps none. @default 4 */
    conversations?: number
  })
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
  /** Lets go of the histories kept for tasks: one task's, or all. */
  closeConversations(taskId?: string): Promise<void>
}

/** The JSON Schema of the manager config, for settings UIs. */
export function managerConfigSchema(): Record<string, unknown>

/** Roo Code's sliding window: the first message, then all but an even number of the oldest others. */
export function slidingWindow(messages: ApiMessage[], fracToRemove?: number): ApiMessage[]
