// repairConversation (lib/internal/repair.js) on a user message whose content is a string: calls it does not
// answer get synthetic results placed first, the user's text is kept as a text block after them,
// nothing of the caller's is changed, and the result validates. Also: the repair in steps (so condense
// can spread a long history over many turns of the event loop) gives the same result, with several
// inserted messages each in its place.
import { describe, expect, it } from 'vitest'

import { condense, repairConversation, validateConversation, type ApiMessage } from '../lib/index.js'

const use = (id: string) => ({ type: 'tool_use' as const, id, name: 'read_file', input: { path: `${id}.ts` } })
const synthetic = (id: string) => ({ type: 'tool_result', tool_use_id: id, content: expect.stringMatching(/^No result was recorded/), is_error: true })

describe('repairConversation: a string answer to tool calls', () => {
  it('puts a synthetic result first for each call and keeps the text after them', () => {
    const h: ApiMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [{ type: 'text', text: 'reading' }, use('a'), use('b')] },
      { role: 'user', content: 'stop, read c.ts instead' },
      { role: 'assistant', content: 'ok' },
    ]
    const snapshot = structuredClone(h)
    expect(validateConversation(h).map((p) => p.code)).toContain('missing_tool_result')
    const { messages, repairs } = repairConversation(h)
    expect(h).toEqual(snapshot)
    expect(messages[0]).toBe(h[0])
    expect(messages[1]).toBe(h[1])
    expect(messages[3]).toBe(h[3])
    expect(messages[2]).not.toBe(h[2])
    expect(messages[2]).toEqual({ role: 'user', content: [synthetic('a'), synthetic('b'), { type: 'text', text: 'stop, read c.ts instead' }] })
    expect(repairs).toEqual([
      { path: 'messages[2]', action: 'added a synthetic tool_result for "a"' },
      { path: 'messages[2]', action: 'added a synthetic tool_result for "b"' },
    ])
    expect(validateConversation(messages)).toEqual([])
  })

  it('other keys of the message are kept; an empty string adds no empty text block', () => {
    const h = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use('a')] },
      { role: 'user', content: '', ts: 17 },
    ] as unknown as ApiMessage[]
    const { messages } = repairConversation([...h, { role: 'assistant', content: 'done' }])
    expect(messages[2]).toEqual({ role: 'user', content: [synthetic('a')], ts: 17 })
  })

  it('a string user message after a message without calls is left as it is', () => {
    const h: ApiMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: 'hello' },
      { role: 'user', content: 'and now?' },
    ]
    const { messages, repairs } = repairConversation(h)
    expect(repairs).toEqual([])
    messages.forEach((m, i) => expect(m).toBe(h[i]))
  })

  it('condense with repair: true gives a valid history that still holds the text', async () => {
    const h: ApiMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use('a')] },
      { role: 'user', content: 'never mind' },
      { role: 'assistant', content: 'ok' },
    ]
    const r = await condense(h, { provider: 'lossless', repair: true })
    expect(r.error).toBe(undefined)
    expect(r.repairs).toEqual([{ path: 'messages[2]', action: 'added a synthetic tool_result for "a"' }])
    expect(validateConversation(r.messages)).toEqual([])
    expect(r.messages[2].content).toEqual([synthetic('a'), { type: 'text', text: 'never mind' }])
  })
})

