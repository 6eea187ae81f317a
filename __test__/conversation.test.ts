// A conversation held in the engine: every sequence of appends, replacements, cuts and
// condensations gives what the stateless `condense` gives on the same history, token counts
// included; misuse is refused with a clear error and leaves the conversation as it was.
import { describe, expect, it } from 'vitest'

import { generateHistory, mulberry32 as rng } from '../fixtures/generate.mjs'
import {
  CondensationManager,
  Conversation,
  condense,
  countTokens,
  openConversation,
  type ApiMessage,
  type ConversationCondenseOptions,
  type ManagedResult,
} from '../lib/index.js'
import { FIXTURES, itReal, loadFixture } from './helpers.js'
import { comparable } from './model/common.js'

const summarize = async (req: { messages: unknown[] }) => ({ text: `Summary of ${req.messages.length} messages.` })

const PROVIDERS: Array<() => ConversationCondenseOptions> = [
  () => ({ provider: 'lossless' }),
  () => ({ provider: 'truncation', config: { preserveRecentCount: 6 } }),
  () => ({ provider: 'smart', config: { preset: 'balanced' } }),
  () => ({ provider: 'smart', config: { preset: 'aggressive' }, summarize }),
  () => ({ provider: 'native', summarize }),
]

describe('a conversation against the stateless condense', () => {
  for (const [format, seed] of [
    ['xml', 1],
    ['xml', 3],
    ['native', 2],
    ['native', 4],
  ] as const) {
    it(`random appends, replacements, cuts and condensations (${format} tools, seed ${seed}) match condense() on the same history`, async () => {
      const source: ApiMessage[] = generateHistory({ seed: 10 + seed, format, targetTokens: 60_000 }) as ApiMessage[]
      const random = rng(seed)
      // Whether a step counts off the thread first (its own draws: the steps stay those of `random`).
      const offThread = rng(seed + 100)
      let next = 24
      let host = source.slice(0, next)
      const conv = await openConversation(host)
      let condensations = 0
      let changedSome = 0
      for (let step = 0; step < 60 && next < source.length; step++) {
        const r = random()
        if (r < 0.45) {
          const k = 1 + Math.floor(random() * 4)
          const add = source.slice(next, next + k)
          next += add.length
          conv.append(add)
          host = [...host, ...add]
        } else if (r < 0.55 && host.length > 4) {
          // An edit in place of a message: the same role, new text.
          const i = 1 + Math.floor(random() * (host.length - 2))
          const m = host[i]
          const call = Array.isArray(m.content) ? m.content.findIndex((b) => b.type === 'tool_use') : -1
          // Half the edits of a message with a tool call change the call's input: the results read
          // with it (in later messages, held as they were) must be read again.
          const edited: ApiMessage =
            call >= 0 && random() < 0.5 && Array.isArray(m.content)
              ? { ...m, content: m.content.map((b, j) => (j === call ? { ...b, input: { path: `src/edited-${step}.ts` } } : b)) }
              : typeof m.content === 'string'
                ? { ...m, content: `${m.content} (edited)` }
                : { ...m, content: [...m.content, { type: 'text', text: 'edited' }] }
          conv.replace(i, edited)
          host = host.map((x, j) => (j === i ? edited : x))
        } else if (r < 0.62 && host.length > 10) {
          const n = host.length - 1 - Math.floor(random() * 4)
          conv.truncate(n)
          host = host.slice(0, n)
        } else {
          const options = PROVIDERS[Math.floor(random() * PROVIDERS.length)]()
          const adopt = random() < 0.8
          const stateless = await condense(host, options)
          const held = await conv.condense({ ...options, adopt })
          expect(comparable(held)).toEqual(comparable(stateless))
          condensations++
          if (!held.error && adopt) {
            // The result's bookkeeping: unchanged messages are the host's own objects, in order.
            const before = new Set(host)
            held.messages.forEach((m, i) => expect(before.has(m)).toBe(!held.changed.includes(i)))
            if (held.layout) held.layout.forEach((from, i) => from >= 0 && !held.changed.includes(i) && expect(held.messages[i]).toBe(host[from]))
            if (held.changed.length > 0) changedSome++
            host = held.messages
          }
        }
        expect(conv.length).toBe(host.length)
        expect(conv.messages).toEqual(host)
        // Counted off the thread (then read) or on it: the same counts, message by message too.
        if (offThread() < 0.5) expect(await conv.count()).toBe(countTokens(host))
        expect(conv.tokens).toBe(countTokens(host))
        const i = Math.floor(offThread() * host.length)
        expect(conv.tokensOf(i)).toBe(countTokens([host[i]]))
      }
      expect(condensations).toBeGreaterThan(5)
      expect(changedSome).toBeGreaterThan(0)
      conv.close()
    })
  }

  it('a tool call the host edits is read again with the held results that answer it', async () => {
    const h = generateHistory({ seed: 8, format: 'native', targetTokens: 30_000 }) as ApiMessage[]
    const options: ConversationCondenseOptions = { provider: 'smart', config: { preset: 'aggressive' } }
    const conv = await openConversation(h)
    await conv.condense({ ...options, adopt: false })
    const i = h.findIndex((m, k) => k > 0 && Array.isArray(m.content) && m.content.some((b) => b.type === 'tool_use' && b.name === 'read_file'))
    const m = h[i]
    if (!Array.isArray(m.content)) throw new Error('expected blocks')
    const edited: ApiMessage = { ...m, content: m.content.map((b) => (b.type === 'tool_use' ? { ...b, input: { path: 'src/renamed-by-the-host.ts' } } : b)) }
    conv.replace(i, edited)
    const host = h.map((x, k) => (k === i ? edited : x))
    const held = await conv.condense(options)
    const stateless = await condense(host, options)
    // The marker of the result names the file by the edited call.
    expect(JSON.stringify(stateless.messages.slice(i + 1))).toContain('renamed-by-the-host')
    expect(comparable(held)).toEqual(comparable(stateless))
    conv.close()
  })

  itReal('on the real histories, every provider gives exactly what condense() gives, and again after one more message', async () => {
    for (const name of FIXTURES) {
      const history = loadFixture(name)
      for (const make of PROVIDERS) {
        const options = make()
        const conv = await openConversation(history.slice(0, -1))
        const first = await conv.condense(options)
        expect(comparable(first)).toEqual(comparable(await condense(history.slice(0, -1), options)))
        const grown = [...conv.messages, history[history.length - 1]]
        conv.append([history[history.length - 1]])
        expect(comparable(await conv.condense(options))).toEqual(comparable(await condense(grown, options)))
        conv.close()
      }
    }
  })
})

