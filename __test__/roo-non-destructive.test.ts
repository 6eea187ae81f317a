// This package's extras to Roo Code's API: non-destructive mode, configure(), a run on each of the
// real histories.
// Handlers are mocks shaped like Roo's ApiHandler; inputs are deep-compared after every call
// (__test__/roo-harness.ts).
import { describe, expect, it } from 'vitest'

import { countTokens, validateConversation } from '../lib/index.js'
import {
  cleanupAfterTruncation,
  configure,
  getEffectiveApiHistory,
  rewindConversation,
  summarizeConversation,
  truncateConversation,
  truncateConversationIfNeeded,
  type ApiMessage,
  type SummarizeResponse,
  type TruncateResponse,
} from '../lib/roo-2025.js'
import { FIXTURES, loadFixture, itReal } from './helpers.js'
import { SUMMARY, conversation, engineCount, mockHandler, guard, roleContent, telemetry, tcinOptions } from './roo-harness.js'

describe('non-destructive mode', () => {
  const ids = () => {
    let n = 0
    return () => `id-${++n}`
  }
  const long = (): ApiMessage[] =>
    Array.from({ length: 9 }, (_, i) => ({ role: i % 2 ? 'assistant' : 'user', content: `message ${i}: ${'words to summarize '.repeat(20)}`, ts: 100 + i }))

  it('deletes nothing: the replaced messages get condenseParent, the summary a condenseId', async () => {
    const input = guard(long())
    const r = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { nonDestructive: true, generateId: ids() })
    expect(r.condenseId).toBe('id-1')
    expect(r.messages).toHaveLength(input.length + 1)
    expect(r.messages[0]).toBe(input[0])
    for (let i = 1; i <= 5; i++) expect(r.messages[i]).toStrictEqual({ ...input[i], condenseParent: 'id-1' })
    // Newer Roo's summary: just before the first kept message, with its id.
    expect(r.messages[6]).toStrictEqual({ role: 'assistant', content: SUMMARY, ts: 105, isSummary: true, condenseId: 'id-1' })
    for (let i = 6; i < 9; i++) expect(r.messages[i + 1]).toBe(input[i])
  })

  it("getEffectiveApiHistory sends what destructive mode would, the same bytes every time, as the caller's objects", async () => {
    const input = guard(long())
    const nd = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { nonDestructive: true })
    const destructive = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000)
    const effective = getEffectiveApiHistory(nd.messages)
    expect(roleContent(effective)).toEqual(roleContent(destructive.messages))
    expect(nd.newContextTokens).toBe(destructive.newContextTokens)
    const again = getEffectiveApiHistory(nd.messages)
    expect(JSON.stringify(again)).toBe(JSON.stringify(effective))
    again.forEach((m, i) => {
      expect(m).toBe(effective[i])
      expect(nd.messages).toContain(m)
    })
    // Stored and reloaded (JSON), the projection is byte for byte the same.
    expect(JSON.stringify(getEffectiveApiHistory(JSON.parse(JSON.stringify(nd.messages))))).toBe(JSON.stringify(effective))
  })

  itReal('on the real histories, with each provider: the projection is what destructive mode gives', async () => {
    for (const name of ['heavy-uncondensed', 'natural-already-condensed', 'synthetic-4-mixed-ops']) {
      const input = guard(loadFixture(name))
      const before = countTokens(input)
      for (const provider of ['native', 'lossless', 'smart', 'truncation'] as const) {
        for (const targetTokens of [undefined, Math.floor(before * 0.95)]) {
          const options = { provider, targetTokens }
          const d = await summarizeConversation(input, mockHandler({ count: engineCount }), '', 't', before, true, undefined, undefined, options)
          const n = await summarizeConversation(input, mockHandler({ count: engineCount }), '', 't', before, true, undefined, undefined, {
            ...options,
            nonDestructive: true,
          })
          const label = `${name} ${provider} ${targetTokens}`
          expect(d.error, label).toBeUndefined()
          expect(n.provider, label).toBe(d.provider)
          const effective = getEffectiveApiHistory(n.messages)
          expect(roleContent(effective), label).toEqual(roleContent(d.messages))
          expect(validateConversation(effective), label).toEqual([])
          // Nothing stored is lost: every input message is still there, in order.
          const kept = input.filter((m) =>
            n.messages.some((s) => s === m || (s.ts === m.ts && s.role === m.role && JSON.stringify(s.content) === JSON.stringify(m.content))),
          )
          expect(kept.length, label).toBe(input.length)
        }
      }
    }
  })

  it('rewindConversation past the summary (or removing it and cleanupAfterTruncation) brings the messages back', async () => {
    const input = guard(long())
    const r = await summarizeConversation(input, mockHandler(), 'SYSTEM', 't', 10_000, false, undefined, undefined, { nonDestructive: true, generateId: ids() })
    const at = r.messages.findIndex((m) => m.condenseId === 'id-1')
    expect(at).toBe(6)
    const rewound = rewindConversation(r.messages, at)
    expect(rewound).toStrictEqual(input.slice(0, 6))
    expect(getEffectiveApiHistory(rewound)).toStrictEqual(input.slice(0, 6))
    expect(rewindConversation(r.messages, { index: at })).toStrictEqual(input.slice(0, 6))
    // By timestamp: the summary's ts is 105, so the message at 105 goes too.
    expect(rewindConversation(r.messages, { ts: 105 })).toStrictEqual(input.slice(0, 5))
    const withoutSummary = r.messages.filter((m) => !m.isSummary)
    const cleaned = cleanupAfterTruncation(withoutSummary)
    expect(cleaned).toStrictEqual(input)
    expect(cleaned[0]).toBe(input[0])
    expect(cleaned[8]).toBe(input[8])
  })

  it('a second condensation nests: rewinding past it restores the first one', async () => {
    const generateId = ids()
    const first = await summarizeConversation(guard(long()), mockHandler({ text: 'first summary' }), 'SYSTEM', 't', 10_000, false, undefined, undefined, {
      nonDestructive: true,
      generateId,
    })
    const more: ApiMessage[] = [
      ...first.messages,
      ...Array.from(
        { length: 6 },
        (_, i): ApiMessage => ({ role: i % 2 ? 'user' : 'assistant', content: `later ${i} ${'more words '.repeat(30)}`, ts: 200 + i }),
      ),
    ]
    const grown = guard(more)
    const second = await summarizeConversation(grown, mockHandler({ text: 'second summary' }), 'SYSTEM', 't', 10_000, false, undefined, undefined, {
      nonDestructive: true,
      generateId,
    })
    expect(second.error).toBeUndefined()
    expect(second.condenseId).toBe('id-2')
    expect(roleContent(getEffectiveApiHistory(second.messages))).toEqual(
      roleContent([grown[0], { role: 'assistant', content: 'second summary' }, ...grown.slice(-3)]),
    )
    const rewound = rewindConversation(
      second.messages,
      second.messages.findIndex((m) => m.condenseId === 'id-2'),
    )
    expect(rewound).toStrictEqual(grown.slice(0, 13))
    expect(roleContent(getEffectiveApiHistory(rewound))).toEqual(roleContent([grown[0], first.messages[6], ...grown.slice(7, 13)]))
  })

  it('the sliding window tags truncationParent behind a marker; removing the marker restores', async () => {
    const input = guard(long())
    const t = truncateConversation(input, 0.5, 'task-7', { nonDestructive: true, generateId: () => 'tr-1' })
    expect(t.truncationId).toBe('tr-1')
    expect(t.messagesRemoved).toBe(4)
    expect(t.messages).toHaveLength(10)
    for (let i = 1; i <= 4; i++) expect(t.messages[i]).toStrictEqual({ ...input[i], truncationParent: 'tr-1' })
    expect(t.messages[5]).toStrictEqual({
      role: 'user',
      content: '[Sliding window truncation: 4 messages hidden to reduce context]',
      ts: 104,
      isTruncationMarker: true,
      truncationId: 'tr-1',
    })
    const effective = getEffectiveApiHistory(t.messages)
    expect(effective.filter((m) => !m.isTruncationMarker)).toEqual(truncateConversation(input, 0.5, 'task-7'))
    expect(cleanupAfterTruncation(t.messages.filter((m) => !m.isTruncationMarker))).toStrictEqual(input)
    expect(rewindConversation(t.messages, 5)).toStrictEqual(input.slice(0, 5))
    // Nothing to hide: the history itself.
    const none = truncateConversation(input.slice(0, 2), 0.5, 't', { nonDestructive: true })
    expect(none.messagesRemoved).toBe(0)
    expect(none.messages).toEqual(input.slice(0, 2))
  })

  it('truncateConversationIfNeeded falls back to the non-destructive sliding window', async () => {
    const o = tcinOptions({ totalTokens: 85_000, autoCondenseContext: false, nonDestructive: true, generateId: () => 'tr-9' })
    const r = await truncateConversationIfNeeded(o)
    expect(r.truncationId).toBe('tr-9')
    expect(r.messagesRemoved).toBe(2)
    expect(r.messages).toHaveLength(8)
    const effective = getEffectiveApiHistory(r.messages)
    expect(roleContent(effective)).toEqual(roleContent([o.messages[0], r.messages[3], ...o.messages.slice(3)]))
    expect(r.messages[3].isTruncationMarker).toBe(true)
    // Counted by the handler: the messages sent, the marker aside ("Hello" + the last four).
    // The system prompt counts too ('SYSTEM': 6), as Roo counts it since December 2025.
    expect(r.newContextTokensAfterTruncation).toBe(6 + 5 + 8 + 11 + 8 + 12)
  })

  itReal('shortened copies (a first provider) stand in for their messages and go with them on rewind', async () => {
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const r = await summarizeConversation(input, mockHandler(), '', 't', before, true, undefined, undefined, {
      provider: 'lossless',
      nonDestructive: true,
      targetTokens: before,
      generateId: () => 'cp-1',
    })
    expect(r.provider).toBe('lossless')
    const copies = r.messages.filter((m) => m.condensedBy === 'cp-1')
    expect(copies.length).toBeGreaterThan(0)
    expect(r.messages).toHaveLength(input.length + copies.length)
    const effective = getEffectiveApiHistory(r.messages)
    expect(effective).toHaveLength(input.length)
    expect(countTokens(effective)).toBeLessThan(before)
    expect(validateConversation(effective)).toEqual([])
    // Rewinding onto a copy takes its original too; the rest is still condensed.
    const copyAt = r.messages.indexOf(copies[copies.length - 1])
    const rewound = rewindConversation(r.messages, copyAt)
    expect(rewound).toHaveLength(copyAt - 1)
    expect(rewound[rewound.length - 1]).toBe(r.messages[copyAt - 2])
    expect(getEffectiveApiHistory(rewound).every((m) => !m.condenseParent)).toBe(true)
  })
})

