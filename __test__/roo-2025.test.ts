// Roo Code's 2025 condensing API over the engine: the constants, the module, getMessagesSinceLastSummary,
// summarizeConversation (Roo's strings and log lines, telemetry, handler fallback).
// Handlers are mocks shaped like Roo's ApiHandler; inputs are deep-compared after every call
// (__test__/roo-harness.ts).
import { createRequire } from 'node:module'
import { describe, expect, it, vi } from 'vitest'

import {
  condense,
  DEFAULT_MAX_TOKENS,
  MAX_CONDENSE_THRESHOLD as ENGINE_MAX,
  MIN_CONDENSE_THRESHOLD as ENGINE_MIN,
  TOKEN_BUFFER_PERCENTAGE as ENGINE_BUFFER,
} from '../lib/index.js'
import {
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  getMessagesSinceLastSummary,
  MAX_CONDENSE_THRESHOLD,
  MIN_CONDENSE_THRESHOLD,
  N_MESSAGES_TO_KEEP,
  ROO_ERROR_MESSAGES,
  summarizeConversation,
  TOKEN_BUFFER_PERCENTAGE,
  type ApiHandler,
  type ApiMessage,
} from '../lib/roo-2025.js'
import { FINAL_REQUEST, SUMMARY, conversation, mockHandler, guard, quiet, telemetry } from './roo-harness.js'

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
