// Roo Code's condensing API over the engine, by era, without Roo's repository: the 2025 entry
// (summarizeConversation, truncateConversationIfNeeded, truncateConversation,
// getMessagesSinceLastSummary, estimateTokenCount, the constants, Roo's strings and log lines,
// telemetry, handler fallback, thresholds), January 2026's (kept tool_use blocks, manageContext),
// today's (fresh-start summaries, manageContext, the helpers, folded file context), then this
// package's extras (a provider run first, non-destructive mode, abort, configure(), a run on each
// of the real histories) and the bounds on host calls and numbers. Handlers are mocks shaped like
// Roo's ApiHandler; inputs are deep-compared after every call.
import { createRequire } from 'node:module'
import { afterEach, describe, expect, it, vi } from 'vitest'

import {
  condense,
  countTokens,
  DEFAULT_MAX_TOKENS,
  MAX_CONDENSE_THRESHOLD as ENGINE_MAX,
  MIN_CONDENSE_THRESHOLD as ENGINE_MIN,
  slidingWindow,
  TOKEN_BUFFER_PERCENTAGE as ENGINE_BUFFER,
  validateConversation,
} from '../lib/index.js'
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  cleanupAfterTruncation,
  configure,
  estimateTokenCount,
  getEffectiveApiHistory,
  getMessagesSinceLastSummary,
  MAX_CONDENSE_THRESHOLD,
  MIN_CONDENSE_THRESHOLD,
  N_MESSAGES_TO_KEEP,
  rewindConversation,
  ROO_ERROR_MESSAGES,
  summarizeConversation,
  TOKEN_BUFFER_PERCENTAGE,
  truncateConversation,
  truncateConversationIfNeeded,
  type ApiHandler,
  type ApiMessage,
  type ApiRequestMessage,
  type ApiStreamChunk,
  type ContentBlock,
  type RooTelemetry,
  type SummarizeResponse,
  type TruncateOptions,
  type TruncateResponse,
} from '../lib/roo-2025.js'
import * as today from '../lib/roo.js'
import * as jan2026 from '../lib/roo-2026-01.js'
import { FIXTURES, loadFixture, itReal } from './helpers.js'

// ---------------------------------------------------------------------------------------------
// Helpers.

const FINAL_REQUEST = 'Summarize the conversation so far, as described in the prompt instructions.'
const SUMMARY = 'This is a summary'
const USAGE = { type: 'usage', inputTokens: 100, outputTokens: 50, totalCost: 0.05 } as const

/** Roo's own test conversation (src/core/condense/__tests__/index.spec.ts). */
const conversation = (): ApiMessage[] => [
  { role: 'user', content: 'Hello', ts: 1 },
  { role: 'assistant', content: 'Hi there', ts: 2 },
  { role: 'user', content: 'How are you?', ts: 3 },
  { role: 'assistant', content: "I'm good", ts: 4 },
  { role: 'user', content: "What's new?", ts: 5 },
  { role: 'assistant', content: 'Not much', ts: 6 },
  { role: 'user', content: 'Tell me more', ts: 7 },
]

/** One token per character of text: figures a test can work out by hand. */
const charCount = (blocks: ContentBlock[]) => blocks.reduce((n, b) => n + (b.type === 'text' && typeof b.text === 'string' ? b.text.length : 0), 0)
/** The engine's count, for the real histories. */
const engineCount = (blocks: ContentBlock[]) => countTokens([{ role: 'user', content: blocks }])

interface MockOptions {
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
function mockHandler(o: MockOptions = {}) {
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
function guard<T>(value: T): T {
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

const roleContent = (ms: ApiMessage[]) => ms.map(({ role, content }) => ({ role, content }))
const quiet = () => ({ warn: vi.spyOn(console, 'warn').mockImplementation(() => {}), error: vi.spyOn(console, 'error').mockImplementation(() => {}) })

function telemetry() {
  return { captureContextCondensed: vi.fn(), captureSlidingWindowTruncation: vi.fn() } satisfies RooTelemetry
}

/** truncateConversationIfNeeded's options: a 100,000-token window, 10,000 reserved (allowed 80,000). */
function tcinOptions(over: Partial<TruncateOptions> = {}): TruncateOptions {
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

// ---------------------------------------------------------------------------------------------

describe('constants', () => {
  it("are Roo's values, and the engine's manager agrees", () => {
    expect(N_MESSAGES_TO_KEEP).toBe(3)
    expect(MIN_CONDENSE_THRESHOLD).toBe(5)
    expect(MAX_CONDENSE_THRESHOLD).toBe(100)
    expect(TOKEN_BUFFER_PERCENTAGE).toBe(0.1)
    expect(ANTHROPIC_DEFAULT_MAX_TOKENS).toBe(8192)
    expect([ENGINE_MIN, ENGINE_MAX, ENGINE_BUFFER, DEFAULT_MAX_TOKENS]).toEqual([
      MIN_CONDENSE_THRESHOLD,
      MAX_CONDENSE_THRESHOLD,
      TOKEN_BUFFER_PERCENTAGE,
      ANTHROPIC_DEFAULT_MAX_TOKENS,
    ])
    expect(ROO_ERROR_MESSAGES).toEqual({
      condense_failed: 'Failed to condense context',
      condense_not_enough_messages: 'Not enough messages to condense context',
      condensed_recently: 'Context was condensed recently; skipping this attempt',
      condense_handler_invalid: 'API handler for condensing context is invalid',
      condense_context_grew: 'Context size increased during condensing; skipping this attempt',
      condense_api_failed: 'Condensing API call failed: {{message}}',
      condense_aborted: 'Context condensing was aborted',
      condense_timeout: 'Context condensing timed out: {{message}}',
    })
    expect(Object.isFrozen(ROO_ERROR_MESSAGES)).toBe(true)
  })
})

describe('the module', () => {
  it('exports what lib/roo.d.ts, lib/roo-2026-01.d.ts and lib/roo-2025.d.ts declare, nothing more', () => {
    const common = [
      'ANTHROPIC_DEFAULT_MAX_TOKENS',
      'MAX_CONDENSE_THRESHOLD',
      'MIN_CONDENSE_THRESHOLD',
      'N_MESSAGES_TO_KEEP',
      'ROO_ERROR_MESSAGES',
      'TOKEN_BUFFER_PERCENTAGE',
      'cleanupAfterTruncation',
      'configuration',
      'configure',
      'estimateTokenCount',
      'getEffectiveApiHistory',
      'getMessagesSinceLastSummary',
      'rewindConversation',
      'summarizeConversation',
      'truncateConversation',
    ]
    const today = [
      'convertToolBlocksToText',
      'extractCommandBlocks',
      'generateFoldedFileContext',
      'injectSyntheticToolResults',
      'manageContext',
      'toolResultToText',
      'toolUseToText',
      'transformMessagesForCondensing',
      'willManageContext',
    ]
    const load = createRequire(__filename)
    expect(Object.keys(load('../lib/roo-2025.js')).sort()).toEqual([...common, 'truncateConversationIfNeeded'].sort())
    expect(Object.keys(load('../lib/roo-2026-01.js')).sort()).toEqual([...common, 'getKeepMessagesWithToolBlocks', 'manageContext', 'willManageContext'].sort())
    expect(Object.keys(load('../lib/roo.js')).sort()).toEqual([...common, ...today].sort())
  })
})

describe('getMessagesSinceLastSummary', () => {
  it('returns the array itself when there is no summary', () => {
    const messages = guard(conversation())
    expect(getMessagesSinceLastSummary(messages)).toBe(messages)
  })

  it("starts at the last summary, after the task's original first message (Roo's fix #7939)", () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Hello', ts: 1 },
      { role: 'assistant', content: 'First summary', ts: 2, isSummary: true },
      { role: 'user', content: 'How are you?', ts: 3 },
      { role: 'assistant', content: 'Second summary', ts: 4, isSummary: true },
      { role: 'user', content: "What's new?", ts: 5 },
    ])
    const since = getMessagesSinceLastSummary(messages)
    expect(since).toEqual([
      { role: 'user', content: 'Hello', ts: 1 },
      { role: 'assistant', content: 'Second summary', ts: 4, isSummary: true },
      { role: 'user', content: "What's new?", ts: 5 },
    ])
    expect(since[0]).toBe(messages[0])
    expect(since[1]).toBe(messages[3])
    expect(since[2]).toBe(messages[4])
    // A second condensing keeps the task's own words: they are what the model is asked to summarize.
  })

  it('uses the "Please continue" stand-in (ts: first ts - 1) only when the first message is not the user\'s', () => {
    const messages = guard<ApiMessage[]>([
      { role: 'assistant', content: 'Greeting', ts: 1 },
      { role: 'assistant', content: 'Summary', ts: 4, isSummary: true },
      { role: 'user', content: 'Next', ts: 5 },
    ])
    expect(getMessagesSinceLastSummary(messages)).toEqual([
      { role: 'user', content: 'Please continue from the following summary:', ts: 0 },
      messages[1],
      messages[2],
    ])
  })

  it("puts no bridge before a user summary (newer Roo's shape), and uses now without a first ts", () => {
    const userSummary = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 10 },
      { role: 'assistant', content: 'Working', ts: 11 },
      { role: 'user', content: 'Summary', ts: 12, isSummary: true },
      { role: 'assistant', content: 'Go on', ts: 13 },
    ])
    expect(getMessagesSinceLastSummary(userSummary)).toEqual(userSummary.slice(2))
    vi.spyOn(Date, 'now').mockReturnValue(1_234_567)
    const noTs = guard<ApiMessage[]>([
      { role: 'assistant', content: 'Task' },
      { role: 'assistant', content: 'Summary', isSummary: true },
    ])
    expect(getMessagesSinceLastSummary(noTs)[0]).toEqual({ role: 'user', content: 'Please continue from the following summary:', ts: 1_234_567 })
  })
})

