// What keeps a big message from holding the event loop, checked by structure (the timings are
// the benchmark's: benchmark/event-loop.mjs): nothing the library calls on its own hot paths
// counts tokens on the JavaScript thread (the manager with and without a task's conversation, its
// cache-aware policy, the Roo entry), a conversation counts what it took in off the thread, and a
// string holding a lone surrogate crosses into the engine in parts of bounded size and comes back
// exactly, unescaped by the engine.
import { afterEach, describe, expect, it, vi } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { CondensationManager, clearTokenCache, condense, countTokens, openConversation, type ApiMessage } from '../lib/index.js'
import { summarizeConversation } from '../lib/roo-2025.js'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require('../lib/internal/native.js') as {
  countTexts: (...a: unknown[]) => number[]
  Conversation: { prototype: Record<string, (...a: unknown[]) => unknown> }
  History: { prototype: Record<string, (...a: unknown[]) => unknown> }
  Run: { prototype: Record<string, (...a: unknown[]) => unknown> }
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { TEXT_PART } = require('../lib/internal/crossing.js') as { TEXT_PART: number }

afterEach(() => {
  vi.restoreAllMocks()
})

const big = (n: number, tag: string) => {
  let s = ''
  for (let i = 0; s.length < n; i++) s += `${tag} line ${i}: const value${i} = compute(${i}, "${tag}")\n`
  return s
}

/** A generated history with one tool result of `chars` characters appended (a tool call and its result). */
function withBigResult(seed: number, chars: number): ApiMessage[] {
  const h = generateHistory({ seed, format: 'native', targetTokens: 20_000 }) as ApiMessage[]
  const end = h[h.length - 1].role === 'user' ? h.length : h.length - 1
  return [
    ...h.slice(0, end),
    { role: 'assistant', content: [{ type: 'tool_use', id: 'big-read', name: 'read_file', input: { path: 'big.log' } }] },
    { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'big-read', content: big(chars, `seed${seed}`) }] },
  ] as ApiMessage[]
}

/**
 * Watches the two ways of counting on the JavaScript thread: the synchronous count of texts
 * (`countTokens` and everything built on it) and a conversation's synchronous counts while it
 * holds messages not counted yet.
 */
/**
 * What is counted on the JavaScript thread is little: at most 32 KB of text a call (a trip to the
 * engine's threads costs more than counting that much), never a history or a large result.
 */
function onlySmallCountsOnThread(syncTexts: { mock: { calls: unknown[][] } }) {
  for (const [texts] of syncTexts.mock.calls) {
    const chars = (texts as string[]).reduce((n, t) => n + t.length, 0)
    expect(chars, 'characters counted on the JavaScript thread in one call').toBeLessThanOrEqual(32 * 1024)
  }
}

function watchCounting() {
  const syncTexts = vi.spyOn(native, 'countTexts')
  const onThread: string[] = []
  for (const name of ['tokens', 'tokensOf']) {
    const original = native.Conversation.prototype[name]
    vi.spyOn(native.Conversation.prototype, name).mockImplementation(function (this: { uncounted: number }, ...args: unknown[]) {
      if (this.uncounted > 0) onThread.push(`${name} with ${this.uncounted} messages not counted`)
      return original.apply(this, args)
    })
  }
  const offThread = vi.spyOn(native.Conversation.prototype, 'count')
  return { syncTexts, onThread, offThread }
}

