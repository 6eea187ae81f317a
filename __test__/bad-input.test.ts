// The catalogue of bad input (docs/errors.md): each case shows what the caller gets, a clear
// error naming the place or a documented pass-through, and that the caller's array is unchanged.
// Also: tool-pairing repair, the callback under fire, aborting at every stage, and the panic
// switch (a panic in a sync export, in the engine's thread and after a callback arrives in
// JavaScript as an error while the process lives on).
import { spawnSync } from 'node:child_process'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import {
  CondensationManager,
  condense,
  configSchema,
  countTokens,
  openConversation,
  repairConversation,
  validateConversation,
  type ApiMessage,
} from '../lib/index.js'
import { itProbes, loadFixture, itReal } from './helpers.js'

const base = (): ApiMessage[] => [
  { role: 'user', content: [{ type: 'text', text: '<task>\nFix the bug.\n</task>' }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it.' },
      { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'const a = 1\n'.repeat(400) }] },
  {
    role: 'assistant',
    content: [
      { type: 'text', text: 'Reading it again.' },
      { type: 'tool_use', id: 't2', name: 'read_file', input: { path: 'a.ts' } },
    ],
  },
  { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't2', content: 'const a = 1\n'.repeat(400) }] },
  { role: 'assistant', content: 'Done.' },
]

/** Condenses and checks the caller's array afterwards against a snapshot taken before. */
async function unchanged(input: unknown[], options: Parameters<typeof condense>[1], snapshot = structuredClone(input)) {
  const outcome = await condense(input as ApiMessage[], options).then(
    (r) => ({ ok: true as const, r }),
    (e: Error) => ({ ok: false as const, e }),
  )
  expect(input).toEqual(snapshot)
  return outcome
}

describe('bad input: the shape of the history', () => {
  it('not an array: a TypeError naming the argument', async () => {
    for (const bad of [{ a: 1 }, null, 'text', 42]) {
      await expect(condense(bad as never, { provider: 'lossless' })).rejects.toThrow(/^condense: messages: expected an array of messages, got /)
    }
    expect(validateConversation({ a: 1 })).toEqual([{ path: 'messages', code: 'not_an_array', message: 'expected an array of messages, got an object' }])
    // countTokens names its parameter as its type does: `input`, a string or an array of messages.
    expect(() => countTokens({ a: 1 } as never)).toThrow(/^countTokens: input: expected a string or an array of messages, got an object$/)
  })

  const structural: Array<[string, unknown[], string]> = [
    ['a null message', [null], 'messages[0]: expected a message object, got null'],
    ['a number message', [base()[0], 7], 'messages[1]: expected a message object, got a number'],
    ['a string message', ['hello'], 'messages[0]: expected a message object, got a string'],
    ['a missing role', [{ content: 'x' }], 'messages[0].role: missing role'],
    ['an unknown role', [{ role: 'system', content: 'x' }], 'messages[0].role: expected "user" or "assistant", got "system"'],
    ['content of the wrong type', [{ role: 'user', content: 5 }], 'messages[0].content: expected a string or an array of blocks, got a number'],
    [
      'a block without type',
      [{ role: 'user', content: [{ type: 'text', text: 'a' }, { text: 'x' }] }],
      'messages[0].content[1].type: a content block needs a string "type"',
    ],
  ]
  for (const [what, input, error] of structural) {
    it(`${what}: an error naming the place, messages unchanged`, async () => {
      for (const provider of ['lossless', 'truncation', 'smart', 'native'] as const) {
        const o = await unchanged(input, provider === 'smart' ? { provider, config: { preset: 'balanced' } } : { provider })
        expect(o.ok).toBe(true)
        if (!o.ok) continue
        expect(o.r.error).toBe(`${error}; the messages were left unchanged`)
        expect(o.r.messages).toEqual(input)
        expect(o.r.newContextTokens).toBe(o.r.prevContextTokens)
      }
      expect(validateConversation(input).map((p) => `${p.path}: ${p.message}`)).toContain(error)
    })
  }

  it('unknown block types pass through untouched and count nothing', async () => {
    const input = base()
    const odd = { type: 'server_tool_use_v9', payload: { deep: [1, 2, 3] } }
    ;(input[5] as { content: unknown }).content = [{ type: 'text', text: 'Done.' }, odd]
    expect(validateConversation(input)).toEqual([])
    const o = await unchanged(input, { provider: 'lossless' })
    expect(o.ok && o.r.error).toBe(undefined)
    if (o.ok) expect(o.r.messages[5]).toBe(input[5])
    expect(countTokens([input[5]])).toBe(countTokens([{ role: 'assistant', content: [{ type: 'text', text: 'Done.' }] }]))
  })
})

describe('bad input: tool pairing', () => {
  const broken = (): ApiMessage[] => {
    const h = base()
    // An orphan result, then a call reused under the same id.
    ;(h[2].content as unknown[]).push({ type: 'tool_result', tool_use_id: 'ghost', content: 'from nowhere' })
    ;(h[3].content as Array<{ id?: string }>)[1].id = 't1'
    ;(h[4].content as Array<{ tool_use_id?: string }>)[0].tool_use_id = 't1'
    return h
  }

  it('reported by validateConversation with their places', () => {
    expect(validateConversation(broken()).map((p) => [p.path, p.code])).toEqual([
      ['messages[2].content[1]', 'orphan_tool_result'],
      ['messages[3].content[1].id', 'duplicate_tool_use_id'],
    ])
  })

  it('condensed without making them worse', async () => {
    const input = broken()
    for (const options of [
      { provider: 'lossless' },
      { provider: 'truncation', config: { preserveRecentCount: 1 } },
      { provider: 'smart', config: { preset: 'aggressive' } },
    ] as const) {
      const o = await unchanged(input, options)
      expect(o.ok).toBe(true)
      if (!o.ok) continue
      expect(o.r.error).toBe(undefined)
      expect(validateConversation(o.r.messages).length).toBeLessThanOrEqual(2)
      expect(o.r.messages).toHaveLength(input.length)
    }
  })

  it('`repair: true` fixes the pairing first and lists what it did', async () => {
    const input = broken()
    const o = await unchanged(input, { provider: 'lossless', repair: true })
    expect(o.ok).toBe(true)
    if (!o.ok) return
    expect(o.r.repairs).toEqual([
      { path: 'messages[3].content[1].id', action: 'renamed duplicate tool_use id "t1" to "t1_2"' },
      { path: 'messages[4].content[0].tool_use_id', action: 'now answers the renamed call "t1_2"' },
      { path: 'messages[2].content[1]', action: 'turned a result for "ghost" with no matching call into text' },
    ])
    expect(validateConversation(o.r.messages)).toEqual([])
    // The orphan's content is kept, as text.
    expect(JSON.stringify(o.r.messages[2])).toContain('from nowhere')
  })

  it('repairConversation adds synthetic results for unanswered calls and leaves a pending last call', () => {
    const h: ApiMessage[] = [
      { role: 'user', content: 'go' },
      {
        role: 'assistant',
        content: [
          { type: 'tool_use', id: 'a', name: 'x', input: {} },
          { type: 'tool_use', id: 'b', name: 'x', input: {} },
        ],
      },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'env' },
          { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'c', name: 'x', input: {} }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'd', name: 'x', input: {} }] },
    ]
    const snapshot = structuredClone(h)
    const { messages, repairs } = repairConversation(h)
    expect(h).toEqual(snapshot)
    expect(messages[0]).toBe(h[0])
    expect(messages[2].content).toEqual([
      { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
      { type: 'tool_result', tool_use_id: 'b', content: expect.stringMatching(/^No result was recorded/), is_error: true },
      { type: 'text', text: 'env' },
    ])
    expect(messages[4]).toEqual({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'c', content: expect.any(String), is_error: true }] })
    expect(messages).toHaveLength(6)
    expect(repairs.map((r) => r.path)).toEqual(['messages[3]', 'messages[2]', 'messages[2]'])
    // Only the pending last call remains.
    expect(validateConversation(messages).map((p) => p.code)).toEqual(['missing_tool_result'])
  })
})