describe('summarizeConversation', () => {
  it('keeps the first and the last N_MESSAGES_TO_KEEP, inserts the summary, reports cost and newContextTokens', async () => {
    const messages = guard(conversation())
    const handler = mockHandler()
    const r = await summarizeConversation(messages, handler, 'SYSTEM', 'task-1', 10_000)
    expect(r.error).toBeUndefined()
    expect(r.messages).toHaveLength(1 + 1 + N_MESSAGES_TO_KEEP)
    expect(r.messages[0]).toBe(messages[0])
    expect(r.messages.slice(2)).toEqual(messages.slice(-3))
    r.messages.slice(2).forEach((m, i) => expect(m).toBe(messages[4 + i]))
    // Roo's summary message: an assistant message with the first kept message's ts.
    expect(r.messages[1]).toStrictEqual({ role: 'assistant', content: SUMMARY, ts: 5, isSummary: true })
    expect(r.summary).toBe(SUMMARY)
    expect(r.cost).toBe(0.05)
    // Roo's SummarizeResponse, nothing more (a first step adds `provider`).
    expect(Object.keys(r).sort()).toEqual(['cost', 'messages', 'newContextTokens', 'summary'])
    // outputTokens (50) + the main handler's count of [system prompt, ...kept]: 6 + 11 + 8 + 12.
    expect(r.newContextTokens).toBe(87)
    expect(handler.countTokens).toHaveBeenCalledWith([
      { type: 'text', text: 'SYSTEM' },
      { type: 'text', text: "What's new?" },
      { type: 'text', text: 'Not much' },
      { type: 'text', text: 'Tell me more' },
    ])
    // One request: what lies before the kept messages, then Roo's final request.
    expect(handler.createMessage).toHaveBeenCalledTimes(1)
    expect(handler.createMessage.mock.calls[0][1]).toEqual([
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi there' },
      { role: 'user', content: 'How are you?' },
      { role: 'assistant', content: "I'm good" },
      { role: 'user', content: FINAL_REQUEST },
    ])
  })

  it('without output tokens, counts the summary message itself (and costs 0 without usage)', async () => {
    const handler = mockHandler({ usage: null })
    const r = await summarizeConversation(guard(conversation()), handler, 'SYSTEM', 'task-1', 10_000)
    expect(r.cost).toBe(0)
    expect(r.newContextTokens).toBe(6 + SUMMARY.length + 11 + 8 + 12)
    expect(handler.countTokens.mock.calls[0][0]).toContainEqual({ type: 'text', text: SUMMARY })
  })

  it('takes the last usage chunk, and prices tokens with options.pricing when it has no totalCost', async () => {
    const twice = mockHandler({
      chunks: [
        { type: 'text', text: SUMMARY },
        { type: 'usage', inputTokens: 1, outputTokens: 1, totalCost: 9 },
        { type: 'usage', inputTokens: 100, outputTokens: 20, totalCost: 0.02 },
      ],
    })
    const r1 = await summarizeConversation(guard(conversation()), twice, 'SYSTEM', 't', 10_000)
    expect(r1.cost).toBe(0.02)
    expect(r1.newContextTokens).toBe(20 + 37)
    const priced = mockHandler({ usage: { type: 'usage', inputTokens: 1000, outputTokens: 100 } })
    const r2 = await summarizeConversation(guard(conversation()), priced, 'SYSTEM', 't', 10_000, false, undefined, undefined, {
      pricing: { inputPrice: 3, outputPrice: 15 },
    })
    expect(r2.cost).toBeCloseTo((3 * 1000 + 15 * 100) / 1_000_000, 12)
  })

  it('answers "not enough messages" with the messages unchanged and no model call', async () => {
    for (const n of [0, 1, 2, 3, 4]) {
      const messages = guard(conversation().slice(0, n))
      const handler = mockHandler()
      const r = await summarizeConversation(messages, handler, 'SYSTEM', 't', 10_000)
      expect(r).toStrictEqual({ messages, cost: 0, summary: '', error: 'Not enough messages to condense context' })
      expect(r.messages).toBe(messages)
      expect(handler.createMessage).not.toHaveBeenCalled()
    }
    // Five messages leave two to summarize: enough (with a summary shorter than the one it replaces: the first stays).
    const five = await summarizeConversation(guard(conversation().slice(0, 5)), mockHandler({ text: 'Ok' }), 'SYSTEM', 't', 10_000)
    expect(five.error).toBeUndefined()
    expect(five.messages.map((m) => m.content)).toEqual(['Hello', 'Ok', 'How are you?', "I'm good", "What's new?"])
  })

  it('answers "condensed recently" when a summary is among the kept messages', async () => {
    for (const at of [4, 5, 6]) {
      const messages = guard(conversation().map((m, i) => (i === at ? { ...m, isSummary: true } : m)))
      const handler = mockHandler()
      const r = await summarizeConversation(messages, handler, 'SYSTEM', 't', 10_000)
      expect(r).toStrictEqual({ messages, cost: 0, summary: '', error: 'Context was condensed recently; skipping this attempt' })
      expect(handler.createMessage).not.toHaveBeenCalled()
    }
  })

  it('summarizes from the last summary on: the first message, that summary, what follows; older messages go', async () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1 },
      { role: 'assistant', content: 'Old work', ts: 2 },
      { role: 'assistant', content: 'Old summary', ts: 3, isSummary: true },
      { role: 'user', content: 'Step one', ts: 4 },
      { role: 'assistant', content: 'Did step one', ts: 5 },
      { role: 'user', content: 'Step two', ts: 6 },
      { role: 'assistant', content: 'Did step two', ts: 7 },
      { role: 'user', content: 'Step three', ts: 8 },
    ])
    const handler = mockHandler({ text: 'New summary' })
    const r = await summarizeConversation(messages, handler, 'SYSTEM', 't', 10_000)
    expect(handler.createMessage.mock.calls[0][1]).toEqual([
      { role: 'user', content: 'Task' },
      { role: 'assistant', content: 'Old summary' },
      { role: 'user', content: 'Step one' },
      { role: 'assistant', content: 'Did step one' },
      { role: 'user', content: FINAL_REQUEST },
    ])
    expect(r.messages).toEqual([messages[0], { role: 'assistant', content: 'New summary', ts: 6, isSummary: true }, ...messages.slice(5)])
  })

  it('an empty summary is an error; the messages are unchanged and the call is still paid for', async () => {
    const messages = guard(conversation())
    const r = await summarizeConversation(messages, mockHandler({ text: '  \n ' }), 'SYSTEM', 't', 10_000)
    expect(r).toStrictEqual({ messages, cost: 0.05, summary: '', error: 'Failed to condense context' })
    expect(r.messages).toBe(messages)
  })

  it('a stream that fails (before or after its text, or createMessage throwing) is an error, not a throw', async () => {
    for (const failAfter of [0, 1]) {
      const messages = guard(conversation())
      const handler = mockHandler({ failAfter })
      const r = await summarizeConversation(messages, handler, 'SYSTEM', 't', 10_000)
      expect(r.messages).toBe(messages)
      expect(r.summary).toBe('')
      expect(r.cost).toBe(0)
      expect(r.error).toBe('Failed to condense context: the API handler failed: stream broke')
      // Roo never retries a summary.
      expect(handler.createMessage).toHaveBeenCalledTimes(1)
    }
    const throwing = {
      createMessage: vi.fn(() => {
        throw new Error('no credits')
      }),
      countTokens: async () => 1,
    } as unknown as ApiHandler
    const r = await summarizeConversation(guard(conversation()), throwing, 'SYSTEM', 't', 10_000)
    expect(r.error).toBe('Failed to condense context: the API handler failed: no credits')
    const notAStream = { createMessage: () => 42, countTokens: async () => 1 } as unknown as ApiHandler
    expect((await summarizeConversation(guard(conversation()), notAStream, 'SYSTEM', 't', 10_000)).error).toBe(
      'Failed to condense context: createMessage returned number 42, expected an async stream of chunks',
    )
  })

  it('refuses a result whose context is not smaller than prevContextTokens', async () => {
    const messages = guard(conversation())
    // 50 output tokens + 37 counted = 87: equal to prev is refused, one more passes.
    const equal = await summarizeConversation(messages, mockHandler(), 'SYSTEM', 't', 87)
    expect(equal).toStrictEqual({ messages, cost: 0.05, summary: '', error: 'Context size increased during condensing; skipping this attempt' })
    const above = await summarizeConversation(messages, mockHandler(), 'SYSTEM', 't', 88)
    expect(above.error).toBeUndefined()
    expect(above.newContextTokens).toBe(87)
    const huge = await summarizeConversation(messages, mockHandler({ count: () => 50_000 }), 'SYSTEM', 't', 10_000)
    expect(huge.error).toBe('Context size increased during condensing; skipping this attempt')
    expect(huge.messages).toBe(messages)
    // Roo's rule by default: a summary longer than the messages it replaces passes when the new
    // context is still under prevContextTokens (Roo's own specs use such small spans).
    const long = 'A long summary. '.repeat(50).trim()
    const wordy = await summarizeConversation(messages, mockHandler({ text: long }), 'SYSTEM', 't', 1_000_000)
    expect(wordy.error).toBeUndefined()
    expect(wordy.summary).toBe(long)
    // The stricter rule, opt-in: such a summary is refused.
    const strict = await summarizeConversation(messages, mockHandler({ text: long }), 'SYSTEM', 't', 1_000_000, false, undefined, undefined, {
      strictGrowth: true,
    })
    expect(strict).toStrictEqual({ messages, cost: 0.05, summary: '', error: 'Context size increased during condensing; skipping this attempt' })
  })

  it('uses condensingApiHandler first; newContextTokens is still counted by the main handler', async () => {
    const main = mockHandler({ text: 'main summary' })
    const dedicated = mockHandler({ text: 'dedicated summary', count: () => 1_000_000 })
    const warn = vi.spyOn(console, 'warn')
    const r = await summarizeConversation(guard(conversation()), main, 'SYSTEM', 't', 10_000, false, undefined, dedicated)
    expect(r.summary).toBe('dedicated summary')
    expect(dedicated.createMessage).toHaveBeenCalledTimes(1)
    expect(main.createMessage).not.toHaveBeenCalled()
    expect(main.countTokens).toHaveBeenCalled()
    expect(dedicated.countTokens).not.toHaveBeenCalled()
    expect(r.newContextTokens).toBe(87)
    expect(warn).not.toHaveBeenCalled()
  })

  it('falls back to apiHandler with a warning when condensingApiHandler cannot create messages', async () => {
    for (const invalid of [{}, { createMessage: 'nope' }, { countTokens: async () => 1 }]) {
      const { warn } = quiet()
      const main = mockHandler({ text: 'main summary' })
      const r = await summarizeConversation(guard(conversation()), main, 'SYSTEM', 't', 10_000, false, undefined, invalid as unknown as ApiHandler)
      expect(r.summary).toBe('main summary')
      expect(main.createMessage).toHaveBeenCalledTimes(1)
      expect(warn).toHaveBeenCalledTimes(1)
      expect(warn).toHaveBeenCalledWith('Chosen API handler for condensing does not support message creation or is invalid, falling back to main apiHandler.')
      vi.restoreAllMocks()
    }
    // No condensing handler at all: the main one, silently.
    const warn = vi.spyOn(console, 'warn')
    const main = mockHandler()
    expect((await summarizeConversation(guard(conversation()), main, 'SYSTEM', 't', 10_000)).summary).toBe(SUMMARY)
    expect(main.createMessage).toHaveBeenCalledTimes(1)
    expect(warn).not.toHaveBeenCalled()
  })

  it('both handlers invalid: an error, a warning and console.error, the messages unchanged', async () => {
    const { warn, error } = quiet()
    const messages = guard(conversation())
    const r = await summarizeConversation(
      messages,
      { countTokens: async () => 1 } as unknown as ApiHandler,
      'SYSTEM',
      't',
      10_000,
      false,
      undefined,
      {} as ApiHandler,
    )
    expect(r).toStrictEqual({ messages, cost: 0, summary: '', error: 'API handler for condensing context is invalid' })
    expect(warn).toHaveBeenCalledWith('Chosen API handler for condensing does not support message creation or is invalid, falling back to main apiHandler.')
    expect(error).toHaveBeenCalledTimes(1)
    // Roo's own log lines, word for word.
    expect(error).toHaveBeenCalledWith('Main API handler is also invalid for condensing. Cannot proceed.')
    // Roo's checks come first: too few messages is reported as such, without a warning.
    vi.restoreAllMocks()
    const q = quiet()
    const few = await summarizeConversation(guard(conversation().slice(0, 3)), null as unknown as ApiHandler, 'SYSTEM', 't', 10_000)
    expect(few.error).toBe('Not enough messages to condense context')
    expect(q.warn).not.toHaveBeenCalled()
    expect(q.error).not.toHaveBeenCalled()
  })

  it('sends customCondensingPrompt (trimmed) as the system prompt, else the default prompt', async () => {
    const custom = mockHandler()
    await summarizeConversation(guard(conversation()), custom, 'SYSTEM', 't', 10_000, false, '  Summarize in French.  ')
    expect(custom.createMessage.mock.calls[0][0]).toBe('Summarize in French.')
    // The default is the engine's Native prompt, the one it asks a summarize callback with.
    let enginePrompt = ''
    await condense(conversation(), {
      provider: 'native',
      summarize: (req) => {
        enginePrompt = req.systemPrompt
        return SUMMARY
      },
    })
    expect(enginePrompt.length).toBeGreaterThan(200)
    for (const blank of [undefined, '', '   \n']) {
      const handler = mockHandler()
      await summarizeConversation(guard(conversation()), handler, 'SYSTEM', 't', 10_000, false, blank)
      expect(handler.createMessage.mock.calls[0][0]).toBe(enginePrompt)
    }
    // options.defaultPrompt replaces the default, not a custom prompt.
    const own = mockHandler()
    await summarizeConversation(guard(conversation()), own, 'SYSTEM', 't', 10_000, false, '', undefined, { defaultPrompt: 'House prompt.' })
    expect(own.createMessage.mock.calls[0][0]).toBe('House prompt.')
    const both = mockHandler()
    await summarizeConversation(guard(conversation()), both, 'SYSTEM', 't', 10_000, false, 'Custom.', undefined, { defaultPrompt: 'House prompt.' })
    expect(both.createMessage.mock.calls[0][0]).toBe('Custom.')
  })

  it('reports captureContextCondensed(taskId, isAutomaticTrigger, hasCustomPrompt, hasCondensingHandler), even on failure', async () => {
    const t = telemetry()
    await summarizeConversation(guard(conversation()), mockHandler(), 'SYSTEM', 'task-a', 10_000, undefined, undefined, undefined, { telemetry: t })
    await summarizeConversation(guard(conversation()), mockHandler(), 'SYSTEM', 'task-b', 10_000, true, 'Custom.', mockHandler(), { telemetry: t })
    await summarizeConversation(guard(conversation()), mockHandler(), 'SYSTEM', 'task-c', 10_000, false, '   ', undefined, { telemetry: t })
    quiet()
    // Roo's flag is !!condensingApiHandler: an invalid one still counts.
    await summarizeConversation(guard(conversation().slice(0, 2)), mockHandler(), 'SYSTEM', 'task-d', 10_000, true, undefined, {} as ApiHandler, {
      telemetry: t,
    })
    expect(t.captureContextCondensed.mock.calls).toEqual([
      ['task-a', false, false, false],
      ['task-b', true, true, true],
      ['task-c', false, false, false],
      ['task-d', true, false, true],
    ])
    expect(t.captureSlidingWindowTruncation).not.toHaveBeenCalled()
    // A telemetry that throws never stops a condensation.
    const broken = {
      captureContextCondensed: () => {
        throw new Error('offline')
      },
    }
    expect(
      (await summarizeConversation(guard(conversation()), mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { telemetry: broken })).summary,
    ).toBe(SUMMARY)
  })

  it("accepts newer Roo's useNativeTools boolean as the ninth argument", async () => {
    const r = await summarizeConversation(guard(conversation()), mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, true)
    expect(r.messages[1]).toStrictEqual({ role: 'assistant', content: SUMMARY, ts: 5, isSummary: true })
  })

  it("replaces Roo's messages with options.errors, and names a bad option in the error", async () => {
    const messages = guard(conversation().slice(0, 3))
    const r = await summarizeConversation(messages, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, {
      errors: { condense_not_enough_messages: 'Pas assez de messages' },
    })
    expect(r.error).toBe('Pas assez de messages')
    const bad = await summarizeConversation(messages, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { provider: 'magic' as never })
    expect(bad.error).toBe(
      'Failed to condense context: summarizeConversation: options.provider: expected one of "native", "lossless", "truncation", "smart", got string "magic"',
    )
    expect(bad.messages).toBe(messages)
  })

  it('stops on options.signal: before the call (no request) and during the stream', async () => {
    const before = new AbortController()
    before.abort()
    const messages = guard(conversation())
    const handler = mockHandler()
    const r1 = await summarizeConversation(messages, handler, 'SYSTEM', 't', 10_000, false, undefined, undefined, { signal: before.signal })
    expect(r1).toStrictEqual({ messages, cost: 0, summary: '', error: 'Context condensing was aborted' })
    expect(handler.createMessage).not.toHaveBeenCalled()

    const during = new AbortController()
    const slow = mockHandler({ delayMs: 5_000 })
    const started = Date.now()
    setTimeout(() => during.abort(), 30)
    const r2 = await summarizeConversation(messages, slow, 'SYSTEM', 't', 10_000, false, undefined, undefined, { signal: during.signal })
    expect(r2).toStrictEqual({ messages, cost: 0, summary: '', error: 'Context condensing was aborted' })
    expect(slow.createMessage).toHaveBeenCalledTimes(1)
    expect(Date.now() - started).toBeLessThan(2_000)
  })
})

