// Nothing lost at any size: a history too big for one Node-API conversion crosses in chunks at
// every entry point, text that merely looks like a reference stays text, lone surrogates come
// back exactly, and values JSON cannot carry are refused with the same path everywhere. The
// million-message cases are in __test__/slow/ (npm run test:slow).
import { describe, expect, it } from 'vitest'

import { analyze, analyzeAsync, condense, countTokens, expandReferences, validateConversation, type ApiMessage } from '../lib/index.js'

const numbered = (n: number, salt = '') =>
  Array.from({ length: n }, (_, i) => `${String(i + 1).padStart(3)} | export const step${i}${salt} = (x: number) => x * ${i}`).join('\n') + '\n'

/** A native-format read of `path` answering tool call `id`. */
function read(id: string, path: string, body: string): ApiMessage[] {
  return [
    {
      role: 'assistant',
      content: [
        { type: 'text', text: `Reading ${path}.` },
        { type: 'tool_use', id, name: 'read_file', input: { path } },
      ],
    },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: `File: ${path}\nLines 1-40:\n${body}` }] },
  ]
}

const task = (text = 'Refactor the steps.'): ApiMessage => ({ role: 'user', content: [{ type: 'text', text: `<task>\n${text}\n</task>` }] })

/** Condenses with Lossless, expands back, and asserts the round trip is exact (code unit for code unit). */
async function roundTrip(history: ApiMessage[]) {
  const snapshot = structuredClone(history)
  const r = await condense(history, { provider: 'lossless', config: { removeObsoleteState: false } })
  expect(r.error).toBeUndefined()
  expect(r.metrics.tokensAfter).toBeLessThan(r.metrics.tokensBefore)
  const back = expandReferences(r.messages)
  expect(back).toStrictEqual(snapshot)
  expect(history).toStrictEqual(snapshot)
  return r
}

describe('lone surrogates and the escape character come back exactly', () => {
  it('in the kept part of an edited string, in tool inputs, in text the engine never touches', async () => {
    const body = numbered(40)
    const odd = 'src/\uD800weird\uDC01\uFDD0.ts' // a lone high, a lone low, the escape character
    const h: ApiMessage[] = [
      task(`fix ${odd} and \uDFFF`),
      ...read('t1', odd, body),
      ...read('t2', odd, body),
      { role: 'assistant', content: [{ type: 'text', text: 'pair \uD83D\uDE00 stays a pair, \uFDD0\uFDD0 stays doubled, \uDBFF alone' }] },
    ]
    const r = await roundTrip(h)
    // The deduplicated read kept its header with the odd path, exactly.
    const second = (r.messages[4].content as Array<{ content: string }>)[0].content
    expect(second.startsWith(`File: ${odd}\nLines 1-40:\n⟨ Reference: `)).toBe(true)
  })

  it('summaries and requests: the callback sees the host form, its answer comes back as written', async () => {
    const h: ApiMessage[] = [
      task('\uD800 first'),
      ...read('t1', 'a.ts', numbered(40)),
      { role: 'assistant', content: 'ok \uDC00' },
      { role: 'user', content: 'go on' },
      { role: 'assistant', content: 'fine' },
    ]
    const seen: string[] = []
    const r = await condense(h, {
      provider: 'native',
      summarize: async (req) => {
        for (const m of req.messages) seen.push(m.content)
        return 'summary with \uD801 and \uFDD0'
      },
    })
    expect(r.error).toBeUndefined()
    expect(seen.some((t) => t.includes('\uD800 first'))).toBe(true)
    expect(seen.join('')).not.toMatch(/\uFDD0/)
    expect(r.summary!.startsWith('summary with \uD801 and \uFDD0\n')).toBe(true)
  })
})

describe('text that looks like a reference stays text', () => {
  it('a genuine marker pasted elsewhere and hand-made markers: the round trip is exact', async () => {
    const body = numbered(40)
    const h: ApiMessage[] = [task(), ...read('t1', 'a.ts', body), ...read('t2', 'a.ts', body)]
    const first = await condense(h, { provider: 'lossless' })
    const marker = (first.messages[4].content as Array<{ content: string }>)[0].content.split('\n').find((l) => l.startsWith('⟨ Reference: '))!
    expect(marker).toMatch(/ · sha256:[0-9a-f]{12} ⟩$/)
    // Where a reference was written, it expands.
    expect(expandReferences(first.messages)).toStrictEqual(h)
    const pasted: ApiMessage[] = [
      ...h,
      { role: 'assistant', content: [{ type: 'text', text: `As ${marker} shows` }] },
      { role: 'user', content: [{ type: 'text', text: `<feedback>${marker}</feedback>` }] },
      ...read('t3', 'notes.md', `1 | ${marker}\n2 | ⟨ Reference: content of 'a.ts' identical to message #2 · sha256:0123456789ab ⟩\n`),
      { role: 'assistant', content: 'ok' },
      { role: 'user', content: marker },
    ]
    // As they are, nothing expands.
    expect(expandReferences(pasted)).toStrictEqual(pasted)
    await roundTrip(pasted)
  })
})

