// Prices and the numbers a caller gives with them: the price lists of the prompt-cache models (their
// defaults, the ratio rule, the range check and its error text), the cost of a usage chunk from Roo's
// API handler, and the one rule for prevContextTokens across Roo's three summarizeConversation calls
// and the engine's condense().
import { describe, expect, it } from 'vitest'

import { CondensationManager, condense } from '../lib/index.js'
import { summarizeConversation as summarize2025, truncateConversationIfNeeded } from '../lib/roo-2025.js'
import * as jan2026 from '../lib/roo-2026-01.js'
import * as today from '../lib/roo.js'
import { conversation, guard, mockHandler, tcinOptions } from './roo-harness.js'

type Prices = { inputPrice: number; outputPrice: number; cacheWritesPrice: number; cacheReadsPrice: number }
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readPricing, DEFAULT_PRICING } = require('../lib/internal/prompt-cache.js') as {
  readPricing(given: unknown, cache: 'anthropic' | 'openai', at: string): Prices
  DEFAULT_PRICING: Record<'anthropic' | 'openai', Prices>
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const host = require('../lib/roo/host.js') as {
  callHandler(
    handler: unknown,
    systemPrompt: string,
    messages: unknown[],
    o: { timeoutMs: number; maxStreamChars: number; pricing?: unknown },
  ): Promise<{ text: string; cost: number; outputTokens: number }>
}

describe('price lists of the prompt-cache models (readPricing)', () => {
  it('the defaults: Claude Sonnet list prices for Anthropic, GPT-4o for OpenAI', () => {
    expect(DEFAULT_PRICING.anthropic).toEqual({ inputPrice: 3, outputPrice: 15, cacheWritesPrice: 3.75, cacheReadsPrice: 0.3 })
    expect(DEFAULT_PRICING.openai).toEqual({ inputPrice: 2.5, outputPrice: 10, cacheWritesPrice: 2.5, cacheReadsPrice: 1.25 })
    expect(Object.isFrozen(DEFAULT_PRICING.anthropic)).toBe(true)
    for (const cache of ['anthropic', 'openai'] as const) {
      expect(readPricing(undefined, cache, 'x')).toEqual(DEFAULT_PRICING[cache])
      expect(readPricing({}, cache, 'x')).toEqual(DEFAULT_PRICING[cache])
      // accounting is accepted and does not change the prices
      expect(readPricing({ accounting: 'openai' }, cache, 'x')).toEqual(DEFAULT_PRICING[cache])
    }
  })

  it('only an input price: the others keep the provider’s usual ratios to it', () => {
    const a = readPricing({ inputPrice: 6 }, 'anthropic', 'x')
    expect(a).toStrictEqual({ inputPrice: 6, outputPrice: 15 * 2, cacheWritesPrice: 3.75 * 2, cacheReadsPrice: 0.3 * 2 })
    const o = readPricing({ inputPrice: 5 }, 'openai', 'x')
    expect(o).toStrictEqual({ inputPrice: 5, outputPrice: 10 * 2, cacheWritesPrice: 5, cacheReadsPrice: 1.25 * 2 })
    // A ratio that is not a whole number: the same doubles as the rule computes them.
    const r = readPricing({ inputPrice: 1 }, 'anthropic', 'x')
    expect(r).toStrictEqual({ inputPrice: 1, outputPrice: 15 * (1 / 3), cacheWritesPrice: 3.75 * (1 / 3), cacheReadsPrice: 0.3 * (1 / 3) })
    // A free input: every price scaled by 0, except those given.
    expect(readPricing({ inputPrice: 0, outputPrice: 4 }, 'anthropic', 'x')).toStrictEqual({
      inputPrice: 0,
      outputPrice: 4,
      cacheWritesPrice: 0,
      cacheReadsPrice: 0,
    })
  })

  it('all given: taken as they are, but OpenAI writes its cache at the input price', () => {
    const given = { inputPrice: 1, outputPrice: 2, cacheWritesPrice: 3, cacheReadsPrice: 0.5 }
    expect(readPricing(given, 'anthropic', 'x')).toStrictEqual(given)
    expect(readPricing(given, 'openai', 'x')).toStrictEqual({ ...given, cacheWritesPrice: 1 })
    // Without an input price, the others are not scaled.
    expect(readPricing({ outputPrice: 7 }, 'anthropic', 'x')).toStrictEqual({ ...DEFAULT_PRICING.anthropic, outputPrice: 7 })
  })

  it('refuses a price that is not a number >= 0, naming its path', () => {
    const at = 'replay: options.pricing'
    const cases: Array<[unknown, string]> = [
      [Number.NaN, 'number NaN'],
      [-1, 'number -1'],
      [Number.POSITIVE_INFINITY, 'number Infinity'],
      [Number.NEGATIVE_INFINITY, 'number -Infinity'],
      [-1e-7, 'number -1e-7'],
      [-1e21, 'number -1e+21'],
      ['3', 'string "3"'],
      [null, 'null'],
      [true, 'boolean true'],
      [{}, 'an object'],
      [[1], 'an array'],
    ]
    for (const cache of ['anthropic', 'openai'] as const) {
      for (const key of ['inputPrice', 'outputPrice', 'cacheWritesPrice', 'cacheReadsPrice']) {
        for (const [value, shown] of cases) {
          expect(() => readPricing({ [key]: value }, cache, at), `${key} ${shown}`).toThrow(
            new TypeError(`${at}.${key}: expected a price >= 0 in dollars per million tokens, got ${shown}`),
          )
        }
      }
    }
    // The first bad key in the object's order is named.
    expect(() => readPricing({ outputPrice: -2, inputPrice: -1 }, 'anthropic', at)).toThrow(`${at}.outputPrice: expected a price >= 0`)
  })

  it('refuses what is not a price list, and keys it does not know', () => {
    const at = 'CondensationManager: options.policy.pricing'
    for (const [given, shown] of [
      [null, 'null'],
      [[], 'an array'],
      [5, 'number 5'],
      ['x', 'string "x"'],
    ] as Array<[unknown, string]>) {
      expect(() => readPricing(given, 'anthropic', at)).toThrow(new TypeError(`${at}: expected an object, got ${shown}`))
    }
    expect(() => readPricing({ input: 3 }, 'anthropic', at)).toThrow(
      new TypeError(`${at}.input: unknown key, expected one of inputPrice, outputPrice, cacheWritesPrice, cacheReadsPrice, accounting`),
    )
  })
})

describe('the cost of a usage chunk from Roo’s API handler', () => {
  const o = (pricing?: unknown) => ({ timeoutMs: 10_000, maxStreamChars: 1_000_000, pricing })
  const costOf = async (usage: object | null, pricing?: unknown) =>
    (await host.callHandler(mockHandler({ usage: usage === null ? null : ({ type: 'usage', ...usage } as never) }), 'S', [], o(pricing))).cost
  const anthropic = { inputPrice: 3, outputPrice: 15, cacheWritesPrice: 3.75, cacheReadsPrice: 0.3 }

  it('its totalCost when it has one, whatever the prices', async () => {
    expect(await costOf({ inputTokens: 100, outputTokens: 50, totalCost: 0.05 }, anthropic)).toBe(0.05)
    expect(await costOf({ totalCost: 0 }, anthropic)).toBe(0)
  })

  it('else its tokens priced (Anthropic counts input without the cached tokens; OpenAI with them)', async () => {
    const usage = { inputTokens: 1_000_000, outputTokens: 100_000, cacheWriteTokens: 200_000, cacheReadTokens: 500_000 }
    expect(await costOf(usage, anthropic)).toBe((3 * 1_000_000 + 15 * 100_000 + 3.75 * 200_000 + 0.3 * 500_000) / 1_000_000)
    expect(await costOf(usage, { ...anthropic, accounting: 'openai' })).toBe((3 * 300_000 + 15 * 100_000 + 3.75 * 200_000 + 0.3 * 500_000) / 1_000_000)
    // OpenAI's input never goes below 0 once the cached tokens are taken out.
    expect(await costOf({ inputTokens: 10, cacheReadTokens: 100 }, { ...anthropic, accounting: 'openai' })).toBe((0.3 * 100) / 1_000_000)
    // Prices left out are 0 (a price list for a reply is taken as given, with no defaults).
    expect(await costOf({ inputTokens: 1000, outputTokens: 100 }, { inputPrice: 3 })).toBe((3 * 1000) / 1_000_000)
  })

  it('missing fields (undefined or null) count 0; no usage chunk or no prices cost 0', async () => {
    expect(await costOf({}, anthropic)).toBe(0)
    expect(await costOf({ outputTokens: 10 }, anthropic)).toBe((15 * 10) / 1_000_000)
    expect(await costOf({ inputTokens: null, outputTokens: 10, totalCost: null }, anthropic)).toBe((15 * 10) / 1_000_000)
    expect(await costOf(null, anthropic)).toBe(0)
    expect(await costOf({ inputTokens: 1000 })).toBe(0)
  })

  it('refuses a usage number that is not a number >= 0, naming it', async () => {
    for (const [usage, text] of [
      [{ inputTokens: Number.NaN }, 'the usage chunk: inputTokens: expected a number >= 0, got number NaN'],
      [{ outputTokens: -1 }, 'the usage chunk: outputTokens: expected a number >= 0, got number -1'],
      [{ cacheReadTokens: Number.POSITIVE_INFINITY }, 'the usage chunk: cacheReadTokens: expected a number >= 0, got number Infinity'],
      [{ cacheWriteTokens: '5' }, 'the usage chunk: cacheWriteTokens: expected a number >= 0, got string "5"'],
      [{ totalCost: -0.5 }, 'the usage chunk: totalCost: expected a number >= 0, got number -0.5'],
    ] as Array<[object, string]>) {
      await expect(costOf(usage, anthropic)).rejects.toThrow(text)
    }
    // A price list the entry's options did not check first is refused by the engine's one check.
    await expect(costOf({ inputTokens: 1 }, { inputPrice: -1 })).rejects.toThrow(
      'options.pricing.inputPrice: expected a price >= 0 in dollars per million tokens, got number -1',
    )
  })

  it('the same cost through summarizeConversation, for every era', async () => {
    const usage = { type: 'usage', inputTokens: 1000, outputTokens: 100, cacheReadTokens: 50 } as const
    const want = (3 * 1000 + 15 * 100 + 0.3 * 50) / 1_000_000
    const r = await summarize2025(guard(conversation()), mockHandler({ usage }), 'S', 't', 10_000, false, undefined, undefined, { pricing: anthropic })
    expect(r.error).toBeUndefined()
    expect(r.cost).toBe(want)
    const t = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: mockHandler({ usage }),
      systemPrompt: 'S',
      taskId: 't',
      pricing: anthropic,
    } as never)
    expect(t.error).toBeUndefined()
    expect(t.cost).toBe(want)
  })
})