describe('truncateConversation', () => {
  it('keeps the first message and removes an even number of the oldest others (fracToRemove of them)', () => {
    const make = (n: number): ApiMessage[] => Array.from({ length: n }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `m${i}`, ts: i }))
    const cases: Array<[number, number, number]> = [
      // [messages, fracToRemove, removed]
      [7, 0.5, 2], // floor(6 * 0.5) = 3, rounded down to even
      [8, 0.5, 2], // floor(7 * 0.5) = 3
      [9, 0.5, 4],
      [11, 0.5, 4], // floor(10 * 0.5) = 5
      [9, 1, 8],
      [10, 0.3, 2], // floor(9 * 0.3) = 2
      [5, 0, 0],
      [2, 0.5, 0],
    ]
    for (const [n, frac, removed] of cases) {
      const messages = guard(make(n))
      const t = telemetry()
      const result = truncateConversation(messages, frac, 'task-7', { telemetry: t })
      // Destructive unless configured otherwise: Roo's array.
      expect(Array.isArray(result)).toBe(true)
      const out = result as ApiMessage[]
      expect(out, `${n} at ${frac}`).toEqual([messages[0], ...messages.slice(1 + removed)])
      expect(out).toHaveLength(n - removed)
      expect(out[0]).toBe(messages[0])
      expect(out).toEqual(slidingWindow(messages, frac))
      expect(t.captureSlidingWindowTruncation).toHaveBeenCalledWith('task-7')
    }
  })
})

describe('truncateConversationIfNeeded', () => {
  it('below the threshold and the allowed size: nothing changes, and no model call', async () => {
    const o = tcinOptions({ totalTokens: 70_000, autoCondenseContextPercent: 75 })
    const r = await truncateConversationIfNeeded(o)
    // The last message is counted on top of totalTokens: "Tell me more" is 12.
    expect(r).toStrictEqual({ messages: o.messages, summary: '', cost: 0, prevContextTokens: 70_012, error: undefined })
    expect(r.messages).toBe(o.messages)
    expect((o.apiHandler as ReturnType<typeof mockHandler>).createMessage).not.toHaveBeenCalled()
  })

  it('condenses from the threshold on (100 * prev / window >= threshold), as an automatic trigger', async () => {
    const t = telemetry()
    const below = await truncateConversationIfNeeded(tcinOptions({ totalTokens: 74_987, autoCondenseContextPercent: 75, telemetry: t }))
    expect(below.prevContextTokens).toBe(74_999)
    expect(below.summary).toBe('')
    const o = tcinOptions({ totalTokens: 74_988, autoCondenseContextPercent: 75, telemetry: t })
    const r = await truncateConversationIfNeeded(o)
    expect(r.error).toBeUndefined()
    expect(r.prevContextTokens).toBe(75_000)
    expect(r.summary).toBe(SUMMARY)
    expect(r.cost).toBe(0.05)
    expect(r.newContextTokens).toBe(87)
    expect(r.messages).toEqual([o.messages[0], { role: 'assistant', content: SUMMARY, ts: 5, isSummary: true }, ...o.messages.slice(4)])
    expect(t.captureContextCondensed.mock.calls).toEqual([['task-1', true, false, false]])
    expect(t.captureSlidingWindowTruncation).not.toHaveBeenCalled()
  })

  it('condenses past the allowed size even under the threshold, with the custom prompt and condensing handler', async () => {
    const t = telemetry()
    const dedicated = mockHandler({ text: 'dedicated summary' })
    const o = tcinOptions({
      totalTokens: 79_989,
      autoCondenseContextPercent: 100,
      customCondensingPrompt: 'Custom.',
      condensingApiHandler: dedicated,
      telemetry: t,
    })
    const r = await truncateConversationIfNeeded(o)
    expect(r.prevContextTokens).toBe(80_001)
    expect(r.summary).toBe('dedicated summary')
    expect(dedicated.createMessage.mock.calls[0][0]).toBe('Custom.')
    expect(t.captureContextCondensed).toHaveBeenCalledWith('task-1', true, true, true)
  })

  it('falls back to truncateConversation(messages, 0.5) past the allowed size when summarizing fails', async () => {
    const t = telemetry()
    const o = tcinOptions({ totalTokens: 85_000, apiHandler: mockHandler({ text: '' }), telemetry: t })
    const r = await truncateConversationIfNeeded(o)
    expect(r).toStrictEqual({
      messages: [o.messages[0], ...o.messages.slice(3)],
      prevContextTokens: 85_012,
      summary: '',
      cost: 0.05,
      error: 'Failed to condense context',
    })
    expect(r.messages[0]).toBe(o.messages[0])
    expect(t.captureContextCondensed).toHaveBeenCalledTimes(1)
    expect(t.captureSlidingWindowTruncation).toHaveBeenCalledWith('task-1')
    // Context grew: the same fallback.
    const grew = await truncateConversationIfNeeded(
      tcinOptions({ totalTokens: 85_000, apiHandler: mockHandler({ count: (b) => (b.length === 1 ? 12 : 200_000) }) }),
    )
    expect(grew.error).toBe('Context size increased during condensing; skipping this attempt')
    expect(grew.messages).toHaveLength(5)
  })

  it('a failed summary under the allowed size leaves the messages alone, with the error', async () => {
    const t = telemetry()
    const o = tcinOptions({ totalTokens: 60_000, autoCondenseContextPercent: 50, apiHandler: mockHandler({ text: '' }), telemetry: t })
    const r = await truncateConversationIfNeeded(o)
    expect(r).toStrictEqual({ messages: o.messages, summary: '', cost: 0.05, prevContextTokens: 60_012, error: 'Failed to condense context' })
    expect(r.messages).toBe(o.messages)
    expect(t.captureSlidingWindowTruncation).not.toHaveBeenCalled()
  })

  it('autoCondenseContext false: no summary, the sliding window only past the allowed size', async () => {
    const t = telemetry()
    const handler = mockHandler()
    const under = tcinOptions({ totalTokens: 79_988, autoCondenseContext: false, autoCondenseContextPercent: 5, apiHandler: handler, telemetry: t })
    const r1 = await truncateConversationIfNeeded(under)
    expect(r1.prevContextTokens).toBe(80_000)
    expect(r1.messages).toBe(under.messages)
    const over = tcinOptions({ totalTokens: 79_989, autoCondenseContext: false, apiHandler: handler, telemetry: t })
    const r2 = await truncateConversationIfNeeded(over)
    expect(r2).toStrictEqual({ messages: [over.messages[0], ...over.messages.slice(3)], prevContextTokens: 80_001, summary: '', cost: 0, error: undefined })
    expect(handler.createMessage).not.toHaveBeenCalled()
    expect(t.captureContextCondensed).not.toHaveBeenCalled()
    expect(t.captureSlidingWindowTruncation).toHaveBeenCalledTimes(1)
  })

  it('allowed size: the window less TOKEN_BUFFER_PERCENTAGE less maxTokens, 8192 reserved by default', async () => {
    const run = async (totalTokens: number, maxTokens: number | null | undefined) => {
      const r = await truncateConversationIfNeeded(tcinOptions({ totalTokens, maxTokens, autoCondenseContext: false }))
      return r.messages.length
    }
    // 100,000 * 0.9 - 10,000 = 80,000.
    expect(await run(80_000 - 12, 10_000)).toBe(7)
    expect(await run(80_001 - 12, 10_000)).toBe(5)
    // 100,000 * 0.9 - 8,192 = 81,808, for undefined, null and 0 alike.
    for (const maxTokens of [undefined, null, 0]) {
      expect(await run(81_808 - 12, maxTokens)).toBe(7)
      expect(await run(81_809 - 12, maxTokens)).toBe(5)
    }
  })

  it('the last message is counted by the handler: string content as a text block, blocks as they are', async () => {
    const handler = mockHandler()
    const blocks: ContentBlock[] = [
      { type: 'text', text: 'abc' },
      { type: 'text', text: 'defgh' },
    ]
    const messages = guard<ApiMessage[]>([...conversation().slice(0, 6), { role: 'user', content: blocks, ts: 7 }])
    const r = await truncateConversationIfNeeded(tcinOptions({ messages, totalTokens: 500, apiHandler: handler }))
    expect(handler.countTokens.mock.calls[0][0]).toBe(blocks)
    expect(r.prevContextTokens).toBe(508)
    const h2 = mockHandler()
    const r2 = await truncateConversationIfNeeded(tcinOptions({ totalTokens: 500, apiHandler: h2 }))
    expect(h2.countTokens.mock.calls[0][0]).toEqual([{ type: 'text', text: 'Tell me more' }])
    expect(r2.prevContextTokens).toBe(512)
    // Without countTokens, the engine's count.
    const noCount = { createMessage: mockHandler().createMessage } as ApiHandler
    const r3 = await truncateConversationIfNeeded(tcinOptions({ totalTokens: 500, apiHandler: noCount }))
    expect(r3.prevContextTokens).toBe(500 + countTokens('Tell me more'))
  })

  it('profile thresholds: 5..100 used, -1 and missing inherit, anything else warns and inherits', async () => {
    const profileThresholds = { fast: 60, inherit: -1, low: 4, high: 101, min: 5, max: 100 }
    // prev = 65,000: 65 % of the window, under the allowed 80,000.
    const condensed = async (currentProfileId: string, totalTokens = 64_988) => {
      const handler = mockHandler()
      const r = await truncateConversationIfNeeded(
        tcinOptions({ totalTokens, autoCondenseContextPercent: 80, profileThresholds, currentProfileId, apiHandler: handler }),
      )
      expect(handler.createMessage.mock.calls.length).toBe(r.summary === SUMMARY ? 1 : 0)
      return r.summary === SUMMARY
    }
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    expect(await condensed('fast')).toBe(true)
    expect(await condensed('inherit')).toBe(false)
    expect(await condensed('nobody')).toBe(false)
    expect(await condensed('max')).toBe(false)
    expect(await condensed('min', 4_988)).toBe(true)
    expect(await condensed('fast', 59_987)).toBe(false)
    expect(warn).not.toHaveBeenCalled()
    expect(await condensed('low')).toBe(false)
    expect(warn).toHaveBeenLastCalledWith('Invalid profile threshold 4 for profile "low". Using global default of 80%')
    expect(await condensed('high', 79_988)).toBe(true) // 80 % reached: the global threshold applies
    expect(warn).toHaveBeenLastCalledWith('Invalid profile threshold 101 for profile "high". Using global default of 80%')
    expect(warn).toHaveBeenCalledTimes(2)
  })
})

