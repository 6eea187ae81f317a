// context-condense/ai-sdk with the real `ai` package (ai@6) and its mock model (`ai/test`), offline:
// the conversion both ways over hand-made histories holding every message role, part type and tool
// output type the SDK defines (exact, the caller's own objects back); condense and expandReferences
// in the SDK's format; an agent loop (generateText with tools and stopWhen) condensed by
// createPrepareStep at every step; hostile values at the new entry points.
import { isDeepStrictEqual } from 'node:util'
import { modelMessageSchema } from 'ai'
import { describe, expect, it } from 'vitest'
import { agentRun, summarize } from './ai-sdk-cases'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const aiSdk = require('../lib/ai-sdk.js')
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lib = require('../lib/index.js')

type Msg = { role: string; content: unknown; [k: string]: unknown }

const po = (k: string) => ({ anthropic: { cacheControl: { type: 'ephemeral' } }, custom: { k } })

/** A history with every role, part type and tool output type of ai@6, providerOptions everywhere. */
function everything(): Msg[] {
  return [
    { role: 'system', content: 'You are a coding agent.', providerOptions: po('s') },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Fix the bug in src/a.ts, see the screenshot.', providerOptions: po('t') },
        { type: 'image', image: new Uint8Array([137, 80, 78, 71, 1, 2, 3]), mediaType: 'image/png', providerOptions: po('i') },
        { type: 'image', image: new URL('https://example.com/shot.png') },
        { type: 'image', image: 'iVBORw0KGgo=', mediaType: 'image/png' },
        { type: 'file', data: 'JVBERi0xLjQ=', mediaType: 'application/pdf', filename: 'spec.pdf', providerOptions: po('f') },
        { type: 'file', data: new URL('https://example.com/spec.pdf'), mediaType: 'application/pdf' },
      ],
      providerOptions: po('u'),
      unknownField: { kept: true },
    },
    {
      role: 'assistant',
      content: [
        { type: 'reasoning', text: 'I should read the file first.', providerOptions: { anthropic: { signature: 'sig' } } },
        { type: 'text', text: 'Reading it.' },
        { type: 'tool-call', toolCallId: 'c1', toolName: 'read_file', input: { path: 'src/a.ts' }, providerOptions: po('c') },
        { type: 'tool-call', toolCallId: 'c2', toolName: 'list_files', input: { path: 'src' } },
        { type: 'tool-call', toolCallId: 'c3', toolName: 'search', input: { q: 'bug' } },
        { type: 'tool-call', toolCallId: 'c4', toolName: 'run', input: { cmd: 'npm test' } },
        { type: 'tool-call', toolCallId: 'c5', toolName: 'run', input: { cmd: 'rm -rf /' } },
        { type: 'tool-call', toolCallId: 'c6', toolName: 'screenshot', input: {} },
        { type: 'tool-call', toolCallId: 'c7', toolName: 'broken', input: 'not json {' },
        { type: 'tool-call', toolCallId: 'w1', toolName: 'web_search', input: { query: 'x' }, providerExecuted: true },
        { type: 'tool-result', toolCallId: 'w1', toolName: 'web_search', output: { type: 'json', value: [{ url: 'https://x' }] } },
        { type: 'tool-approval-request', approvalId: 'a1', toolCallId: 'c5' },
      ],
      providerOptions: po('a'),
    },
    {
      role: 'tool',
      content: [
        { type: 'tool-result', toolCallId: 'c1', toolName: 'read_file', output: { type: 'text', value: '1 | export const a = 1', providerOptions: po('o') } },
        {
          type: 'tool-result',
          toolCallId: 'c2',
          toolName: 'list_files',
          output: { type: 'json', value: { files: ['a.ts', 'b.ts'], n: 2, deep: [null, true, 1.5] } },
        },
        { type: 'tool-result', toolCallId: 'c3', toolName: 'search', output: { type: 'error-text', value: 'search failed' } },
        { type: 'tool-result', toolCallId: 'c4', toolName: 'run', output: { type: 'error-json', value: { exitCode: 1 } }, providerOptions: po('r') },
        { type: 'tool-result', toolCallId: 'c5', toolName: 'run', output: { type: 'execution-denied', reason: 'not allowed' } },
        {
          type: 'tool-result',
          toolCallId: 'c6',
          toolName: 'screenshot',
          output: {
            type: 'content',
            value: [
              { type: 'text', text: 'the screen:' },
              { type: 'media', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
              { type: 'image-data', data: 'iVBORw0KGgo=', mediaType: 'image/png' },
              { type: 'image-url', url: 'https://example.com/s.png' },
              { type: 'file-data', data: 'JVBERi0=', mediaType: 'application/pdf', filename: 'x.pdf' },
              { type: 'file-url', url: 'https://example.com/x.pdf' },
              { type: 'file-id', fileId: 'file_1' },
              { type: 'image-file-id', fileId: { openai: 'file_2' } },
              { type: 'custom', providerOptions: po('x') },
            ],
          },
        },
        { type: 'tool-result', toolCallId: 'c7', toolName: 'broken', output: { type: 'execution-denied' } },
        { type: 'tool-approval-response', approvalId: 'a1', approved: false, reason: 'no' },
      ],
      providerOptions: po('tool'),
    },
    { role: 'system', content: 'A note in the middle.' },
    { role: 'assistant', content: 'Done: the bug is fixed.' },
    { role: 'user', content: 'Thanks.' },
  ]
}

