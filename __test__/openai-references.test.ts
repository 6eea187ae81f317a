// Reference markers in OpenAI-format histories: `condense(…, { format: 'openai' })` returns
// markers that name messages of the OpenAI history it returns (one Anthropic user message with
// several tool results is several `tool` messages there), `expandReferences` takes `format` and
// expands such a history as it is, a later run reads an earlier run's markers in the caller's
// numbering, and the conversion's own errors name the value and its path.
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, countTokens, expandReferences, type ApiMessage, type OpenAIMessage } from '../lib/index.js'
import { fromAnthropic, toAnthropic } from '../lib/openai-format.js'
import { checkMarkers, textsOf } from './reference-chains.mjs'

/** A generated native history in OpenAI's format, with a system message first. */
function openaiHistory(seed: number): OpenAIMessage[] {
  const h = generateHistory({ seed, format: 'native', targetTokens: 40_000, thinking: false }) as unknown as ApiMessage[]
  return [{ role: 'system', content: 'You are a coding agent.' }, ...fromAnthropic(h)]
}

const markersIn = (messages: unknown[]) =>
  messages
    .flatMap((m) => textsOf(m))
    .join('\n')
    .split('⟨ Reference: ').length - 1

describe('references in OpenAI-format histories', () => {
  it('Lossless names the OpenAI history’s messages, and the result expands back to the input exactly', async () => {
    const input = openaiHistory(5)
    const r = await condense(input, { provider: 'lossless', format: 'openai', config: { removeObsoleteState: false } })
    expect(r.format).toBe('openai')
    expect(markersIn(r.messages)).toBeGreaterThan(2)
    // Each marker names the message holding its bytes, and they are what it replaced.
    expect(checkMarkers([input], r.messages, 'openai').bad).toEqual([])
    expect(expandReferences(r.messages, { format: 'openai' })).toEqual(input)
    expect(expandReferences(r.messages, { format: 'auto' })).toEqual(input)
  })

  it('a later run reads an earlier run’s markers in the caller’s numbering', async () => {
    const input = openaiHistory(6)
    const first = (await condense(input, { provider: 'lossless', format: 'openai' })).messages as OpenAIMessage[]
    expect(markersIn(first)).toBeGreaterThan(2)
    // Lossless again finds nothing more to do: the caller's own objects come back.
    const again = await condense(first, { provider: 'lossless', format: 'openai' })
    again.messages.forEach((m, i) => expect(m).toBe(first[i]))
    // A lossy run keeps every marker expandable, or says what it omitted.
    for (const options of [{ provider: 'truncation' }, { provider: 'smart', config: { preset: 'balanced' } }] as const) {
      const r = await condense(first, { ...options, format: 'openai' })
      expect(r.error).toBeUndefined()
      expect(checkMarkers([input, first], r.messages, 'openai').bad).toEqual([])
    }
  })

  it('the converted history’s markers name its own messages, so counts agree both ways', async () => {
    const input = openaiHistory(7)
    const r = await condense(input, { provider: 'lossless', format: 'openai' })
    const out = r.messages as OpenAIMessage[]
    // Expanding then converting is converting then expanding (as JSON: the conversion marks
    // its messages with where they came from).
    const json = (v: unknown) => JSON.parse(JSON.stringify(v))
    expect(json(expandReferences(toAnthropic(out).messages))).toEqual(json(toAnthropic(expandReferences(out, { format: 'openai' })).messages))
    // The tokens the result reports are those of the history it returns.
    expect(countTokens(out, { format: 'openai' })).toBe(r.newContextTokens)
  })

  it('expandReferences checks its options as the other entry points do', () => {
    const bad = (options: unknown) => () => expandReferences([], options as never)
    expect(bad({ format: 'xml' })).toThrow(/^expandReferences: options\.format: expected "openai", "anthropic" or "auto", got string "xml"$/)
    expect(bad('openai')).toThrow(/^expandReferences: options: expected an object, got string "openai"$/)
    try {
      bad({ format: 1 })()
    } catch (e) {
      expect((e as { errorCode?: string }).errorCode).toBe('invalid-argument')
    }
    expect(expandReferences([], { format: 'anthropic' })).toEqual([])
  })
})

describe('fromAnthropic: a tool input JSON cannot hold', () => {
  const history = (input: unknown): ApiMessage[] => [
    { role: 'user', content: 'hi' },
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'Reading.' },
        { type: 'tool_use', id: 't1', name: 'read', input: input as never },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
  ]
  const cycle: Record<string, unknown> = { path: 'a' }
  cycle.self = cycle
  const getter = Object.defineProperty({}, 'x', {
    enumerable: true,
    get() {
      throw new Error('not now')
    },
  })
  it.each([
    ['a BigInt', { n: 10n }, 'messages[1].content[1].input.n: a BigInt is not JSON'],
    ['a cycle', cycle, 'messages[1].content[1].input.self: the value contains itself (a cycle)'],
    ['NaN', { a: [1, Number.NaN] }, 'messages[1].content[1].input.a[1]: NaN is not a JSON number'],
    ['a throwing getter', getter, 'messages[1].content[1].input.x: reading it threw (not now)'],
  ])('%s is a TypeError naming its path', (_what, input, message) => {
    let thrown: unknown
    try {
      fromAnthropic(history(input))
    } catch (e) {
      thrown = e
    }
    expect(thrown).toBeInstanceOf(TypeError)
    expect((thrown as Error).message.startsWith(`fromAnthropic: ${message}`)).toBe(true)
    expect((thrown as { errorCode?: string }).errorCode).toBe('invalid-argument')
  })

  it('a Date is written as JSON writes it', () => {
    const out = fromAnthropic(history({ at: new Date(0) }))
    expect((out[1] as { tool_calls: Array<{ function: { arguments: string } }> }).tool_calls[0].function.arguments).toBe('{"at":"1970-01-01T00:00:00.000Z"}')
  })

  it('an OpenAI tool call whose arguments hold a BigInt comes back when the engine shortens the call', async () => {
    // Arguments given as an object (not JSON text) reach the engine as numbers; Truncation
    // shortens the long one, and the way back compares the inputs without throwing.
    const long = 'x'.repeat(5000)
    const h: OpenAIMessage[] = [{ role: 'user', content: 'task' }]
    for (let i = 0; i < 8; i++) {
      h.push({
        role: 'assistant',
        content: null,
        tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'write', arguments: { n: 10n, text: long } as never } }],
      })
      h.push({ role: 'tool', tool_call_id: `c${i}`, content: `written ${i}` })
    }
    const r = await condense(h, { provider: 'truncation', format: 'openai', config: { preserveRecentCount: 2 } })
    expect(r.error).toBeUndefined()
    const args = (r.messages[1] as unknown as { tool_calls: Array<{ function: { arguments: { n: unknown; text: string } } }> }).tool_calls[0].function.arguments
    expect(args.text.length).toBeLessThan(long.length)
  })
})
