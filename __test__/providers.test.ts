// Truncation, Smart and Native through the public API, with fake summarize callbacks: the
// invariants on every output, where summaries land, what each failure of the callback does,
// cancellation, and the concurrency cap.
import { describe, expect, it, vi } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, countTokens, validateConversation, type ApiMessage, type CondenseResult } from '../lib/index.js'
import { assertInvariants, FIXTURES, loadFixture, itReal } from './helpers.js'

type Request = { purpose: string; systemPrompt: string; messages: Array<{ role: string; content: string }>; maxTokens?: number }

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const fakeSummary = (text = 'SUMMARY: the user wants the steps refactored; files a.ts and b.ts were changed.') =>
  vi.fn(async (_req: Request) => ({ text, cost: 0.01 }))

async function run(input: ApiMessage[], options: Parameters<typeof condense>[1]): Promise<CondenseResult> {
  const snapshot = structuredClone(input)
  const result = await condense(input, options)
  if (!result.error) assertInvariants(input, snapshot, result)
  expect(input).toEqual(snapshot)
  return result
}

/** Untouched-by-design checks for providers that remove messages (Native, batch passes). */
function assertSummarized(input: ApiMessage[], result: CondenseResult) {
  expect(validateConversation(result.messages)).toEqual([])
  expect(countTokens(result.messages)).toBeLessThan(countTokens(input))
  expect(result.newContextTokens).toBe(result.prevContextTokens - (countTokens(input) - countTokens(result.messages)))
  // Kept messages are the caller's own objects, in their order.
  const kept = result.messages.filter((m) => input.includes(m))
  expect(kept.map((m) => input.indexOf(m))).toEqual([...kept.map((m) => input.indexOf(m))].sort((a, b) => a - b))
}

describe('Truncation', () => {
  itReal('removes at least 65% of the real histories with defaults, keeping every invariant and error result', async () => {
    let total = 0
    let saved = 0
    for (const name of FIXTURES) {
      const input = loadFixture(name)
      const r = await run(input, { provider: 'truncation' })
      total += r.prevContextTokens
      saved += r.prevContextTokens - r.newContextTokens
      // The first message and the six most recent are the caller's own objects.
      expect(r.messages[0]).toBe(input[0])
      for (let i = input.length - 6; i < input.length; i++) expect(r.messages[i]).toBe(input[i])
    }
    expect(saved / total).toBeGreaterThanOrEqual(0.65)
  })

  itReal('truncates parameters inside legacy XML calls and keeps the call readable', async () => {
    const input = loadFixture('synthetic-1-heavy-write')
    const r = await run(input, { provider: 'truncation' })
    const before = (input[5].content as Array<{ text: string }>)[0].text
    const after = (r.messages[5].content as Array<{ text: string }>)[0].text
    expect(before.length).toBeGreaterThan(after.length)
    expect(after).toMatch(/^<write_to_file>\n<path>[^<]+<\/path>\n<content>/)
    expect(after).toContain('⟨ … truncated:')
    expect(after.trimEnd()).toMatch(/<\/write_to_file>$/)
  })

  itReal('stops once targetTokens is met, oldest first', async () => {
    const input = loadFixture('heavy-uncondensed')
    const full = await run(input, { provider: 'truncation' })
    const target = Math.round(full.prevContextTokens * 0.8)
    const partial = await run(input, { provider: 'truncation', config: { targetTokens: target } })
    expect(partial.newContextTokens).toBeLessThanOrEqual(target)
    expect(partial.newContextTokens).toBeGreaterThan(full.newContextTokens)
    // The most recent old messages are still whole: it started from the oldest.
    const lastOld = input.length - 7
    expect(partial.messages[lastOld]).toBe(input[lastOld])
  })

  itReal('refuses to summarize and names the key', async () => {
    await expect(condense(loadFixture('synthetic-4-mixed-ops'), { provider: 'truncation', config: { toolResults: 'summarize' } as never })).rejects.toThrow(
      /options\.config\.toolResults: the truncation provider does not summarize/,
    )
  })
})