/** Deep-frozen (typed arrays and URLs aside, which cannot be frozen or hold no own fields). */
function frozen<T>(v: T): T {
  if (v && typeof v === 'object' && !ArrayBuffer.isView(v) && !(v instanceof URL)) {
    for (const x of Object.values(v)) frozen(x)
    Object.freeze(v)
  }
  return v
}

async function thrown(f: () => unknown): Promise<Error & { errorCode?: string }> {
  try {
    await f()
  } catch (e) {
    return e as Error & { errorCode?: string }
  }
  throw new Error('expected it to throw')
}

describe('conversion', () => {
  it('every part and output type the SDK defines is accepted by its own schema (the test history is valid)', () => {
    for (const m of everything()) expect(modelMessageSchema.safeParse(m).success, JSON.stringify(m).slice(0, 200)).toBe(true)
  })

  it('the way back of an unchanged conversion is the caller’s own objects, in place, system messages included', () => {
    const h = frozen(everything())
    const c = aiSdk.toEngine(h)
    expect(c.messages.length).toBe(h.length - 2)
    expect(c.system).toEqual([h[0], h[4]])
    expect(lib.validateConversation(c.messages)).toEqual([])
    const back = c.restore(c.messages)
    expect(back.length).toBe(h.length)
    back.forEach((m: Msg, i: number) => expect(m).toBe(h[i]))
  })

  it('a changed message is the original with its new content: every other part the caller’s own, providerOptions kept', () => {
    const h = frozen(everything())
    const c = aiSdk.toEngine(h)
    // The engine's way of changing: shallow copies with new strings.
    const changed = c.messages.map((m: Msg) => ({
      ...m,
      content: Array.isArray(m.content)
        ? m.content.map((b: Record<string, unknown>) =>
            b.type === 'text' ? { ...b, text: `${b.text}!` } : b.type === 'tool_result' && typeof b.content === 'string' ? { ...b, content: 'cut' } : b,
          )
        : m.content,
    }))
    const back = c.restore(changed)
    for (const m of back) expect(modelMessageSchema.safeParse(m).success, JSON.stringify(m).slice(0, 300)).toBe(true)
    expect(back[1]).not.toBe(h[1])
    expect(back[1].unknownField).toBe(h[1].unknownField)
    expect(back[1].providerOptions).toBe(h[1].providerOptions)
    expect(back[1].content[0]).toEqual({ ...(h[1].content as Msg[])[0], text: 'Fix the bug in src/a.ts, see the screenshot.!' })
    for (const k of [1, 2, 3, 4, 5]) expect(back[1].content[k]).toBe((h[1].content as unknown[])[k])
    const tool = back[3].content
    expect(tool[0].output).toEqual({ type: 'text', value: 'cut', providerOptions: po('o') })
    // A JSON output whose text was condensed is text, noted, and JSON again once its text is back.
    expect(tool[1].output).toEqual({ type: 'text', value: 'cut', providerOptions: { contextCondense: { output: 'json' } } })
    expect(tool[3].output).toEqual({ type: 'error-text', value: 'cut', providerOptions: { contextCondense: { output: 'error-json' } } })
    expect(tool[8]).toBe((h[3].content as unknown[])[8])
    const again = aiSdk.toEngine(back)
    const json = JSON.stringify({ files: ['a.ts', 'b.ts'], n: 2, deep: [null, true, 1.5] })
    const restored = again.restore(
      again.messages.map((m: Msg, i: number) =>
        i === 2 ? { ...m, content: (m.content as Array<Record<string, unknown>>).map((b, k) => (k === 1 ? { ...b, content: json } : b)) } : m,
      ),
    )
    expect(restored[3].content[1]).toEqual((h[3].content as unknown[])[1])
  })

  it('fromEngine makes SDK messages of an Anthropic history, and toEngine takes them back to the same history', async () => {
    const { generateHistory } = await import('../fixtures/generate.mjs')
    const h = generateHistory({ seed: 5, format: 'native', targetTokens: 20_000 })
    const sdk = aiSdk.fromEngine(h)
    for (const m of sdk) expect(modelMessageSchema.safeParse(m).success).toBe(true)
    const c = aiSdk.toEngine(sdk)
    expect(lib.validateConversation(c.messages)).toEqual([])
    expect(lib.countTokens(c.messages)).toBe(lib.countTokens(h))
  })
})

