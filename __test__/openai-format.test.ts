// OpenAI chat histories (lib/openai-format.js and `format` in condense / analyze / countTokens):
// the exact round trip when nothing is condensed, generated OpenAI histories condensed by every
// provider staying valid OpenAI histories in their order, the real fixtures converted to OpenAI
// format and back (condensing the same either way), detection, paths in errors and repairs.
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import {
  analyze,
  analyzeAsync,
  condense,
  countTokens,
  countTokensAsync,
  validateConversation,
  type ApiMessage,
  type CondenseOptions,
  type OpenAIMessage,
} from '../lib/index.js'
import { detectFormat, fromAnthropic, toAnthropic } from '../lib/openai-format.js'
import { FIXTURES, loadFixture, itReal } from './helpers.js'

type Msg = Record<string, any>

/** A small OpenAI history using every feature the conversion handles, with nothing to condense. */
function richHistory(): OpenAIMessage[] {
  return [
    { role: 'system', content: 'You are a careful coding agent.' },
    { role: 'user', content: 'Please fix the failing test in src/math.ts.', name: 'alice' },
    {
      role: 'assistant',
      content: null,
      refusal: null,
      tool_calls: [
        // Pretty-printed arguments, keys in an unusual order: must come back byte for byte.
        { id: 'call_1', type: 'function', function: { name: 'read_file', arguments: '{\n  "path" : "src/math.ts",\n  "start": 1 }' } },
        { id: 'call_2', type: 'function', function: { name: 'run', arguments: 'npm test -- --watch=false' } }, // not JSON
      ],
    },
    { role: 'tool', tool_call_id: 'call_1', content: 'export const add = (a: number, b: number) => a - b\n' },
    { role: 'tool', tool_call_id: 'call_2', content: [{ type: 'text', text: 'FAIL src/math.test.ts\n  expected 3, got -1' }], name: 'run' },
    { role: 'developer', content: [{ type: 'text', text: 'Prefer minimal diffs.' }] },
    {
      role: 'user',
      content: [
        { type: 'text', text: 'Here is a screenshot of the failure.' },
        {
          type: 'image_url',
          image_url: {
            url: 'data:image/png;base64,iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
            detail: 'low',
          },
        },
        { type: 'input_audio', input_audio: { data: 'UklGRg==', format: 'wav' } },
      ],
    },
    {
      role: 'assistant',
      content: 'The subtraction should be an addition.',
      tool_calls: [{ id: 'call_3', type: 'function', function: { name: 'apply_diff', arguments: '{"path":"src/math.ts","diff":"- a - b\\n+ a + b"}' } }],
      metadata: { latencyMs: 812, nested: [1, { deep: true }] },
    },
    { role: 'tool', tool_call_id: 'call_3', content: 'Applied.' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Fixed. ' },
        { type: 'refusal', refusal: 'I will not push to main.' },
      ],
    },
    { role: 'user', content: 'Thanks! Now run the tests again.', ts: 1760000000123 },
    { role: 'assistant', content: '', tool_calls: [{ id: 'call_4', type: 'function', function: { name: 'run', arguments: '{"cmd":"npm test"}' } }] },
    { role: 'tool', tool_call_id: 'call_4', content: 'PASS src/math.test.ts' },
    { role: 'assistant', content: 'All tests pass.' },
    { role: 'system', content: 'Session ends here.' },
  ]
}

/** A generated native-format Roo history turned into an OpenAI one, by a converter written here
 * (not the library's): a system prompt, a developer message part-way, tool_calls and tool
 * messages, user text as strings; thinking blocks have no OpenAI form and are left out. */
function openAIHistory(seed: number, targetTokens: number, prettyArgs = false): OpenAIMessage[] {
  const anthropic = generateHistory({ seed, format: 'native', targetTokens, thinking: true }) as Msg[]
  const out: Msg[] = [{ role: 'system', content: 'You are Roo, a software engineer.' }]
  let developerAdded = false
  for (const m of anthropic) {
    const blocks: Msg[] = m.content
    if (m.role === 'assistant') {
      const text = blocks
        .filter((b) => b.type === 'text')
        .map((b) => b.text)
        .join('\n')
      const calls = blocks
        .filter((b) => b.type === 'tool_use')
        .map((b) => ({ id: b.id, type: 'function', function: { name: b.name, arguments: JSON.stringify(b.input, null, prettyArgs ? 2 : undefined) } }))
      out.push(calls.length > 0 ? { role: 'assistant', content: text === '' ? null : text, tool_calls: calls } : { role: 'assistant', content: text })
      continue
    }
    for (const b of blocks.filter((b) => b.type === 'tool_result')) out.push({ role: 'tool', tool_call_id: b.tool_use_id, content: b.content })
    const text = blocks.filter((b) => b.type === 'text').map((b) => b.text)
    if (text.length > 0) out.push({ role: 'user', content: text.join('\n\n') })
    if (!developerAdded && out.length > 12 && out.at(-1)!.role === 'user') {
      out.push({ role: 'developer', content: 'Keep the changes small.' })
      developerAdded = true
    }
  }
  return out as OpenAIMessage[]
}

