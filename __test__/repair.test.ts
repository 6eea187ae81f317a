// repairConversation (lib/repair.js) on a user message whose content is a string: calls it does not
// answer get synthetic results placed first, the user's text is kept as a text block after them,
// nothing of the caller's is changed, and the result validates.
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