describe('truncateConversationIfNeeded and options.signal', () => {
  it('an aborted condensation is not replaced by the sliding window: the messages stay, with the error', async () => {
    const controller = new AbortController()
    controller.abort()
    const t = telemetry()
    const o = tcinOptions({ totalTokens: 85_000, signal: controller.signal, telemetry: t })
    const r = await truncateConversationIfNeeded(o)
    expect(r).toStrictEqual({ messages: o.messages, summary: '', cost: 0, prevContextTokens: 85_012, error: 'Context condensing was aborted' })
    expect((o.apiHandler as ReturnType<typeof mockHandler>).createMessage).not.toHaveBeenCalled()
    expect(t.captureSlidingWindowTruncation).not.toHaveBeenCalled()
  })
})

describe('estimateTokenCount', () => {
  it("uses the handler's countTokens, else the engine's count; 0 for no content", async () => {
    const content: ContentBlock[] = [{ type: 'text', text: 'Hello there, world' }]
    const handler = mockHandler({ count: () => 42 })
    expect(await estimateTokenCount(content, handler)).toBe(42)
    expect(handler.countTokens).toHaveBeenCalledWith(content)
    expect(await estimateTokenCount(content, undefined)).toBe(countTokens('Hello there, world'))
    expect(await estimateTokenCount(content, {})).toBe(countTokens('Hello there, world'))
    expect(await estimateTokenCount([], handler)).toBe(0)
    expect(handler.countTokens).toHaveBeenCalledTimes(1)
  })
})

// ---------------------------------------------------------------------------------------------
// This package's extras.

describe('provider option: a first step before the summary', () => {
  const name = 'synthetic-3-tool-dedup' // repeated reads: Lossless alone more than halves it
  for (const provider of ['lossless', 'smart', 'truncation'] as const) {
    itReal(`${provider}: valid, fewer tokens, and no model call when it reaches targetTokens`, async () => {
      const input = guard(loadFixture(name))
      const before = countTokens(input)
      const handler = mockHandler({ count: engineCount })
      const r = await summarizeConversation(input, handler, '', 't', before, true, undefined, undefined, { provider, targetTokens: Math.floor(before * 0.9) })
      expect(r.error).toBeUndefined()
      expect(r.provider).toBe(provider)
      expect(handler.createMessage).not.toHaveBeenCalled()
      expect(validateConversation(r.messages)).toEqual([])
      const after = countTokens(r.messages)
      expect(after).toBeLessThanOrEqual(Math.floor(before * 0.9))
      expect(r.newContextTokens).toBe(after)
      expect(r.cost).toBe(0)
      // Same messages, same order; the first one is Roo's: untouched.
      expect(r.messages).toHaveLength(input.length)
      expect(r.messages[0]).toBe(input[0])
    })
  }

  itReal("a target the first step misses: Roo's summary follows, on its output", async () => {
    const input = guard(loadFixture(name))
    const before = countTokens(input)
    const handler = mockHandler({ count: engineCount })
    const r = await summarizeConversation(input, handler, '', 't', before, true, undefined, undefined, { provider: 'lossless', targetTokens: 1_000 })
    expect(r.provider).toBe('lossless+native')
    expect(handler.createMessage).toHaveBeenCalledTimes(1)
    expect(r.messages).toHaveLength(5)
    expect(r.messages[1]).toMatchObject({ role: 'assistant', isSummary: true, ts: input[input.length - 3].ts })
    expect(validateConversation(r.messages)).toEqual([])
    expect(countTokens(r.messages)).toBeLessThan(countTokens(input))
  })

  itReal("without targetTokens, a failed summary leaves the first step's result, with summaryError", async () => {
    const input = guard(loadFixture(name))
    const before = countTokens(input)
    const handler = mockHandler({ text: '', count: engineCount })
    const r = await summarizeConversation(input, handler, '', 't', before, true, undefined, undefined, { provider: 'lossless' })
    expect(handler.createMessage).toHaveBeenCalledTimes(1)
    expect(r.error).toBeUndefined()
    expect(r.summaryError).toBe('Failed to condense context')
    expect(r.provider).toBe('lossless')
    expect(r.cost).toBe(0.05)
    expect(r.messages).toHaveLength(input.length)
    expect(countTokens(r.messages)).toBeLessThan(before)
    expect(r.newContextTokens).toBe(countTokens(r.messages))
    expect(validateConversation(r.messages)).toEqual([])
  })

  itReal("through truncateConversationIfNeeded with provider 'smart': the threshold is the target, no model call", async () => {
    const input = guard(loadFixture(name))
    const before = countTokens(input)
    const handler = mockHandler({ count: engineCount })
    const last = input[input.length - 1]
    const lastTokens = engineCount(Array.isArray(last.content) ? last.content : [{ type: 'text', text: last.content }])
    const r = await truncateConversationIfNeeded({
      messages: input,
      totalTokens: before - lastTokens,
      contextWindow: 200_000,
      maxTokens: 8_000,
      apiHandler: handler,
      autoCondenseContext: true,
      autoCondenseContextPercent: 50,
      systemPrompt: '',
      taskId: 't',
      profileThresholds: {},
      currentProfileId: 'default',
      provider: 'smart',
    })
    expect(r.error).toBeUndefined()
    expect(r.provider).toBe('smart')
    expect(handler.createMessage).not.toHaveBeenCalled()
    expect(r.prevContextTokens).toBe(before)
    expect(r.newContextTokens!).toBeLessThan(100_000) // under 50 % of the window
    expect(countTokens(r.messages)).toBe(r.newContextTokens)
    expect(validateConversation(r.messages)).toEqual([])
  })
})