describe('keeping a conversation equal to the host history', () => {
  it('sync keeps the same objects, and takes again from the first message swapped or changed in place', async () => {
    const h: ApiMessage[] = generateHistory({ seed: 3, format: 'native', targetTokens: 20_000 }) as ApiMessage[]
    const conv = await openConversation(h.slice(0, 10))
    expect(conv.sync(h.slice(0, 14))).toEqual({ kept: 10, taken: 4 })
    const copy = h.slice(0, 14).map((m) => m)
    copy[6] = { ...copy[6] }
    expect(conv.sync(copy)).toEqual({ kept: 6, taken: 8 })
    // A block array swapped inside the same message object is seen too.
    const swapped = { ...copy[8] }
    const again = copy.slice()
    again[8] = swapped
    conv.sync(again)
    swapped.content = [{ type: 'text', text: 'replaced in place' }]
    expect(conv.sync(again)).toEqual({ kept: 8, taken: 6 })
    expect(conv.tokens).toBe(countTokens(again))
    expect(conv.sync(again.slice(0, 5))).toEqual({ kept: 5, taken: 0 })
    expect(conv.length).toBe(5)
    conv.close()
  })

  it('texts with lone surrogates and U+FDD0 come back exactly', async () => {
    const odd = 'lone \uD800 high, lone \uDC00 low, escape \uFDD0 char'
    const h: ApiMessage[] = [
      { role: 'user', content: [{ type: 'text', text: `<task>${odd}</task>` }] },
      { role: 'assistant', content: [{ type: 'text', text: odd.repeat(50) }] },
      ...(generateHistory({ seed: 5, format: 'xml', targetTokens: 15_000 }) as ApiMessage[]).slice(1),
    ]
    const conv = await openConversation(h.slice(0, 6))
    conv.append(h.slice(6))
    conv.replace(3, { role: h[3].role, content: [{ type: 'text', text: odd }] } as ApiMessage)
    const host = conv.messages
    // The engine counts such texts in its escaped form (U+FDD0 doubled, a lone surrogate U+D800+n
    // as U+FDD0 U+E800+n), off the thread or on it.
    const escaped = (s: string) =>
      s.replace(/\uFDD0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/g, (c) =>
        c === '\uFDD0' ? '\uFDD0\uFDD0' : `\uFDD0${String.fromCharCode(0xe800 + c.charCodeAt(0) - 0xd800)}`,
      )
    const inEngine = JSON.parse(JSON.stringify(host), (_k, v) => (typeof v === 'string' ? escaped(v) : v)) as ApiMessage[]
    expect(countTokens(inEngine)).toBeGreaterThan(countTokens(host))
    expect(await conv.count()).toBe(countTokens(inEngine))
    expect(conv.tokens).toBe(countTokens(inEngine))
    const r = await conv.condense({ provider: 'truncation', config: { preserveRecentCount: 4 } })
    expect(comparable(r)).toEqual(comparable(await condense(host, { provider: 'truncation', config: { preserveRecentCount: 4 } })))
    expect(JSON.stringify(conv.messages)).toContain(JSON.stringify(odd).slice(1, -1))
    conv.close()
  })
})