describe('nothing the library calls on its own counts on the JavaScript thread', () => {
  it('a manager turn with a task id: its conversation counts the new message off the thread', async () => {
    const h = withBigResult(1, 400_000)
    const manager = new CondensationManager({ config: { provider: 'lossless' } })
    await manager.condenseIfNeeded(h.slice(0, -2), { contextWindow: 200_000, taskId: 't1' })
    clearTokenCache()
    const w = watchCounting()
    const r = await manager.condenseIfNeeded(h, { contextWindow: 200_000, taskId: 't1' })
    expect(w.onThread).toEqual([])
    onlySmallCountsOnThread(w.syncTexts)
    expect(w.offThread).toHaveBeenCalled()
    // The same figures as counting on the thread.
    expect(r.decision.prevContextTokens).toBe(countTokens(h))
    await manager.closeConversations()
  })

  it('a manager turn without a task id, past its allowed size (the sliding window counts too)', async () => {
    const h = withBigResult(2, 200_000)
    const manager = new CondensationManager({ config: { provider: 'lossless', fallback: true } })
    clearTokenCache()
    const w = watchCounting()
    const r = await manager.condenseIfNeeded(h, { contextWindow: 40_000 })
    onlySmallCountsOnThread(w.syncTexts)
    expect(r.decision.prevContextTokens).toBe(countTokens(h))
  })

  it("the cache-aware policy's first call, and the turn after it", async () => {
    const h = withBigResult(3, 200_000)
    const manager = new CondensationManager({ config: { provider: 'lossless' }, policy: 'cache-aware' })
    const systemPrompt = big(20_000, 'system')
    clearTokenCache()
    const w = watchCounting()
    const first = await manager.condenseIfNeeded(h.slice(0, -2), { contextWindow: 200_000, taskId: 'p', systemPrompt })
    const second = await manager.condenseIfNeeded([...first.messages, ...h.slice(-2)], { contextWindow: 200_000, taskId: 'p', systemPrompt })
    onlySmallCountsOnThread(w.syncTexts)
    expect(w.onThread).toEqual([])
    expect(second.prevContextTokens).toBe(countTokens(systemPrompt) + countTokens([...first.messages, ...h.slice(-2)]))
    await manager.closeConversations()
  })

  it("the Roo entry's summary counts the history, its first step and the summary's growth off the thread", async () => {
    const h = withBigResult(4, 100_000)
    // No countTokens of its own: the entry counts with the engine.
    const apiHandler = {
      createMessage: async function* () {
        yield { type: 'text', text: 'A short summary.' }
      },
    }
    clearTokenCache()
    const w = watchCounting()
    const r = await summarizeConversation(h, apiHandler as never, 'You are a coding agent.', 'task-roo', undefined as never, false, undefined, undefined, {
      provider: 'lossless',
      strictGrowth: true,
    } as never)
    expect(r.error).toBeUndefined()
    expect(r.summary).toContain('A short summary.')
    onlySmallCountsOnThread(w.syncTexts)
    expect(w.onThread).toEqual([])
  })
})

describe("a conversation's counts", () => {
  it('count() counts what append, replace and a condense taken on brought in, off the thread; tokens then reads', async () => {
    const h = withBigResult(5, 300_000)
    const conv = await openConversation(h.slice(0, -2))
    conv.append(h.slice(-2))
    const offThread = vi.spyOn(native.Conversation.prototype, 'count')
    expect(await conv.count()).toBe(countTokens(h))
    expect(offThread).toHaveBeenCalledTimes(1)
    const w = watchCounting()
    expect(conv.tokens).toBe(countTokens(h))
    expect(conv.tokensOf(h.length - 1)).toBe(countTokens(h.slice(-1)))
    // A replacement is not counted where it is made: the next count counts it.
    const replaced = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'big-read', content: big(250_000, 'again') }] } as ApiMessage
    conv.replace(h.length - 1, replaced)
    const after = [...h.slice(0, -1), replaced]
    expect(await conv.count()).toBe(countTokens(after))
    // Condensed and taken on: the written and edited messages are counted by the next count.
    const r = await conv.condense({ provider: 'truncation', config: { preserveRecentCount: 2 } })
    expect(r.error).toBeUndefined()
    expect(await conv.count()).toBe(countTokens(conv.messages))
    expect(conv.tokens).toBe(r.newContextTokens)
    expect(w.onThread).toEqual([])
    conv.close()
  })

  it('while a count runs, changes wait for it; closing stops it', async () => {
    const h = withBigResult(6, 2_000_000)
    const conv = await openConversation(h.slice(0, -2))
    conv.append(h.slice(-2))
    const offThread = vi.spyOn(native.Conversation.prototype, 'count')
    const counting = conv.count()
    // A second call shares the running count.
    const again = conv.count()
    expect(() => conv.append([h[0]])).toThrow(/conversation\.append: the conversation is busy/)
    // Closed before the long string it was sending reached the engine: stopped there.
    conv.close()
    const closed = { name: 'AbortError', errorCode: 'closed', message: 'conversation.count: the conversation was closed while the call was running' }
    await expect(counting).rejects.toMatchObject(closed)
    await expect(again).rejects.toMatchObject(closed)
    expect(offThread).not.toHaveBeenCalled()
    expect(conv.closed).toBe(true)
  })

  it('an append leaves a long string out of the engine; what reads the messages next sends it first', async () => {
    const h = withBigResult(9, 1_000_000)
    const conv = await openConversation(h.slice(0, -2))
    const parts = vi.spyOn(native.Conversation.prototype, 'textPart')
    conv.append(h.slice(-2))
    expect(parts).not.toHaveBeenCalled()
    // Asynchronously: in parts of at most TEXT_PART units, then counted off the thread.
    expect(await conv.count()).toBe(countTokens(h))
    expect(parts.mock.calls.length).toBeGreaterThanOrEqual(Math.ceil(1_000_000 / TEXT_PART))
    for (const [part] of parts.mock.calls) expect((part as string).length).toBeLessThanOrEqual(TEXT_PART)
    // Synchronously, at once: the next append, or tokens.
    const more = withBigResult(10, 200_000).slice(-2)
    conv.append(more)
    const replaced = { role: 'user', content: 'short' } as ApiMessage
    conv.replace(2, replaced)
    const host = [...h.slice(0, 2), replaced, ...h.slice(3), ...more]
    expect(conv.tokens).toBe(countTokens(host))
    const r = await conv.condense({ provider: 'truncation', config: { preserveRecentCount: 1 } })
    expect(r.error).toBeUndefined()
    expect(r.prevContextTokens).toBe(countTokens(host))
    conv.close()
  })
})

