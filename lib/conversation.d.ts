import type { Analysis, ApiMessage, CondenseOptions, CondenseResult, Encoding } from './index'

export interface OpenConversationOptions {
  /** The encoding the conversation counts in; `DefaultEncoding` when not given. */
  encoding?: Encoding
  /** Stops the hand-over of a large history; the call then rejects with the signal's reason. */
  signal?: AbortSignal
}

/** The options of `Conversation.condense`: those of `condense`, without `format` and `repair`. */
type WithoutKeys<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never

export type ConversationCondenseOptions = WithoutKeys<CondenseOptions, 'format' | 'repair'> & {
  /** Whether the conversation takes on the result (holds the condensed messages). With false, it
   * keeps what it held and `adopt(result)` takes the result on later. @default true */
  adopt?: boolean
}

export interface ConversationCondenseResult extends CondenseResult {
  /** Indexes of `messages` that are new objects (edited or written), once adopted; [] otherwise. */
  changed: number[]
  /** Once adopted, per message of `messages`, its index in the conversation before (-1 for a written
   * one); null when every message kept its place. */
  layout: number[] | null
}

/**
 * A history held in the engine between calls: the next call pays for what changed (appended,
 * replaced or cut messages), not for the whole history again. Made by `openConversation`.
 */
export declare class Conversation {
  private constructor()
  /** How many messages are held. */
  readonly length: number
  /** The messages held (the host's own objects; condensed ones are new objects), in a new array. */
  readonly messages: ApiMessage[]
  readonly encoding: Encoding
  /**
   * Tokens of the messages held. What is not counted yet (appended, replaced or condensed since the
   * last count) is counted here, on the calling thread; `count()` counts it off the thread.
   */
  readonly tokens: number
  /** Whether `close` was called. */
  readonly closed: boolean
  /**
   * Tokens of the messages held, counting what is not counted yet off the JavaScript thread (the
   * engine's thread pool), so the event loop stays free whatever was appended. Once it resolves,
   * `tokens` and `tokensOf` answer without counting until the conversation changes. While it runs
   * the conversation is busy (changes throw; a second call shares it).
   */
  count(): Promise<number>
  /** Tokens of the message at `index` (counted here if it is not yet, as `tokens` does). */
  tokensOf(index: number): number
  /**
   * Adds messages at the end; answers the new length. A string longer than 65,536 UTF-16 units
   * reaches the engine when the messages are next read there: in parts through the scheduler by
   * `count`, `condense` and `analyze`, at once by `tokens`, `tokensOf`, `append`, `replace` and
   * `truncate`.
   */
  append(messages: ApiMessage[]): number
  /** Replaces the message at `index` (an edit the host made). */
  replace(index: number, message: ApiMessage): void
  /** Keeps the first `length` messages (a rewind). */
  truncate(length: number): void
  /** Makes the conversation hold `messages`: the same objects, unchanged in shape, are kept; from
   * the first that differs, the rest is taken again. */
  sync(messages: ApiMessage[]): { kept: number; taken: number }
  /** What fills the context of the messages held, off the JavaScript thread. */
  analyze(): Promise<Analysis>
  /** Condenses the messages held; afterwards the conversation holds the result (see `adopt`). */
  condense(options: ConversationCondenseOptions): Promise<ConversationCondenseResult>
  /** Takes on the result of the last `condense` made with `adopt: false`, when nothing changed since
   * (a condense refused before it started, for its options or by an abort, changes nothing). Answers
   * `changed` and `layout` as an adopting `condense` gives them, also written into `result` unless it is frozen. */
  adopt(result: ConversationCondenseResult): Pick<ConversationCondenseResult, 'changed' | 'layout'>
  /**
   * Lets go of what the engine holds; later calls throw (errorCode "invalid-state"). A condense
   * running on it is stopped and rejects with an AbortError (errorCode "closed"), as does an
   * analysis running on it; the engine's copy is freed at once, or as soon as that call has ended.
   */
  close(): void
}

/** Hands `messages` to the engine once, counted, and answers a `Conversation` holding them. */
export function openConversation(messages: ApiMessage[], options?: OpenConversationOptions): Promise<Conversation>