describe('repairConversation: the engine against the JavaScript it replaced', () => {
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  const reference = require('./reference/repair.cjs') as { repairConversation: typeof repairConversation }

  it('several unanswered calls: a synthetic answer inserted after each, in order (and the same through condense)', async () => {
    const h: ApiMessage[] = [
      { role: 'user', content: 'go' },
      { role: 'assistant', content: [use('a')] },
      { role: 'assistant', content: [use('b')] },
      { role: 'user', content: 'x' },
      { role: 'assistant', content: [use('c')] },
      { role: 'assistant', content: [use('d')] },
      { role: 'assistant', content: 'last' },
    ]
    const snapshot = structuredClone(h)
    const { messages, repairs } = repairConversation(h)
    expect(h).toEqual(snapshot)
    expect(
      messages.map((m) =>
        typeof m.content === 'string' ? m.content : m.content.map((b) => ('id' in b ? b.id : 'tool_use_id' in b ? `r:${b.tool_use_id}` : b.type)).join(','),
      ),
    ).toEqual(['go', 'a', 'r:a', 'b', 'r:b,text', 'c', 'r:c', 'd', 'r:d', 'last'])
    expect(repairs.map((r) => r.path)).toEqual(['messages[1]', 'messages[4]', 'messages[5]', 'messages[3]'])
    expect(validateConversation(messages)).toEqual([])
    // condense repairs the engine's copy in place, inserted messages included, then condenses that:
    // the same as condensing the repaired history (long tool inputs, so Truncation edits by place).
    const write = (id: string) => ({ type: 'tool_use' as const, id, name: 'write_to_file', input: { path: `${id}.ts`, content: 'line\n'.repeat(400) } })
    const long: ApiMessage[] = h.map((m) =>
      Array.isArray(m.content) ? { ...m, content: m.content.map((b) => (b.type === 'tool_use' ? write(String(b.id)) : b)) } : m,
    )
    const options = { provider: 'truncation' as const, config: { preserveRecentCount: 1 } }
    const c = await condense(long, { ...options, repair: true })
    const direct = repairConversation(long)
    expect(c.repairs).toEqual(direct.repairs)
    expect(c.messages).toEqual((await condense(direct.messages, options)).messages)
    expect(c.metrics.actions.truncated).toBeGreaterThan(0)
    expect(h).toEqual(snapshot)
  })

  it('the same messages (key order included), the same objects left alone and the same repairs on 3,000 random histories', () => {
    let seed = 12345
    const rand = () => {
      seed = (seed * 1103515245 + 12345) % 2147483648
      return seed / 2147483648
    }
    const pick = <T>(xs: T[]) => xs[Math.floor(rand() * xs.length)]
    const ids = ['a', 'b', 'a_2']
    const block = (): unknown => {
      const r = rand()
      if (r < 0.25) return { type: 'text', text: pick(['x', 'y z', '']) }
      if (r < 0.5) return { type: 'tool_use', id: pick(ids), name: 'read_file', input: { path: 'p' } }
      if (r < 0.8) {
        const content = pick<unknown>([
          'out',
          ['not a part'],
          [
            { type: 'text', text: 'one' },
            { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } },
            { type: 'text', text: 'two' },
          ],
          undefined,
        ])
        return { type: 'tool_result', tool_use_id: pick(ids), ...(content !== undefined ? { content } : {}), ...(rand() < 0.2 ? { is_error: true } : {}) }
      }
      if (r < 0.85) return { type: 'tool_use', id: 7, name: 'x', input: {} }
      return { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AA' } }
    }
    const result = (id: string, content: string) => ({ type: 'tool_result', tool_use_id: id, content })
    // Cases the random ones rarely reach: a call repeated in one message, answered twice.
    const crafted: ApiMessage[][] = [
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('a'), use('a')] },
        { role: 'user', content: [result('a', 'first'), result('a', 'second')] },
      ],
      [
        { role: 'user', content: 'go' },
        { role: 'assistant', content: [use('a')] },
        { role: 'user', content: [result('a', 'one')] },
        { role: 'assistant', content: [use('a'), use('a')] },
        { role: 'user', content: [{ type: 'text', text: 'both' }, result('a', 'x'), result('a', 'y'), result('a', 'z')] },
      ],
    ]
    for (const h of crafted) {
      const ours = repairConversation(h)
      expect(JSON.stringify(ours.messages)).toBe(JSON.stringify(reference.repairConversation(h).messages))
      expect(ours.repairs).toEqual(reference.repairConversation(h).repairs)
    }
    expect((repairConversation(crafted[0]).messages[2].content as Array<{ tool_use_id: string }>).map((b) => b.tool_use_id)).toEqual(['a', 'a_2'])
    let repairsSeen = 0
    for (let n = 0; n < 3000; n++) {
      const h = Array.from({ length: 1 + Math.floor(rand() * 9) }, () => {
        const role = pick(['user', 'assistant', 'assistant', 'user', 'system'])
        const content = rand() < 0.25 ? pick(['plain', '']) : Array.from({ length: Math.floor(rand() * 6) }, block)
        return rand() < 0.05 ? pick<unknown>([null, 3, 'text']) : { role, content, ...(rand() < 0.3 ? { ts: n } : {}) }
      }) as ApiMessage[]
      const snapshot = JSON.stringify(h)
      const ours = repairConversation(h)
      const theirs = reference.repairConversation(h)
      expect(JSON.stringify(ours.messages), snapshot).toBe(JSON.stringify(theirs.messages))
      expect(ours.repairs).toEqual(theirs.repairs)
      expect(ours.messages.map((m) => h.indexOf(m))).toEqual(theirs.messages.map((m) => h.indexOf(m)))
      expect(JSON.stringify(h)).toBe(snapshot)
      repairsSeen += ours.repairs.length
    }
    expect(repairsSeen).toBeGreaterThan(2000)
  })

  it('condense with repair: true on a long history answers the same as repairing first, and can be aborted while repairing', async () => {
    const h: ApiMessage[] = []
    for (let i = 0; i < 20_000; i++) h.push({ role: 'user', content: `step ${i}` }, { role: 'assistant', content: [use(`t${i}`)] })
    h.push({ role: 'user', content: 'done?' }, { role: 'assistant', content: 'done' })
    const snapshot = JSON.stringify(h)
    const r = await condense(h, { provider: 'lossless', repair: true })
    const direct = repairConversation(h)
    expect(r.repairs).toEqual(direct.repairs)
    expect(r.messages).toHaveLength(direct.messages.length)
    expect(validateConversation(r.messages)).toEqual([])
    const controller = new AbortController()
    const aborted = condense(h, { provider: 'lossless', repair: true, signal: controller.signal })
    await new Promise((resolve) => setImmediate(resolve))
    controller.abort()
    await expect(aborted).rejects.toMatchObject({ name: 'AbortError' })
    expect(JSON.stringify(h)).toBe(snapshot)
  })
})
