import { describe, expect, it } from 'vitest'

import { condense, countTokens, expandReferences, validateConversation, type ApiMessage } from '../lib/index.js'
import { assertInvariants, FIXTURES, loadFixture, itReal } from './helpers.js'

describe('Lossless on the seven real Roo Code histories', () => {
  itReal('keeps every invariant on each, and removes at least 26% of all their tokens', async () => {
    let total = 0
    let saved = 0
    for (const name of FIXTURES) {
      const input = loadFixture(name)
      const snapshot = structuredClone(input)
      const result = await condense(input, { provider: 'lossless' })
      expect(result.error).toBeUndefined()
      assertInvariants(input, snapshot, result)
      total += result.prevContextTokens
      saved += result.prevContextTokens - result.newContextTokens
    }
    expect(saved / total).toBeGreaterThanOrEqual(0.26)
  })

  itReal('expands back to the input exactly when obsolete state is kept, for both keep policies', async () => {
    for (const keep of ['first', 'latest'] as const) {
      for (const name of FIXTURES) {
        const input = loadFixture(name)
        const result = await condense(input, { provider: 'lossless', config: { removeObsoleteState: false, keep } })
        expect(result.newContextTokens).toBeLessThanOrEqual(result.prevContextTokens)
        expect(expandReferences(result.messages)).toEqual(input)
      }
    }
  })

  itReal('finds the duplicates the earlier attempt missed: repeated reads become references', async () => {
    const input = loadFixture('synthetic-3-tool-dedup')
    const result = await condense(input, { provider: 'lossless' })
    const dedup = result.metrics.passes.find((o) => o.id === 'deduplicateFileReads')!
    expect(dedup.deduplicated).toBeGreaterThanOrEqual(5)
    expect(dedup.reversibleTokensSaved).toBeGreaterThan(40_000)
    // The reads of package.json at messages 4, 6 and 8 point to the one copy that stays: the MCP
    // read at message 12, which shows the same 66 lines plus a trailing empty line 67.
    for (const i of [4, 6, 8]) {
      const text = (result.messages[i].content as Array<{ text: string }>)[1].text
      expect(text).toMatch(/⟨ Reference: lines 1-66 of 'package\.json' shown again in message #12 · sha256:[0-9a-f]{12} ⟩/)
    }
    // The two later MCP reads are identical to it: they point back, keeping the first of them.
    expect((result.messages[14].content as Array<{ text: string }>)[1].text).toMatch(/content of 'package\.json' identical to message #12/)
    expect((expandReferences(result.messages)[6].content as unknown[])[1]).toEqual((input[6].content as unknown[])[1])
    expect(result.report).toMatch(/^Context condensed using Lossless strategy:/)
  })

  itReal('supersedes older environment details and keeps the latest block whole', async () => {
    const input = loadFixture('synthetic-4-mixed-ops')
    const result = await condense(input, { provider: 'lossless' })
    const envs = result.messages.flatMap((m) =>
      Array.isArray(m.content) ? m.content.filter((b) => b.type === 'text' && String(b.text).includes('<environment_details>')) : [],
    )
    const last = envs[envs.length - 1] as { text: string }
    expect(last.text).not.toContain('⟨ Superseded')
    expect((envs[1] as { text: string }).text).toMatch(/⟨ Superseded by the environment details in message #\d+: VSCode Visible Files/)
  })

  itReal('is deterministic and idempotent in what it reports', async () => {
    const input = loadFixture('natural-mini-uncondensed')
    const a = await condense(input, { provider: 'lossless' })
    const b = await condense(input, { provider: 'lossless' })
    expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages))
    // Condensing the output again finds nothing more worth a reference.
    const again = await condense(a.messages, { provider: 'lossless' })
    expect(again.newContextTokens).toBe(again.prevContextTokens)
  })

  itReal('uses prevContextTokens as the baseline and subtracts the measured saving', async () => {
    const input = loadFixture('synthetic-4-mixed-ops')
    const plain = await condense(input, { provider: 'lossless' })
    const given = await condense(input, { provider: 'lossless', prevContextTokens: 100_000 })
    expect(given.prevContextTokens).toBe(100_000)
    expect(given.prevContextTokens - given.newContextTokens).toBe(plain.prevContextTokens - plain.newContextTokens)
  })

  itReal('honours each switch', async () => {
    const input = loadFixture('synthetic-3-tool-dedup')
    const off = await condense(input, {
      provider: 'lossless',
      config: { deduplicateFileReads: false, consolidateToolResults: false, removeObsoleteState: false },
    })
    expect(off.newContextTokens).toBe(off.prevContextTokens)
    expect(off.messages.every((m, i) => m === input[i])).toBe(true)
    const onlyEnv = await condense(input, {
      provider: 'lossless',
      config: { deduplicateFileReads: false, consolidateToolResults: false },
    })
    expect(onlyEnv.metrics.passes.map((o) => o.id)).toEqual(['removeObsoleteState'])
  })
})

describe('options and data problems', () => {
  const history: ApiMessage[] = [{ role: 'user', content: 'hello' }]

  it('throws on unknown keys and wrong types, naming the key', async () => {
    await expect(condense(history, { provider: 'lossless', config: { dedupFileReads: true } as never })).rejects.toThrow(
      /options\.config\.dedupFileReads: unknown field `dedupFileReads`, expected one of `deduplicateFileReads`/,
    )
    await expect(condense(history, { provider: 'lossless', config: { keep: 'middle' } as never })).rejects.toThrow(/options\.config\.keep/)
    await expect(condense(history, { provider: 'lossless', extra: 1 } as never)).rejects.toThrow(/unknown field `extra`/)
    await expect(condense(history, { provider: 'lossless', prevContextTokens: -5 })).rejects.toThrow(/options\.prevContextTokens/)
    await expect(condense(history, { provider: 'lossless', encoding: 'p50k' as never })).rejects.toThrow(/options\.encoding/)
    await expect(condense(history, { provider: 'lossless', signal: {} as never })).rejects.toThrow(/options\.signal/)
    await expect(condense('nope' as never, { provider: 'lossless' })).rejects.toThrow(/messages: expected an array/)
  })

  it('names an unknown provider', async () => {
    await expect(condense(history, { provider: 'magic' as never })).rejects.toThrow(/unknown provider "magic"/)
  })

  it('returns problems in the data as an error, with the messages untouched', async () => {
    const bad = [
      { role: 'user', content: 'a' },
      { role: 'assistant', content: [{ text: 'no type' }] },
    ] as unknown as ApiMessage[]
    const snapshot = structuredClone(bad)
    const result = await condense(bad, { provider: 'lossless' })
    expect(result.error).toMatch(/^messages\[1\]\.content\[0\]\.type: /)
    expect(result.messages).toEqual(snapshot)
    expect(bad).toEqual(snapshot)
  })

  itReal('keeps unknown fields and block types exactly', async () => {
    const input = loadFixture('synthetic-3-tool-dedup').map((m, i) =>
      i % 2 === 0 && Array.isArray(m.content) ? { ...m, custom: { i }, content: [...m.content, { type: 'future_block', payload: [1, { x: 2 }] }] } : m,
    )
    const result = await condense(input, { provider: 'lossless' })
    result.messages.forEach((m, i) => {
      expect((m as { custom?: unknown }).custom).toEqual((input[i] as { custom?: unknown }).custom)
      if (Array.isArray(m.content)) expect(m.content[m.content.length - 1]).toEqual((input[i].content as unknown[])[(input[i].content as unknown[]).length - 1])
    })
    expect(validateConversation(result.messages)).toEqual([])
  })
})

describe('cancellation', () => {
  itReal('rejects at once with an AbortError when the signal is already aborted', async () => {
    const input = loadFixture('synthetic-4-mixed-ops')
    const controller = new AbortController()
    controller.abort()
    await expect(condense(input, { provider: 'lossless', signal: controller.signal })).rejects.toMatchObject({ name: 'AbortError' })
  })

  itReal('rejects when aborted while the history is crossing into the engine, input untouched', async () => {
    const input = loadFixture('synthetic-3-tool-dedup')
    const big = Array.from({ length: 20 }, () => input).flat()
    const snapshot = JSON.stringify(big)
    const controller = new AbortController()
    const pending = condense(big, { provider: 'lossless', signal: controller.signal })
    setImmediate(() => controller.abort())
    await expect(pending).rejects.toMatchObject({ name: 'AbortError' })
    expect(JSON.stringify(big)).toBe(snapshot)
  })

  itReal('still counts the tokens of the input correctly after an aborted call', async () => {
    const input = loadFixture('synthetic-4-mixed-ops')
    const before = countTokens(input)
    const controller = new AbortController()
    controller.abort(new Error('user pressed stop'))
    await expect(condense(input, { provider: 'lossless', signal: controller.signal })).rejects.toThrow('user pressed stop')
    expect(countTokens(input)).toBe(before)
  })
})