describe('truncateConversationIfNeeded: a first step, then a failed summary', () => {
  const name = 'synthetic-3-tool-dedup'
  const run = async (input: ApiMessage[], contextWindow: number, percent: number) => {
    const before = countTokens(input)
    const last = input[input.length - 1]
    const lastTokens = engineCount(Array.isArray(last.content) ? last.content : [{ type: 'text', text: last.content }])
    const handler = mockHandler({ text: '', count: engineCount }) // every summary comes back empty
    const tel = telemetry()
    const r = await truncateConversationIfNeeded({
      messages: input,
      totalTokens: before - lastTokens,
      contextWindow,
      maxTokens: 1_000,
      apiHandler: handler,
      autoCondenseContext: true,
      autoCondenseContextPercent: percent,
      systemPrompt: '',
      taskId: 't',
      profileThresholds: {},
      currentProfileId: 'default',
      provider: 'lossless',
      telemetry: tel,
    })
    return { r, handler, tel, before }
  }

  itReal("still past the allowed size: the sliding window goes on from the first step's result", async () => {
    const input = guard(loadFixture(name))
    const lossless = (await condense(input, { provider: 'lossless' })).messages
    const afterLossless = countTokens(lossless)
    // allowed = 0.9 * window - 1000 = 80 % of what Lossless leaves: Lossless alone is not enough.
    const window = Math.ceil((afterLossless * 0.8 + 1_000) / 0.9)
    const { r, handler, tel, before } = await run(input, window, 100)
    expect(handler.createMessage).toHaveBeenCalledTimes(1)
    expect(r.error).toBe('Failed to condense context')
    expect(tel.captureSlidingWindowTruncation).toHaveBeenCalledWith('t')
    expect(r.prevContextTokens).toBe(before)
    // What the sliding window makes of Lossless's output, not of the whole history.
    // (the first message is Roo's: a first step never changes it)
    const expected = truncateConversation([input[0], ...lossless.slice(1)], 0.5, 'x') as ApiMessage[]
    expect(roleContent(r.messages)).toEqual(roleContent(expected))
    const windowOnly = truncateConversation(input, 0.5, 'x') as ApiMessage[]
    expect(countTokens(r.messages)).toBeLessThan(countTokens(windowOnly))
    expect(validateConversation(r.messages)).toEqual([])
  })

  itReal('under the allowed size after the first step: its result stands, with summaryError, no sliding window', async () => {
    const input = guard(loadFixture(name))
    // First, under the threshold (5 % of 10M tokens): nothing happens.
    const { r, handler, before } = await run(input, 10_000_000, 5)
    expect(before).toBeLessThan(500_000)
    expect(handler.createMessage).not.toHaveBeenCalled()
    expect(r.messages).toBe(input)
    // A window 5x the history: at 20 % it is past the 5 % threshold (the target, which Lossless
    // misses), and far under the allowed size (0.9 * window - 1000).
    const again = await run(input, before * 5, 5)
    expect(again.handler.createMessage).toHaveBeenCalledTimes(1)
    expect(again.r.error).toBeUndefined()
    expect(again.r.summaryError).toBe('Failed to condense context')
    expect(again.tel.captureSlidingWindowTruncation).not.toHaveBeenCalled()
    expect(again.r.messages).toHaveLength(input.length)
    expect(countTokens(again.r.messages)).toBeLessThan(before)
    expect(validateConversation(again.r.messages)).toEqual([])
  })
})