/** What an OpenAI endpoint requires of a history, checked independently of the conversion. */
function assertValidOpenAI(messages: Msg[]) {
  expect(JSON.parse(JSON.stringify(messages))).toEqual(messages)
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    expect(['system', 'developer', 'user', 'assistant', 'tool']).toContain(m.role)
    expect(Object.getOwnPropertySymbols(m)).toEqual([])
    if (Array.isArray(m.content)) {
      for (const p of m.content) expect(['text', 'image_url', 'input_audio', 'refusal', 'file']).toContain(p.type)
    } else if (m.content !== null) {
      expect(typeof m.content).toBe('string')
    }
    if (m.role === 'assistant' && Array.isArray(m.tool_calls) && m.tool_calls.length > 0) {
      // Every call answered by the tool messages right after it, each exactly once.
      const ids: string[] = m.tool_calls.map((c: Msg) => c.id)
      for (const c of m.tool_calls) {
        expect(c.type).toBe('function')
        expect(typeof c.function.name).toBe('string')
        expect(typeof c.function.arguments).toBe('string')
      }
      const answers: string[] = []
      let j = i + 1
      for (; j < messages.length && messages[j].role === 'tool'; j++) answers.push(messages[j].tool_call_id)
      expect([...answers].sort()).toEqual([...ids].sort())
      i = j - 1
      continue
    }
    // A tool message outside a run after its assistant answers nothing.
    expect(m.role).not.toBe('tool')
  }
}

/** A value as JSON carries it: the converted form's Symbol markers (the way back) left out. */
const plain = (value: unknown) => JSON.parse(JSON.stringify(value))

/** Metrics without timings (they differ from run to run). */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes)
  if (value && typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'durationMs')
        .map(([k, v]) => [k, withoutTimes(v)]),
    )
  }
  return value
}

const PROVIDER_RUNS: Array<[string, CondenseOptions]> = [
  ['lossless', { provider: 'lossless' }],
  ['truncation', { provider: 'truncation' }],
  ['smart balanced', { provider: 'smart', config: { preset: 'balanced' } }],
  ['smart aggressive', { provider: 'smart', config: { preset: 'aggressive' } }],
]

describe('the round trip with nothing to condense is exact', () => {
  it('toAnthropic then restore gives back the very same messages', () => {
    const input = richHistory()
    const text = JSON.stringify(input)
    const converted = toAnthropic(input)
    expect(converted.system).toEqual([input[0], input[5], input[14]])
    // The converted form is a valid Anthropic history: 3 tool runs became 3 user messages.
    expect(validateConversation(converted.messages)).toEqual([])
    expect(converted.messages.map((m) => m.role)).toEqual([
      'user',
      'assistant',
      'user',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
      'user',
      'assistant',
    ])
    expect(plain(converted.messages[1].content)).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'read_file', input: { path: 'src/math.ts', start: 1 } },
      { type: 'tool_use', id: 'call_2', name: 'run', input: { arguments: 'npm test -- --watch=false' } },
    ])
    expect(plain(converted.messages[2].content)).toEqual([
      { type: 'tool_result', tool_use_id: 'call_1', content: 'export const add = (a: number, b: number) => a - b\n' },
      { type: 'tool_result', tool_use_id: 'call_2', content: [{ type: 'text', text: 'FAIL src/math.test.ts\n  expected 3, got -1' }] },
    ])
    expect(plain((converted.messages[3].content as Msg[])[1])).toEqual({
      type: 'image',
      source: {
        type: 'base64',
        media_type: 'image/png',
        data: 'iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8BQDwAEhQGAhKmMIQAAAABJRU5ErkJggg==',
      },
    })
    const back = converted.restore(converted.messages)
    expect(back).toEqual(input)
    expect(JSON.stringify(back)).toBe(text)
    back.forEach((m, i) => expect(m).toBe(input[i]))
  })

  for (const [label, options] of [
    ['lossless', { provider: 'lossless' }],
    ['truncation keeping every message', { provider: 'truncation', config: { preserveRecentCount: 100 } }],
    ['smart conservative (nothing above its thresholds)', { provider: 'smart', config: { preset: 'conservative' } }],
  ] as Array<[string, CondenseOptions]>) {
    it(`condense (${label}) returns the input exactly, deep-equal and byte-equal`, async () => {
      const input = richHistory()
      const text = JSON.stringify(input)
      const r = await condense(input, { ...options, format: 'openai' })
      expect(r.error).toBe(undefined)
      expect(r.format).toBe('openai')
      expect(r.prevContextTokens - r.newContextTokens).toBe(0)
      expect(r.messages).toEqual(input)
      expect(JSON.stringify(r.messages)).toBe(text)
      r.messages.forEach((m, i) => expect(m).toBe(input[i]))
      // The input is untouched.
      expect(JSON.stringify(input)).toBe(text)
    })
  }

  it('a provider that declines (native: not enough messages) answers with the input, format and all', async () => {
    const input = richHistory().slice(0, 5)
    const r = await condense(input, { provider: 'native', format: 'auto', summarize: async () => 'never asked' })
    expect(r.format).toBe('openai')
    expect(r.error).toBe('Not enough messages to condense')
    expect(JSON.stringify(r.messages)).toBe(JSON.stringify(input))
  })
})