describe('Smart', () => {
  itReal('reaches each preset’s share on the real histories without a callback', async () => {
    // Every preset keeps the working set whole (the latest state of the files touched in the last
    // ten turns, up to a third of the context). On these histories that is about a sixth of all
    // their tokens (three are working-set stress cases: files read or written back to back, a
    // quarter to more than half of their context), and it bounds what any preset can remove:
    // aggressive, which outlined every file before, removes about 75% here, not 80%.
    const expected = { conservative: 0.4, balanced: 0.65, aggressive: 0.75 } as const
    for (const [preset, share] of Object.entries(expected) as Array<[keyof typeof expected, number]>) {
      let total = 0
      let saved = 0
      for (const name of FIXTURES) {
        const r = await run(loadFixture(name), { provider: 'smart', config: { preset } })
        total += r.prevContextTokens
        saved += r.prevContextTokens - r.newContextTokens
      }
      expect(saved / total, preset).toBeGreaterThanOrEqual(share)
    }
  })

  itReal('reports each pass, and says when summaries fell back to truncation', async () => {
    const r = await run(loadFixture('heavy-uncondensed'), { provider: 'smart', config: { preset: 'balanced' } })
    expect(r.report).toMatch(/^Context condensed using Smart strategy:\n - File reads deduplicated: [\d,]+ → [\d,]+ tokens/)
    expect(r.report).toMatch(/Pass 1 \(Truncate old tool results and parameters\)/)
    expect(r.report).toMatch(/summaries fell back to truncation \(no summarize callback was given\)/)
    // The lossless prelude's operations, then the configured passes.
    expect(r.metrics.passes.map((p) => p.id)).toEqual([
      'deduplicateFileReads',
      'consolidateToolResults',
      'removeObsoleteState',
      'truncate-old',
      'summarize-oldest',
    ])
    expect(r.metrics.callbackCalls).toBe(0)
  })

  itReal('puts the callback’s summaries in place of the old tool results, and counts calls and cost', async () => {
    const summarize = fakeSummary('read_file showed the MCP configuration; nothing failed.')
    const input = loadFixture('heavy-uncondensed')
    const r = await run(input, { provider: 'smart', config: { preset: 'balanced' }, summarize })
    const summarized = r.metrics.passes.find((p) => p.id === 'summarize-oldest')!
    expect(summarized.summarized).toBeGreaterThan(0)
    expect(summarize).toHaveBeenCalledTimes(summarized.callbackCalls)
    expect(r.metrics.callbackCalls).toBe(summarize.mock.calls.length)
    expect(r.cost).toBeCloseTo(0.01 * summarized.summarized, 6)
    const texts = JSON.stringify(r.messages)
    expect(texts).toContain('⟨ Summary of the codebase_search result for')
    expect(texts).toContain('read_file showed the MCP configuration; nothing failed.')
    const req = summarize.mock.calls[0][0]
    expect(req.purpose).toBe('toolResult')
    expect(req.messages[0].content).toMatch(/^Condense this /)
  })

  itReal('keeps a summary longer than the original out, and truncates instead', async () => {
    const long = 'word '.repeat(20_000)
    const r = await run(loadFixture('heavy-uncondensed'), { provider: 'smart', config: { preset: 'balanced' }, summarize: async () => long })
    expect(JSON.stringify(r.messages)).not.toContain('word word word word')
    const pass = r.metrics.passes.find((p) => p.id === 'summarize-oldest')!
    expect(pass.summarized).toBe(0)
    expect(pass.summarizeFallbacks).toBeGreaterThan(0)
  })

  itReal('validates configs with the path of the bad key', async () => {
    const h = loadFixture('synthetic-4-mixed-ops')
    await expect(condense(h, { provider: 'smart', config: { preset: 'fast' } as never })).rejects.toThrow(/options\.config\.preset: unknown preset "fast"/)
    await expect(
      condense(h, {
        provider: 'smart',
        config: { passes: [{ id: 'p', mode: 'individual', individualConfig: { defaults: { toolResults: 'shred' } } }] } as never,
      }),
    ).rejects.toThrow(/options\.config\.passes\[0\]\.individualConfig\.defaults\.toolResults/)
    await expect(condense(h, { provider: 'smart', config: { preset: 'balanced', targetToken: 5 } as never })).rejects.toThrow(/unknown field `targetToken`/)
  })

  itReal('stops at targetReductionPercent and never reorders messages', async () => {
    const input = loadFixture('synthetic-3-tool-dedup')
    const r = await run(input, { provider: 'smart', config: { preset: 'aggressive', targetReductionPercent: 30 } })
    expect(r.metrics.reductionPercent).toBeGreaterThanOrEqual(30)
    // The prelude alone meets the target: the configured passes never run.
    expect(r.metrics.passes.map((p) => p.id)).toEqual(['deduplicateFileReads', 'consolidateToolResults', 'removeObsoleteState'])
  })

  itReal('runs a batch summary when the context is above the pass threshold', async () => {
    const summarize = fakeSummary()
    const input = loadFixture('synthetic-2-heavy-read')
    const config = {
      losslessPrelude: { enabled: true },
      passes: [
        {
          id: 'summarize-middle',
          mode: 'batch' as const,
          batchConfig: { summarizationConfig: { keepFirst: 1, keepLast: 4 } },
          execution: { type: 'conditional' as const, condition: { tokenThreshold: 100_000 } },
        },
      ],
    }
    const r = await condense(input, { provider: 'smart', config, summarize })
    assertSummarized(input, r)
    const batch = r.metrics.passes.find((p) => p.id === 'summarize-middle')!
    expect(batch.skipped).toBeUndefined()
    expect(r.messages.filter((m) => m.isSummary)).toHaveLength(1)
    expect(r.summary).toContain('SUMMARY: the user wants the steps refactored')
    // The first message keeps its task (the prelude may supersede its environment details).
    expect((r.messages[0].content as unknown[])[0]).toBe((input[0].content as unknown[])[0])
    expect(r.messages.at(-1)).toBe(input.at(-1))
    expect(r.messages.slice(-4).map((m) => m.role)).toEqual(input.slice(-4).map((m) => m.role))
    // Below the threshold the pass does not run.
    const small = await condense(loadFixture('synthetic-4-mixed-ops'), { provider: 'smart', config, summarize })
    expect(small.metrics.passes.find((p) => p.id === 'summarize-middle')!.skipped).toMatch(/at or under the pass's threshold 100000/)
  })
})

describe('Native (Roo Code’s summarizeConversation)', () => {
  itReal('keeps the first message and the last three, with one summary between, in Roo’s shape', async () => {
    const summarize = fakeSummary()
    const input = loadFixture('natural-mini-uncondensed')
    const r = await condense(input, { provider: 'native', summarize })
    assertSummarized(input, r)
    expect(r.messages).toHaveLength(5)
    expect(r.messages[0]).toBe(input[0])
    expect(r.messages.slice(2)).toEqual(input.slice(-3))
    expect(r.messages[2]).toBe(input[input.length - 3])
    expect(r.messages[1]).toMatchObject({ role: 'assistant', isSummary: true, ts: input[input.length - 3].ts })
    expect(r.summary).toBe(r.messages[1].content)
    expect(r.summary).toMatch(/^SUMMARY: the user wants/)
    // The engine adds the files, from the history itself.
    expect(r.summary).toContain('- Read: webview-ui/src/hooks/useAutosaveDraft.ts, webview-ui/src/components/chat/ChatView.tsx')
    expect(r.cost).toBe(0.01)
    const req = summarize.mock.calls[0][0]
    expect(req.purpose).toBe('conversation')
    expect(req.systemPrompt).toMatch(/^You are condensing the history of a software task/)
    expect(req.messages.at(-1)).toEqual({ role: 'user', content: 'Summarize the conversation so far, as described in the prompt instructions.' })
    expect(req.messages.length).toBe(input.length - 3 + 1)
  })

  itReal('uses a custom prompt, prices reported tokens, and passes the task id', async () => {
    const summarize = vi.fn(async (_req: Request) => ({ text: 'short', inputTokens: 1_000_000, outputTokens: 100_000 }))
    const input = loadFixture('synthetic-4-mixed-ops')
    const r = await condense(input, {
      provider: 'native',
      summarize,
      config: { customPrompt: '  Be brief.  ', taskId: 't-1', pricing: { inputPrice: 3, outputPrice: 15 } },
    })
    expect(summarize.mock.calls[0][0].systemPrompt).toBe('Be brief.')
    expect((summarize.mock.calls[0][0] as unknown as { taskId: string }).taskId).toBe('t-1')
    expect(r.cost).toBeCloseTo(3 + 1.5, 9)
  })

  itReal('answers Roo’s errors with the messages unchanged', async () => {
    const cases: Array<[ApiMessage[], Parameters<typeof condense>[1], RegExp]> = [
      [loadFixture('synthetic-4-mixed-ops'), { provider: 'native' }, /^No summarize callback was given/],
      [loadFixture('synthetic-4-mixed-ops').slice(0, 4), { provider: 'native', summarize: fakeSummary() }, /^Not enough messages to condense$/],
    ]
    const recent = loadFixture('synthetic-4-mixed-ops')
    recent.splice(recent.length - 1, 0, { role: 'assistant', content: 'old summary', isSummary: true })
    cases.push([recent, { provider: 'native', summarize: fakeSummary() }, /^Context was condensed recently$/])
    for (const [input, options, error] of cases) {
      const snapshot = structuredClone(input)
      const r = await condense(input, options)
      expect(r.error).toMatch(error)
      expect(r.messages).toEqual(snapshot)
      expect(input).toEqual(snapshot)
      expect(r.newContextTokens).toBe(r.prevContextTokens)
    }
  })

  itReal('falls back on every failure of the callback, naming it, input untouched', async () => {
    const input = loadFixture('natural-mini-uncondensed')
    const failures: Array<[string, (req: Request) => unknown, RegExp]> = [
      [
        'throws',
        () => {
          throw new Error('boom')
        },
        /^Failed to condense context: options\.summarize threw \(3 attempts\): boom$/,
      ],
      [
        'rejects',
        async () => {
          throw new Error('429 rate limited')
        },
        /options\.summarize rejected \(3 attempts\): 429 rate limited/,
      ],
      ['hangs', () => new Promise(() => {}), /options\.summarize did not answer within 50 ms/],
      ['returns a number', async () => 42, /options\.summarize returned number 42; expected a string or \{ text: string/],
      ['returns a bad cost', async () => ({ text: 'x', cost: 'free' }), /options\.summarize returned cost: string "free"; expected a finite number/],
      ['returns nothing useful', async () => '   ', /the summarize callback returned an empty summary/],
      ['writes more than it summarizes', async () => 'word '.repeat(60_000), /^Context size increased during condensing; skipping this attempt$/],
    ]
    for (const [what, summarize, error] of failures) {
      const snapshot = structuredClone(input)
      const r = await condense(input, { provider: 'native', summarize: summarize as never, summarizeOptions: { timeoutMs: 50, retries: 2, retryDelayMs: 1 } })
      expect(r.error, what).toMatch(error)
      expect(r.messages, what).toEqual(snapshot)
      expect(input, what).toEqual(snapshot)
    }
  })

  itReal('retries a rejection with backoff and then uses the answer', async () => {
    let calls = 0
    const summarize = async () => {
      calls++
      if (calls < 3) throw new Error('flaky')
      return 'third time lucky'
    }
    const r = await condense(loadFixture('natural-mini-uncondensed'), { provider: 'native', summarize, summarizeOptions: { retries: 2, retryDelayMs: 1 } })
    expect(calls).toBe(3)
    expect(r.summary).toMatch(/^third time lucky/)
  })

  it('waits between attempts doubling from retryDelayMs, never more than 60 s (timers faked: no real wait)', async () => {
    const { summarizeBatch, checkSummarizeOptions } = require('../lib/internal/summarize.js') as {
      summarizeBatch: (requests: unknown[], summarize: () => Promise<never>, o: unknown) => Promise<Array<{ ok: boolean; error?: string }>>
      checkSummarizeOptions: (raw: unknown) => unknown
    }
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] })
    try {
      const at: number[] = []
      const summarize = async (): Promise<never> => {
        at.push(Date.now())
        throw new Error('429 rate limited')
      }
      const done = summarizeBatch([{}], summarize, checkSummarizeOptions({ retries: 10, retryDelayMs: 500 }))
      while (at.length < 11) await vi.advanceTimersToNextTimerAsync()
      const [result] = await done
      expect(result.error).toMatch(/options\.summarize rejected \(11 attempts\): 429 rate limited/)
      const waits = at.slice(1).map((t, i) => t - at[i])
      expect(waits).toEqual([500, 1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000])
    } finally {
      vi.useRealTimers()
    }
  })

  itReal('rejects with an AbortError when aborted while the callback runs, and tells the callback', async () => {
    const input = loadFixture('natural-mini-uncondensed')
    const snapshot = structuredClone(input)
    const controller = new AbortController()
    let seen: AbortSignal | undefined
    const summarize = (_req: Request, ctx: { signal: AbortSignal }) => {
      seen = ctx.signal
      setTimeout(() => controller.abort(), 20)
      return new Promise(() => {})
    }
    const started = Date.now()
    await expect(condense(input, { provider: 'native', summarize: summarize as never, signal: controller.signal })).rejects.toMatchObject({
      name: 'AbortError',
    })
    expect(Date.now() - started).toBeLessThan(2000)
    expect(seen?.aborted).toBe(true)
    expect(input).toEqual(snapshot)
  })

  it('keeps tool pairs whole on native-format histories with thinking', async () => {
    const input = generateHistory({ seed: 5, format: 'native', targetTokens: 30_000 }) as ApiMessage[]
    const r = await condense(input, { provider: 'native', summarize: fakeSummary() })
    assertSummarized(input, r)
    // The signed thinking of the last assistant turn goes back unchanged.
    const lastAssistant = [...input].reverse().find((m) => m.role === 'assistant')!
    expect(r.messages).toContain(lastAssistant)
  })
})

