import { describe, expect, it } from 'vitest'

import { analyze, condense, countTokens, expandReferences, validateConversation, type ApiMessage } from '../lib/index.js'
import { FIXTURES, loadFixture, itReal } from './helpers.js'

describe('validateConversation', () => {
  itReal('finds nothing wrong with the real histories', () => {
    for (const name of FIXTURES) expect(validateConversation(loadFixture(name))).toEqual([])
  })

  it('names every problem with its place', () => {
    const h = [
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: {} }] },
      {
        role: 'user',
        content: [
          { type: 'text', text: 'x' },
          { type: 'tool_result', tool_use_id: 'a', content: 'ok' },
        ],
      },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'read_file', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'nope', content: 'ok' }] },
      { role: 'user', content: '' },
    ]
    expect(validateConversation(h).map((p) => `${p.path} ${p.code}`)).toEqual([
      'messages[4].content empty_content',
      'messages[0].role first_not_user',
      'messages[1].content[1] tool_result_not_first',
      'messages[2].content[0].id duplicate_tool_use_id',
      'messages[2].content[0] missing_tool_result',
      'messages[3].content[0] orphan_tool_result',
    ])
    expect(validateConversation({} as never)).toEqual([{ path: 'messages', code: 'not_an_array', message: 'expected an array of messages, got an object' }])
  })
})

describe('analyze', () => {
  itReal('accounts for every token and agrees with what Lossless does', async () => {
    for (const name of ['synthetic-3-tool-dedup', 'heavy-uncondensed']) {
      const h = loadFixture(name)
      const a = analyze(h)
      expect(a.totalTokens).toBe(countTokens(h))
      const t = a.byContentType
      expect(t.userText + t.assistantText + t.toolResults + t.environmentDetails + t.thinking + t.toolCalls + t.images + t.summaries).toBe(a.totalTokens)
      const r = await condense(h, { provider: 'lossless' })
      expect(a.losslessTokensSaved).toBe(r.prevContextTokens - r.newContextTokens)
      expect(a.byTool.length).toBeGreaterThan(0)
    }
    const h = loadFixture('synthetic-3-tool-dedup')
    const top = analyze(h).byFile[0]
    expect(top.path).toBe('CHANGELOG.md')
    expect(top.reads).toBeGreaterThanOrEqual(3)
  })
})

describe('expandReferences', () => {
  it('leaves a history without references as it is, and unresolvable markers alone', () => {
    const h: ApiMessage[] = [{ role: 'user', content: "look: ⟨ Reference: content of 'x' identical to message #0 · sha256:000000000000 ⟩" }]
    const out = expandReferences(h)
    expect(out).toEqual(h)
    expect(out[0]).toBe(h[0])
  })
})