describe('condense and expandReferences in the SDK format', () => {
  it('condense equals the main condense of the converted history; untouched messages are the caller’s; references expand to exactly what they stood for', async () => {
    const { generateHistory } = await import('../fixtures/generate.mjs')
    const sdk = frozen(aiSdk.fromEngine(generateHistory({ seed: 3, format: 'native', targetTokens: 60_000 })))
    const r = await aiSdk.condense(sdk, { provider: 'lossless' })
    expect(r.error).toBeUndefined()
    const c = aiSdk.toEngine(sdk)
    const direct = await lib.condense(c.messages, { provider: 'lossless' })
    expect(isDeepStrictEqual(r.messages, c.restore(direct.messages))).toBe(true)
    expect(r.newContextTokens).toBe(direct.newContextTokens)
    expect(r.newContextTokens).toBeLessThan(r.prevContextTokens)
    for (const m of r.messages) expect(modelMessageSchema.safeParse(m).success).toBe(true)
    let untouched = 0
    r.messages.forEach((m: Msg, i: number) => {
      if (m === sdk[i]) untouched++
      else expect(isDeepStrictEqual(m, sdk[i])).toBe(false)
    })
    expect(untouched).toBeGreaterThan(0)
    const expanded = aiSdk.expandReferences(r.messages)
    let references = 0
    r.messages.forEach((m: Msg, i: number) => {
      if (!Array.isArray(m.content)) return
      m.content.forEach((p: Record<string, { value?: unknown }>, k: number) => {
        if (p.type === ('tool-result' as never) && typeof p.output.value === 'string' && p.output.value.includes('⟨ Reference: ')) {
          references++
          expect(expanded[i].content[k]).toEqual((sdk[i].content as unknown[])[k])
        }
      })
    })
    expect(references).toBeGreaterThan(0)
    // Messages without a reference are the same objects.
    expanded.forEach((m: Msg, i: number) => {
      if (!JSON.stringify(r.messages[i]).includes('⟨ Reference: ')) expect(m).toBe(r.messages[i])
    })
  })

  it('every provider’s result is a history the SDK accepts: its schema, and each tool call answered by the next tool message', async () => {
    const { generateHistory } = await import('../fixtures/generate.mjs')
    const sdk = frozen(aiSdk.fromEngine(generateHistory({ seed: 6, format: 'native', targetTokens: 120_000 })))
    const runs: Array<[string, Record<string, unknown>]> = [
      ['lossless', { provider: 'lossless' }],
      ['truncation', { provider: 'truncation', config: { targetTokens: 20_000 } }],
      ['smart', { provider: 'smart', config: { preset: 'aggressive' }, summarize }],
      ['native', { provider: 'native', summarize }],
    ]
    for (const [name, options] of runs) {
      const r = await aiSdk.condense(sdk, options)
      expect(r.error, name).toBeUndefined()
      expect(r.newContextTokens, name).toBeLessThan(r.prevContextTokens)
      for (const m of r.messages) expect(modelMessageSchema.safeParse(m).success, `${name}: ${JSON.stringify(m).slice(0, 200)}`).toBe(true)
      r.messages.forEach((m: Msg, i: number) => {
        const calls = m.role === 'assistant' && Array.isArray(m.content) ? m.content.filter((p: { type: string }) => p.type === 'tool-call') : []
        const next = r.messages[i + 1]
        const results = new Set(next && next.role === 'tool' ? next.content.map((p: { toolCallId: string }) => p.toolCallId) : [])
        for (const c of calls) expect(results.has(c.toolCallId), `${name}: messages[${i}] call ${c.toolCallId}`).toBe(true)
        if (m.role === 'tool') {
          const prev = r.messages[i - 1]
          const ids = new Set(prev.content.filter((p: { type: string }) => p.type === 'tool-call').map((p: { toolCallId: string }) => p.toolCallId))
          for (const p of m.content as Array<{ toolCallId: string }>) expect(ids.has(p.toolCallId), `${name}: messages[${i}] result ${p.toolCallId}`).toBe(true)
        }
      })
    }
  })

  it('with system messages set aside, references name the SDK history’s places and expand there', async () => {
    const { generateHistory } = await import('../fixtures/generate.mjs')
    const base = aiSdk.fromEngine(generateHistory({ seed: 3, format: 'native', targetTokens: 60_000 }))
    const sdk = frozen([{ role: 'system', content: 'system prompt' }, ...base.slice(0, 9), { role: 'system', content: 'mid' }, ...base.slice(9)])
    const r = await aiSdk.condense(sdk, { provider: 'lossless' })
    expect(r.messages[0]).toBe(sdk[0])
    expect(r.messages[10]).toBe(sdk[10])
    const expanded = aiSdk.expandReferences(r.messages)
    const plain = await aiSdk.condense(base, { provider: 'lossless' })
    const plainExpanded = aiSdk.expandReferences(plain.messages)
    // The same expansion as without the system messages, each message at its place.
    expect(expanded.filter((m: Msg) => m.role !== 'system')).toEqual(plainExpanded)
  })
})