describe('the summarize callback under load', () => {
  it("runs 50 calls with a cap of 8: every call made, never more than 8 at once (the time is the benchmark's)", async () => {
    // 50 large old tool results, one summarize pass over all of them.
    const body = 'output line\n'.repeat(400)
    const input: ApiMessage[] = [{ role: 'user', content: [{ type: 'text', text: '<task>\nrun the checks\n</task>' }] }]
    for (let i = 0; i < 50; i++) {
      input.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'execute_command', input: { command: `check ${i}` } }] })
      input.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `${body}run ${i}\n` }] })
    }
    input.push({ role: 'assistant', content: 'all checks ran' })
    let active = 0
    let peak = 0
    const summarize = async () => {
      active++
      peak = Math.max(peak, active)
      await sleep(10)
      active--
      return 'ok'
    }
    const r = await condense(input, {
      provider: 'smart',
      config: {
        passes: [
          {
            id: 's',
            mode: 'individual',
            selection: { type: 'preserve_recent', keepRecentCount: 1 },
            individualConfig: { defaults: { toolResults: 'summarize' } },
          },
        ],
      },
      summarize,
      summarizeOptions: { concurrency: 8 },
    })
    expect(r.metrics.callbackCalls).toBe(50)
    expect(peak).toBe(8)
    expect(validateConversation(r.messages)).toEqual([])
  })
})

