// The chains of condensing runs the reference property tests draw (__test__/reference-chains.test.ts,
// bounded, and __test__/slow/reference-chains.slow.ts, longer) and what each run of one must keep:
// every reference marker expands to exactly the bytes it stood for or is an "Omitted" note
// (__test__/reference-chains.mjs), and the invariants __test__/helpers.ts asserts for one
// condensing, in either format. A seed gives the same chain every time: a failure names it, and
// `CHAIN_SEED=<seed> npx vitest run __test__/reference-chains.test.ts` runs that one alone.
import { expect } from 'vitest'

import { generateHistory, mulberry32 } from '../fixtures/generate.mjs'
import { countTokens, validateConversation, type ApiMessage, type CondenseResult } from '../lib/index.js'
import { toAnthropic } from '../lib/openai-format.js'
import { assertInvariants, userTypedTexts } from './helpers.js'
import { runChain, type ChainFormat, type ChainStep } from './reference-chains.mjs'

/** The runs a chain draws from (see `runOptions` in reference-chains.mjs). */
export const RUNS = [
  'lossless-first',
  'lossless-latest',
  'truncation',
  'native',
  'smart-conservative',
  'smart-balanced',
  'smart-aggressive',
  'smart-speed',
  'smart-quality',
  'smart-cost',
]

export interface Chain {
  seed: number
  tools: 'xml' | 'native'
  format: ChainFormat
  targetTokens: number
  steps: ChainStep[]
}

/** The chain of a seed: a generated history of up to `maxTokens`, 2 to 4 runs (most often a Lossless one first). */
export function chainFor(seed: number, maxTokens: number): Chain {
  const rnd = mulberry32(seed * 7919 + 17)
  const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)]
  const tools = pick(['xml', 'native'] as const)
  const format = pick(['anthropic', 'openai'] as const)
  const targetTokens = 15_000 + Math.floor(rnd() * (maxTokens - 15_000))
  const length = 2 + Math.floor(rnd() * 3)
  const steps: ChainStep[] = Array.from({ length }, (_, k) => ({
    name: k === 0 && rnd() < 0.7 ? pick(['lossless-first', 'lossless-latest']) : pick(RUNS),
    // The caller's count, when given, as a multiple of the history's own.
    ...(rnd() < 0.3 ? { prevContextTokens: 0.5 + rnd() * 2 } : {}),
  }))
  return { seed, tools, format, targetTokens, steps }
}

export const describeChain = (c: Chain) =>
  `CHAIN_SEED=${c.seed}: ${c.tools} history of ~${c.targetTokens} tokens, ${c.format} format, ${c.steps
    .map((s) => s.name + (s.prevContextTokens ? ` (prevContextTokens x${s.prevContextTokens.toFixed(2)})` : ''))
    .join(' -> ')}`

function messageText(m: unknown): string {
  return JSON.stringify((m as { content?: unknown }).content)
}

/** The seeds to run: `CHAIN_SEED` alone when set, else `count` from `first`. */
export function seeds(first: number, count: number): number[] {
  const only = process.env.CHAIN_SEED
  if (only !== undefined && only !== '') return [Number(only)]
  return Array.from({ length: count }, (_, k) => first + k)
}

/** Runs the chain of `seed`, asserting after each run; a failure says how to run it again. */
export async function checkChain(seed: number, maxTokens: number): Promise<void> {
  const chain = chainFor(seed, maxTokens)
  const what = describeChain(chain)
  if (process.env.CHAIN_SEED) console.log(what)
  const history = generateHistory({ seed, format: chain.tools, targetTokens: chain.targetTokens }) as unknown as ApiMessage[]
  const fmt = chain.format === 'openai' ? { format: 'openai' as const } : undefined
  const anthropicOf = (messages: unknown[]) => (chain.format === 'openai' ? toAnthropic(messages as never).messages : (messages as ApiMessage[]))
  let k = 0
  await runChain(history, chain.steps, chain.format, (step, input, result: CondenseResult, check, snapshot) => {
    const at = `${what}; run ${k + 1} (${step.name})`
    k++
    expect(input, `${at}: the input is not changed`).toEqual(snapshot)
    // The promise: every marker expands to what it stood for, or is an "Omitted" note.
    expect(check.bad, `${at}: markers that break the promise`).toEqual([])
    if (result.error) {
      expect(result.messages, `${at}: refused (${result.error}), the messages unchanged`).toEqual(input)
      return
    }
    const sameLayout = result.messages.length === input.length
    if (chain.format === 'anthropic' && sameLayout && !step.prevContextTokens) {
      try {
        assertInvariants(input as ApiMessage[], snapshot as ApiMessage[], result)
      } catch (e) {
        throw new Error(`${at}: ${(e as Error).message}`)
      }
      return
    }
    // The same invariants, in either format and over a summary's new layout.
    const before = validateConversation(anthropicOf(input))
    const after = validateConversation(anthropicOf(result.messages))
    expect(after.length, `${at}: problems added: ${JSON.stringify(after)}`).toBeLessThanOrEqual(before.length)
    if (sameLayout) {
      for (const u of userTypedTexts(input as ApiMessage[])) {
        expect(messageText(result.messages[u.message]).includes(JSON.stringify(u.text).slice(1, -1)), `${at}: typed text of message ${u.message} kept`).toBe(
          true,
        )
      }
    }
    const tokensIn = countTokens(input as never, fmt)
    const tokensOut = countTokens(result.messages as never, fmt)
    expect(tokensOut, `${at}: tokens never go up`).toBeLessThanOrEqual(tokensIn)
    if (!step.prevContextTokens)
      expect(result.prevContextTokens - result.newContextTokens, `${at}: the saving reported is the measured one`).toBe(tokensIn - tokensOut)
  })
}
