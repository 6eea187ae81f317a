// Reference markers in OpenAI-format histories: `condense(…, { format: 'openai' })` returns
// markers that name messages of the OpenAI history it returns (one Anthropic user message with
// several tool results is several `tool` messages there), `expandReferences` takes `format` and
// expands such a history as it is, a later run reads an earlier run's markers in the caller's
// numbering.
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