/** A flat string (as a file read or JSON.parse makes one) of `n` units, words of seven letters, with lone surrogates every `every` units. */
function withLoneSurrogates(n: number, every: number): string {
  const units = new Uint16Array(n)
  for (let i = 0; i < n; i++) units[i] = i % every === every - 1 ? 0xd800 + (i % 0x800) : i % 8 === 7 ? 0x20 : 0x61 + (i % 26)
  return Buffer.from(units.buffer).toString('utf16le')
}

describe('a lone surrogate in a big message', () => {
  it('crosses into the engine in parts of at most TEXT_PART units, and comes back exactly', async () => {
    const odd = withLoneSurrogates(1_000_000, 9973)
    const h = withBigResult(7, 1000)
    h[h.length - 1] = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'big-read', content: odd }] } as ApiMessage
    const parts = vi.spyOn(native.History.prototype, 'textPart')
    const r = await condense(h, { provider: 'truncation', config: { preserveRecentCount: 1 } })
    expect(r.error).toBeUndefined()
    expect(parts.mock.calls.length).toBeGreaterThanOrEqual(Math.ceil(odd.length / TEXT_PART))
    for (const [part] of parts.mock.calls) expect((part as string).length).toBeLessThanOrEqual(TEXT_PART)
    expect(r.messages.at(-1)).toBe(h.at(-1))
  })

  it('a text the engine changed comes back from it unescaped (nothing is unescaped in JavaScript)', async () => {
    const odd = `${withLoneSurrogates(40_000, 97)}\uFDD0 kept\n`.repeat(3)
    const h = withBigResult(8, 1000)
    // An old tool result, which truncation shortens, keeping its start.
    h[h.length - 3] = { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'big-read', content: odd }] } as ApiMessage
    const read: string[] = []
    const readPart = native.Run.prototype.readPart
    vi.spyOn(native.Run.prototype, 'readPart').mockImplementation(function (this: unknown, ...args: unknown[]) {
      const part = readPart.apply(this, args) as string | null
      if (part !== null) read.push(part)
      return part
    })
    const r = await condense(h, { provider: 'truncation', config: { preserveRecentCount: 2 } })
    expect(r.error).toBeUndefined()
    const changed = (r.messages[h.length - 3].content as Array<{ content: string }>)[0].content
    expect(changed.length).toBeLessThan(odd.length / 10)
    // Its start kept exactly, lone surrogates included, as the engine handed it over.
    const kept = changed.slice(0, 900)
    expect(kept).toMatch(/[\uD800-\uDFFF]/)
    expect(odd.startsWith(kept)).toBe(true)
    expect(read.join('')).toContain(kept)
  })
})