describe('prevContextTokens: one rule wherever it is given', () => {
  const BAD: Array<[unknown, string]> = [
    [Number.NaN, 'number NaN'],
    [-1, 'number -1'],
    [2 ** 53, 'number 9007199254740992'],
    [1.5, 'number 1.5'],
    ['10', 'string "10"'],
  ]
  const rule = (path: string, shown: string) => `${path}: expected a whole number >= 0, got ${shown}`
  const failed = 'Failed to condense context: summarizeConversation: '

  it('Roo’s three summarizeConversation calls refuse the same values with the same message', async () => {
    for (const [value, shown] of BAD) {
      const handler = mockHandler()
      const positional = [guard(conversation()), handler, 'S', 't', value] as const
      const old = await summarize2025(...(positional as unknown as Parameters<typeof summarize2025>))
      expect(old.error, `2025 ${shown}`).toBe(failed + rule('prevContextTokens', shown))
      const jan = await jan2026.summarizeConversation(...(positional as unknown as Parameters<typeof jan2026.summarizeConversation>))
      expect(jan.error, `2026-01 ${shown}`).toBe(failed + rule('prevContextTokens', shown))
      const pos = await (today.summarizeConversation as unknown as (...a: unknown[]) => Promise<{ error?: string }>)(...positional)
      expect(pos.error, `today positional ${shown}`).toBe(failed + rule('prevContextTokens', shown))
      const obj = await today.summarizeConversation({
        messages: guard(conversation()),
        apiHandler: handler,
        systemPrompt: 'S',
        taskId: 't',
        prevContextTokens: value,
      } as never)
      expect(obj.error, `today options ${shown}`).toBe(failed + rule('options.prevContextTokens', shown))
      expect(handler.createMessage).not.toHaveBeenCalled()
    }
  })

  it('the engine’s condense() refuses the same values, naming options.prevContextTokens', async () => {
    for (const [value, shown] of BAD) {
      await expect(condense(conversation(), { provider: 'lossless', prevContextTokens: value as number }), shown).rejects.toThrow(
        // NaN and a string are named on their way to the engine (not JSON numbers); the engine's own rule names the others.
        typeof value === 'number' && Number.isFinite(value) ? 'options.prevContextTokens: expected a whole number >= 0, got ' : 'options.prevContextTokens: ',
      )
    }
  })

  it('a context-management call whose counts have fractions still summarizes (the summary is given a whole count)', async () => {
    const handler = mockHandler({ count: () => 12 })
    const r = await truncateConversationIfNeeded(tcinOptions({ totalTokens: 85_000.5, apiHandler: handler }))
    expect(r.error).toBeUndefined()
    expect(r.summary).toBe('This is a summary')
    // What it answers is the host's own sum, as Roo's own answers it.
    expect(r.prevContextTokens).toBe(85_000.5 + 12)
    const t = await today.manageContext({ ...tcinOptions({ totalTokens: 85_000.5, apiHandler: handler }) } as never)
    expect((t as { error?: string }).error).toBeUndefined()
  })

  it('estimateCost refuses a price below 0 as every other price list is refused', async () => {
    const m = new CondensationManager()
    await expect(m.estimateCost(conversation(), { pricing: { inputPrice: -1 } })).rejects.toThrow(
      'pricing.inputPrice: expected a price >= 0 in dollars per million tokens, got number -1',
    )
    await expect(m.estimateCost(conversation(), { pricing: { inputPrice: 3 } })).resolves.toBe(0)
  })

  it('accepts every whole number a double holds exactly, and none', async () => {
    for (const value of [0, 1, 10_000, 2 ** 53 - 1]) {
      const r = await summarize2025(guard(conversation()), mockHandler(), 'S', 't', value)
      expect(r.error === undefined || !r.error.includes('prevContextTokens'), String(value)).toBe(true)
      const c = await condense(conversation(), { provider: 'lossless', prevContextTokens: value })
      expect(c.prevContextTokens).toBe(value)
    }
    const none = await today.summarizeConversation({ messages: guard(conversation()), apiHandler: mockHandler(), systemPrompt: 'S', taskId: 't' })
    expect(none.error).toBeUndefined()
  })
})