describe('createPrepareStep in an agent loop', () => {
  // About 6 s on a loaded 2-core machine: in the fast suite.
  it('a ~1M-token task, window 200k: every step valid, under the window, the user’s words and working set kept, equal to the manager run directly', async () => {
    const { run, prepared } = await agentRun(1_000_000, 200_000)
    expect(run.result.text).toBe('Both files read again: the fix holds.')
    // Later steps below the threshold append to what the first one condensed: the same objects.
    expect(run.steps[1].condensed).toBe(false)
    const first = prepared[0].messages
    expect(prepared[1].messages.length).toBe(first.length + 2)
    expect(first.every((m, i) => prepared[1].messages[i] === m)).toBe(true)
  }, 120_000)

  it('with anthropicCacheControl, the model gets breakpoints on the system prompt and the last two user or tool messages, and the run keeps its messages unmarked', async () => {
    const { runAgent } = await import(new URL('../examples/ai-sdk-agent.mjs', import.meta.url).href)
    const system = 'You are a coding agent working in /home/dev/project.'
    type PromptMessage = { role: string; providerOptions?: { anthropic?: { cacheControl?: unknown } } }
    const prompts: PromptMessage[][] = []
    const prepared: Msg[][] = []
    const given: Msg[][] = []
    await runAgent({
      tokens: 100_000,
      contextWindow: 40_000,
      helper: { anthropicCacheControl: true, systemPrompt: system, summarize },
      onPrompt: (p: PromptMessage[]) => prompts.push(p),
      onPrepared: (m: Msg[], _step: number, g: Msg[]) => {
        prepared.push(m)
        given.push(g)
      },
    })
    expect(prompts.length).toBe(3)
    for (const [k, prompt] of prompts.entries()) {
      const marked = prompt.flatMap((m, i) => (m.providerOptions?.anthropic?.cacheControl ? [i] : []))
      const users = prompt.flatMap((m, i) => (m.role === 'user' || m.role === 'tool' ? [i] : []))
      expect(prompt[0].role).toBe('system')
      expect(marked, `step ${k}`).toEqual([0, ...users.slice(-2)])
      for (const m of prepared[k]) expect(modelMessageSchema.safeParse(m).success).toBe(true)
      // The caller's messages are not marked.
      expect(given[k].some((m) => JSON.stringify(m).includes('cacheControl'))).toBe(false)
    }
  }, 60_000)

  it('summaries come from the model the host names, called with its generateText, and reach the model that works', async () => {
    const { runAgent } = await import(new URL('../examples/ai-sdk-agent.mjs', import.meta.url).href)
    const prompts: unknown[] = []
    const run = await runAgent({ tokens: 300_000, contextWindow: 100_000, onPrompt: (p: unknown) => prompts.push(p) })
    expect(run.steps[0].condensed).toBe(true)
    expect(run.summaryCalls).toBeGreaterThan(0)
    expect(JSON.stringify(prompts[0])).toContain('Summary of the work so far')
  }, 60_000)

  it('steps called at once take turns; a closed helper refuses with errorCode', async () => {
    const { generateHistory } = await import('../fixtures/generate.mjs')
    const sdk = aiSdk.fromEngine(generateHistory({ seed: 2, format: 'native', targetTokens: 30_000 }))
    const prepareStep = aiSdk.createPrepareStep({ contextWindow: 10_000, provider: 'truncation' })
    const [a, b] = await Promise.all([prepareStep({ messages: sdk, stepNumber: 0 }), prepareStep({ messages: sdk, stepNumber: 1 })])
    expect(a?.messages.length).toBeGreaterThan(0)
    expect(prepareStep.steps.map((s: { stepNumber: number }) => s.stepNumber)).toEqual([0, 1])
    expect(b === undefined || Array.isArray(b.messages)).toBe(true)
    await prepareStep.close()
    const e = await thrown(() => prepareStep({ messages: sdk, stepNumber: 2 }))
    expect(e.errorCode).toBe('invalid-argument')
  })
})

