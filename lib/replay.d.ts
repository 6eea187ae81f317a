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
   * is looked for (Anthropic's rule: 20); an entry further back is not found and is written again.
   * Not taken with the "openai" model. @default 20 */
  lookbackBlocks?: number
  /** How long a cache entry lives after its last read or write: "5m" (Anthropic's default cache;
   * OpenAI keeps a prefix 5 to 10 minutes) or "1h" (Anthropic's extended cache: with the
   * "anthropic" model and no `pricing.cacheWritesPrice` of yours, writes cost twice the input
   * price, its rate). Measured on the times the history records (`ts` on each message, as Roo Code
   * stores them: a request is sent when its last message was) when every request has one, in
   * order; else requests are taken to be 20 s apart (`settings.requestTimes` says which).
   * @default "5m" */
  cacheTtl?: '5m' | '1h'
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
  /** The summary calls' input, priced as the host sends it: nothing of it read from the cache
   * (another system prompt), all of it written to the cache on the "anthropic" model (the host puts
   * its breakpoints on that request too; a prompt under 1,024 tokens is not cached: plain input),
   * plain input on "openai". */
  summaryInputCost: number
  /** requestsCost + summaryInputCost. */
  billedInputCost: number
  /** The summary calls' output tokens at the output price. */
  summaryOutputCost: number
  /** summaryInputCost + summaryOutputCost. */
  summaryCost: number
  /** What the policy is billed for the task beyond the recorded replies' own output (the same
   * for every policy): requestsCost + summaryCost. */
  billedCost: number
  /** What the requests cost if each recorded message were written to the cache once and the system
   * prompt read on every later request: what no condensing of the history already sent can go
   * under (only an edit of a message before it is first sent can). */
  sendOnceCost: number
  /** A bound, not a target: the least any policy can be billed for the requests (summaries aside)
   * if it sends each recorded message as recorded and each request's last message again in the next
   * request: each recorded message sent once (at the cheaper of the input and cache-write prices),
   * each request's last message a second time (written and then read, or sent uncached twice,
   * whichever is cheaper), the system prompt on every request. Prices only; no cache rule. */
  floorCost: number
  /** A bound, not a target, from the cache model's own rules: the least any policy can be billed
   * for the requests (summaries aside) if it sends the messages each request adds as recorded and
   * keeps the first message and each request's last message into the next (as `floorCost`).
   * Each request reads the system prompt, the first message and the previous request's last
   * message (all written instead on the first request and after a pause longer than `cacheTtl`);
   * the messages it adds are new, so nothing of them is read: on "anthropic" those up to its last
   * user message sit before its last breakpoint and are written (1.25x), on "openai" they are
   * plain input. Not under `floorCost` when the system prompt and first message reach 1,024 tokens. */
  cacheFloorCost: number
  /** Calls to the summarizer (every purpose). */
  summaries: number
  summaryCalls: Record<string, number>
  summaryInputTokens: number
  summaryOutputTokens: number
  /** Of the summary calls' input, what was written to the cache ("anthropic"). */
  summaryCacheWriteTokens: number
  condensings: ReplayCondensing[]
  peakContext: number
  /** Requests the policy left past the allowed size (the host's sliding window then cut them). */
  requestsOverLimit: number
  /** Requests the policy left larger than the window: the prompt and the reserved answer
   * (`maxTokens`) together over `contextWindow`, which the API refuses (counted before the host's
   * sliding window; such a request is also counted in `requestsOverLimit`). */
  requestsOverWindow: number
  /** A bound on `requestsOverWindow`, the same for every policy: requests whose system prompt, first
   * message and last message (the one the request answers) with the reserved answer are larger than
   * the window, which no policy keeping those two messages whole can send within it. */
  requestsOverWindowUnavoidable: number
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
    cacheTtl: '5m' | '1h'
    /** "recorded": the requests' times are the history's; "spaced": 20 s apart (it records none). */
    requestTimes: 'recorded' | 'spaced'
    pricing: { inputPrice: number; outputPrice: number; cacheWritesPrice: number; cacheReadsPrice: number }
    allowedTokens: number
    summarizer: string
    expectedTurns?: number
  }
  timeMs: number
}

/** Replays a recorded history: one request per assistant turn, condensed by the policy through the manager. */
export function replay(history: ApiMessage[], options?: ReplayOptions): Promise<ReplayResult>