describe('misuse is refused, and the conversation stays as it was', () => {
  it('names what is wrong, where', async () => {
    const h: ApiMessage[] = generateHistory({ seed: 4, format: 'xml', targetTokens: 10_000 }) as ApiMessage[]
    const conv = await openConversation(h.slice(0, 6))
    const cyclic: Record<string, unknown> = { type: 'text', text: 'x' }
    cyclic.self = cyclic
    expect(() => conv.append([h[6], { role: 'user', content: [cyclic] } as unknown as ApiMessage])).toThrow(
      /conversation\.append: messages\[1\]\.content\[0\]\.self: the value contains itself/,
    )
    expect(conv.length).toBe(6)
    expect(conv.tokens).toBe(countTokens(h.slice(0, 6)))
    expect(() => conv.append('x' as unknown as ApiMessage[])).toThrow(/conversation\.append: messages: expected an array/)
    expect(() => conv.append([h[6], undefined as never])).toThrow(/conversation\.append: messages\[1\]: expected a message object, got undefined$/)
    expect(() => conv.append([null as never])).toThrow(/conversation\.append: messages\[0\]: expected a message object, got null/)
    expect(() => conv.replace(2, 5 as never)).toThrow(/conversation\.replace: message: expected a message object, got number 5/)
    await expect(openConversation([h[0], [] as never])).rejects.toThrow(/openConversation: messages\[1\]: expected a message object, got/)
    expect(conv.length).toBe(6)
    expect(() => conv.replace(9, h[0])).toThrow(/conversation\.replace: no message at index 9 \(the conversation holds 6\)/)
    expect(() => conv.truncate(-1)).toThrow(/^conversation\.truncate: length: expected a whole number >= 0, got number -1$/)
    await expect(conv.condense({ provider: 'lossless', format: 'openai' } as never)).rejects.toThrow(/options\.format/)
    await expect(conv.condense({ provider: 'lossless', encoding: 'cl100k_base' })).rejects.toThrow(/counts in o200k_base, not cl100k_base/)
    await expect(openConversation(h, { encoding: 'p50k' as never })).rejects.toThrow(/openConversation: options\.encoding: unknown encoding "p50k"/)
    await expect(openConversation(h, { depth: 1 } as never)).rejects.toThrow(
      /^openConversation: options\.depth: unknown key, expected one of encoding, signal$/,
    )

    // A condense in progress: changes wait for it.
    const running = conv.condense({
      provider: 'native',
      summarize: () => new Promise((r) => setTimeout(() => r({ text: 'later' }), 50)),
      config: { keepLast: 2 },
    })
    expect(() => conv.append([h[6]])).toThrow(/conversation is busy/)
    const r = await running
    expect(r.error).toBeUndefined()
    expect(conv.length).toBe(r.messages.length)

    // adopt only takes the latest result, unchanged since.
    const kept = await conv.condense({ provider: 'lossless', adopt: false })
    conv.append([h[6]])
    expect(() => conv.adopt(kept)).toThrow(/conversation\.adopt: expected the result of the last condense/)

    conv.close()
    expect(conv.closed).toBe(true)
    expect(() => conv.tokens).toThrow(/conversation\.tokens: the conversation is closed/)
    await expect(conv.condense({ provider: 'lossless' })).rejects.toThrow(/the conversation is closed/)
  })

  it('an abort stops a condense and leaves the conversation as it was', async () => {
    const h: ApiMessage[] = generateHistory({ seed: 8, format: 'native', targetTokens: 20_000 }) as ApiMessage[]
    const conv = await openConversation(h)
    const controller = new AbortController()
    const running = conv.condense({
      provider: 'native',
      signal: controller.signal,
      summarize: () => new Promise(() => setTimeout(() => controller.abort(), 5)),
    })
    await expect(running).rejects.toThrow(/abort/i)
    expect(conv.messages).toEqual(h)
    expect(conv.tokens).toBe(countTokens(h))
    conv.close()
  })
})

