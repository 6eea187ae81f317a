// The size cases (npm run test:slow, a few minutes): histories of a million messages and more
// than one Node-API conversion can carry, through every entry point and the command line, with
// the invariants asserted on each: valid output, typed text kept, exact reversibility, no
// mutation, no crash, no hang, the event loop free. Figures (times, event-loop gaps) are printed;
// their targets live in the benchmark, and the bounds here only catch a stall.
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { isDeepStrictEqual } from 'node:util'
import { afterAll, describe, expect, it } from 'vitest'

import { analyzeAsync, condense, countTokens, expandReferences, validateConversation, type ApiMessage, type CondenseResult } from '../../lib/index.js'

/** No single turn of the event loop may take longer than this during a call (a stall, not a target). */
const STALL_MS = 1000

const dir = mkdtempSync(join(tmpdir(), 'context-condense-size-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

const lines = (n: number, salt: string) =>
  Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(2)} | export const v${i}${salt} = compute(${i}) // line ${i + 1}`).join('\n') + '\n'

/**
 * A native-format history of `pairs` read/answer pairs after the task: every file is read again
 * and again (identical results), every 50th answer carries typed feedback, every 7th pair is an
 * assistant text turn instead of a read.
 */
function history(pairs: number, bodyLines: number): ApiMessage[] {
  const bodies = Array.from({ length: 16 }, (_, f) => lines(bodyLines, `f${f}`))
  const out: ApiMessage[] = [{ role: 'user', content: [{ type: 'text', text: '<task>\nRefactor every module.\n</task>' }] }]
  for (let i = 0; i < pairs; i++) {
    if (i % 7 === 6) {
      out.push({ role: 'assistant', content: [{ type: 'text', text: `Step ${i} done.` }] })
      out.push({ role: 'user', content: [{ type: 'text', text: `<user_message>\nkeep going ${i}\n</user_message>` }] })
      continue
    }
    const f = i % 16
    const id = `toolu_${i}`
    out.push({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: `src/m${f}.ts` } }] })
    const result: Array<{ type: string; [k: string]: unknown }> = [
      { type: 'tool_result', tool_use_id: id, content: `File: src/m${f}.ts\nLines 1-${bodyLines}:\n${bodies[f]}` },
    ]
    if (i % 50 === 0) result.push({ type: 'text', text: `<feedback>\nlook at m${f} (${i})\n</feedback>` })
    out.push({ role: 'user', content: result } as ApiMessage)
  }
  return out
}

/** Runs `fn` while a 5 ms ticker measures the longest turn of the event loop. */
async function withLoopGap<T>(fn: () => Promise<T>): Promise<{ value: T; gap: number; ms: number }> {
  let last = performance.now()
  let gap = 0
  const timer = setInterval(() => {
    const now = performance.now()
    gap = Math.max(gap, now - last)
    last = now
  }, 5)
  const started = performance.now()
  try {
    const value = await fn()
    return { value, gap: Math.max(gap, performance.now() - last), ms: performance.now() - started }
  } finally {
    clearInterval(timer)
  }
}

/** Typed text (`<feedback>`, `<user_message>`, `<task>`) by message, found without the engine. */
function typed(messages: ApiMessage[]): Array<[number, string]> {
  const out: Array<[number, string]> = []
  messages.forEach((m, i) => {
    if (m.role !== 'user' || !Array.isArray(m.content)) return
    for (const b of m.content) if (b.type === 'text' && /^<(task|feedback|user_message)>/.test(b.text as string)) out.push([i, b.text as string])
  })
  return out
}

function assertKept(input: ApiMessage[], snapshot: ApiMessage[], r: CondenseResult) {
  expect(r.error).toBeUndefined()
  expect(isDeepStrictEqual(input, snapshot)).toBe(true) // no mutation
  expect(validateConversation(r.messages)).toEqual([]) // valid (the input is)
  for (const [i, text] of typed(input)) {
    const m = r.messages[i]
    if (!Array.isArray(m.content) || !m.content.some((b) => b.type === 'text' && b.text === text)) throw new Error(`typed text lost in messages[${i}]: ${text}`)
  }
}