describe('generated OpenAI histories condensed by each provider stay valid OpenAI histories, in order', () => {
  const input = openAIHistory(11, 40_000)

  it('the generated history itself is valid, and detected as OpenAI', () => {
    assertValidOpenAI(input)
    expect(detectFormat(input)).toBe('openai')
    expect(input.filter((m) => m.role === 'tool').length).toBeGreaterThan(10)
    expect(input.filter((m) => m.role === 'developer')).toHaveLength(1)
  })

  const runs: Array<[string, CondenseOptions]> = [
    ...PROVIDER_RUNS,
    ['native', { provider: 'native', summarize: async () => ({ text: 'SUMMARY: the user asked for a refactor; files were read, edited and tested.' }) }],
    [
      'smart quality with a summarizer',
      { provider: 'smart', config: { preset: 'quality' }, summarize: async (req) => ({ text: `Summary of ${req.purpose}.` }) },
    ],
  ]
  for (const [label, options] of runs) {
    it(label, async () => {
      const snapshot = JSON.stringify(input)
      const r = await condense(input, { ...options, format: 'auto' })
      expect(r.error).toBe(undefined)
      expect(r.format).toBe('openai')
      expect(JSON.stringify(input)).toBe(snapshot)
      assertValidOpenAI(r.messages)
      // Tokens: the figures are the measured ones, and they went down.
      const before = countTokens(input, { format: 'openai' })
      const after = countTokens(r.messages, { format: 'openai' })
      expect(r.prevContextTokens).toBe(before)
      expect(r.prevContextTokens - r.newContextTokens).toBe(before - after)
      expect(after).toBeLessThan(before)
      // Order: the system prompt first; messages kept as they were are the caller's objects, in
      // their order; tool calls in their order; the developer message kept.
      expect(r.messages[0]).toBe(input[0])
      const kept = r.messages.map((m) => input.indexOf(m)).filter((i) => i >= 0)
      expect(kept).toEqual([...kept].sort((a, b) => a - b))
      const callIds = (ms: Msg[]) => ms.flatMap((m) => (m.tool_calls ?? []).map((c: Msg) => c.id))
      const inputIds = callIds(input)
      const outputIds = callIds(r.messages)
      expect(outputIds.map((id) => inputIds.indexOf(id))).toEqual(outputIds.map((id) => inputIds.indexOf(id)).sort((a, b) => a - b))
      expect(r.messages.filter((m) => m.role === 'developer')).toEqual(input.filter((m) => m.role === 'developer'))
      if (options.provider === 'native') {
        const summaries = r.messages.filter((m) => typeof m.content === 'string' && m.content.startsWith('SUMMARY:'))
        expect(summaries).toHaveLength(1)
        // A message the engine wrote carries only OpenAI's keys.
        expect(Object.keys(summaries[0])).toEqual(['role', 'content'])
        expect(r.messages.length).toBeLessThan(input.length)
      } else {
        // No message added or removed: every tool call is still there.
        expect(outputIds).toEqual(inputIds)
      }
    })
  }

  it('tool calls whose input did not change keep their arguments byte for byte; shortened ones are re-serialized', async () => {
    const pretty = openAIHistory(5, 30_000, true)
    const r = await condense(pretty, { provider: 'truncation', format: 'openai', config: { maxToolParamChars: 60, maxToolParamLines: 2 } })
    const before = new Map<string, Msg>(pretty.flatMap((m: Msg) => (m.tool_calls ?? []).map((c: Msg) => [c.id, c] as [string, Msg])))
    let same = 0
    let shortened = 0
    for (const m of r.messages as Msg[]) {
      for (const c of m.tool_calls ?? []) {
        const original = before.get(c.id)!
        if (c === original) {
          same++
          expect(c.function.arguments).toContain('\n  "') // still pretty-printed
        } else {
          shortened++
          expect(c.function.arguments).toBe(JSON.stringify(JSON.parse(c.function.arguments)))
          expect(c.function.arguments.length).toBeLessThan(original.function.arguments.length)
          expect(Object.keys(JSON.parse(c.function.arguments))).toEqual(Object.keys(JSON.parse(original.function.arguments)))
          expect(c.function.name).toBe(original.function.name)
        }
      }
    }
    expect(same).toBeGreaterThan(0)
    expect(shortened).toBeGreaterThan(0)
  })
})

