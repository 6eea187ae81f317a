// The engine's prompt-cache model as JavaScript reaches it (`PromptCache`, crates/binding/src/cache_model.rs,
// which lib/internal/prompt-cache.js's `CacheModel` wraps): its rules are tested in Rust
// (src/cache_model.rs) and through the facade in replay.test.ts; here, that every hostile value in
// each place of each call (NaN, -1, 2^31 where it is out of range, a BigInt, a wrong type) is
// refused with a coded error naming the place, and leaves the cache as it was.
import { describe, expect, it } from 'vitest'

import { expectRefused } from './helpers.js'

type Row = { tokens: number; cachedRead: number; cacheWrite: number; uncached: number; cost: number; firstChanged: number; cachedMessages: number }
type PromptCache = {
  peek(same: unknown, tail: unknown, at?: unknown): Row
  request(same: unknown, tail: unknown, at?: unknown): Row
  setPricing(p: unknown): void
  freshRequestCost(input: unknown, output: unknown): { inputCost: number; outputCost: number; cacheWrite: number }
  leastCost(tokens: unknown, times: unknown): number
  sendOnceCost(appended: unknown, first: unknown): number
  writesPrefix(tokens: unknown): boolean
  readonly sent: number
  readonly rewritePremium: number
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require('../lib/internal/native.js') as {
  PromptCache: new (...args: unknown[]) => PromptCache
  cacheBreakpoints(user: unknown): number[]
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { CacheModel } = require('../lib/internal/prompt-cache.js') as {
  CacheModel: {
    breakpoints(messages: object[]): number[]
    new (
      kind: string,
      pricing: object,
      systemTokens: number,
    ): {
      request(messages: object[], tokensOf: (m: object) => number): Row
    }
  }
}

const PRICES = { inputPrice: 3, outputPrice: 15, cacheWritesPrice: 3.75, cacheReadsPrice: 0.3 }
/** Two messages as the engine reads them: a user message of 1,000 tokens with two blocks, an assistant one of 500. */
const TAIL = new Float64Array([1000, 2 * 2 + 1, 500, 0])
const HOSTILE: Array<[string, unknown]> = [
  ['NaN', Number.NaN],
  ['-1', -1],
  ['Infinity', Number.POSITIVE_INFINITY],
  ['a BigInt', 10n],
  ['a string', '10'],
  ['an object', {}],
]

describe('the engine prompt-cache model refuses hostile values clearly', () => {
  it('in the constructor', () => {
    const args: unknown[] = ['anthropic', PRICES, 2000, 20, 300_000]
    const places = ['kind', 'pricing', 'systemTokens', 'lookbackBlocks', 'ttlMs']
    for (let i = 0; i < args.length; i++)
      for (const [, bad] of HOSTILE) {
        // An empty object is a price list whose prices are all 0 (a price left out is 0).
        if (places[i] === 'pricing' && typeof bad === 'object') continue
        const given = args.slice()
        given[i] = bad
        expectRefused(() => new native.PromptCache(...given), places[i])
      }
    expectRefused(() => new native.PromptCache('anthropic', { ...PRICES, inputPrice: -1 }, 2000), 'pricing.inputPrice')
    expectRefused(() => new native.PromptCache('anthropic', { ...PRICES, inputPrice: '3' }, 2000), 'pricing')
    expectRefused(() => new native.PromptCache('anthropic', { ...PRICES, inputPrice: 10n }, 2000), 'pricing')
    expectRefused(() => new native.PromptCache('anthropic', PRICES, 2000, 1.5), 'lookbackBlocks')
    expectRefused(() => new native.PromptCache('anthropic', PRICES, 2000, 2 ** 53), 'lookbackBlocks')
    // Any whole number of blocks up to 2^53 - 1 is a lookback (past every history: any entry).
    expect(new native.PromptCache('anthropic', PRICES, 2000, 2 ** 53 - 1).request(0, TAIL)).toMatchObject({ cacheWrite: 3000 })
    expect(new native.PromptCache('openai', PRICES, 2 ** 31).sent).toBe(0)
    expect(new native.PromptCache('openai', {}, 0).freshRequestCost(2000, 100)).toEqual({ inputCost: 0, outputCost: 0, cacheWrite: 0 })
  })

  it('in each call, leaving the cache as it was', () => {
    const cache = new native.PromptCache('anthropic', PRICES, 2000)
    const first = cache.request(0, TAIL)
    const untouched = new native.PromptCache('anthropic', PRICES, 2000)
    untouched.request(0, TAIL)
    for (const call of ['peek', 'request'] as const) {
      for (const [, bad] of [...HOSTILE, ['2^31', 2 ** 31]] as Array<[string, unknown]>) expectRefused(() => cache[call](bad, TAIL), 'same')
      // More shared messages than the previous request sent.
      expectRefused(() => cache[call](3, TAIL), 'same')
      for (const [, bad] of HOSTILE) expectRefused(() => cache[call](0, bad), 'tail')
      expectRefused(() => cache[call](0, new Float64Array([1000])), 'tail')
      expectRefused(() => cache[call](0, new Float64Array([Number.NaN, 1])), 'tail[0]')
      expectRefused(() => cache[call](0, new Float64Array([-1, 1])), 'tail[0]')
      expectRefused(() => cache[call](0, new Float64Array([1, 0.5])), 'tail[1]')
      expectRefused(() => cache[call](0, new Float64Array([1, 2 ** 40])), 'tail[1]')
      expectRefused(() => cache[call](0, TAIL, Number.NaN), 'at')
      expectRefused(() => cache[call](0, TAIL, 10n), 'at')
    }
    for (const [, bad] of HOSTILE) {
      expectRefused(() => cache.freshRequestCost(bad, 1), 'input')
      expectRefused(() => cache.freshRequestCost(1, bad), 'output')
      expectRefused(() => cache.leastCost(bad, 1), 'tokens')
      expectRefused(() => cache.leastCost(1, bad), 'times')
      expectRefused(() => cache.sendOnceCost(bad, true), 'appended')
      expectRefused(() => cache.writesPrefix(bad), 'tokens')
      if (typeof bad !== 'object') expectRefused(() => cache.setPricing(bad), 'pricing')
    }
    expectRefused(() => cache.setPricing({ ...PRICES, cacheReadsPrice: Number.NaN }), 'pricing.cacheReadsPrice')
    expectRefused(() => cache.sendOnceCost(1, 'yes'), 'first')
    expectRefused(() => native.cacheBreakpoints([1, 0]), 'user')
    // Nothing refused changed what the cache holds: the next request reads what the first wrote.
    const next = new Float64Array([...TAIL, 700, 1])
    expect(cache.sent).toBe(2)
    expect(cache.request(2, next.subarray(4))).toEqual(untouched.request(2, next.subarray(4)))
    expect(first).toMatchObject({ tokens: 3500, cachedRead: 0, cacheWrite: 3000, uncached: 500 })
  })

  it('the facade hands the engine the messages it does not share with the previous request', () => {
    const tokensOf = (m: object) => (m as { tokens: number }).tokens
    const cache = new CacheModel('anthropic', PRICES, 2000)
    const u1 = { role: 'user', content: [{ type: 'text', text: 'a' }], tokens: 1000 }
    const a1 = { role: 'assistant', content: 'b', tokens: 500 }
    cache.request([u1, a1], tokensOf)
    // An equal copy of a message counts as the same message (its bytes are what is cached).
    const r = cache.request([structuredClone(u1), structuredClone(a1), { role: 'user', content: 'c', tokens: 300 }], tokensOf)
    expect(r).toMatchObject({ tokens: 3800, cachedRead: 3000, cacheWrite: 800, firstChanged: 2 })
    expect(CacheModel.breakpoints([u1, a1, u1, a1, u1])).toEqual([0, 3, 5])
  })
})