describe('150,001 messages of identical reads (28M tokens)', () => {
  const h: ApiMessage[] = [{ role: 'user', content: [{ type: 'text', text: '<task>\nRead it.\n</task>' }] }]
  const body = lines(40, '')
  for (let i = 0; i < 75_000; i++) {
    h.push({ role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: 'src/a.ts' } }] })
    h.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: `File: src/a.ts\nLines 1-40:\n${body}` }] })
  }
  const snapshot = structuredClone(h)

  it('condenses with Lossless and expands back exactly; validate and analyze take it', async () => {
    expect(validateConversation(h)).toEqual([])
    const { value: r, gap, ms } = await withLoopGap(() => condense(h, { provider: 'lossless' }))
    console.log(
      `150,001 messages: lossless ${r.metrics.tokensBefore} -> ${r.metrics.tokensAfter} tokens in ${ms.toFixed(0)} ms, longest event-loop turn ${gap.toFixed(1)} ms`,
    )
    assertKept(h, snapshot, r)
    expect(r.metrics.tokensAfter).toBeLessThan(r.metrics.tokensBefore / 4)
    expect(gap).toBeLessThan(STALL_MS)
    const back = expandReferences(r.messages)
    expect(isDeepStrictEqual(back, h)).toBe(true)
    expect((await analyzeAsync(h)).losslessTokensSaved).toBe(r.metrics.tokensSaved)
  })

  it('the command line condenses it from a file', () => {
    const file = join(dir, 'reads.json')
    writeFileSync(file, JSON.stringify(h))
    const out = join(dir, 'reads.condensed.json')
    const cli = join(__dirname, '..', '..', 'bin', 'context-condense.mjs')
    const run = spawnSync(process.execPath, [cli, 'condense', file, '-p', 'lossless', '--out', out], { encoding: 'utf8', maxBuffer: 1 << 26 })
    expect({ status: run.status, stderr: run.stderr }).toEqual({ status: 0, stderr: '' })
    const condensed = JSON.parse(readFileSync(out, 'utf8'))
    expect(isDeepStrictEqual(expandReferences(condensed), h)).toBe(true)
  })
})

describe('a million messages', () => {
  const h = history(500_000, 4)
  const snapshot = structuredClone(h)
  it(`has ${h.length.toLocaleString('en-US')} messages`, () => {
    expect(h.length).toBeGreaterThanOrEqual(1_000_000)
    expect(validateConversation(h)).toEqual([])
  })

  for (const provider of ['lossless', 'truncation', 'smart'] as const) {
    it(`${provider}: valid, typed text kept, nothing mutated, the event loop free${provider === 'lossless' ? ', expands back exactly' : ''}`, async () => {
      const options = provider === 'smart' ? { provider, config: { preset: 'balanced' } } : { provider }
      const { value: r, gap, ms } = await withLoopGap(() => condense(h, options as Parameters<typeof condense>[1]))
      console.log(
        `1M messages: ${provider} ${r.metrics.tokensBefore} -> ${r.metrics.tokensAfter} tokens in ${ms.toFixed(0)} ms, longest event-loop turn ${gap.toFixed(1)} ms`,
      )
      assertKept(h, snapshot, r)
      expect(gap).toBeLessThan(STALL_MS)
      if (provider === 'lossless') expect(isDeepStrictEqual(expandReferences(r.messages), h)).toBe(true)
      expect(countTokens(r.messages)).toBeLessThanOrEqual(countTokens(h))
    })
  }

  it('native with a summarize callback: the requests and the outcome cross; the summary is applied', async () => {
    let asked = 0
    const { value: r, gap } = await withLoopGap(() =>
      condense(h, {
        provider: 'native',
        summarize: async (req) => {
          asked++
          expect(req.messages.length).toBeGreaterThan(400_000)
          return 'The agent read every module again and again.'
        },
      }),
    )
    console.log(`1M messages: native -> ${r.messages.length} messages, longest event-loop turn ${gap.toFixed(1)} ms`)
    expect(r.error).toBeUndefined()
    expect(gap).toBeLessThan(STALL_MS)
    expect(asked).toBe(1)
    expect(r.messages.length).toBeLessThan(h.length)
    expect(isDeepStrictEqual(h, snapshot)).toBe(true)
    expect(validateConversation(r.messages)).toEqual([])
  })
})