describe('why a provider declined: errorCode', () => {
  const turns = (n: number): ApiMessage[] =>
    Array.from(
      { length: n },
      (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `turn ${i}: ${'words of the conversation '.repeat(30)}` }) as ApiMessage,
    )

  it('names each cause with a stable code, beside the unchanged messages and the error text', async () => {
    const cases: Array<[string, () => Promise<CondenseResult>]> = [
      [
        'invalid-history',
        () =>
          condense(
            [
              { role: 'user', content: 'a' },
              { role: 'bogus' as 'user', content: 'b' },
            ],
            { provider: 'lossless' },
          ),
      ],
      ['not-enough-messages', () => condense(turns(3), { provider: 'native', summarize: fakeSummary() })],
      ['no-summarizer', () => condense(turns(12), { provider: 'native' })],
      [
        'summarize-failed',
        () =>
          condense(turns(12), {
            provider: 'native',
            summarize: async () => {
              throw new Error('the model is down')
            },
            summarizeOptions: { retries: 0 },
          }),
      ],
      ['empty-summary', () => condense(turns(12), { provider: 'native', summarize: async () => '   ' })],
      ['context-grew', () => condense(turns(12), { provider: 'native', summarize: async () => 'much longer than what it replaces '.repeat(2000) })],
    ]
    for (const [code, run] of cases) {
      const r = await run()
      expect(r.errorCode, `${code}: ${r.error}`).toBe(code)
      expect(typeof r.error).toBe('string')
      expect(r.newContextTokens).toBe(r.prevContextTokens)
    }
    // A condensation that worked has neither.
    const ok = await condense(turns(12), { provider: 'native', summarize: fakeSummary() })
    expect(ok.error).toBeUndefined()
    expect(ok.errorCode).toBeUndefined()
  })
})