describe('non-destructive mode', () => {
  const ids = () => {
    let n = 0
    return () => `id-${++n}`
  }
  const long = (): ApiMessage[] =>
    Array.from({ length: 9 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}: ${'words to summarize '.repeat(20)}`, ts: 100 + i }))

  it('deletes nothing: the replaced messages get condenseParent, the summary a condenseId', async () => {
    const input = guard(long())
    const r = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { nonDestructive: true, generateId: ids() })
    expect(r.condenseId).toBe('id-1')
    expect(r.messages).toHaveLength(input.length + 1)
    expect(r.messages[0]).toBe(input[0])
    for (let i = 1; i <= 5; i++) expect(r.messages[i]).toStrictEqual({ ...input[i], condenseParent: 'id-1' })
    // Newer Roo's summary: just before the first kept message, with its id.
    expect(r.messages[6]).toStrictEqual({ role: 'assistant', content: SUMMARY, ts: 105, isSummary: true, condenseId: 'id-1' })
    for (let i = 6; i < 9; i++) expect(r.messages[i + 1]).toBe(input[i])
  })

  it("getEffectiveApiHistory sends what destructive mode would, the same bytes every time, as the caller's objects", async () => {
    const input = guard(long())
    const nd = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { nonDestructive: true })
    const destructive = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000)
    const effective = getEffectiveApiHistory(nd.messages)
    expect(roleContent(effective)).toEqual(roleContent(destructive.messages))
    expect(nd.newContextTokens).toBe(destructive.newContextTokens)
    const again = getEffectiveApiHistory(nd.messages)
    expect(JSON.stringify(again)).toBe(JSON.stringify(effective))
    again.forEach((m, i) => {
      expect(m).toBe(effective[i])
      expect(nd.messages).toContain(m)
    })
    // Stored and reloaded (JSON), the projection is byte for byte the same.
    expect(JSON.stringify(getEffectiveApiHistory(JSON.parse(JSON.stringify(nd.messages))))).toBe(JSON.stringify(effective))
  })

  itReal('on the real histories, with each provider: the projection is what destructive mode gives', async () => {
    for (const name of ['heavy-uncondensed', 'natural-already-condensed', 'synthetic-4-mixed-ops']) {
      const input = guard(loadFixture(name))
      const before = countTokens(input)
      for (const provider of ['native', 'lossless', 'smart', 'truncation'] as const) {
        for (const targetTokens of [undefined, Math.floor(before * 0.95)]) {
          const options = { provider, targetTokens }
          const d = await summarizeConversation(input, mockHandler({ count: engineCount }), '', 't', before, true, undefined, undefined, options)
          const n = await summarizeConversation(input, mockHandler({ count: engineCount }), '', 't', before, true, undefined, undefined, {
            ...options,
            nonDestructive: true,
          })
          const label = `${name} ${provider} ${targetTokens}`
          expect(d.error, label).toBeUndefined()
          expect(n.provider, label).toBe(d.provider)
          const effective = getEffectiveApiHistory(n.messages)
          expect(roleContent(effective), label).toEqual(roleContent(d.messages))
          expect(validateConversation(effective), label).toEqual([])
          // Nothing stored is lost: every input message is still there, in order.
          const kept = input.filter((m) =>
            n.messages.some((s) => s === m || (s.ts === m.ts && s.role === m.role && JSON.stringify(s.content) === JSON.stringify(m.content))),
          )
          expect(kept.length, label).toBe(input.length)
        }
      }
    }
  })

  it('rewindConversation past the summary (or removing it and cleanupAfterTruncation) brings the messages back', async () => {
    const input = guard(long())
    const r = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { nonDestructive: true, generateId: ids() })
    const at = r.messages.findIndex((m) => m.condenseId === 'id-1')
    expect(at).toBe(6)
    const rewound = rewindConversation(r.messages, at)
    expect(rewound).toStrictEqual(input.slice(0, 6))
    expect(getEffectiveApiHistory(rewound)).toStrictEqual(input.slice(0, 6))
    expect(rewindConversation(r.messages, { index: at })).toStrictEqual(input.slice(0, 6))
    // By timestamp: the summary's ts is 105, so the message at 105 goes too.
    expect(rewindConversation(r.messages, { ts: 105 })).toStrictEqual(input.slice(0, 5))
    const withoutSummary = r.messages.filter((m) => !m.isSummary)
    const cleaned = cleanupAfterTruncation(withoutSummary)
    expect(cleaned).toStrictEqual(input)
    expect(cleaned[0]).toBe(input[0])
    expect(cleaned[8]).toBe(input[8])
  })

  it('a second condensation nests: rewinding past it restores the first one', async () => {
    const generateId = ids()
    const first = await summarizeConversation(guard(long()), mockHandler({ text: 'first summary' }), 'SYSTEM', 't', 10_000, false, undefined, undefined, {
      nonDestructive: true,
      generateId,
    })
    const more: ApiMessage[] = [
      ...first.messages,
      ...Array.from(
        { length: 6 },
        (_, i): ApiMessage => ({ role: i % 2 ? 'user' : 'assistant', content: `later ${i} ${'more words '.repeat(30)}`, ts: 200 + i }),
      ),
    ]
    const grown = guard(more)
    const second = await summarizeConversation(grown, mockHandler({ text: 'second summary' }), 'SYSTEM', 't', 10_000, false, undefined, undefined, {
      nonDestructive: true,
      generateId,
    })
    expect(second.error).toBeUndefined()
    expect(second.condenseId).toBe('id-2')
    expect(roleContent(getEffectiveApiHistory(second.messages))).toEqual(
      roleContent([grown[0], { role: 'assistant', content: 'second summary' }, ...grown.slice(-3)]),
    )
    const rewound = rewindConversation(
      second.messages,
      second.messages.findIndex((m) => m.condenseId === 'id-2'),
    )
    expect(rewound).toStrictEqual(grown.slice(0, 13))
    expect(roleContent(getEffectiveApiHistory(rewound))).toEqual(roleContent([grown[0], first.messages[6], ...grown.slice(7, 13)]))
  })

  it('the sliding window tags truncationParent behind a marker; removing the marker restores', async () => {
    const input = guard(long())
    const t = truncateConversation(input, 0.5, 'task-7', { nonDestructive: true, generateId: () => 'tr-1' })
    expect(t.truncationId).toBe('tr-1')
    expect(t.messagesRemoved).toBe(4)
    expect(t.messages).toHaveLength(10)
    for (let i = 1; i <= 4; i++) expect(t.messages[i]).toStrictEqual({ ...input[i], truncationParent: 'tr-1' })
    expect(t.messages[5]).toStrictEqual({
      role: 'user',
      content: '[Sliding window truncation: 4 messages hidden to reduce context]',
      ts: 104,
      isTruncationMarker: true,
      truncationId: 'tr-1',
    })
    const effective = getEffectiveApiHistory(t.messages)
    expect(effective.filter((m) => !m.isTruncationMarker)).toEqual(truncateConversation(input, 0.5, 'task-7'))
    expect(cleanupAfterTruncation(t.messages.filter((m) => !m.isTruncationMarker))).toStrictEqual(input)
    expect(rewindConversation(t.messages, 5)).toStrictEqual(input.slice(0, 5))
    // Nothing to hide: the history itself.
    const none = truncateConversation(input.slice(0, 2), 0.5, 't', { nonDestructive: true })
    expect(none.messagesRemoved).toBe(0)
    expect(none.messages).toEqual(input.slice(0, 2))
  })

  it('truncateConversationIfNeeded falls back to the non-destructive sliding window', async () => {
    const o = tcinOptions({ totalTokens: 85_000, autoCondenseContext: false, nonDestructive: true, generateId: () => 'tr-9' })
    const r = await truncateConversationIfNeeded(o)
    expect(r.truncationId).toBe('tr-9')
    expect(r.messagesRemoved).toBe(2)
    expect(r.messages).toHaveLength(8)
    const effective = getEffectiveApiHistory(r.messages)
    expect(roleContent(effective)).toEqual(roleContent([o.messages[0], r.messages[3], ...o.messages.slice(3)]))
    expect(r.messages[3].isTruncationMarker).toBe(true)
    // Counted by the handler: the messages sent, the marker aside ("Hello" + the last four).
    // The system prompt counts too ('SYSTEM': 6), as Roo counts it since December 2025.
    expect(r.newContextTokensAfterTruncation).toBe(6 + 5 + 8 + 11 + 8 + 12)
  })

  itReal('shortened copies (a first provider) stand in for their messages and go with them on rewind', async () => {
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const r = await summarizeConversation(input, mockHandler(), '', 't', before, true, undefined, undefined, {
      provider: 'lossless',
      nonDestructive: true,
      targetTokens: before,
      generateId: () => 'cp-1',
    })
    expect(r.provider).toBe('lossless')
    const copies = r.messages.filter((m) => m.condensedBy === 'cp-1')
    expect(copies.length).toBeGreaterThan(0)
    expect(r.messages).toHaveLength(input.length + copies.length)
    const effective = getEffectiveApiHistory(r.messages)
    expect(effective).toHaveLength(input.length)
    expect(countTokens(effective)).toBeLessThan(before)
    expect(validateConversation(effective)).toEqual([])
    // Rewinding onto a copy takes its original too; the rest is still condensed.
    const copyAt = r.messages.indexOf(copies[copies.length - 1])
    const rewound = rewindConversation(r.messages, copyAt)
    expect(rewound).toHaveLength(copyAt - 1)
    expect(rewound[rewound.length - 1]).toBe(r.messages[copyAt - 2])
    expect(getEffectiveApiHistory(rewound).every((m) => !m.condenseParent)).toBe(true)
  })
})

describe('configure', () => {
  itReal('sets defaults for every call, returns the ones it replaced, and refuses unknown options', async () => {
    const t = telemetry()
    expect(configure({ provider: 'lossless', nonDestructive: true, telemetry: t })).toEqual({})
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const r = await summarizeConversation(input, mockHandler(), '', 'task-c', before, false, undefined, undefined, { targetTokens: before })
    expect(r.provider).toBe('lossless')
    expect(r.messages.length).toBeGreaterThan(input.length) // non-destructive: copies beside originals
    expect(t.captureContextCondensed).toHaveBeenCalledWith('task-c', false, false, false)
    // A call's own options win.
    const own = await summarizeConversation(input, mockHandler(), '', 't', before, false, undefined, undefined, { provider: 'native', nonDestructive: false })
    expect(own.provider).toBeUndefined() // Roo's own summary alone: Roo's SummarizeResponse
    expect(own.messages).toHaveLength(5)
    expect(configure({ provider: 'smart' })).toEqual({ provider: 'lossless', nonDestructive: true, telemetry: t })
    expect(configure()).toEqual({ provider: 'smart' })
    expect(() => configure({ providr: 'smart' } as never)).toThrow(/^configure: options\.providr: unknown option, expected one of provider, /)
    expect(() => configure({ nonDestructive: 'yes' } as never)).toThrow('configure: options.nonDestructive: expected true or false, got string "yes"')
    expect(() => configure({ errors: { condense_nope: 'x' } } as never)).toThrow(/^configure: options\.errors\.condense_nope: unknown key/)
    // @ts-expect-error: the declarations know the providers too
    expect(() => configure({ provider: 'magic' })).toThrow(
      'configure: options.provider: expected one of "native", "lossless", "truncation", "smart", got string "magic"',
    )
    // Defaults are clear again: destructive, native.
    const plain = await summarizeConversation(guard(conversation()), mockHandler(), 'SYSTEM', 't', 10_000)
    expect(plain.provider).toBeUndefined()
    expect(plain.messages).toHaveLength(5)
  })
})

describe('the seven real histories', () => {
  itReal('truncateConversationIfNeeded with a mocked handler: valid output, never more tokens', async () => {
    for (const name of FIXTURES) {
      const input = guard(loadFixture(name))
      const before = countTokens(input)
      const handler = mockHandler({ text: 'SUMMARY: the user asked for the refactor; a.ts and b.ts changed; next: docs.', count: engineCount })
      const last = input[input.length - 1]
      const lastTokens = engineCount(Array.isArray(last.content) ? last.content : [{ type: 'text', text: last.content }])
      const r: TruncateResponse = await truncateConversationIfNeeded({
        messages: input,
        totalTokens: before - lastTokens,
        contextWindow: 200_000,
        maxTokens: 8_000,
        apiHandler: handler,
        autoCondenseContext: true,
        autoCondenseContextPercent: 10,
        systemPrompt: 'You are Roo.',
        taskId: name,
        profileThresholds: {},
        currentProfileId: 'default',
      })
      expect(r.error, name).toBeUndefined()
      expect(handler.createMessage, name).toHaveBeenCalledTimes(1)
      expect(r.prevContextTokens, name).toBe(before)
      expect(validateConversation(r.messages), name).toEqual([])
      expect(countTokens(r.messages), name).toBeLessThan(before)
      expect(r.newContextTokens!, name).toBeLessThan(before)
      expect(r.messages[0], name).toBe(input[0])
      expect(r.messages.slice(-3), name).toEqual(input.slice(-3))
      expect(
        r.messages.filter((m) => m.isSummary),
        name,
      ).toHaveLength(1)
    }
  })

  itReal(
    'every provider, both modes, on each history: valid and never more tokens than before',
    async () => {
      for (const name of FIXTURES) {
        const input = guard(loadFixture(name))
        const before = countTokens(input)
        for (const provider of ['lossless', 'smart', 'truncation'] as const) {
          for (const nonDestructive of [false, true]) {
            const r: SummarizeResponse = await summarizeConversation(input, mockHandler({ count: engineCount }), '', name, before, true, undefined, undefined, {
              provider,
              nonDestructive,
            })
            const sent = nonDestructive ? getEffectiveApiHistory(r.messages) : r.messages
            const label = `${name} ${provider} ${nonDestructive}`
            expect(r.error, label).toBeUndefined()
            expect(validateConversation(sent), label).toEqual([])
            expect(countTokens(sent), label).toBeLessThanOrEqual(before)
            expect(sent[0], label).toBe(input[0])
          }
        }
      }
    },
    120_000,
  )
})

// ---------------------------------------------------------------------------------------------
// context-condense/roo: Roo Code as it is today, and January 2026's positional calls.

/** Today's handler mock: createMessage takes (systemPrompt, messages, metadata). */
function todayHandler(o: MockOptions = {}) {
  return mockHandler(o) as unknown as ReturnType<typeof mockHandler> & ApiHandler
}

describe('today: summarizeConversation with an options object (fresh start)', () => {
  it('summarizes everything since the last summary and appends one user summary; every message is tagged', async () => {
    today.configure({ defaultPrompt: 'INSTRUCTIONS', requestSystemPrompt: 'SYSTEM OF THE REQUEST' })
    const messages = guard(conversation())
    const handler = todayHandler()
    const r = await today.summarizeConversation({ messages, apiHandler: handler, systemPrompt: 'SYSTEM', taskId: 't' })
    expect(r.error).toBeUndefined()
    expect(r.summary).toBe(SUMMARY)
    expect(r.cost).toBe(0.05)
    expect(r.messages).toHaveLength(messages.length + 1)
    r.messages.slice(0, -1).forEach((m, i) => expect(m).toEqual({ ...messages[i], condenseParent: r.condenseId }))
    expect(r.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: `## Conversation Summary\n${SUMMARY}` }],
      ts: 8,
      isSummary: true,
      condenseId: r.condenseId,
    })
    // The request: the configured system prompt, the messages, the instructions last as the user's, metadata as third argument.
    expect(handler.createMessage).toHaveBeenCalledWith(
      'SYSTEM OF THE REQUEST',
      [...roleContent(messages), { role: 'user', content: 'INSTRUCTIONS' }],
      undefined,
    )
    // newContextTokens: the system prompt and the summary, counted by the handler.
    expect(r.newContextTokens).toBe('SYSTEM'.length + `## Conversation Summary\n${SUMMARY}`.length)
    // What the model is sent next: the summary alone.
    expect(today.getEffectiveApiHistory(r.messages)).toEqual([r.messages.at(-1)])
  })

  it('the custom prompt is the final user message; tool blocks go as text; orphan tool calls are answered', async () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1 },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading' },
          { type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'x.ts' } },
        ],
        ts: 2,
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'file body' }], ts: 3 },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'attempt_completion', input: { result: 'done' } }], ts: 4 },
    ])
    const handler = todayHandler()
    const r = await today.summarizeConversation({ messages, apiHandler: handler, systemPrompt: 'S', taskId: 't', customCondensingPrompt: '  Be brief.  ' })
    expect(r.error).toBeUndefined()
    const sent = handler.createMessage.mock.calls[0][1]
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'Be brief.' })
    expect(sent[1].content).toEqual([
      { type: 'text', text: 'Reading' },
      { type: 'text', text: '[Tool Use: read_file]\npath: x.ts' },
    ])
    expect(sent[2].content).toEqual([{ type: 'text', text: '[Tool Result]\nfile body' }])
    expect(sent[4]).toEqual({ role: 'user', content: [{ type: 'text', text: '[Tool Result]\nContext condensation triggered. Tool execution deferred.' }] })
  })

  it("keeps <command> blocks, adds environment details on an automatic trigger only, and the host's folded file context", async () => {
    const first = { role: 'user' as const, content: 'Do it <command name="review">check the tests</command> now', ts: 1 }
    const messages = guard<ApiMessage[]>([first, ...conversation().slice(1)])
    const folded = vi.fn(async (files: string[], o: { cwd: string }) => ({
      sections: [`<system-reminder>${files.join(',')} in ${o.cwd}</system-reminder>`, '  '],
    }))
    today.configure({ foldedFileContext: folded })
    const base = {
      messages,
      apiHandler: todayHandler(),
      systemPrompt: 'S',
      taskId: 't',
      environmentDetails: '<environment_details>x</environment_details>',
      filesReadByRoo: ['a.ts'],
      cwd: '/w',
    }
    const auto = await today.summarizeConversation({ ...base, isAutomaticTrigger: true })
    const texts = (auto.messages.at(-1)!.content as Array<{ text: string }>).map((b) => b.text)
    expect(texts).toEqual([
      `## Conversation Summary\n${SUMMARY}`,
      '<system-reminder>\n## Active Workflows\nThe following directives must be maintained across all future condensings:\n<command name="review">check the tests</command>\n</system-reminder>',
      '<system-reminder>a.ts in /w</system-reminder>',
      '<environment_details>x</environment_details>',
    ])
    expect(folded).toHaveBeenCalledWith(['a.ts'], { cwd: '/w', rooIgnoreController: undefined })
    const manual = await today.summarizeConversation({ ...base, apiHandler: todayHandler(), isAutomaticTrigger: false })
    expect((manual.messages.at(-1)!.content as unknown[]).length).toBe(3)
    // A failing callback is logged; the summary stands.
    const { error } = quiet()
    today.configure({ foldedFileContext: async () => Promise.reject(new Error('no grammar')) })
    const failed = await today.summarizeConversation({ ...base, apiHandler: todayHandler() })
    expect(failed.error).toBeUndefined()
    expect(error).toHaveBeenCalledWith('[summarizeConversation] Failed to generate folded file context:', expect.any(Error))
  })

  it("errors: Roo's strings, the API failure with its details, never a throw", async () => {
    const { error } = quiet()
    expect(
      (await today.summarizeConversation({ messages: guard(conversation().slice(0, 1)), apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't' })).error,
    ).toBe('Not enough messages to condense context')
    const afterSummary = guard<ApiMessage[]>([...conversation(), { role: 'user', content: 'sum', isSummary: true, ts: 9 }])
    expect((await today.summarizeConversation({ messages: afterSummary, apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't' })).error).toBe(
      'Context was condensed recently; skipping this attempt',
    )
    const failing = {
      createMessage: () => {
        throw Object.assign(new Error('rate limited'), { status: 429 })
      },
      countTokens: async () => 1,
    } as unknown as ApiHandler
    const r = await today.summarizeConversation({ messages: guard(conversation()), apiHandler: failing, systemPrompt: 'S', taskId: 't' })
    expect(r.error).toBe('Condensing API call failed: rate limited')
    expect(r.errorDetails).toBe('Error: rate limited\n\nHTTP Status: 429')
    expect(error).toHaveBeenCalledWith('Error during condensing API call:', expect.any(Error))
  })

  itReal("summary is the model's text; the files list is an option", async () => {
    const input = guard(loadFixture('synthetic-2-heavy-read').slice(0, 12))
    const plain = await today.summarizeConversation({ messages: input, apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't' })
    expect(plain.summary).toBe(SUMMARY)
    const listed = await today.summarizeConversation({ messages: input, apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't', filesList: true })
    const blocks = listed.messages.at(-1)!.content as Array<{ text: string }>
    expect(blocks[1].text).toMatch(/^---\nFiles in the summarized part of the conversation \(from the history itself\):\n- Read: package\.json/)
    // The same option on the positional API appends it to the summary text.
    const old = await summarizeConversation(input, mockHandler(), 'S', 't', 1e9, false, undefined, undefined, { filesList: true })
    expect(old.summary.startsWith(`${SUMMARY}\n\n---\nFiles in the summarized part`)).toBe(true)
  })
})

