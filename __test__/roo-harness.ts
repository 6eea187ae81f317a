// Shared by the Roo Code API suites (roo-*.test.ts): Roo's own test conversation, mocked handlers
// shaped like Roo's ApiHandler, and the inputs each test condenses, deep-compared after it (the
// afterEach below registers in every suite that imports this module).
import { afterEach, expect, vi } from 'vitest'

import { countTokens } from '../lib/index.js'
import {
  configure,
  type ApiMessage,
  type ApiRequestMessage,
  type ApiStreamChunk,
  type ContentBlock,
  type RooTelemetry,
  type TruncateOptions,
  type ApiHandler,
} from '../lib/roo-2025.js'
import * as today from '../lib/roo.js'
import * as jan2026 from '../lib/roo-2026-01.js'

// ---------------------------------------------------------------------------------------------
// Helpers.

export const FINAL_REQUEST = 'Summarize the conversation so far, as described in the prompt instructions.'
export const SUMMARY = 'This is a summary'
export const USAGE = { type: 'usage', inputTokens: 100, outputTokens: 50, totalCost: 0.05 } as const

/** Roo's own test conversation (src/core/condense/__tests__/index.spec.ts). */
export const conversation = (): ApiMessage[] => [
  { role: 'user', content: 'Hello', ts: 1 },
  { role: 'assistant', content: 'Hi there', ts: 2 },
  { role: 'user', content: 'How are you?', ts: 3 },
  { role: 'assistant', content: "I'm good", ts: 4 },
  { role: 'user', content: "What's new?", ts: 5 },
  { role: 'assistant', content: 'Not much', ts: 6 },
  { role: 'user', content: 'Tell me more', ts: 7 },
]

/** One token per character of text: figures a test can work out by hand. */
export const charCount = (blocks: ContentBlock[]) => blocks.reduce((n, b) => n + (b.type === 'text' && typeof b.text === 'string' ? b.text.length : 0), 0)
/** The engine's count, for the real histories. */
export const engineCount = (blocks: ContentBlock[]) => countTokens([{ role: 'user', content: blocks }])

export interface MockOptions {
  text?: string
  /** null: no usage chunk. */
  usage?: ApiStreamChunk | null
  chunks?: ApiStreamChunk[]
  /** Throw after yielding this many chunks. */
  failAfter?: number
  count?: (blocks: ContentBlock[]) => number
  /** Wait this long before the first chunk. */
  delayMs?: number
}

/** A mocked Roo ApiHandler: createMessage returns an async generator of chunks; countTokens is async. */
export function mockHandler(o: MockOptions = {}) {
  const chunks: ApiStreamChunk[] = o.chunks ?? [{ type: 'text', text: o.text ?? SUMMARY }, ...(o.usage === null ? [] : [o.usage ?? USAGE])]
  const finished = { value: false }
  const createMessage = vi.fn((_systemPrompt: string, _messages: ApiRequestMessage[]) =>
    (async function* () {
      try {
        if (o.delayMs) await new Promise((r) => setTimeout(r, o.delayMs))
        for (let i = 0; i < chunks.length; i++) {
          if (o.failAfter === i) throw new Error('stream broke')
          yield chunks[i]
        }
        if (o.failAfter === chunks.length) throw new Error('stream broke')
      } finally {
        finished.value = true
      }
    })(),
  )
  const countTokens = vi.fn(async (blocks: ContentBlock[]) => (o.count ?? charCount)(blocks))
  return { createMessage, countTokens, finished }
}

/** Inputs a test condenses: each is deep-compared with its copy after the test. */
const guarded: Array<{ value: unknown; copy: unknown }> = []
export function guard<T>(value: T): T {
  guarded.push({ value, copy: structuredClone(value) })
  return value
}

afterEach(() => {
  vi.restoreAllMocks()
  configure()
  today.configure()
  jan2026.configure()
  const list = guarded.splice(0)
  for (const { value, copy } of list) expect(value).toStrictEqual(copy)
})

export const roleContent = (ms: ApiMessage[]) => ms.map(({ role, content }) => ({ role, content }))
export const quiet = () => ({ warn: vi.spyOn(console, 'warn').mockImplementation(() => {}), error: vi.spyOn(console, 'error').mockImplementation(() => {}) })

export function telemetry() {
  return { captureContextCondensed: vi.fn(), captureSlidingWindowTruncation: vi.fn() } satisfies RooTelemetry
}

/** truncateConversationIfNeeded's options: a 100,000-token window, 10,000 reserved (allowed 80,000). */
/** The options of a context-management call every era takes (without an era's own summarizeConversation seam). */
export function tcinOptions(over: Partial<Omit<TruncateOptions, 'summarizeConversation'>> = {}): Omit<TruncateOptions, 'summarizeConversation'> {
  return {
    messages: guard(conversation()),
    totalTokens: 1000,
    contextWindow: 100_000,
    maxTokens: 10_000,
    apiHandler: mockHandler(),
    autoCondenseContext: true,
    autoCondenseContextPercent: 100,
    systemPrompt: 'SYSTEM',
    taskId: 'task-1',
    profileThresholds: {},
    currentProfileId: 'default',
    ...over,
  }
}

/** Today's handler mock: createMessage takes (systemPrompt, messages, metadata). */
export function todayHandler(o: MockOptions = {}) {
  return mockHandler(o) as unknown as ReturnType<typeof mockHandler> & ApiHandler
}