describe('configure', () => {
  itReal('sets defaults for every call, returns the ones it replaced, and refuses unknown options', async () => {
    const t = telemetry()
    expect(configure({ provider: 'lossless', nonDestructive: true, telemetry: t })).toEqual({})
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const r = await summarizeConversation(input, mockHandler(), '', 'task-c', before, false, undefined, undefined, { targetTokens: before })
    expect(r.provider).toBe('lossless')
    expect(r.messages.length).toBeGreaterThan(input.length) // non-destructive: copies beside originals
    expect(t.captureContextCondensed).toHaveBeenCalledWith('task-c', false, false, false)
    // A call's own options win.
    const own = await summarizeConversation(input, mockHandler(), '', 't', before, false, undefined, undefined, { provider: 'native', nonDestructive: false })
    expect(own.provider).toBeUndefined() // Roo's own summary alone: Roo's SummarizeResponse
    expect(own.messages).toHaveLength(5)
    // A call with no options of its own runs with the defaults as configured now.
    const byDefault = await summarizeConversation(input, mockHandler(), '', 't', before)
    expect(byDefault.provider).toBe('lossless+native')
    expect(byDefault.messages.length).toBeGreaterThan(input.length)
    expect(configure({ provider: 'smart' })).toEqual({ provider: 'lossless', nonDestructive: true, telemetry: t })
    expect(configure()).toEqual({ provider: 'smart' })
    expect(() => configure({ providr: 'smart' } as never)).toThrow(/^configure: options\.providr: unknown key, expected one of provider, /)
    expect(() => configure({ nonDestructive: 'yes' } as never)).toThrow('configure: options.nonDestructive: expected true or false, got string "yes"')
    expect(() => configure({ errors: { condense_nope: 'x' } } as never)).toThrow(/^configure: options\.errors\.condense_nope: unknown key/)
    // @ts-expect-error: the declarations know the providers too
    expect(() => configure({ provider: 'magic' })).toThrow(
      'configure: options.provider: expected one of "native", "lossless", "truncation", "smart", got string "magic"',
    )
    // Defaults are clear again: destructive, native.
    const plain = await summarizeConversation(guard(conversation()), mockHandler(), 'SYSTEM', 't', 10_000)
    expect(plain.provider).toBeUndefined()
    expect(plain.messages).toHaveLength(5)
  })
})