describe('today: getEffectiveApiHistory and the helpers', () => {
  it('getMessagesSinceLastSummary: a user summary starts it; an assistant summary (older Roo) is preceded by the task, in every entry', () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1 },
      { role: 'assistant', content: 'Old-style summary', ts: 2, isSummary: true },
      { role: 'user', content: 'Fresh summary', ts: 3, isSummary: true },
      { role: 'assistant', content: 'Next', ts: 4 },
    ])
    expect(today.getMessagesSinceLastSummary(messages)).toEqual(messages.slice(2))
    expect(today.getMessagesSinceLastSummary(messages.slice(0, 2))).toEqual(messages.slice(0, 2))
    expect(jan2026.getMessagesSinceLastSummary(messages.slice(0, 2))).toEqual(messages.slice(0, 2))
  })

  it('from the last fresh-start summary on, without tool_results whose tool_use is gone', () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1, condenseParent: 'c' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'old', name: 'read_file', input: {} }], ts: 2, condenseParent: 'c' },
      { role: 'user', content: [{ type: 'text', text: 'summary' }], ts: 3, isSummary: true, condenseId: 'c' },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'old', content: 'x' },
          { type: 'text', text: 'and more' },
        ],
        ts: 4,
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'old', content: 'y' }], ts: 5 },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'new', name: 'read_file', input: {} }], ts: 6 },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'new', content: 'z' }], ts: 7 },
    ])
    const sent = today.getEffectiveApiHistory(messages)
    expect(sent).toEqual([messages[2], { ...messages[3], content: [{ type: 'text', text: 'and more' }] }, messages[5], messages[6]])
    expect(sent[0]).toBe(messages[2])
    expect(sent[3]).toBe(messages[6])
  })

  it('tool blocks as text, command blocks, synthetic results', () => {
    expect(today.toolUseToText({ type: 'tool_use', id: 'i', name: 'write', input: { path: 'a', opts: { x: 1 } } } as ContentBlock)).toBe(
      '[Tool Use: write]\npath: a\nopts: {\n  "x": 1\n}',
    )
    expect(
      today.toolResultToText({
        type: 'tool_result',
        tool_use_id: 'i',
        is_error: true,
        content: [
          { type: 'text', text: 'bad' },
          { type: 'image', source: {} },
        ],
      } as unknown as ContentBlock),
    ).toBe('[Tool Result (Error)]\nbad\n[Image]')
    expect(
      today.extractCommandBlocks({
        role: 'user',
        content: [
          { type: 'text', text: 'a <command>x</command>' },
          { type: 'text', text: '<command n="2">y</command>' },
        ],
      }),
    ).toBe('<command>x</command>\n<command n="2">y</command>')
    expect(today.extractCommandBlocks({ role: 'user', content: 'none' })).toBe('')
    const paired = guard<ApiMessage[]>([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'n', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'r' }] },
    ])
    expect(today.injectSyntheticToolResults(paired)).toBe(paired)
  })
})

describe('today: manageContext and willManageContext', () => {
  const opts = (over: Record<string, unknown> = {}) => ({
    messages: guard(conversation()),
    totalTokens: 1000,
    contextWindow: 100_000,
    maxTokens: 10_000,
    apiHandler: todayHandler(),
    autoCondenseContext: true,
    autoCondenseContextPercent: 100,
    systemPrompt: 'SYSTEM',
    taskId: 'task-1',
    profileThresholds: {},
    currentProfileId: 'default',
    ...over,
  })

  it('condenses with the fresh-start summary from the threshold on; nothing below it', async () => {
    const below = await today.manageContext(opts())
    expect(below).toEqual({ messages: below.messages, summary: '', cost: 0, prevContextTokens: 1000 + 'Tell me more'.length, error: undefined })
    const o = opts({ totalTokens: 60_000, autoCondenseContextPercent: 50 })
    const r = await today.manageContext(o)
    expect(r.error).toBeUndefined()
    expect(r.messages.at(-1)!.isSummary).toBe(true)
    expect(r.messages.at(-1)!.role).toBe('user')
    expect(r.prevContextTokens).toBe(60_012)
    expect(today.willManageContext({ ...o, lastMessageTokens: 12 })).toBe(true)
    expect(today.willManageContext({ ...opts(), lastMessageTokens: 12 })).toBe(false)
  })

  it('past the allowed size with a failed summary: the non-destructive window, its context counted with the system prompt', async () => {
    const r = await today.manageContext(opts({ totalTokens: 85_000, apiHandler: todayHandler({ text: '' }) }))
    expect(r.error).toBe('Failed to condense context')
    expect(r.messagesRemoved).toBe(2)
    expect(r.messages.filter((m) => m.truncationParent === r.truncationId)).toHaveLength(2)
    // 'SYSTEM' and the messages neither hidden nor the marker: Hello, I'm good, What's new?, Not much, Tell me more.
    expect(r.newContextTokensAfterTruncation).toBe(6 + 5 + 8 + 11 + 8 + 12)
  })
})

describe("context-condense/roo-2026-01: January 2026's positional API", () => {
  it('keeps the tool_use a kept tool_result needs inside an array summary, non-destructively', async () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1 },
      { role: 'assistant', content: 'a', ts: 2 },
      { role: 'user', content: 'b', ts: 3 },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'think' },
          { type: 'tool_use', id: 't1', name: 'read_file', input: {} },
        ],
        ts: 4,
      } as unknown as ApiMessage,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'body' }], ts: 5 },
      { role: 'assistant', content: 'c', ts: 6 },
      { role: 'user', content: 'd', ts: 7 },
    ])
    const r = await jan2026.summarizeConversation(messages, mockHandler(), 'S', 't', 1e9)
    expect(r.error).toBeUndefined()
    const summary = r.messages.find((m) => m.isSummary)!
    expect(summary.role).toBe('assistant')
    expect(summary.ts).toBe(4)
    expect(summary.content).toEqual([
      { type: 'reasoning', text: 'Condensing conversation context. The summary below captures the key information from the prior conversation.' },
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: SUMMARY },
      { type: 'tool_use', id: 't1', name: 'read_file', input: {} },
    ])
    expect(jan2026.getEffectiveApiHistory(r.messages)).toEqual([messages[0], summary, ...messages.slice(4)])
    expect(jan2026.getKeepMessagesWithToolBlocks(messages, 3).toolUseBlocksToPreserve).toEqual([{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }])
  })

  it('its manageContext asks for the positional summary; a positional call on context-condense/roo is a fresh start', async () => {
    const seam = vi.fn(async () => ({ messages: [], summary: 's', cost: 0, newContextTokens: 1 }))
    jan2026.configure({ summarizeConversation: seam })
    const o = { ...tcinOptions({ totalTokens: 85_000 }) }
    await jan2026.manageContext(o)
    expect(seam).toHaveBeenCalledWith(o.messages, o.apiHandler, 'SYSTEM', 'task-1', 85_012, true, undefined)
    // A call's own options go through the seam after Roo's arguments (and only then).
    const controller = new AbortController()
    await jan2026.manageContext({ ...o, timeoutMs: 5000, signal: controller.signal })
    expect(seam).toHaveBeenLastCalledWith(
      o.messages,
      o.apiHandler,
      'SYSTEM',
      'task-1',
      85_012,
      true,
      undefined,
      expect.objectContaining({ timeoutMs: 5000, signal: controller.signal }),
    )
    const fresh = await today.summarizeConversation(guard(conversation()), mockHandler(), 'S', 't', 10_000)
    expect(fresh.messages.at(-1)!.role).toBe('user')
    // That call counts as its Roo did: output tokens and the system prompt, under prevContextTokens.
    expect(fresh.newContextTokens).toBe(50 + 1)
    expect((await today.summarizeConversation(guard(conversation()), mockHandler(), 'S', 't', 51)).error).toBe(
      'Context size increased during condensing; skipping this attempt',
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Host calls bounded, bad numbers refused.

describe('host calls: timeouts, the signal, endless streams', () => {
  const never = () => new Promise<number>(() => {})

  it('a countTokens that never settles: an error after timeoutMs, or at once on abort — never a hang', async () => {
    const handler = { ...mockHandler(), countTokens: vi.fn(never) } as unknown as ApiHandler
    const t0 = Date.now()
    const r = await truncateConversationIfNeeded(tcinOptions({ apiHandler: handler, totalTokens: 85_000, timeoutMs: 50 } as Partial<TruncateOptions>))
    expect(r.error).toBe('Context condensing timed out: the API handler (countTokens) did not answer within 50 ms')
    expect(r.messages).toBe(r.messages) // unchanged input (guarded)
    const s = await summarizeConversation(guard(conversation()), handler, 'S', 't', 10_000, false, undefined, undefined, { timeoutMs: 50 })
    expect(s.error).toBe('Context condensing timed out: the API handler (countTokens) did not answer within 50 ms')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const aborted = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: handler,
      systemPrompt: 'S',
      taskId: 't',
      signal: controller.signal,
    })
    expect(aborted.error).toBe('Context condensing was aborted')
    expect(Date.now() - t0).toBeLessThan(5_000)
  })

  it('a stream whose next() always resolves at once: timers still fire (abort works), and its size is capped', async () => {
    const endless = () => ({
      createMessage: vi.fn(() => ({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.resolve({ done: false, value: { type: 'text', text: 'x' } }),
          return: vi.fn(async () => ({ done: true, value: undefined })),
        }),
      })),
      countTokens: async () => 1,
    })
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), 30)
    const t0 = Date.now()
    const r = await summarizeConversation(guard(conversation()), endless() as unknown as ApiHandler, 'S', 't', 10_000, false, undefined, undefined, {
      signal: controller.signal,
      maxStreamChars: 1e9,
    })
    clearTimeout(timer)
    expect(r.error).toBe('Context condensing was aborted')
    expect(Date.now() - t0).toBeLessThan(5_000)
    const capped = await summarizeConversation(guard(conversation()), endless() as unknown as ApiHandler, 'S', 't', 10_000, false, undefined, undefined, {
      maxStreamChars: 1000,
    })
    expect(capped.error).toBe("Failed to condense context: the API handler's stream passed 1000 characters of text")
    const timed = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: endless() as unknown as ApiHandler,
      systemPrompt: 'S',
      taskId: 't',
      timeoutMs: 40,
      maxStreamChars: 1e9,
    })
    expect(timed.error).toMatch(
      /^Context condensing timed out: the API handler's stream did not end within 40 ms$|^Context condensing timed out: the API handler's stream did not answer within \d+ ms$/,
    )
  })

  it('a throwing countTokens is an error result, not a throw', async () => {
    const handler = {
      ...mockHandler(),
      countTokens: () => {
        throw new Error('tokenizer down')
      },
    } as unknown as ApiHandler
    const r = await truncateConversationIfNeeded(tcinOptions({ apiHandler: handler }))
    expect(r.error).toBe("Failed to condense context: the API handler's countTokens failed: tokenizer down")
    const rejecting = {
      ...mockHandler(),
      countTokens: async () => {
        throw new Error('503')
      },
    } as unknown as ApiHandler
    const m = await today.manageContext({ ...tcinOptions({ apiHandler: rejecting }) } as never)
    expect(m.error).toBe("Failed to condense context: the API handler's countTokens failed: 503")
    const garbage = { ...mockHandler(), countTokens: async () => -4 } as unknown as ApiHandler
    expect((await truncateConversationIfNeeded(tcinOptions({ apiHandler: garbage }))).error).toBe(
      "Failed to condense context: the API handler's countTokens: expected a number >= 0, got number -4",
    )
  })
})

