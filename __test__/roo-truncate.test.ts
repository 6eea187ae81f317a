// Roo Code's 2025 truncation over the engine: truncateConversation, truncateConversationIfNeeded
// (thresholds, the signal), estimateTokenCount, and this package's first step before the summary.
// Handlers are mocks shaped like Roo's ApiHandler; inputs are deep-compared after every call
// (__test__/roo-harness.ts).
import { describe, expect, it, vi } from 'vitest'

import { condense, countTokens, slidingWindow, validateConversation } from '../lib/index.js'
import {
  estimateTokenCount,
  summarizeConversation,
  truncateConversation,
  truncateConversationIfNeeded,
  type ApiHandler,
  type ApiMessage,
  type ContentBlock,
} from '../lib/roo-2025.js'
import { loadFixture, itReal } from './helpers.js'
import { SUMMARY, conversation, engineCount, mockHandler, guard, roleContent, telemetry, tcinOptions } from './roo-harness.js'

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