describe('bad input: values JSON cannot carry, sizes and odd fields', () => {
  it('a tool input nested 10,000 deep: refused with the path, no stack overflow', async () => {
    const input = base()
    const deep: Record<string, unknown> = {}
    let cur = deep
    for (let i = 0; i < 10_000; i++) cur = (cur.a = {}) as Record<string, unknown>
    ;(input[1].content as Array<{ input?: unknown }>)[1].input = deep
    const o = await condense(input, { provider: 'smart', config: { preset: 'balanced' } })
    expect(o.error).toBe(
      'messages[1].content[1].input.a… (124 levels deeper): nested more than 128 levels deep (the JSON limit); the messages were left unchanged',
    )
    expect(o.messages[1]).toBe(input[1])
    expect(validateConversation(input)).toEqual([
      { path: 'messages[1].content[1].input.a… (124 levels deeper)', code: 'unsupported_value', message: 'nested more than 128 levels deep (the JSON limit)' },
    ])
    expect(() => countTokens(input)).toThrow(/^countTokens: input\[1\]\.content\[1\]\.input\.a… \(124 levels deeper\): nested more than 128/)
  })

  it('a cycle and NaN in a message: refused with the path', async () => {
    const cyclic = base()
    const input = (cyclic[1].content as Array<{ input: Record<string, unknown> }>)[1].input
    input.self = input
    expect((await condense(cyclic, { provider: 'lossless' })).error).toBe(
      'messages[1].content[1].input.self: the value contains itself (a cycle); the messages were left unchanged',
    )
    const nan = base()
    ;(nan[3] as { ts?: number }).ts = NaN
    const o = await condense(nan, { provider: 'lossless' })
    expect(o.error).toBe('messages[3].ts: NaN is not a JSON number; the messages were left unchanged')
    expect(o.messages).toEqual(nan)
  })

  it('`ts` as a float, a string, above 2^53 or a BigInt: passed through untouched', async () => {
    // Typed loosely on purpose: the declared `ts` is a number, hosts store anything.
    const input = base() as unknown as Array<Record<string, unknown>>
    input[0].ts = 1.5
    input[1].ts = 'yesterday'
    input[2].ts = 2 ** 60
    input[3].ts = 12345678901234567890n
    const o = await unchanged(input, { provider: 'lossless' })
    expect(o.ok).toBe(true)
    if (!o.ok) return
    expect(o.r.error).toBe(undefined)
    expect(o.r.messages.map((m) => (m as unknown as { ts?: unknown }).ts)).toEqual([1.5, 'yesterday', 2 ** 60, 12345678901234567890n, undefined, undefined])
    expect(o.r.newContextTokens).toBeLessThan(o.r.prevContextTokens)
  })

  it('lone surrogates: counted and passed through; only edited strings are re-encoded', async () => {
    const input = base()
    ;(input[0].content as Array<{ text: string }>)[0].text = '<task>\nFix \uD800 the bug.\n</task>'
    const o = await unchanged(input, { provider: 'lossless' })
    expect(o.ok).toBe(true)
    if (!o.ok) return
    expect(o.r.messages[0]).toBe(input[0])
    expect(countTokens([input[0]])).toBeGreaterThan(0)
  })

  it('a single 100 MB block: condensed in a bounded time, the event loop free', async () => {
    const line = (i: number) => `2026-11-22T10:00:00Z INFO worker-${i % 7} processed batch ${i} in ${i % 97} ms\n`
    const parts: string[] = []
    for (let n = 0, i = 0; n < 100 * 1024 * 1024; i++) {
      const l = line(i)
      parts.push(l)
      n += l.length
    }
    const input = base()
    ;(input[2].content as Array<{ content: string }>)[0].content = parts.join('')
    let ticks = 0
    const timer = setInterval(() => ticks++, 5)
    const started = Date.now()
    const r = await condense(input, { provider: 'truncation', config: { preserveRecentCount: 2 } })
    clearInterval(timer)
    expect(r.error).toBe(undefined)
    expect(r.newContextTokens).toBeLessThan(r.prevContextTokens / 100)
    expect(ticks).toBeGreaterThan(0)
    expect(Date.now() - started).toBeLessThan(30_000)
  }, 60_000)
})

describe('bad input: options', () => {
  const cases: Array<[string, Record<string, unknown>, RegExp]> = [
    ['not an object', 'lossless' as never, /^condense: options: expected an object such as \{ provider: "lossless" \}, got string "lossless"$/],
    ['no provider', {}, /options(\.provider)?: missing field `provider`/],
    ['an unknown provider', { provider: 'magic' }, /unknown provider "magic"|magic/],
    ['an unknown key', { provider: 'lossless', bogus: 1 }, /^invalid options: options\.bogus: unknown field `bogus`/],
    ['an unknown config key', { provider: 'lossless', config: { dedup: true } }, /^invalid options: options\.config\.dedup: unknown field `dedup`/],
    [
      'a negative count',
      { provider: 'truncation', config: { preserveRecentCount: -1 } },
      /^invalid options: options\.config\.preserveRecentCount: invalid value: integer `-1`/,
    ],
    ['NaN', { provider: 'truncation', config: { preserveRecentCount: NaN } }, /^condense: options\.config\.preserveRecentCount: NaN is not a JSON number$/],
    ['Infinity tokens', { provider: 'lossless', prevContextTokens: Infinity }, /^condense: options\.prevContextTokens: Infinity is not a JSON number$/],
    ['negative tokens', { provider: 'lossless', prevContextTokens: -5 }, /^invalid options: options\.prevContextTokens: expected a whole number >= 0, got -5$/],
    ['a NaN allowed size', { provider: 'native', allowedTokens: NaN }, /^condense: options\.allowedTokens: NaN is not a JSON number$/],
    ['a negative allowed size', { provider: 'native', allowedTokens: -1 }, /^invalid options: options\.allowedTokens: expected a whole number >= 0, got -1$/],
    [
      'a fractional allowed size',
      { provider: 'native', allowedTokens: 2 ** 31 + 0.5 },
      /^invalid options: options\.allowedTokens: expected a whole number >= 0, got 2147483648\.5$/,
    ],
    ['an allowed size past 2^53', { provider: 'native', allowedTokens: 2 ** 60 }, /^invalid options: options\.allowedTokens: expected a whole number >= 0/],
    ['an allowed size as a string', { provider: 'native', allowedTokens: '35008' }, /^invalid options: options\.allowedTokens: invalid type: string/],
    [
      'a percentage out of range',
      { provider: 'smart', config: { preset: 'balanced', targetReductionPercent: 150 } },
      /^invalid options: options\.config\.targetReductionPercent: expected a percentage from 0 to 100, got 150$/,
    ],
    [
      'a negative price',
      { provider: 'native', config: { pricing: { inputPrice: -3 } } },
      /^invalid options: options\.config\.pricing\.inputPrice: expected a price >= 0/,
    ],
    ['an unknown preset', { provider: 'smart', config: { preset: 'turbo' } }, /^invalid options: options\.config\.preset: unknown preset "turbo"/],
    ['a bad encoding', { provider: 'lossless', encoding: 'gpt2' }, /options\.encoding/],
    ['a bad repair flag', { provider: 'lossless', repair: 'yes' }, /^condense: options\.repair: expected true or false, got string "yes"$/],
    ['a bad signal', { provider: 'lossless', signal: {} }, /^condense: options\.signal: expected an AbortSignal, got an object$/],
    ['a bad summarize', { provider: 'native', summarize: 'gpt' }, /^condense: options\.summarize: expected an async function, got string "gpt"$/],
    [
      'a bad concurrency',
      { provider: 'native', summarizeOptions: { concurrency: 0 } },
      /^condense: options\.summarizeOptions\.concurrency: expected a whole number >= 1, got number 0$/,
    ],
    [
      'a timeout longer than a timer waits (it would fire after 1 ms)',
      { provider: 'native', summarizeOptions: { timeoutMs: 2 ** 31 } },
      /^condense: options\.summarizeOptions\.timeoutMs: expected a whole number of milliseconds from 1 to 2147483647 \(the longest a Node\.js timer waits, about 24\.8 days\), got number 2147483648$/,
    ],
    [
      'more retries than allowed',
      { provider: 'native', summarizeOptions: { retries: 40 } },
      /^condense: options\.summarizeOptions\.retries: expected a whole number from 0 to 10, got number 40$/,
    ],
    [
      'a retry delay past the cap',
      { provider: 'native', summarizeOptions: { retryDelayMs: 60_001 } },
      /^condense: options\.summarizeOptions\.retryDelayMs: expected a whole number from 0 to 60000, got number 60001$/,
    ],
  ]
  for (const [what, options, error] of cases) {
    it(`${what}: rejects with an error naming the option`, async () => {
      const input = base()
      const o = await unchanged(input, options as never)
      expect(o.ok).toBe(false)
      if (!o.ok) expect(o.e.message).toMatch(error)
    })
  }
})