describe('histories larger than one Node-API conversion', () => {
  // Three messages of 400,000 values each: 1.2 million values, more than one conversion takes.
  const big = (): ApiMessage[] => {
    const filler = () => Array.from({ length: 400_000 }, (_, i) => i)
    const body = numbered(40)
    return [
      { ...task(), meta: filler() } as ApiMessage,
      ...read('t1', 'a.ts', body),
      { ...read('t2', 'a.ts', body)[0], meta: filler() } as ApiMessage,
      { ...read('t2', 'a.ts', body)[1], meta: filler() } as ApiMessage,
    ]
  }

  it('every entry point takes it: condense, expandReferences, validateConversation, analyze', async () => {
    const h = big()
    expect(validateConversation(h)).toEqual([])
    expect(analyze(h).losslessTokensSaved).toBeGreaterThan(0)
    expect((await analyzeAsync(h)).losslessTokensSaved).toBeGreaterThan(0)
    const r = await condense(h, { provider: 'lossless' })
    expect(r.error).toBeUndefined()
    expect(r.metrics.tokensSaved).toBeGreaterThan(0)
    expect(expandReferences(r.messages)).toStrictEqual(h)
  })

  it('one message of more than a million values: refused, naming it', async () => {
    const h: ApiMessage[] = [task(), { role: 'assistant', content: 'ok', meta: Array.from({ length: 1_100_000 }, () => 0) } as ApiMessage]
    const r = await condense(h, { provider: 'lossless' })
    expect(r.error).toBe(
      'messages[1]: holds more than a million JSON values, more than one message can carry into the engine; the messages were left unchanged',
    )
    expect(() => expandReferences(h)).toThrow(/^expandReferences: messages\[1\]: holds more than a million JSON values/)
    expect(validateConversation(h)).toEqual([
      { path: 'messages[1]', code: 'unsupported_value', message: 'holds more than a million JSON values, more than one message can carry into the engine' },
    ])
  })
})

describe('values JSON cannot carry: the same answer at every entry point', () => {
  const nested = (depth: number) => {
    const root: Record<string, unknown> = {}
    let cur = root
    for (let i = 1; i < depth; i++) cur = (cur.a = {}) as Record<string, unknown>
    return root
  }
  const withInput = (input: unknown): ApiMessage[] => [
    task(),
    {
      role: 'assistant',
      content: [
        { type: 'text', text: 'x' },
        { type: 'tool_use', id: 't1', name: 'f', input },
      ],
    } as ApiMessage,
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'ok' }] },
  ]

  it('tool inputs: the deepest one condense takes is the deepest countTokens counts', async () => {
    // The input is 3 levels under the message (content, block, input): 125 more levels fit.
    const verdicts: boolean[] = []
    for (const depth of [124, 125, 126, 127, 129]) {
      const h = withInput(nested(depth))
      const r = await condense(h, { provider: 'lossless' })
      const refused = r.error !== undefined
      let counted = true
      try {
        countTokens(h)
      } catch {
        counted = false
      }
      expect({ depth, counted }).toEqual({ depth, counted: !refused })
      verdicts.push(refused)
      expect(validateConversation(h).some((p) => p.code === 'unsupported_value')).toBe(refused)
      if (refused)
        expect(() => expandReferences(h)).toThrow(/^expandReferences: messages\[1\]\.content\[1\]\.input\.a… \(\d+ levels deeper\): nested more than 128/)
    }
    expect(verdicts).toEqual([false, false, true, true, true])
  })

  it('10,000 levels: expandReferences names the path', () => {
    expect(() => expandReferences(withInput(nested(10_000)))).toThrow(
      /^expandReferences: messages\[1\]\.content\[1\]\.input\.a… \(\d+ levels deeper\): nested more than 128 levels deep \(the JSON limit\)$/,
    )
  })

  it('sparse arrays and undefined in arrays: named, not a conversion message', async () => {
    // eslint-disable-next-line no-sparse-arrays
    // biome-ignore lint/suspicious/noSparseArray: a hole in content is what this case is about
    const sparse = [task(), { role: 'assistant', content: [, { type: 'text', text: 'x' }] }] as unknown as ApiMessage[]
    const r = await condense(sparse, { provider: 'lossless' })
    expect(r.error).toBe('messages[1].content[0]: an empty slot in an array (a sparse array) is not JSON; the messages were left unchanged')
    expect(validateConversation(sparse)).toEqual([
      { path: 'messages[1].content[0]', code: 'unsupported_value', message: 'an empty slot in an array (a sparse array) is not JSON' },
    ])
    const undef = [task(), { role: 'assistant', content: [{ type: 'text', text: 'x' }, undefined] }] as unknown as ApiMessage[]
    expect((await condense(undef, { provider: 'lossless' })).error).toBe(
      'messages[1].content[1]: undefined in an array is not JSON; the messages were left unchanged',
    )
  })
})

describe('edge configurations', () => {
  it('native with keepLast 0: everything after the first message is summarized, no panic', async () => {
    const h: ApiMessage[] = [task(), ...read('t1', 'a.ts', numbered(40)), { role: 'assistant', content: 'done' }]
    const r = await condense(h, { provider: 'native', config: { keepLast: 0 }, summarize: async () => 'short' })
    expect(r.error).toBeUndefined()
    expect(r.messages).toHaveLength(2)
    expect(r.messages[0]).toBe(h[0])
    expect(r.messages[1]).toMatchObject({ role: 'assistant', isSummary: true })
  })
})