describe('the manager keeps a conversation per task', () => {
  /**
   * A task of 30 messages growing three at a time, condensed by Lossless at every turn by a manager
   * holding its conversation and by one holding none, at `contextWindow`: each turn's two answers,
   * after checking they are the same; the host goes on with what it got.
   */
  async function heldAgainstPlain(contextWindow: number, taskId: string, onTurn: (r: ManagedResult) => void) {
    const source: ApiMessage[] = generateHistory({ seed: 21, format: 'xml', targetTokens: 80_000 }) as ApiMessage[]
    const config = { provider: 'lossless', threshold: 5, triggers: { minGainTokens: 0 } }
    const held = new CondensationManager({ config })
    const plain = new CondensationManager({ config, conversations: 0 })
    let host = source.slice(0, 30)
    for (let next = 30; next < 60; next += 3) {
      host = [...host, ...source.slice(next, next + 3)]
      const a = await held.condenseIfNeeded(host, { contextWindow, taskId })
      const b = await plain.condenseIfNeeded(host, { contextWindow, taskId })
      expect(JSON.stringify(a.messages)).toBe(JSON.stringify(b.messages))
      const figures = (r: ManagedResult) => [r.condensed, r.provider, r.prevContextTokens, r.newContextTokens, r.report]
      expect(figures(a)).toEqual(figures(b))
      onTurn(a)
      host = a.messages
    }
    await held.closeConversations()
  }

  it('gives the stateless results, turn after turn, and crosses only what changed', async () => {
    const syncs: Array<{ kept: number; taken: number }> = []
    const sync = Conversation.prototype.sync
    Conversation.prototype.sync = function (this: Conversation, messages: ApiMessage[]) {
      const r = sync.call(this, messages)
      syncs.push(r)
      return r
    }
    let condensed = 0
    try {
      // A window Lossless's results fit in: past the allowed size the window would cut them too,
      // and a cut history crosses again whole.
      await heldAgainstPlain(100_000, 'task-1', (a) => {
        if (a.condensed) condensed++
      })
    } finally {
      Conversation.prototype.sync = sync
    }
    expect(condensed).toBeGreaterThan(3)
    // Opened once; after that, each turn's three new messages are all that crossed.
    expect(syncs).toHaveLength(9)
    for (const s of syncs) expect(s.taken).toBe(3)
    expect(() => new CondensationManager({ conversations: -1 })).toThrow(/options\.conversations: expected a whole number >= 0/)
  })

  it('gives the stateless results when the window cuts what Lossless leaves past the allowed size', async () => {
    let cut = 0
    await heldAgainstPlain(20_000, 'task-2', (a) => {
      if (a.provider !== 'sliding-window') return
      cut++
      // What the host gets fits the allowed size, or the window had nothing more to cut.
      expect(a.newContextTokens <= a.decision.allowedTokens || String(a.report).includes('nothing more to cut')).toBe(true)
    })
    expect(cut).toBeGreaterThan(0)
  })
})