describe('the seven real histories', () => {
  itReal('truncateConversationIfNeeded with a mocked handler: valid output, never more tokens', async () => {
    for (const name of FIXTURES) {
      const input = guard(loadFixture(name))
      const before = countTokens(input)
      const handler = mockHandler({ text: 'SUMMARY: the user asked for the refactor; a.ts and b.ts changed; next: docs.', count: engineCount })
      const last = input[input.length - 1]
      const lastTokens = engineCount(Array.isArray(last.content) ? last.content : [{ type: 'text', text: last.content }])
      const r: TruncateResponse = await truncateConversationIfNeeded({
        messages: input,
        totalTokens: before - lastTokens,
        contextWindow: 200_000,
        maxTokens: 8_000,
        apiHandler: handler,
        autoCondenseContext: true,
        autoCondenseContextPercent: 10,
        systemPrompt: 'You are Roo.',
        taskId: name,
        profileThresholds: {},
        currentProfileId: 'default',
      })
      expect(r.error, name).toBeUndefined()
      expect(handler.createMessage, name).toHaveBeenCalledTimes(1)
      expect(r.prevContextTokens, name).toBe(before)
      expect(validateConversation(r.messages), name).toEqual([])
      expect(countTokens(r.messages), name).toBeLessThan(before)
      expect(r.newContextTokens!, name).toBeLessThan(before)
      expect(r.messages[0], name).toBe(input[0])
      expect(r.messages.slice(-3), name).toEqual(input.slice(-3))
      expect(
        r.messages.filter((m) => m.isSummary),
        name,
      ).toHaveLength(1)
    }
  })

  itReal(
    'every provider, both modes, on each history: valid and never more tokens than before',
    async () => {
      for (const name of FIXTURES) {
        const input = guard(loadFixture(name))
        const before = countTokens(input)
        for (const provider of ['lossless', 'smart', 'truncation'] as const) {
          for (const nonDestructive of [false, true]) {
            const r: SummarizeResponse = await summarizeConversation(input, mockHandler({ count: engineCount }), '', name, before, true, undefined, undefined, {
              provider,
              nonDestructive,
            })
            const sent = nonDestructive ? getEffectiveApiHistory(r.messages) : r.messages
            const label = `${name} ${provider} ${nonDestructive}`
            expect(r.error, label).toBeUndefined()
            expect(validateConversation(sent), label).toEqual([])
            expect(countTokens(sent), label).toBeLessThanOrEqual(before)
            expect(sent[0], label).toBe(input[0])
          }
        }
      }
    },
    120_000,
  )
})