describe('the callback under fire', () => {
  const input = () => loadFixture('natural-mini-uncondensed')

  itReal('resolves after the call was aborted: the late answer is ignored, nothing leaks', async () => {
    const h = input()
    const snapshot = structuredClone(h)
    const controller = new AbortController()
    let resolveLate: (v: string) => void = () => {}
    const summarize = () => {
      setTimeout(() => controller.abort(), 5)
      return new Promise<string>((r) => (resolveLate = r))
    }
    await expect(condense(h, { provider: 'native', summarize, signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' })
    resolveLate('a summary that arrives too late')
    await new Promise((r) => setTimeout(r, 20))
    expect(h).toEqual(snapshot)
    // The engine is still fine for the next call.
    const r = await condense(h, { provider: 'native', summarize: async () => 'SUMMARY: fine.' })
    expect(r.error).toBe(undefined)
    expect(r.summary).toMatch(/^SUMMARY: fine\./)
  })

  itReal('called while the process is busy: the timeout still fires, the call falls back', async () => {
    const h = input()
    const summarize = () => {
      // The JavaScript thread is held for 300 ms; the timer fires once it is free.
      const until = Date.now() + 300
      while (Date.now() < until);
      return new Promise<string>(() => {})
    }
    const r = await condense(h, { provider: 'native', summarize, summarizeOptions: { timeoutMs: 50, retries: 0 } })
    expect(r.error).toMatch(/options\.summarize did not answer within 50 ms/)
    expect(r.messages).toEqual(h)
  })

  it('Smart with a failing callback falls back to truncation and says so', async () => {
    const h = generateHistory({ seed: 11, format: 'native', targetTokens: 60_000 }) as ApiMessage[]
    const snapshot = structuredClone(h)
    const r = await condense(h, {
      provider: 'smart',
      config: { preset: 'quality' },
      summarize: async () => {
        throw new Error('model down')
      },
      summarizeOptions: { retries: 0 },
    })
    expect(h).toEqual(snapshot)
    expect(r.error).toBe(undefined)
    expect(r.metrics.passes.reduce((n, p) => n + p.summarizeFallbacks, 0)).toBeGreaterThan(0)
    expect(r.metrics.passes.flatMap((p) => p.errors ?? []).join('\n')).toMatch(/model down/)
    expect(validateConversation(r.messages)).toEqual([])
  })

  it('aborting at every stage: before, during intake, while the engine runs, while the callback runs', async () => {
    const big = generateHistory({ seed: 9, format: 'xml', targetTokens: 400_000 }) as ApiMessage[]
    const snapshot = structuredClone(big)
    // Before the call.
    await expect(condense(big, { provider: 'lossless', signal: AbortSignal.abort() })).rejects.toMatchObject({ name: 'AbortError' })
    // At a range of moments: each run either finishes correctly or rejects with an AbortError.
    let aborted = 0
    let finished = 0
    for (const delay of [0, 1, 2, 4, 8, 16, 32, 64, 128]) {
      const controller = new AbortController()
      setTimeout(() => controller.abort(), delay)
      const summarize = () => new Promise<string>((r) => setTimeout(() => r('SUMMARY: ok.'), 40))
      try {
        const r = await condense(big, { provider: 'smart', config: { preset: 'quality' }, summarize, signal: controller.signal })
        expect(validateConversation(r.messages)).toEqual([])
        finished++
      } catch (e) {
        expect((e as Error).name).toBe('AbortError')
        aborted++
      }
    }
    expect(aborted).toBeGreaterThan(0)
    expect(aborted + finished).toBe(9)
    expect(big).toEqual(snapshot)
  }, 60_000)
})

describe('panics', () => {
  const script = `
    const lib = require(${JSON.stringify(join(__dirname, '..', 'lib', 'index.js'))})
    const h = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'a' }, { role: 'user', content: 'b' }, { role: 'assistant', content: 'c' }, { role: 'user', content: 'd' }, { role: 'assistant', content: 'e' }]
    const run = async () => {
      switch (process.env.CONTEXT_CONDENSE_PANIC_PROBE) {
        case 'sync': return lib.validateConversation(h)
        case 'task': return lib.condense(h, { provider: 'lossless' })
        case 'callback': return lib.condense(h, { provider: 'native', summarize: async () => 'S' })
      }
    }
    run().then(() => console.log(JSON.stringify({ ok: true })), (e) => console.log(JSON.stringify({ ok: false, message: e.message, errorCode: e.errorCode })))
      .then(() => lib.condense(h, { provider: 'lossless' })).catch((e) => console.log(JSON.stringify({ again: e.message })))
      .then(() => console.log('alive'))
  `
  for (const stage of ['sync', 'task', 'callback']) {
    itProbes(
      `a panic in ${stage === 'sync' ? 'a sync export' : stage === 'task' ? 'the engine thread' : 'a callback continuation'} is an error in JavaScript; the process lives on`,
      () => {
        const out = spawnSync(process.execPath, ['-e', script], {
          env: { ...process.env, CONTEXT_CONDENSE_PANIC_PROBE: stage },
          encoding: 'utf8',
          timeout: 30_000,
        })
        expect(out.status).toBe(0)
        const lines = out.stdout.trim().split('\n')
        expect(JSON.parse(lines[0])).toEqual({ ok: false, message: expect.stringContaining(`panic probe: ${stage}`), errorCode: 'internal' })
        // The process goes on; after a sync or callback panic, the next condensation works (the
        // task probe fires in every engine run, so there the next one fails the same way).
        expect(lines[lines.length - 1]).toBe('alive')
        if (stage === 'task') expect(JSON.parse(lines[1]).again).toContain('panic probe: task')
        else expect(lines).toHaveLength(2)
      },
    )
  }
})

describe('bad input reaching the other entry points', () => {
  it('analyze, analyzeAsync and the manager name the place of a value JSON cannot carry', async () => {
    const { analyze, analyzeAsync, CondensationManager } = await import('../lib/index.js')
    const input = base()
    ;(input[3] as { ts?: number }).ts = NaN
    expect(() => analyze(input)).toThrow(/^analyze: messages\[3\]\.ts: NaN is not a JSON number$/)
    await expect(analyzeAsync(input)).rejects.toThrow(/^analyzeAsync: messages\[3\]\.ts: NaN is not a JSON number$/)
    await expect(new CondensationManager({ config: { provider: 'lossless' } }).estimateReduction(input)).rejects.toThrow(
      /^estimateReduction: messages\[3\]\.ts: NaN/,
    )
  })
})

describe('bad options of the other functions: each names its place, with errorCode "invalid-argument"', () => {
  const BAD_NUMBERS: Array<[unknown, string]> = [
    [Number.NaN, 'number NaN'],
    [Number.POSITIVE_INFINITY, 'number Infinity'],
    [-1, 'number -1'],
    [2.5, 'number 2.5'],
    [2 ** 53 + 2, 'number 9007199254740994'],
    [10n, 'bigint 10n'],
    ['3', 'string "3"'],
    [null, 'null'],
  ]
  const thrown = async (f: () => unknown) => {
    try {
      await f()
    } catch (e) {
      return e as Error & { errorCode?: string }
    }
    throw new Error('expected a throw')
  }

  it('workingSet and workingSetAsync: turns and budgetTokens are whole numbers >= 0 (NaN, Infinity, a BigInt, a string refused)', async () => {
    const { workingSet, workingSetAsync } = await import('../lib/index.js')
    const h = base()
    for (const key of ['turns', 'budgetTokens']) {
      for (const [value, shown] of BAD_NUMBERS) {
        // A null budget is the default one, as a Smart config reads it (working-set.test.ts).
        if (key === 'budgetTokens' && value === null) continue
        for (const [name, call] of [
          ['workingSet', () => workingSet(h, { [key]: value } as never)],
          ['workingSetAsync', () => workingSetAsync(h, { [key]: value } as never)],
        ] as const) {
          const e = await thrown(call)
          expect(e.message, `${name} ${key} ${shown}`).toBe(`${name}: options.${key}: expected a whole number >= 0, got ${shown}`)
          expect(e.errorCode).toBe('invalid-argument')
        }
      }
    }
    expect(workingSet(h, { turns: 2 ** 31, budgetTokens: 0 })).toEqual(workingSet(h, { turns: 1000, budgetTokens: 0 }))
    expect((await thrown(() => workingSet(h, { text: 'yes' } as never))).message).toBe('workingSet: options.text: expected true or false, got string "yes"')
  })

  it('smartPreset and configSchema: a name that is not a string is named with the choices', async () => {
    const { smartPreset } = await import('../lib/index.js')
    for (const [value, shown] of BAD_NUMBERS.filter(([v]) => typeof v !== 'string')) {
      const p = await thrown(() => smartPreset(value as never))
      expect(p.message).toBe(`smartPreset: name: expected one of "conservative", "balanced", "aggressive", "speed", "quality", "cost", got ${shown}`)
      expect(p.errorCode).toBe('invalid-argument')
      const s = await thrown(() => configSchema(value as never))
      expect(s.message).toBe(`configSchema: provider: expected one of "native", "lossless", "truncation", "smart", got ${shown}`)
      expect(s.errorCode).toBe('invalid-argument')
    }
    // An unknown name (a string) is the engine's to name, with the same choices.
    expect((await thrown(() => smartPreset('3' as never))).message).toMatch(/unknown preset "3", expected one of conservative, balanced/)
  })

  it('an encoding that is not a string is named as it is (NaN is not "null")', async () => {
    const { analyze } = await import('../lib/index.js')
    const e = await thrown(() => analyze(base(), { encoding: Number.NaN as never }))
    expect(e.message).toBe('analyze: options.encoding: unknown encoding number NaN, expected "o200k_base" or "cl100k_base"')
    expect(e.errorCode).toBe('invalid-argument')
  })

  it('previewOnHistory and summaryRequestFor: the history, the settings and the options are checked', async () => {
    const { previewOnHistory, summaryRequestFor } = await import('../lib/settings/schemas.js')
    const h = base()
    const cases: Array<[() => unknown, string]> = [
      [() => previewOnHistory(h, null as never), 'previewOnHistory: settings: expected the manager configuration, an object, got null'],
      [() => previewOnHistory(h, 3 as never), 'previewOnHistory: settings: expected the manager configuration, an object, got number 3'],
      [() => previewOnHistory(null as never), 'previewOnHistory: messages: expected an array of messages, got null'],
      [
        () => previewOnHistory(h, { providers: 3 } as never),
        'previewOnHistory: settings.providers: expected an object of provider configs by id, got number 3',
      ],
      [() => previewOnHistory(h, {}, null as never), 'previewOnHistory: options: expected an object, got null'],
      [() => previewOnHistory(h, {}, { summarize: 'gpt' } as never), 'previewOnHistory: options.summarize: expected an async function, got string "gpt"'],
      [() => summaryRequestFor(h, null as never), 'summaryRequestFor: settings: expected the manager configuration, an object, got null'],
      [() => summaryRequestFor({ length: 2 } as never), 'summaryRequestFor: messages: expected an array of messages, got an object'],
    ]
    for (const [call, message] of cases) {
      const e = await thrown(call)
      expect(e).toBeInstanceOf(TypeError)
      expect(e.message).toBe(message)
      expect(e.errorCode).toBe('invalid-argument')
    }
    // Good arguments still preview.
    expect((await previewOnHistory(h, {})).rows.map((r) => r.provider)).toEqual(['native', 'lossless', 'truncation', 'smart'])
  })
})

describe('error codes of what the library throws', () => {
  const h: ApiMessage[] = [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: 'done' },
  ]
  const code = async (f: () => unknown) => {
    try {
      await f()
    } catch (e) {
      return (e as { errorCode?: string }).errorCode
    }
    return 'no error'
  }

  it('a bad argument: "invalid-argument"; options the engine refuses: "invalid-options"; an abort: the signal\'s reason untouched', async () => {
    expect(await code(() => condense(null as unknown as ApiMessage[], { provider: 'lossless' }))).toBe('invalid-argument')
    expect(await code(() => condense(h, { provider: 'lossless', config: { bogus: 1 } as never }))).toBe('invalid-options')
    expect(await code(() => condense(h, { provider: 'nope' as never }))).toBe('invalid-options')
    expect(await code(() => configSchema('nope' as never))).toBe('invalid-options')
    expect(await code(() => countTokens('x', { encoding: 'p50k' as never }))).toBe('invalid-argument')
    expect(await code(() => repairConversation([{ role: 'user', content: 'x', ts: Number.NaN }] as ApiMessage[]))).toBe('invalid-argument')
    expect(await code(() => openConversation(5 as never))).toBe('invalid-argument')
    const conv = await openConversation(h)
    expect(await code(() => conv.append(5 as never))).toBe('invalid-argument')
    conv.close()
    expect(await code(() => new CondensationManager().shouldCondense(5 as never))).toBe('invalid-options')
    // A RangeError of a check, and Node-API refusing an argument's type (StringExpected), are the caller's too.
    const held = await openConversation(h)
    expect(await code(() => held.replace(7, { role: 'user', content: 'x' }))).toBe('invalid-argument')
    held.close()
    expect(await code(() => new CondensationManager().getEffectiveThreshold(3 as never))).toBe('invalid-argument')
    const ac = new AbortController()
    const reason = new Error('stop')
    ac.abort(reason)
    const r = await condense(h, { provider: 'lossless', signal: ac.signal }).catch((e: unknown) => e)
    expect(r).toBe(reason)
    expect((reason as { errorCode?: string }).errorCode).toBeUndefined()
  })
})

describe('each ErrorCode (src/error.rs), reached by a real call: the binding sets it as `code`, the library copies it to `errorCode`', () => {
  // The raw binding (lib/internal/native.js), whose errors carry the engine's code as `code` before
  // the library's wrappers see them; the public calls show the same code as `errorCode`.
  const native = require('../lib/internal/native.js') as {
    errorCodes(): Array<{ code: string; meaning: string }>
    History: new () => {
      push(chunk: unknown): string[]
      validate(): string
      workingSet(config: object, withText: boolean): Promise<unknown>
    }
    Run: new (options: object) => { start(history: object, withSummarizer: boolean): void; next(): Promise<unknown> }
    Conversation: new () => { adopt(): Int32Array }
  }
  const h = (): ApiMessage[] => [
    { role: 'user', content: 'go' },
    { role: 'assistant', content: 'done' },
  ]
  /** The error `f` throws or rejects with (its code, errorCode and message), or 'no error'. */
  const caught = async (f: () => unknown) => {
    try {
      await f()
    } catch (e) {
      const { code, errorCode, message } = e as { code?: string; errorCode?: string; message: string }
      return { code, errorCode, message }
    }
    return 'no error'
  }

  it("the generated union ErrorCode (lib/names.d.ts) lists exactly the engine's codes, in its order", () => {
    const { thrownErrorCodes } = require('./sweep/codes.cjs') as { thrownErrorCodes(): string[] }
    const engine = native.errorCodes().map((c) => c.code)
    expect(engine).toEqual(['invalid-argument', 'invalid-options', 'invalid-state', 'closed', 'internal'])
    expect(thrownErrorCodes()).toEqual(engine)
  })

  it('"invalid-argument": an argument the binding cannot read, and a check of the library', async () => {
    const history = new native.History()
    expect(await caught(() => history.push(5))).toEqual({ code: 'invalid-argument', errorCode: undefined, message: 'push: expected an array of messages' })
    expect(await caught(() => countTokens(5 as never))).toMatchObject({ errorCode: 'invalid-argument' })
  })

  it('"invalid-options": options the engine refuses, thrown at once and rejected by a task off the JavaScript thread', async () => {
    expect(await caught(() => configSchema('nope' as never))).toMatchObject({ code: 'invalid-options', errorCode: 'invalid-options' })
    expect(await caught(() => new native.Run({ provider: 'lossless', bogus: 1 }))).toMatchObject({ code: 'invalid-options', message: /options\.bogus/ })
    const history = new native.History()
    history.push(h())
    expect(await caught(() => history.workingSet({ bogus: 1 }, false))).toMatchObject({ code: 'invalid-options', message: /options\.bogus: unknown field/ })
    expect(await caught(() => condense(h(), { provider: 'lossless', config: { bogus: 1 } as never }))).toMatchObject({ errorCode: 'invalid-options' })
  })

  it('"invalid-state": a call the binding\'s object cannot take now (the library checks first, with the same code)', async () => {
    expect(await caught(() => new native.Conversation().adopt())).toMatchObject({ code: 'invalid-state', message: 'adopt: no condensed result is waiting' })
    const run = new native.Run({ provider: 'lossless' })
    expect(await caught(() => run.next())).toMatchObject({ code: 'invalid-state', message: 'this run was not started' })
    run.start(new native.History(), false)
    expect(await caught(() => run.start(new native.History(), false))).toMatchObject({ code: 'invalid-state', message: 'this run was already started' })
    const conv = await openConversation(h())
    conv.close()
    expect(await caught(() => conv.append([{ role: 'user', content: 'x' }]))).toMatchObject({ errorCode: 'invalid-state' })
  })

  it('"closed": a call stopped by closing its conversation', async () => {
    const conv = await openConversation(h())
    const running = conv.analyze()
    conv.close()
    expect(await caught(() => running)).toMatchObject({ errorCode: 'closed', message: /conversation\.analyze: the conversation was closed/ })
  })

  itProbes('"internal": a panic in a sync export, as `code` from the binding and `errorCode` from the library', () => {
    const script = `
      const lib = require(${JSON.stringify(join(__dirname, '..', 'lib', 'index.js'))})
      const native = require(${JSON.stringify(join(__dirname, '..', 'lib', 'internal', 'native.js'))})
      const h = [{ role: 'user', content: 'hi' }, { role: 'assistant', content: 'a' }]
      const out = (e) => console.log(JSON.stringify({ code: e.code, errorCode: e.errorCode }))
      const history = new native.History()
      history.push(h)
      try { history.validate() } catch (e) { out(e) }
      try { lib.validateConversation(h) } catch (e) { out(e) }
    `
    const out = spawnSync(process.execPath, ['-e', script], {
      env: { ...process.env, CONTEXT_CONDENSE_PANIC_PROBE: 'sync' },
      encoding: 'utf8',
      timeout: 30_000,
    })
    expect(
      out.stdout
        .trim()
        .split('\n')
        .map((l) => JSON.parse(l)),
    ).toEqual([{ code: 'internal' }, { code: 'internal', errorCode: 'internal' }])
  })
})

describe('arguments the types rule out: refused where they are read, naming the place as the .d.ts does', () => {
  /** What a call made of `f` gives: a throw or rejection (its message and errorCode), or the answer's `error`. */
  const outcome = async (f: () => unknown): Promise<{ thrown?: string; errorCode?: string; answered?: string }> => {
    try {
      const r = (await f()) as { error?: string } | undefined
      return { answered: r && typeof r === 'object' && typeof r.error === 'string' ? r.error : 'no error' }
    } catch (e) {
      return { thrown: (e as Error).message, errorCode: (e as { errorCode?: string }).errorCode }
    }
  }
  const refused = async (f: () => unknown, message: string | RegExp, errorCode = 'invalid-argument') => {
    const o = await outcome(f)
    expect(o.thrown, `answered ${o.answered}`).toMatch(message)
    expect(o.errorCode, o.thrown).toBe(errorCode)
  }

  it('an unknown option key, with the one rule for known keys (lib/internal/checks.js): `<fn>: options.<key>: unknown key, expected one of …`', async () => {
    const { analyze, analyzeAsync, countTokensAsync, expandReferences, workingSet, workingSetAsync } = await import('../lib/index.js')
    const h = base()
    const bogus = { bogus: 1 } as never
    await refused(() => expandReferences(h, bogus), /^expandReferences: options\.bogus: unknown key, expected one of format$/)
    await refused(() => analyze(h, bogus), /^analyze: options\.bogus: unknown key, expected one of encoding, format$/)
    await refused(() => analyzeAsync(h, bogus), /^analyzeAsync: options\.bogus: unknown key/)
    await refused(() => countTokens(h, bogus), /^countTokens: options\.bogus: unknown key, expected one of encoding, format$/)
    await refused(() => countTokensAsync(h, bogus), /^countTokensAsync: options\.bogus: unknown key/)
    await refused(() => workingSet(h, bogus), /^workingSet: options\.bogus: unknown key, expected one of turns, budgetTokens, text, encoding$/)
    await refused(() => workingSetAsync(h, bogus), /^workingSetAsync: options\.bogus: unknown key/)
    const m = new CondensationManager()
    await refused(() => m.decide({ totalTokens: 1, contextWindow: 1000, bogus: 1 } as never), /^situation\.bogus: unknown key, expected one of totalTokens/)
    await refused(
      () => m.condenseIfNeeded(h, { contextWindow: 1000, bogus: 1 } as never),
      /^condenseIfNeeded: context\.bogus: unknown key, expected one of contextWindow/,
    )
    await refused(
      () => m.estimateReduction(h, bogus),
      /^estimateReduction: options\.bogus: unknown key, expected one of provider, pricing, summarize, prevContextTokens$/,
    )
    await refused(
      () => new CondensationManager({ telemetry: { captureEverything() {} } } as never),
      /^CondensationManager: options\.telemetry\.captureEverything: unknown key/,
    )
  })

  it('countTokens names its parameter `input`; replay names `history` and `options.llmUrl`; conversation.truncate names `length`', async () => {
    const { countTokensAsync, replay, openConversation: open } = await import('../lib/index.js')
    await refused(() => countTokens(5 as never), /^countTokens: input: expected a string or an array of messages, got number 5$/)
    const holed = () => {
      const h = base().slice(0, 3)
      delete h[1]
      return h
    }
    await refused(() => countTokensAsync(holed()), /^countTokensAsync: input\[1\]: expected a message object, got undefined$/)
    await refused(() => replay(5 as never), /^replay: history: expected an array of messages, got number 5$/)
    // A hole is named where it is, before anything is counted.
    await refused(() => replay(holed()), /^replay: history\[1\]: expected a message object, got undefined$/)
    await refused(() => replay(base(), { llmUrl: 'not a url' }), /^replay: options\.llmUrl: expected an http\(s\) URL/)
    await refused(() => replay(base(), { policy: null } as never), /^replay: options\.policy: expected one of roo-default/)
    await refused(() => replay(base(), { cache: null } as never), /^replay: options\.cache: expected "anthropic" or "openai", got null$/)
    const conv = await open(base())
    await refused(() => conv.truncate(-1), /^conversation\.truncate: length: expected a whole number >= 0, got number -1$/)
    conv.close()
  })

  it('conversation.condense checks its options are an object before reading them (a long string is not a million keys)', async () => {
    const { openConversation: open } = await import('../lib/index.js')
    const conv = await open(base())
    const started = performance.now()
    await refused(() => conv.condense('x'.repeat(1 << 20) as never), /^conversation\.condense: options: expected an object/)
    // Refused at once, not after sending a key per character to the engine (about 10 s before).
    expect(performance.now() - started).toBeLessThan(5000)
    expect(conv.length).toBe(6)
    conv.close()
  })

  it('the Conversation constructor (use openConversation) throws with errorCode "invalid-argument"', async () => {
    const { Conversation } = await import('../lib/index.js')
    await refused(() => new (Conversation as unknown as new () => unknown)(), /^Conversation: use openConversation/)
  })

  it('a BigInt or NaN in options on their way to the engine is named by its path (lib/internal/crossing.js checkCrossable), not by the conversion', async () => {
    const h = base()
    await refused(
      () => condense(h, { provider: 'lossless', prevContextTokens: 5n as never }),
      /^condense: options\.prevContextTokens: a BigInt \(5n\) is not a JSON number/,
    )
    await refused(() => condense(h, { provider: 'native', config: { keepLast: 5n as never } }), /^condense: options\.config\.keepLast: a BigInt/)
    await refused(() => condense(h, { provider: 'native', allowedTokens: 5n as never }), /^condense: options\.allowedTokens: a BigInt \(5n\)/)
    const m = new CondensationManager()
    await refused(() => m.setConfig({ threshold: 50n as never }), /^CondensationManager: config\.threshold: a BigInt/)
    await refused(() => m.estimateCost(h, { pricing: { inputPrice: Number.NaN } }), /^estimateCost: options\.pricing\.inputPrice: NaN is not a JSON number$/)
    await refused(
      () => m.estimateCost(h, { prevContextTokens: 5n as never }),
      /^estimateCost: options\.prevContextTokens: expected a whole number >= 0, got bigint 5n$/,
    )
    await refused(() => m.estimateCost(h, null as never), /^estimateCost: options: expected an object, got null$/)
    // validateConversation answers about any value: one JSON has no form for is a problem, not a throw.
    expect(validateConversation(Number.NaN)).toEqual([{ path: 'messages', code: 'unsupported_value', message: 'NaN is not a JSON number' }])
  })

  it('null given for an option the types do not let be null is refused, not taken as the option left out', async () => {
    const h = base()
    for (const key of ['prevContextTokens', 'allowedTokens', 'encoding', 'config'])
      await refused(
        () => condense(h, { provider: 'lossless', [key]: null } as never),
        new RegExp(`^invalid options: options\\.${key}: null is not a value`),
        'invalid-options',
      )
    await refused(() => new CondensationManager({ config: null } as never), /config: expected an object/, 'invalid-options')
    await refused(
      () => new CondensationManager({ conversations: null } as never),
      /^CondensationManager: options\.conversations: expected a whole number >= 0, got null$/,
    )
    await refused(() => new CondensationManager().getEffectiveThreshold(null as never), /^getEffectiveThreshold: profileId: expected a string, got null$/)
    await refused(
      () => new CondensationManager().decide({ totalTokens: null, contextWindow: 1000 } as never),
      /^invalid options: situation\.totalTokens: expected a whole number >= 0, got null$/,
      'invalid-options',
    )
    // Where a provider's schema takes null (the key left out), the types say so and it is taken.
    expect((await condense(h, { provider: 'native', summarize: async () => 'S', config: { customPrompt: null, keepLast: 2 } })).error).toBeUndefined()
    expect(new CondensationManager().validateConfig({ condensingProfileId: null, triggers: { stopPercent: null } })).toEqual([])
  })

  it("the manager's methods check their arguments: the call's context, ids, a provider's members, the JSON of a config", async () => {
    const h = base()
    const m = new CondensationManager()
    const ctx = { contextWindow: 4000 }
    await refused(() => m.condenseIfNeeded(h, { ...ctx, taskId: 5 } as never), /^condenseIfNeeded: context\.taskId: expected a string, got number 5$/)
    await refused(
      () => m.condenseIfNeeded(h, { ...ctx, force: 'yes' } as never),
      /^condenseIfNeeded: context\.force: expected true or false, got string "yes"$/,
    )
    await refused(
      () => m.condenseIfNeeded(h, { ...ctx, isAutomaticTrigger: 1 } as never),
      /^condenseIfNeeded: context\.isAutomaticTrigger: expected true or false/,
    )
    await refused(() => m.condenseIfNeeded(h, { ...ctx, systemPrompt: 5 } as never), /^condenseIfNeeded: context\.systemPrompt: expected a string/)
    await refused(
      () => m.condenseIfNeeded(h, { ...ctx, systemPromptTokens: '5' } as never),
      /^condenseIfNeeded: context\.systemPromptTokens: expected a whole number >= 0/,
    )
    await refused(
      () => m.condenseIfNeeded(h, { ...ctx, expectedTurns: 0 } as never),
      /^condenseIfNeeded: context\.expectedTurns: expected a whole number >= 1, got number 0$/,
    )
    await refused(
      () => m.condenseIfNeeded(h, { ...ctx, summarize: null } as never),
      /^condenseIfNeeded: context\.summarize: expected an async function, got null$/,
    )
    await refused(() => m.condenseIfNeeded([h[0], null, h[1]] as never, ctx), /^condenseIfNeeded: messages\[1\]: expected a message object, got null$/)
    await refused(() => m.closeConversations(5 as never), /^closeConversations: taskId: expected a string, got number 5$/)
    await refused(() => m.unregisterProvider(5 as never), /^unregisterProvider: id: expected a provider id \(a string\), got number 5$/)
    const provider = { id: 'mine', name: 'Mine', description: 'd', condense: async (messages: ApiMessage[]) => ({ messages }) }
    await refused(() => m.registerProvider({ ...provider, validateConfig: 5 } as never), /^registerProvider: provider\.validateConfig: expected a function/)
    await refused(
      () => m.registerProvider({ ...provider, capabilities: { estimatedSpeed: 'warp' } } as never),
      /^registerProvider: provider\.capabilities\.estimatedSpeed: expected "fast", "medium" or "slow"/,
    )
    await refused(() => m.registerProvider({ ...provider, bogus: 1 } as never), /^registerProvider: provider\.bogus: unknown key/)
    await refused(() => m.importConfig(5 as never), /^importConfig: json: expected the JSON text of a manager config, got number 5$/)
    await refused(() => m.importConfig('5'), /^importConfig: json: expected the JSON of a manager config \(an object\), got number 5$/)
    // Roo's earlier config keys are checked in their own names, even beside the keys they map onto.
    expect(m.validateConfig({ autoCondense: true, autoCondenseContext: 'yes' }).map((p) => p.path)).toEqual(['config.autoCondenseContext'])
    await refused(
      () => new CondensationManager({ telemetry: { captureContextCondensed: 5 } } as never),
      /^CondensationManager: options\.telemetry\.captureContextCondensed: expected a function/,
    )
  })

  it('openai-client and openai-format: errors carry errorCode; the summarizer checks its request', async () => {
    const { createOpenAISummarizer, chatCompletionsUrl } = await import('../lib/openai-client.js')
    const { toAnthropic } = await import('../lib/openai-format.js')
    await refused(() => createOpenAISummarizer({} as never), /^createOpenAISummarizer: options\.url: expected an http\(s\) URL/)
    await refused(() => chatCompletionsUrl(5 as never), /^chatCompletionsUrl: url: expected an http\(s\) URL .*got number 5$/)
    const summarize = createOpenAISummarizer({ url: 'http://127.0.0.1:9/v1' })
    const request = { purpose: 'conversation' as const, systemPrompt: 'S', messages: [{ role: 'user' as const, content: 'x' }] }
    await refused(() => summarize({ ...request, purpose: 'everything' as never }), /^summarize: request\.purpose: expected one of "conversation"/)
    await refused(() => summarize({ ...request, systemPrompt: 5 as never }), /^summarize: request\.systemPrompt: expected a string, got number 5$/)
    await refused(() => summarize({ ...request, maxTokens: -1 }), /^summarize: request\.maxTokens: expected a whole number >= 1, got number -1$/)
    await refused(() => summarize({ ...request, taskId: 5 as never }), /^summarize: request\.taskId: expected a string, got number 5$/)
    await refused(() => summarize({ ...request, bogus: 1 } as never), /^summarize: request\.bogus: unknown key/)
    await refused(() => summarize({ ...request, messages: [undefined] } as never), /^summarize: request\.messages\[0\]: expected a message/)
    await refused(() => summarize(request, { signal: 5 } as never), /^summarize: context\.signal: expected an AbortSignal, got number 5$/)
    const conversion = toAnthropic([{ role: 'user', content: 'x' }])
    await refused(() => conversion.restore(5 as never), /^restore: condensed: expected an array of messages, got number 5$/)
    await refused(() => conversion.locate(5 as never), /^locate: text: expected a string, got number 5$/)
    await refused(() => conversion.finish(null as never), /^finish: result: expected a condense result/)
  })

  it("the Roo entries: this package's options checked in full, Roo's arguments named (an `error` answer for a summary or context call, a throw for the rest)", async () => {
    const roo = await import('../lib/roo.js')
    const roo2025 = await import('../lib/roo-2025.js')
    const roo202601 = await import('../lib/roo-2026-01.js')
    const messages = (): ApiMessage[] =>
      [1, 2, 3, 4, 5, 6, 7].map((i) => ({ role: i % 2 ? 'user' : 'assistant', content: `message ${i}`, ts: i }) as ApiMessage)
    const apiHandler = {
      createMessage: () =>
        (async function* () {
          yield { type: 'text', text: 'A summary' }
        })(),
    }
    try {
      await refused(() => roo.configure({ pricing: { inputPrice: 'x' } } as never), /^configure: options\.pricing\.inputPrice: invalid type: string "x"/)
      await refused(
        () => roo.configure({ provider: 'lossless', providerConfig: { keep: 'both' } } as never),
        /^configure: options\.providerConfig\.keep: unknown variant `both`/,
      )
      await refused(
        () => roo.configure({ providerConfig: { preset: 'turbo' } } as never),
        /^configure: options\.providerConfig: a config none of lossless, truncation and smart takes/,
      )
      await refused(() => roo.configure({ telemetry: { captureEverything() {} } } as never), /^configure: options\.telemetry\.captureEverything: unknown key/)
      await refused(
        () => roo.configure({ summarizeOptions: { concurrency: 0 } }),
        /^configure: options\.summarizeOptions\.concurrency: expected a whole number >= 1/,
      )
    } finally {
      roo.configure()
    }
    const call = { messages: messages(), apiHandler, systemPrompt: 'S', taskId: 't' }
    const answered = async (f: () => unknown, message: RegExp) => expect((await outcome(f)).answered).toMatch(message)
    await answered(
      () => roo.summarizeConversation({ ...call, taskId: 5 } as never),
      /^Failed to condense context: summarizeConversation: options\.taskId: expected a task id \(a string\), got number 5$/,
    )
    await answered(
      () => roo.summarizeConversation({ ...call, isAutomaticTrigger: 'yes' } as never),
      /summarizeConversation: options\.isAutomaticTrigger: expected true or false/,
    )
    await answered(
      () => roo.summarizeConversation({ ...call, bogus: 1 } as never),
      /summarizeConversation: options\.bogus: unknown key, expected one of provider/,
    )
    await answered(
      () => roo.summarizeConversation({ ...call, apiHandler: { ...apiHandler, countTokens: 5 } } as never),
      /summarizeConversation: options\.apiHandler\.countTokens: expected a function/,
    )
    await answered(
      () => roo2025.summarizeConversation(messages(), apiHandler as never, 'S', 't', null as never),
      /summarizeConversation: prevContextTokens: expected a whole number >= 0, got null$/,
    )
    await answered(
      () => roo202601.summarizeConversation(messages(), apiHandler as never, 'S', 't', 1000, false, undefined, 5 as never),
      /summarizeConversation: options: expected an object, got number 5$/,
    )
    await refused(
      () => roo.summarizeConversation(5 as never),
      /^summarizeConversation: expected an options object, or the messages array of the positional call, first; got number 5$/,
    )
    const manage = {
      ...call,
      totalTokens: 100,
      contextWindow: 1000,
      maxTokens: 100,
      autoCondenseContext: true,
      autoCondenseContextPercent: 100,
      profileThresholds: {},
      currentProfileId: 'p',
    }
    await answered(
      () => roo.manageContext({ ...manage, autoCondenseContext: 'yes' } as never),
      /manageContext: autoCondenseContext: expected true or false, got string "yes"$/,
    )
    await answered(
      () => roo.manageContext({ ...manage, currentProfileId: 5 } as never),
      /manageContext: currentProfileId: expected a profile id \(a string\), got number 5$/,
    )
    await refused(() => roo.manageContext(5 as never), /^manageContext: options: expected an object of Roo's arguments, got number 5$/)
    const { messages: _m, apiHandler: _a, systemPrompt: _s, taskId: _t, ...will } = { ...manage, lastMessageTokens: 10 }
    expect(roo.willManageContext(will)).toBe(false)
    await refused(
      () => roo.willManageContext({ ...will, totalTokens: '5' } as never),
      /^willManageContext: totalTokens: expected a number >= 0, got string "5"$/,
    )
    await refused(() => roo.willManageContext({ ...will, bogus: 1 } as never), /^willManageContext: options\.bogus: unknown key/)
    await refused(
      () => roo.truncateConversation(messages(), '0.5' as never, 't'),
      /^truncateConversation: fracToRemove: expected a number from 0 to 1, got string "0\.5"$/,
    )
    await refused(() => roo.truncateConversation(messages(), 0.5, 5 as never), /^truncateConversation: taskId: expected a task id \(a string\), got number 5$/)
    await refused(
      () => roo.truncateConversation(messages(), 0.5, 't', { bogus: 1 } as never),
      /^truncateConversation: options\.bogus: unknown key, expected one of telemetry, nonDestructive, generateId$/,
    )
    await refused(() => roo.truncateConversation(messages(), 0.5, 't', null as never), /^truncateConversation: options: expected an object, got null$/)
    await refused(() => roo.toolUseToText(undefined as never), /^toolUseToText: block: expected a content block \(an object\), got undefined$/)
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    await refused(
      () => roo.toolUseToText({ type: 'tool_use', id: 'x', name: 'n', input: { a: cyclic } }),
      /^toolUseToText: block\.input\.a\.self: the value contains itself \(a cycle\)$/,
    )
    await refused(() => roo.toolResultToText(null as never), /^toolResultToText: block: expected a content block/)
    await refused(
      () => roo.convertToolBlocksToText(5 as never),
      /^convertToolBlocksToText: content: expected a string or an array of content blocks, got number 5$/,
    )
    await refused(
      () => roo.transformMessagesForCondensing([null] as never),
      /^transformMessagesForCondensing: messages\[0\]: expected a message object, got null$/,
    )
    await refused(() => roo.extractCommandBlocks(5 as never), /^extractCommandBlocks: message: expected a message object, got number 5$/)
    await refused(() => roo.estimateTokenCount(5 as never), /^estimateTokenCount: content: expected an array of content blocks, got number 5$/)
    await refused(() => roo.estimateTokenCount([null] as never), /^estimateTokenCount: content\[0\]: expected a content block, got null$/)
    // Roo's own rule, its specs hold the entries to: no content at all counts 0.
    expect(await roo.estimateTokenCount(undefined as never)).toBe(0)
    await refused(
      () => roo.rewindConversation(messages(), { index: 1, ts: 2 } as never),
      /^rewindConversation: at: expected \{ index \} or \{ ts \}, got both$/,
    )
    await refused(() => roo.rewindConversation(messages(), { ts: '5' } as never), /^rewindConversation: at\.ts: expected a number, got string "5"$/)
    await refused(
      () => roo202601.getKeepMessagesWithToolBlocks(messages(), '3' as never),
      /^getKeepMessagesWithToolBlocks: keepCount: expected a whole number >= 0, got string "3"$/,
    )
    const outlineFile = async () => 'outline'
    await refused(
      () => roo.generateFoldedFileContext('a.ts' as never, { cwd: '/w', outlineFile }),
      /^generateFoldedFileContext: filePaths: expected an array of file paths, got string "a\.ts"$/,
    )
    await refused(
      () => roo.generateFoldedFileContext(['a.ts'], { cwd: 5, outlineFile } as never),
      /^generateFoldedFileContext: options\.cwd: expected a folder \(a string\), got number 5$/,
    )
    await refused(
      () => roo.generateFoldedFileContext(['a.ts'], { cwd: '/w', outlineFile, maxCharacters: '9' } as never),
      /^generateFoldedFileContext: options\.maxCharacters: expected a whole number >= 0/,
    )
  })

  it('settings: previews check their settings as the manager checks its config; validate checks its schema and path', async () => {
    const { previewOnHistory, summaryRequestFor } = await import('../lib/settings/schemas.js')
    const { validate } = await import('../lib/settings/validate.mjs')
    await refused(() => previewOnHistory(base(), { autoCondense: 'yes' } as never), /^previewOnHistory: settings\.autoCondense: expected true or false/)
    await refused(() => summaryRequestFor(base(), { loopGuard: { bogus: 1 } } as never), /^summaryRequestFor: settings\.loopGuard\.bogus: unknown key/)
    await refused(
      () => previewOnHistory(base(), {}, { bogus: 1 } as never),
      /^previewOnHistory: options\.bogus: unknown key, expected one of summarize, policy$/,
    )
    await refused(
      () => previewOnHistory(base(), {}, { policy: { name: 'cache-aware', cache: 5 } } as never),
      /^previewOnHistory: options\.policy\.cache: expected "anthropic" or "openai", got number 5$/,
    )
    await refused(() => validate(5, {}), /^validate: schema: expected a JSON Schema \(an object or a boolean\), got number 5$/)
    await refused(() => validate({ type: 'object', text: 'x' }, {}), /^validate: schema: #: schema keyword "text" is not supported$/)
    await refused(() => validate({ type: 'object' }, {}, 5 as never), /^validate: path: expected a string/)
    // A value the schema's types rule out is a problem, whatever it is (a BigInt included).
    expect(validate({ type: 'integer' }, 5n)).toEqual([{ path: 'settings', message: 'expected integer, got 5n', schemaPath: '#/type' }])
  })
})
