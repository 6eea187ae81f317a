// Types of lib/openai-format.js: OpenAI chat-completions histories and their conversion.
import type { ApiMessage, CondenseResult } from './index'

/** A content part of an OpenAI chat message. Unknown part types pass through untouched. */
export type OpenAIContentPart =
  | { type: 'text'; text: string; [key: string]: unknown }
  | { type: 'image_url'; image_url: { url: string; detail?: string; [key: string]: unknown }; [key: string]: unknown }
  | { type: 'refusal'; refusal: string; [key: string]: unknown }
  | { type: string; [key: string]: unknown }

export interface OpenAIToolCall {
  id: string
  type: 'function' | string
  function: { name: string; /** JSON text, as the model wrote it. */ arguments: string; [key: string]: unknown }
  [key: string]: unknown
}

/** A message of an OpenAI chat-completions history. Keys beside these are kept. */
export type OpenAIMessage =
  | { role: 'system' | 'developer'; content: string | OpenAIContentPart[]; name?: string; [key: string]: unknown }
  | { role: 'user'; content: string | OpenAIContentPart[]; name?: string; [key: string]: unknown }
  | {
      role: 'assistant'
      content?: string | OpenAIContentPart[] | null
      tool_calls?: OpenAIToolCall[]
      refusal?: string | null
      name?: string
      [key: string]: unknown
    }
  | { role: 'tool'; tool_call_id: string; content: string | OpenAIContentPart[]; [key: string]: unknown }
  | { role: 'function'; name: string; content: string | null; [key: string]: unknown }

export type HistoryFormat = 'openai' | 'anthropic'

/** "openai" when a message has a role (`system`, `developer`, `tool`, `function`), key (`tool_calls`,
 * `tool_call_id`, `function_call`, `content: null`) or content part (`image_url`, `input_audio`,
 * `file`, `refusal`) only OpenAI's format has; otherwise "anthropic". */
export function detectFormat(messages: unknown): HistoryFormat

export interface OpenAIConversion {
  /** The history in Anthropic form: system/developer messages set aside, each run of `tool`
   * messages one user message of tool_result blocks, tool_calls as tool_use blocks. */
  messages: ApiMessage[]
  /** The system and developer messages set aside, in order. */
  system: OpenAIMessage[]
  /** The way back, for the converted messages or a condensation of them: messages nothing changed
   * are the caller's own objects, so a history with nothing condensed comes back exactly. */
  restore(condensed: ApiMessage[]): OpenAIMessage[]
  /** Rewrites every `messages[n].content[k]…` path of the converted history in a text (an error,
   * a repair) as the place in the OpenAI history. */
  locate(text: string): string
  /** A condense result on the converted messages, as the OpenAI history's (`format: "openai"`). */
  finish(result: CondenseResult): CondenseResult<OpenAIMessage>
}

/** Converts an OpenAI chat history to the Anthropic form the engine condenses. */
export function toAnthropic(messages: OpenAIMessage[]): OpenAIConversion

/** An Anthropic (Roo Code) history as OpenAI chat messages. Keys of messages are kept; thinking
 * blocks, `is_error` and keys of blocks have no place in OpenAI's format and are dropped. */
export function fromAnthropic(messages: ApiMessage[]): OpenAIMessage[]
