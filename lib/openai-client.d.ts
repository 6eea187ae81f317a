// Types of lib/openai-client.js: a summarize callback backed by an OpenAI-compatible endpoint.
import type { SummarizeRequest } from './index'

export interface OpenAISummarizerOptions {
  /** The endpoint's base URL (`http://127.0.0.1:11434/v1` for Ollama, `http://127.0.0.1:8080/v1`
   * for llama.cpp, `https://api.openai.com/v1`) or its full `…/chat/completions` URL. */
  url: string
  /** The model to ask; most servers need it (llama.cpp serves one model and ignores it). */
  model?: string
  /** Sent as `Authorization: Bearer <apiKey>`. */
  apiKey?: string
  /** Ask for server-sent events (`stream: true`, with `stream_options.include_usage`). @default false */
  stream?: boolean
  /** Per request, body included, whole milliseconds up to 2147483647 (the longest a Node.js timer
   * waits); 0: none (the library's `summarizeOptions.timeoutMs` still applies). @default 120000 */
  timeoutMs?: number
  /** Added to each request's headers. */
  headers?: Record<string, string>
  /** Merged into each request body, e.g. `{ temperature: 0 }`; with `max_completion_tokens` in it,
   * `max_tokens` is not sent. */
  body?: Record<string, unknown>
}

/** What the summarizer answers: the library's SummarizeReply, with what the server said. */
export interface OpenAISummary {
  text: string
  /** `usage.prompt_tokens` (cached tokens included: price with `pricing.accounting: "openai"`). */
  inputTokens?: number
  /** `usage.completion_tokens`. */
  outputTokens?: number
  /** `usage.prompt_tokens_details.cached_tokens`. */
  cacheReadTokens?: number
  model?: string
  /** `"stop"`, or `"length"` when the summary was cut at `max_tokens`. */
  finishReason?: string
}

export interface OpenAISummarizer {
  (request: SummarizeRequest, context?: { signal?: AbortSignal }): Promise<OpenAISummary>
  /** The chat-completions URL requests go to. */
  readonly endpoint: string
}

/** A summarize callback for `condense` and the manager. It rejects with an OpenAIClientError
 * (or the signal's reason when the library aborts it). */
export function createOpenAISummarizer(options: OpenAISummarizerOptions): OpenAISummarizer

/** The chat-completions URL for a base URL or the full one. */
export function chatCompletionsUrl(url: string): string

export class OpenAIClientError extends Error {
  name: 'OpenAIClientError'
  code: 'http' | 'unreachable' | 'timeout' | 'bad_reply' | 'empty_reply'
  /** The HTTP status, for `code: "http"`. */
  status?: number
}