describe('the real fixtures converted to OpenAI format and back', () => {
  for (const name of FIXTURES) {
    itReal(name, async () => {
      const fixture = loadFixture(name)
      const openai = fromAnthropic(fixture)
      assertValidOpenAI(openai)
      // Anthropic -> OpenAI -> Anthropic is exact for these (text blocks, ts, isSummary).
      const converted = toAnthropic(openai)
      expect(plain(converted.messages)).toEqual(fixture)
      expect(JSON.stringify(converted.messages)).toBe(JSON.stringify(fixture))
      // And OpenAI -> Anthropic -> OpenAI.
      expect(JSON.stringify(converted.restore(converted.messages))).toBe(JSON.stringify(openai))
      expect(countTokens(openai, { format: 'openai' })).toBe(countTokens(fixture))
      expect(analyze(openai, { format: 'auto' })).toEqual(analyze(fixture))
      // Condensing the OpenAI form gives what condensing the Roo form gives.
      for (const [, options] of PROVIDER_RUNS.slice(0, 3)) {
        const a = await condense(fixture, options)
        const o = await condense(openai, { ...options, format: 'openai' })
        expect(o.prevContextTokens).toBe(a.prevContextTokens)
        expect(o.newContextTokens).toBe(a.newContextTokens)
        expect(withoutTimes(o.metrics)).toEqual(withoutTimes(a.metrics))
        expect(o.messages).toEqual(fromAnthropic(a.messages))
      }
    })
  }
})