describe('hostile values at the new entry points', () => {
  const good = () => frozen(everything())

  it('a value JSON has no form for is named by its path in the SDK history, and the caller’s data is untouched', async () => {
    const cases: Array<[string, (h: Msg[]) => void, RegExp]> = [
      ['NaN in a tool input', (h) => ((h[2].content as Msg[])[2].input = { n: Number.NaN }), /messages\[2\]\.content\[2\]\.input\.n/],
      [
        'a BigInt in a JSON output',
        (h) => ((h[3].content as Msg[])[1].output = { type: 'json', value: { n: 10n } }),
        /messages\[3\]\.content\[1\]\.output\.value\.n: a BigInt/,
      ],
      [
        'a cycle in a JSON output',
        (h) => {
          const v: Record<string, unknown> = {}
          v.self = v
          ;(h[3].content as Msg[])[1].output = { type: 'json', value: v }
        },
        /messages\[3\]\.content\[1\]\.output\.value\.self: the value contains itself/,
      ],
      [
        'a throwing getter on a part',
        (h) => {
          const part = { type: 'text' }
          Object.defineProperty(part, 'text', {
            enumerable: true,
            get: () => {
              throw new Error('boom')
            },
          })
          ;(h[1].content as unknown[])[0] = part
        },
        /messages\[1\]\.content\[0\]\.text: reading it threw \(boom\)/,
      ],
      [
        'an unknown output type',
        (h) => ((h[3].content as Msg[])[0].output = { type: 'weird', value: 1 }),
        /messages\[3\]\.content\[0\]\.output\.type: expected one of "text"/,
      ],
      ['an image of the wrong type', (h) => ((h[1].content as Msg[])[1].image = 42), /messages\[1\]\.content\[1\]\.image: expected base64 text/],
    ]
    for (const [what, spoil, path] of cases) {
      const h = everything()
      spoil(h)
      const before = (() => {
        try {
          return JSON.stringify(h, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))
        } catch {
          return 'cyclic'
        }
      })()
      let message: string
      let code: string | undefined
      try {
        const r = await aiSdk.condense(h, { provider: 'lossless' })
        message = r.error
        code = 'answered'
        expect(
          r.messages.every((m: Msg, i: number) => m === h[i]),
          what,
        ).toBe(true)
      } catch (e) {
        message = (e as Error).message
        code = (e as { errorCode?: string }).errorCode
      }
      expect(message, what).toMatch(path)
      expect(['invalid-argument', 'answered'], what).toContain(code)
      const after = (() => {
        try {
          return JSON.stringify(h, (_k, v) => (typeof v === 'bigint' ? `${v}n` : v))
        } catch {
          return 'cyclic'
        }
      })()
      expect(after, what).toBe(before)
    }
  })

  it('lone surrogates and a huge string come back exactly', async () => {
    const h = everything() as Msg[]
    ;(h[1].content as unknown[])[0] = { type: 'text', text: `a\uD800b\uDFFFc ${'x'.repeat(3_000_000)}` }
    const r = await aiSdk.condense(frozen(h), { provider: 'lossless' })
    expect(r.error).toBeUndefined()
    expect(r.messages[1]).toBe(h[1])
    const c = aiSdk.toEngine(h)
    expect(c.restore(c.messages)[1]).toBe(h[1])
    // A BigInt in a tool input crosses as a number, as in the main entry; the message comes back untouched.
    const big = everything() as Msg[]
    ;(big[2].content as Msg[])[2].input = { n: 10n }
    const b = await aiSdk.condense(frozen(big), { provider: 'lossless' })
    expect(b.error).toBeUndefined()
    expect(b.messages[2]).toBe(big[2])
  })

  it('an abort mid-call rejects with the signal’s reason and leaves the history as it was', async () => {
    const { generateHistory } = await import('../fixtures/generate.mjs')
    const sdk = frozen(aiSdk.fromEngine(generateHistory({ seed: 4, format: 'native', targetTokens: 200_000 })))
    const controller = new AbortController()
    const reason = new Error('stop now')
    const pending = aiSdk.condense(sdk, { provider: 'smart', config: { preset: 'balanced' }, signal: controller.signal })
    controller.abort(reason)
    await expect(pending).rejects.toBe(reason)
    const prepareStep = aiSdk.createPrepareStep({ contextWindow: 20_000, signal: controller.signal })
    await expect(prepareStep({ messages: sdk, stepNumber: 0 })).rejects.toBe(reason)
    await prepareStep.close()
  })

  it('createPrepareStep and condense refuse bad options naming them, with errorCode', async () => {
    for (const contextWindow of [Number.NaN, -1, 0, 1.5, 10n, '1000', undefined]) {
      const e = await thrown(() => aiSdk.createPrepareStep({ contextWindow }))
      expect(e.message).toMatch(/^createPrepareStep: options\.contextWindow: expected a whole number of tokens above 0, got /)
      expect(e.errorCode).toBe('invalid-argument')
    }
    const unknown = await thrown(() => aiSdk.createPrepareStep({ contextWindow: 1000, window: 5 }))
    expect(unknown.message).toMatch(/^createPrepareStep: options\.window: unknown key/)
    const model = await thrown(() => aiSdk.createPrepareStep({ contextWindow: 1000, summarizeModel: {} }))
    expect(model.message).toMatch(/options\.generateText: expected the AI SDK's generateText/)
    const policy = await thrown(() => aiSdk.createPrepareStep({ contextWindow: 1000, policy: 'cache-aware' }))
    expect(policy.message).toMatch(/^createPrepareStep: options\.systemPrompt: the cache-aware policy prices each request with the run's system prompt/)
    expect(policy.errorCode).toBe('invalid-argument')
    const format = await thrown(() => aiSdk.condense(good(), { format: 'openai' }))
    expect(format.message).toMatch(/^condense: options\.format:/)
    expect(format.errorCode).toBe('invalid-argument')
    const notArray = await thrown(() => aiSdk.toEngine({ role: 'user' }))
    expect(notArray.message).toBe('toEngine: messages: expected an array of messages, got an object')
    const step = aiSdk.createPrepareStep({ contextWindow: 1000 })
    const e = await thrown(() => step({ messages: 'x', stepNumber: 0 }))
    expect(e.message).toBe('prepareStep: options.messages: expected an array of messages, got string "x"')
    expect(e.errorCode).toBe('invalid-argument')
    await step.close()
  })
})