describe('bad numbers are refused, never computed with', () => {
  it('totalTokens / contextWindow: NaN, undefined, negative or a string is an error naming it, with no model call', async () => {
    for (const [key, value, shown] of [
      ['totalTokens', Number.NaN, 'number NaN'],
      ['totalTokens', undefined, 'undefined'],
      ['totalTokens', -5, 'number -5'],
      ['totalTokens', '39000', 'string "39000"'],
      ['contextWindow', 0, 'number 0'],
    ] as const) {
      const handler = mockHandler()
      const o = tcinOptions({ apiHandler: handler, [key]: value } as Partial<TruncateOptions>)
      const r = await truncateConversationIfNeeded(o)
      expect(r.error, `${key} ${String(value)}`).toBe(
        `Failed to condense context: truncateConversationIfNeeded: ${key}: expected a number >= ${key === 'contextWindow' ? 1 : 0}, got ${shown}`,
      )
      expect(r.messages).toBe(o.messages)
      expect(r.prevContextTokens).toBe(0)
      expect(handler.createMessage).not.toHaveBeenCalled()
    }
    // The engine's rules take a global threshold of 5..100 % (Roo's settings offer no other).
    const low = await truncateConversationIfNeeded(tcinOptions({ autoCondenseContextPercent: 1 }))
    expect(low.error).toBe('Failed to condense context: truncateConversationIfNeeded: autoCondenseContextPercent: expected a percentage from 5 to 100, got 1')
    expect((await today.summarizeConversation({ messages: 'x' } as never)).error).toBe(
      'Failed to condense context: summarizeConversation: messages: expected an array of messages, got string "x"',
    )
    expect(() =>
      today.willManageContext({
        totalTokens: '1' as unknown as number,
        contextWindow: 10,
        autoCondenseContext: true,
        autoCondenseContextPercent: 50,
        profileThresholds: {},
        currentProfileId: 'd',
        lastMessageTokens: 0,
      }),
    ).toThrow('willManageContext: totalTokens: expected a number >= 0, got string "1"')
  })

  it('a negative, NaN or non-number totalCost / outputTokens in the usage chunk fails the summary with its name', async () => {
    for (const [usage, shown] of [
      [{ type: 'usage', inputTokens: 1, outputTokens: 5, totalCost: -3 }, 'totalCost: expected a number >= 0, got number -3'],
      [{ type: 'usage', inputTokens: 1, outputTokens: 5, totalCost: Number.NaN }, 'totalCost: expected a number >= 0, got number NaN'],
      [{ type: 'usage', inputTokens: 1, outputTokens: -50, totalCost: 0.1 }, 'outputTokens: expected a number >= 0, got number -50'],
      [{ type: 'usage', inputTokens: 1, outputTokens: '7', totalCost: 0.1 }, 'outputTokens: expected a number >= 0, got string "7"'],
    ] as const) {
      const messages = guard(conversation())
      const r = await summarizeConversation(messages, mockHandler({ usage: usage as unknown as ApiStreamChunk }), 'S', 't', 10_000)
      expect(r.error).toBe(`Failed to condense context: the usage chunk: ${shown}`)
      expect(r.messages).toBe(messages)
      expect(r.newContextTokens).toBeUndefined()
    }
    // A prevContextTokens that is not a number >= 0 is refused too.
    const bad = await summarizeConversation(guard(conversation()), mockHandler(), 'S', 't', Number.NaN)
    expect(bad.error).toBe('Failed to condense context: summarizeConversation: prevContextTokens: expected a number >= 0, got number NaN')
  })
})

describe("today: folded file context from the host's outlines", () => {
  it('one <system-reminder> per file, relative paths resolved against cwd, error outlines and failures skipped, a character budget', async () => {
    const outlines: Record<string, string | undefined> = {
      '/w/a.ts': '1--5 | export interface User',
      '/abs/b.ts': 'Unsupported file type: /abs/b.ts',
      '/w/c.ts': undefined,
    }
    const outlineFile = vi.fn(async (p: string) => {
      if (p === '/w/boom.ts') throw new Error('parser crashed')
      return outlines[p]
    })
    const { warn } = quiet()
    const r = await today.generateFoldedFileContext(['a.ts', '/abs/b.ts', 'c.ts', 'boom.ts'], { cwd: '/w', outlineFile })
    expect(outlineFile).toHaveBeenCalledWith('/w/a.ts', undefined)
    expect(r.sections).toEqual(['<system-reminder>\n## File Context: a.ts\n1--5 | export interface User\n</system-reminder>'])
    expect(r.filesProcessed).toBe(1)
    expect(r.filesSkipped).toBe(3)
    expect(r.characterCount).toBe(r.content.length)
    expect(warn).toHaveBeenCalledWith('Folded context generation: skipped 1 file(s) due to errors: boom.ts')
    const long = await today.generateFoldedFileContext(['a.ts', 'b.ts'], { cwd: '/w', maxCharacters: 400, outlineFile: async () => 'x'.repeat(1000) })
    expect(long.sections).toHaveLength(1)
    expect(long.sections[0].endsWith('\n... (truncated)\n</system-reminder>')).toBe(true)
    expect(long.filesSkipped).toBe(1)
    await expect(today.generateFoldedFileContext(['a.ts'], { cwd: '/w' } as never)).rejects.toThrow(/options\.outlineFile: expected a function/)
  })

  it('summarizeConversation appends those sections when configured with outlineFile', async () => {
    today.configure({ outlineFile: async (p: string) => `outline of ${p}` })
    const r = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: todayHandler(),
      systemPrompt: 'S',
      taskId: 't',
      filesReadByRoo: ['x.ts'],
      cwd: '/w',
    })
    expect((r.messages.at(-1)!.content as Array<{ text: string }>)[1].text).toBe(
      '<system-reminder>\n## File Context: x.ts\noutline of /w/x.ts\n</system-reminder>',
    )
  })
})

describe('today: a first step before the fresh-start summary', () => {
  itReal('lossless alone under the threshold: its copies are stored after their messages, no model call, the model is sent the shorter history', async () => {
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const handler = todayHandler({ count: engineCount })
    const lossless = await condense(input, { provider: 'lossless' })
    expect(lossless.newContextTokens!).toBeLessThan(before)
    // A window where lossless alone brings the context under the threshold.
    const contextWindow = Math.ceil((lossless.newContextTokens! + 10) / 0.5)
    const last = engineCount(
      Array.isArray(input.at(-1)!.content) ? (input.at(-1)!.content as ContentBlock[]) : [{ type: 'text', text: String(input.at(-1)!.content) }],
    )
    const r = await today.manageContext({
      messages: input,
      totalTokens: before - last,
      contextWindow: Math.max(contextWindow, Math.ceil(before / 0.6)),
      maxTokens: 1,
      apiHandler: handler,
      autoCondenseContext: true,
      autoCondenseContextPercent: 50,
      systemPrompt: '',
      taskId: 't',
      profileThresholds: {},
      currentProfileId: 'd',
      provider: 'lossless',
    })
    expect(r.error).toBeUndefined()
    expect(r.provider).toBe('lossless')
    expect(handler.createMessage).not.toHaveBeenCalled()
    expect(r.messages.length).toBeGreaterThan(input.length) // nothing removed: copies beside originals
    const sent = today.getEffectiveApiHistory(r.messages)
    expect(validateConversation(sent)).toEqual([])
    // Lossless's saving, the first message aside (Roo keeps it as it is).
    expect(countTokens(sent)).toBe(r.newContextTokens)
    expect(r.newContextTokens).toBe(lossless.newContextTokens! + countTokens([input[0]]) - countTokens([lossless.messages[0]]))
    expect(sent[0]).toBe(input[0])
    // Without the copies, the originals are sent again, as they were.
    expect(today.getEffectiveApiHistory(today.cleanupAfterTruncation(r.messages.filter((m) => !m.condensedBy)))).toEqual(input)
  })

  itReal('a first step that misses the target: the fresh-start summary follows as usual', async () => {
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const handler = todayHandler({ count: engineCount })
    const r = await today.manageContext({
      messages: input,
      totalTokens: before,
      contextWindow: before + 20_000,
      maxTokens: 1,
      apiHandler: handler,
      autoCondenseContext: true,
      autoCondenseContextPercent: 5,
      systemPrompt: '',
      taskId: 't',
      profileThresholds: {},
      currentProfileId: 'd',
      provider: 'lossless',
    })
    expect(r.error).toBeUndefined()
    expect(handler.createMessage).toHaveBeenCalledTimes(1)
    expect(r.messages.at(-1)!.isSummary).toBe(true)
  })
})

describe('references through a first step and a summary', () => {
  it('a reference whose target stays while it moves (one to the first message) is expanded back, never left dangling', async () => {
    const { expandReferences } = await import('../lib/index.js')
    const body =
      '<files>\n<file><path>a.ts</path>\n<content lines="1-30">\n' +
      Array.from({ length: 30 }, (_, i) => `${String(i + 1).padStart(2)} | export const v${i} = ${i} // some line`).join('\n') +
      '\n</content>\n</file>\n</files>'
    const read = (): ApiMessage => ({
      role: 'user',
      content: [
        { type: 'text', text: "[read_file for 'a.ts'] Result:" },
        { type: 'text', text: body },
      ],
    })
    const input: ApiMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<task>\nfix a.ts\n</task>' },
          { type: 'text', text: "[read_file for 'a.ts'] Result:" },
          { type: 'text', text: body },
        ],
      },
    ]
    for (let i = 0; i < 6; i++)
      input.push({ role: 'assistant', content: [{ type: 'text', text: `step ${i} <read_file><path>a.ts</path></read_file>` }] }, read())
    input.push({ role: 'assistant', content: [{ type: 'text', text: 'done' }] })
    guard(input)
    const first = await condense(input, { provider: 'lossless' })
    expect(JSON.stringify(first.messages[input.length - 2])).toContain('identical to message #0')
    const r = await summarizeConversation(input, mockHandler({ count: engineCount }), '', 't', countTokens(input), true, undefined, undefined, {
      provider: 'lossless',
      targetTokens: 100,
    })
    expect(r.error).toBeUndefined()
    expect(r.messages.length).toBeLessThan(input.length)
    // Every marker left in the result expands where it is.
    const left = JSON.stringify(expandReferences(r.messages))
    expect(left).not.toContain('⟨ Reference:')
  })
})