describe('detection, options and paths', () => {
  itReal('detects OpenAI histories by their roles, keys and parts; Anthropic otherwise', () => {
    expect(detectFormat([{ role: 'system', content: 's' }])).toBe('openai')
    expect(
      detectFormat([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: null, tool_calls: [] },
      ]),
    ).toBe('openai')
    expect(detectFormat([{ role: 'tool', tool_call_id: 'x', content: 'r' }])).toBe('openai')
    expect(detectFormat([{ role: 'user', content: [{ type: 'image_url', image_url: { url: 'http://x/a.png' } }] }])).toBe('openai')
    expect(
      detectFormat([
        { role: 'user', content: 'a' },
        { role: 'assistant', content: 'b' },
      ]),
    ).toBe('anthropic')
    expect(detectFormat(loadFixture('synthetic-4-mixed-ops'))).toBe('anthropic')
    expect(detectFormat(generateHistory({ seed: 3, format: 'native', targetTokens: 5000 }))).toBe('anthropic')
    expect(detectFormat('not an array')).toBe('anthropic')
  })

  itReal('format: "anthropic" and "auto" on a Roo history give what no format gives, and say which', async () => {
    const fixture = loadFixture('synthetic-4-mixed-ops')
    const plain = await condense(fixture, { provider: 'lossless' })
    expect(plain.format).toBe(undefined)
    for (const format of ['anthropic', 'auto'] as const) {
      const r = await condense(fixture, { provider: 'lossless', format })
      expect(r.format).toBe('anthropic')
      expect(r.messages).toEqual(plain.messages)
      expect(r.newContextTokens).toBe(plain.newContextTokens)
    }
  })

  it('an unknown format throws, naming the option', async () => {
    await expect(condense([], { provider: 'lossless', format: 'gemini' as never })).rejects.toThrow(
      'condense: options.format: expected "openai", "anthropic" or "auto", got string "gemini"',
    )
    expect(() => analyze([], { format: 1 as never })).toThrow('analyze: options.format: expected "openai", "anthropic" or "auto", got number 1')
    expect(() => countTokens([], { format: null as never })).toThrow('countTokens: options.format: expected "openai", "anthropic" or "auto", got null')
  })

  it('without format, an OpenAI history is read as Anthropic (as before): the engine names the system role', async () => {
    const r = await condense(richHistory() as never, { provider: 'lossless' })
    expect(r.error).toBe('messages[0].role: expected "user" or "assistant", got "system"; the messages were left unchanged')
  })

  it('errors name places in the OpenAI history, and the messages come back untouched', async () => {
    const good = richHistory().slice(0, 5)
    for (const [bad, error] of [
      [{ role: 'user', content: 42 }, 'messages[5].content: expected a string or an array of blocks, got a number; the messages were left unchanged'],
      [{ role: 'user' }, 'messages[5].content: missing content; the messages were left unchanged'],
      [{ role: 'critic', content: 'x' }, 'messages[5].role: expected "user" or "assistant", got "critic"; the messages were left unchanged'],
    ] as const) {
      const input = [...good, bad] as OpenAIMessage[]
      const r = await condense(input, { provider: 'lossless', format: 'openai' })
      expect(r.error).toBe(error)
      r.messages.forEach((m, i) => expect(m).toBe(input[i]))
    }
    // A tool message's content: named on the tool message, not on a block of a converted message.
    const tool = [
      ...good.slice(0, 3),
      { role: 'tool', tool_call_id: 'call_1', content: 'ok' },
      { role: 'tool', tool_call_id: 'call_2', content: 7 },
    ] as OpenAIMessage[]
    const r = await condense(tool, { provider: 'lossless', format: 'openai' })
    expect(r.error).toBe('messages[4].content: tool_result content must be a string or an array, got a number; the messages were left unchanged')
  })

  it('repair answers an unanswered call with a tool message, and the repair names the OpenAI place', async () => {
    const input = [
      { role: 'system', content: 'sys' },
      { role: 'user', content: 'read both' },
      {
        role: 'assistant',
        content: null,
        tool_calls: [
          { id: 'c1', type: 'function', function: { name: 'read_file', arguments: '{"path":"a.ts"}' } },
          { id: 'c2', type: 'function', function: { name: 'read_file', arguments: '{"path":"b.ts"}' } },
        ],
      },
      { role: 'tool', tool_call_id: 'c1', content: 'A' },
      { role: 'user', content: 'next' },
      { role: 'assistant', content: 'ok' },
    ] as OpenAIMessage[]
    const r = await condense(input, { provider: 'lossless', format: 'openai', repair: true })
    expect(r.repairs).toEqual([{ path: 'messages[3]', action: 'added a synthetic tool_result for "c2"' }])
    expect(r.messages).toEqual([
      ...input.slice(0, 4),
      { role: 'tool', tool_call_id: 'c2', content: 'No result was recorded for this tool call (it was interrupted or its result was lost).' },
      ...input.slice(4),
    ])
    assertValidOpenAI(r.messages)
  })

  it('analyze and countTokens read OpenAI histories (system messages set aside, tool calls counted)', () => {
    const input = richHistory()
    const converted = toAnthropic(input).messages as ApiMessage[]
    expect(countTokens(input, { format: 'openai' })).toBe(countTokens(converted))
    const a = analyze(input, { format: 'openai' })
    expect(a).toEqual(analyze(converted))
    expect(a.messages).toBe(11)
    expect(a.byTool.map((t) => t.tool).sort()).toEqual(['apply_diff', 'read_file', 'run'])
    expect(a.byContentType.images).toBe(Math.ceil(Math.sqrt(96)))
  })

  it('analyzeAsync and countTokensAsync take the format too', async () => {
    const input = openAIHistory(9, 15_000)
    const converted = toAnthropic(input).messages as ApiMessage[]
    expect(await countTokensAsync(input, { format: 'auto' })).toBe(countTokens(converted))
    expect(await analyzeAsync(input, { format: 'openai' })).toEqual(analyze(converted))
    await expect(analyzeAsync(input, { format: 'yaml' as never })).rejects.toThrow(
      'analyzeAsync: options.format: expected "openai", "anthropic" or "auto", got string "yaml"',
    )
  })
})
