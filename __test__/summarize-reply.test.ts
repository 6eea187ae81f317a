// What condense does with the summarize callback's reply (lib/index.js readReply): a reply it cannot
// use — a negative or non-finite cost or token count, a BigInt, a `text` or `cost` getter that
// throws — is never computed with and never a rejection: Native resolves with `error` naming
// options.summarize (messages unchanged), Smart truncates that content instead and says why.
import { describe, expect, it } from 'vitest'

import { condense, validateConversation, type ApiMessage } from '../lib/index.js'
import { generateHistory } from '../fixtures/generate.mjs'

const history = () => generateHistory({ seed: 21, format: 'xml', targetTokens: 40_000 }) as ApiMessage[]
const once = { summarizeOptions: { retries: 0 } }

const bad: Array<[string, () => unknown, RegExp]> = [
  ['a negative cost', () => ({ text: 'SUMMARY: ok.', cost: -3 }), /options\.summarize returned cost: number -3; expected a finite number >= 0/],
  [
    'a negative inputTokens',
    () => ({ text: 'SUMMARY: ok.', inputTokens: -1 }),
    /options\.summarize returned inputTokens: number -1; expected a finite number >= 0/,
  ],
  [
    'a negative outputTokens',
    () => ({ text: 'SUMMARY: ok.', outputTokens: -500 }),
    /options\.summarize returned outputTokens: number -500; expected a finite number >= 0/,
  ],
  ['a negative cacheReadTokens', () => ({ text: 'SUMMARY: ok.', cacheReadTokens: -0.5 }), /options\.summarize returned cacheReadTokens: number -0\.5/],
  ['a NaN cost', () => ({ text: 'SUMMARY: ok.', cost: NaN }), /options\.summarize returned cost: number NaN; expected a finite number >= 0/],
  ['a BigInt cost', () => ({ text: 'SUMMARY: ok.', cost: 3n }), /options\.summarize returned cost: bigint 3n; expected a finite number >= 0/],
  ['a string token count', () => ({ text: 'SUMMARY: ok.', outputTokens: '39000' }), /options\.summarize returned outputTokens: string "39000"/],
  [
    'a text getter that throws',
    () => ({
      get text(): string {
        throw new Error('getter boom')
      },
    }),
    /options\.summarize returned a reply whose text could not be read: getter boom/,
  ],
  [
    'a cost getter that throws',
    () => ({
      text: 'SUMMARY: ok.',
      get cost(): number {
        throw new TypeError('no cost today')
      },
    }),
    /options\.summarize returned a reply whose cost could not be read: no cost today/,
  ],
  [
    'a proxy that throws on every read',
    () =>
      new Proxy(
        {},
        {
          get() {
            throw new Error('proxy trap')
          },
        },
      ),
    // Its `then` is read first, when the promise resolves: a rejection, retried as one.
    /options\.summarize rejected \(1 attempt\): proxy trap/,
  ],
  ['a text that is not a string', () => ({ text: 42 }), /options\.summarize returned an object whose text is number 42; expected a string or \{ text: string/],
  ['a BigInt instead of a reply', () => 7n, /options\.summarize returned bigint 7n; expected a string or/],
]

describe('Native: an unusable reply is the result.error naming options.summarize', () => {
  for (const [what, reply, message] of bad) {
    it(`${what}: resolves with error, messages unchanged, cost not computed`, async () => {
      const h = history()
      const snapshot = structuredClone(h)
      let calls = 0
      const r = await condense(h, {
        provider: 'native',
        ...once,
        summarize: async () => {
          calls++
          return reply() as string
        },
      })
      expect(calls).toBe(1)
      expect(r.error).toMatch(/^Failed to condense context: /)
      expect(r.error).toMatch(message)
      expect(r.messages).toEqual(snapshot)
      expect(r.cost).toBe(0)
      expect(h).toEqual(snapshot)
    })
  }

  it('zero and positive numbers are taken as given (the check is not a blanket refusal)', async () => {
    const r = await condense(history(), {
      provider: 'native',
      ...once,
      summarize: async () => ({ text: 'SUMMARY: ok.', cost: 0.25, inputTokens: 0, outputTokens: 12 }),
    })
    expect(r.error).toBe(undefined)
    expect(r.cost).toBe(0.25)
  })
})

describe('Smart: an unusable reply is truncated instead, and says why', () => {
  for (const [what, reply, message] of bad.filter(([w]) => /negative cost|BigInt cost|text getter/.test(w))) {
    it(`${what}: falls back, the reason in the pass's errors, never a rejection`, async () => {
      const h = history()
      const snapshot = structuredClone(h)
      const r = await condense(h, { provider: 'smart', config: { preset: 'quality' }, ...once, summarize: async () => reply() as string })
      expect(r.error).toBe(undefined)
      expect(r.metrics.passes.reduce((n, p) => n + p.summarizeFallbacks, 0)).toBeGreaterThan(0)
      expect(r.metrics.passes.flatMap((p) => p.errors ?? []).join('\n')).toMatch(message)
      expect(r.cost).toBe(0)
      expect(validateConversation(r.messages)).toEqual([])
      expect(h).toEqual(snapshot)
    })
  }
})
