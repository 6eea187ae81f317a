// Types of lib/replay/: replaying a recorded task request by request under a context window and a
// condensing policy, priced with a prompt-cache model. Re-exported by lib/index.d.ts.
import type { ApiMessage, SummarizeCallback } from './index'

/** The policies a replay compares (`options.policy`). */
export type ReplayPolicyName =
  | 'roo-default'
  | 'lossless-then-summary'
  | 'lossless-every-turn'
  | 'smart-conservative'
  | 'smart-balanced'
  | 'smart-aggressive'
  | 'smart-speed'
  | 'smart-quality'
  | 'smart-cost'
  | 'cache-aware'
  | 'cache-aware-strict'

/** Every policy `replay` takes, by name (frozen: shared by every caller). */
export const REPLAY_POLICIES: readonly ReplayPolicyName[]

export interface ReplayOptions {
  /** @default "roo-default" */
  policy?: ReplayPolicyName
  /** The model's context window in tokens. @default 200000 */
  contextWindow?: number
  /** Condense at this % of the window (5..100); 100 condenses at the allowed size (90% of the window less `maxTokens`). @default 100 */
  threshold?: number
  /** Reserved for the model's answer. @default 8192 */
  maxTokens?: number
  /** The system prompt's size in tokens (sent with every request, cached). @default 10000 */
  systemTokens?: number
  /** The stand-in summarizer's summary size in tokens (never more than half of what it summarizes). @default 2000 */
  summaryTokens?: number
  /** The prompt-cache model. @default "anthropic" */
  cache?: 'anthropic' | 'openai'
  /** Dollars per million tokens. Defaults: Claude Sonnet's list prices for "anthropic", GPT-4o's for
   * "openai" (the engine's price table; the result's `settings.pricing` shows the prices used); an input
   * price alone scales the others with it. */
  pricing?: { inputPrice?: number; outputPrice?: number; cacheWritesPrice?: number; cacheReadsPrice?: number }
  /** Summaries by a real model: an OpenAI-compatible endpoint (lib/openai-client.js). */
  llmUrl?: string
  model?: string
  apiKey?: string
  /** Summaries by your own callback instead of the stand-in. */
  summarize?: SummarizeCallback
  /** The task's length in requests, for the cache-aware policy (default: as many as have elapsed). */
  expectedTurns?: number
  /** Anthropic model: how many content blocks before one of a request's breakpoints a cache entry
   * is looked for (Anthropic's documentation says about 20); default: any entry still valid. */
  lookbackBlocks?: number
  /** The working set: files read, written or edited in this many last requests. @default 10 */
  workingSetTurns?: number
  signal?: AbortSignal
}

export interface ReplayCondensing {
  /** The request it happened before (0-based). */
  turn: number
  /** The policy's role that asked ("host" for the sliding window applied past the allowed size). */
  role: string
  provider: string
  tokensBefore: number
  tokensAfter: number
  /** The first message of the running history it changed: the cache is read up to it at most. */
  firstChanged: number
}

export interface ReplayRequest {
  turn: number
  /** Prompt tokens, the system prompt included. */
  tokens: number
  cachedRead: number
  cacheWrite: number
  uncached: number
  /** Dollars. */
  cost: number
  /** The first message not the same as in the previous request. */
  firstChanged: number
}

export interface ReplayCheck {
  total: number
  kept: number
  missing: Array<{ message: number; path?: string; text: string }>
}

export interface ReplayResult {
  policy: ReplayPolicyName
  description: string
  requests: number
  /** Prompt tokens over all requests. */
  inputTokens: number
  cachedReadTokens: number
  cacheWriteTokens: number
  uncachedTokens: number
  /** cachedReadTokens / inputTokens. */
  cacheHitRate: number
  /** The requests' input, priced by the cache model. */
  requestsCost: number
  /** The summary calls' input (not read from the cache: another system prompt). */
  summaryInputCost: number
  /** requestsCost + summaryInputCost. */
  billedInputCost: number
  summaryOutputCost: number
  /** What the requests cost if each recorded message were written to the cache once and the system
   * prompt read on every later request: what no condensing of the history already sent can go
   * under (only an edit of a message before it is first sent can). */
  sendOnceCost: number
  /** The least any policy can be billed for the requests (summaries aside) if it keeps each
   * request's last three messages unchanged into the next request, as every policy here does:
   * each recorded message sent once (at the cheaper of the input and cache-write prices), each
   * request's last message a second time (it is among the next request's last three; written and
   * then read, or sent uncached twice, whichever is cheaper), the system prompt on every request. */
  floorCost: number
  /** Calls to the summarizer (every purpose). */
  summaries: number
  summaryCalls: Record<string, number>
  summaryInputTokens: number
  summaryOutputTokens: number
  condensings: ReplayCondensing[]
  peakContext: number
  /** Requests the policy left past the allowed size (the host's sliding window then cut them). */
  requestsOverLimit: number
  /** Kept verbatim in the final context, of what the recorded task holds. */
  checks: { typed: ReplayCheck; errors: ReplayCheck; workingSet: ReplayCheck }
  perRequest: ReplayRequest[]
  /** The running history at the last request: what the model saw last (recorded messages are shared, never changed). */
  messages: ApiMessage[]
  settings: {
    contextWindow: number
    threshold: number
    maxTokens: number
    systemTokens: number
    summaryTokens: number
    cache: 'anthropic' | 'openai'
    lookbackBlocks?: number
    pricing: { inputPrice: number; outputPrice: number; cacheWritesPrice: number; cacheReadsPrice: number }
    allowedTokens: number
    summarizer: string
    expectedTurns?: number
  }
  timeMs: number
}

/** Replays a recorded history: one request per assistant turn, condensed by the policy through the manager. */
export function replay(history: ApiMessage[], options?: ReplayOptions): Promise<ReplayResult>
