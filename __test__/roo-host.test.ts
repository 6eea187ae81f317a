// Bounds on what the host gives Roo's API over the engine: timeouts, the signal, endless streams, bad
// numbers; folded file context; a first step before a fresh-start summary; references through both.
// Handlers are mocks shaped like Roo's ApiHandler; inputs are deep-compared after every call
// (__test__/roo-harness.ts).
import { describe, expect, it, vi } from 'vitest'

import { condense, countTokens, validateConversation } from '../lib/index.js'
import {
  summarizeConversation,
  truncateConversationIfNeeded,
  type ApiHandler,
  type ApiMessage,
  type ApiStreamChunk,
  type ContentBlock,
  type TruncateOptions,
} from '../lib/roo-2025.js'
import * as today from '../lib/roo.js'
import { loadFixture, itReal } from './helpers.js'
import { conversation, engineCount, mockHandler, guard, quiet, tcinOptions, todayHandler } from './roo-harness.js'

describe('host calls: timeouts, the signal, endless streams', () => {
  const never = () => new Promise<number>(() => {})

  it('a countTokens that never settles: an error after timeoutMs, or at once on abort — never a hang', async () => {
    const handler = { ...mockHandler(), countTokens: vi.fn(never) } as unknown as ApiHandler
    const t0 = Date.now()
    const r = await truncateConversationIfNeeded(tcinOptions({ apiHandler: handler, totalTokens: 85_000, timeoutMs: 50 } as Partial<TruncateOptions>))
    expect(r.error).toBe('Context condensing timed out: the API handler (countTokens) did not answer within 50 ms')
    expect(r.messages).toBe(r.messages) // unchanged input (guarded)
    const s = await summarizeConversation(guard(conversation()), handler, 'S', 't', 10_000, false, undefined, undefined, { timeoutMs: 50 })
    expect(s.error).toBe('Context condensing timed out: the API handler (countTokens) did not answer within 50 ms')
    const controller = new AbortController()
    setTimeout(() => controller.abort(), 20)
    const aborted = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: handler,
      systemPrompt: 'S',
      taskId: 't',
      signal: controller.signal,
    })
    expect(aborted.error).toBe('Context condensing was aborted')
    expect(Date.now() - t0).toBeLessThan(5_000)
  })

  it('a timeoutMs past the longest a timer waits (2^31-1 ms) is refused, per call and in configure, instead of firing after 1 ms', async () => {
    const limit = '(the longest a Node.js timer waits, about 24.8 days), got number 2147483648'
    const slow = mockHandler({ delayMs: 30 })
    const r = await truncateConversationIfNeeded(tcinOptions({ apiHandler: slow, totalTokens: 99_000, timeoutMs: 2 ** 31 } as Partial<TruncateOptions>))
    expect(r.error).toBe(
      `Failed to condense context: truncateConversationIfNeeded: options.timeoutMs: expected a whole number of milliseconds from 1 to 2147483647 ${limit}`,
    )
    expect(slow.createMessage).not.toHaveBeenCalled()
    const s = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: todayHandler(),
      systemPrompt: 'S',
      taskId: 't',
      timeoutMs: 2 ** 31,
    })
    expect(s.error).toBe(
      `Failed to condense context: summarizeConversation: options.timeoutMs: expected a whole number of milliseconds from 1 to 2147483647 ${limit}`,
    )
    let thrown: unknown
    try {
      today.configure({ timeoutMs: 2 ** 31 })
    } catch (e) {
      thrown = e
    }
    expect((thrown as Error).message).toBe(`configure: options.timeoutMs: expected a whole number of milliseconds from 1 to 2147483647 ${limit}`)
    expect((thrown as { errorCode?: string }).errorCode).toBe('invalid-argument')
    // The longest a timer waits is taken, and a slow answer within it is waited for.
    const ok = await truncateConversationIfNeeded(
      tcinOptions({ apiHandler: mockHandler({ delayMs: 30 }), totalTokens: 99_000, timeoutMs: 2 ** 31 - 1 } as Partial<TruncateOptions>),
    )
    expect(ok.error).toBeUndefined()
  })

  it('a stream whose next() always resolves at once: timers still fire (abort works), and its size is capped', async () => {
    const endless = () => ({
      createMessage: vi.fn(() => ({
        [Symbol.asyncIterator]: () => ({
          next: () => Promise.resolve({ done: false, value: { type: 'text', text: 'x' } }),
          return: vi.fn(async () => ({ done: true, value: undefined })),
        }),
      })),
      countTokens: async () => 1,
    })
    const controller = new AbortController()
    const timer = setTimeout(() => controller.abort(), 30)
    const t0 = Date.now()
    const r = await summarizeConversation(guard(conversation()), endless() as unknown as ApiHandler, 'S', 't', 10_000, false, undefined, undefined, {
      signal: controller.signal,
      maxStreamChars: 1e9,
    })
    clearTimeout(timer)
    expect(r.error).toBe('Context condensing was aborted')
    expect(Date.now() - t0).toBeLessThan(5_000)
    const capped = await summarizeConversation(guard(conversation()), endless() as unknown as ApiHandler, 'S', 't', 10_000, false, undefined, undefined, {
      maxStreamChars: 1000,
    })
    expect(capped.error).toBe("Failed to condense context: the API handler's stream passed 1000 characters of text")
    const timed = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: endless() as unknown as ApiHandler,
      systemPrompt: 'S',
      taskId: 't',
      timeoutMs: 40,
      maxStreamChars: 1e9,
    })
    expect(timed.error).toMatch(
      /^Context condensing timed out: the API handler's stream did not end within 40 ms$|^Context condensing timed out: the API handler's stream did not answer within \d+ ms$/,
    )
  })

  it('a throwing countTokens is an error result, not a throw', async () => {
    const handler = {
      ...mockHandler(),
      countTokens: () => {
        throw new Error('tokenizer down')
      },
    } as unknown as ApiHandler
    const r = await truncateConversationIfNeeded(tcinOptions({ apiHandler: handler }))
    expect(r.error).toBe("Failed to condense context: the API handler's countTokens failed: tokenizer down")
    const rejecting = {
      ...mockHandler(),
      countTokens: async () => {
        throw new Error('503')
      },
    } as unknown as ApiHandler
    const m = await today.manageContext({ ...tcinOptions({ apiHandler: rejecting }) } as never)
    expect(m.error).toBe("Failed to condense context: the API handler's countTokens failed: 503")
    const garbage = { ...mockHandler(), countTokens: async () => -4 } as unknown as ApiHandler
    expect((await truncateConversationIfNeeded(tcinOptions({ apiHandler: garbage }))).error).toBe(
      "Failed to condense context: the API handler's countTokens: expected a number >= 0, got number -4",
    )
  })
})

describe('bad numbers are refused, never computed with', () => {
  it('totalTokens / contextWindow: NaN, undefined, negative or a string is an error naming it, with no model call', async () => {
    for (const [key, value, shown] of [
      ['totalTokens', Number.NaN, 'number NaN'],
      ['totalTokens', undefined, 'undefined'],
      ['totalTokens', -5, 'number -5'],
      ['totalTokens', '39000', 'string "39000"'],
      ['contextWindow', 0, 'number 0'],
    ] as const) {
      const handler = mockHandler()
      const o = tcinOptions({ apiHandler: handler, [key]: value } as Partial<TruncateOptions>)
      const r = await truncateConversationIfNeeded(o)
      expect(r.error, `${key} ${String(value)}`).toBe(
        `Failed to condense context: truncateConversationIfNeeded: ${key}: expected a number >= ${key === 'contextWindow' ? 1 : 0}, got ${shown}`,
      )
      expect(r.messages).toBe(o.messages)
      expect(r.prevContextTokens).toBe(0)
      expect(handler.createMessage).not.toHaveBeenCalled()
    }
    // The engine's rules take a global threshold of 5..100 % (Roo's settings offer no other).
    const low = await truncateConversationIfNeeded(tcinOptions({ autoCondenseContextPercent: 1 }))
    expect(low.error).toBe('Failed to condense context: truncateConversationIfNeeded: autoCondenseContextPercent: expected a percentage from 5 to 100, got 1')
    expect(() =>
      today.willManageContext({
        totalTokens: '1' as unknown as number,
        contextWindow: 10,
        autoCondenseContext: true,
        autoCondenseContextPercent: 50,
        profileThresholds: {},
        currentProfileId: 'd',
        lastMessageTokens: 0,
      }),
    ).toThrow('willManageContext: totalTokens: expected a number >= 0, got string "1"')
  })

  it('a history that is not an array is refused with a TypeError naming `messages` (never replaced by an empty one), in every entry', async () => {
    const jan = await import('../lib/roo-2026-01.js')
    for (const [bad, shown] of [
      [undefined, 'undefined'],
      [null, 'null'],
      [{ length: 2 }, 'an object'],
      ['x', 'string "x"'],
    ] as const) {
      // Named as each call's type names it: a key of the options object, or the positional parameter.
      const calls: Array<[string, () => Promise<unknown>]> = [
        ['manageContext: options.messages', () => today.manageContext({ ...tcinOptions({ totalTokens: 99_000 }), messages: bad } as never)],
        ['manageContext: options.messages', () => jan.manageContext({ ...tcinOptions({ totalTokens: 99_000 }), messages: bad } as never)],
        [
          'truncateConversationIfNeeded: options.messages',
          () => truncateConversationIfNeeded({ ...tcinOptions({ totalTokens: 99_000 }), messages: bad } as never),
        ],
        [
          'summarizeConversation: options.messages',
          () => today.summarizeConversation({ messages: bad, apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't' } as never),
        ],
        ['summarizeConversation: messages', () => jan.summarizeConversation(bad as never, mockHandler() as never, 'S', 't', 10_000)],
        ['summarizeConversation: messages', () => summarizeConversation(bad as never, mockHandler() as never, 'S', 't', 10_000)],
      ]
      for (const [place, call] of calls) {
        const e = await call().then(
          (r) => r,
          (x) => x,
        )
        expect(e, `${place} ${shown}`).toBeInstanceOf(TypeError)
        expect((e as Error).message).toBe(`${place}: expected an array of messages, got ${shown}`)
        expect((e as { errorCode?: string }).errorCode).toBe('invalid-argument')
      }
      // The entries' synchronous functions throw the same, with the code.
      for (const [fn, call] of [
        ['truncateConversation', () => today.truncateConversation(bad as never, 0.5, 't')],
        ['getEffectiveApiHistory', () => today.getEffectiveApiHistory(bad as never)],
      ] as const) {
        let thrown: unknown
        try {
          call()
        } catch (x) {
          thrown = x
        }
        expect((thrown as Error).message).toBe(`${fn}: messages: expected an array of messages, got ${shown}`)
        expect((thrown as { errorCode?: string }).errorCode).toBe('invalid-argument')
      }
    }
  })

  it('an element of the history that is not a message object is named, not blamed on the API, with the messages unchanged and no model call', async () => {
    const jan = await import('../lib/roo-2026-01.js')
    const withHole = (hole: unknown) => {
      const m = conversation() as unknown[]
      m[3] = hole
      return guard(m) as ApiMessage[]
    }
    for (const [hole, shown] of [
      [null, 'null'],
      [7, 'number 7'],
      [[], 'an array'],
    ] as const) {
      const handler = todayHandler()
      const cases: Array<[string, ApiMessage[], () => Promise<{ messages: unknown; error?: string }>]> = []
      const a = withHole(hole)
      cases.push(['summarizeConversation', a, () => today.summarizeConversation({ messages: a, apiHandler: handler, systemPrompt: 'S', taskId: 't' })])
      const b = withHole(hole)
      cases.push(['summarizeConversation', b, () => jan.summarizeConversation(b as never, handler, 'S', 't', 10_000)])
      const c = withHole(hole)
      cases.push(['summarizeConversation', c, () => summarizeConversation(c, handler, 'S', 't', 10_000)])
      const d = withHole(hole)
      cases.push(['manageContext', d, () => today.manageContext({ ...tcinOptions({ apiHandler: handler, totalTokens: 99_000 }), messages: d } as never)])
      const f = withHole(hole)
      cases.push([
        'truncateConversationIfNeeded',
        f,
        () => truncateConversationIfNeeded(tcinOptions({ apiHandler: handler, totalTokens: 99_000, messages: f })),
      ])
      for (const [fn, messages, call] of cases) {
        const r = await call()
        expect(r.error, `${fn} ${shown}`).toBe(`Failed to condense context: ${fn}: messages[3]: expected a message object, got ${shown}`)
        expect(r.messages).toBe(messages)
      }
      expect(handler.createMessage).not.toHaveBeenCalled()
    }
  })

  it('a negative, NaN or non-number totalCost / outputTokens in the usage chunk fails the summary with its name', async () => {
    for (const [usage, shown] of [
      [{ type: 'usage', inputTokens: 1, outputTokens: 5, totalCost: -3 }, 'totalCost: expected a number >= 0, got number -3'],
      [{ type: 'usage', inputTokens: 1, outputTokens: 5, totalCost: Number.NaN }, 'totalCost: expected a number >= 0, got number NaN'],
      [{ type: 'usage', inputTokens: 1, outputTokens: -50, totalCost: 0.1 }, 'outputTokens: expected a number >= 0, got number -50'],
      [{ type: 'usage', inputTokens: 1, outputTokens: '7', totalCost: 0.1 }, 'outputTokens: expected a number >= 0, got string "7"'],
    ] as const) {
      const messages = guard(conversation())
      const r = await summarizeConversation(messages, mockHandler({ usage: usage as unknown as ApiStreamChunk }), 'S', 't', 10_000)
      expect(r.error).toBe(`Failed to condense context: the usage chunk: ${shown}`)
      expect(r.messages).toBe(messages)
      expect(r.newContextTokens).toBeUndefined()
    }
    // A prevContextTokens that is not a whole number >= 0 is refused too.
    const bad = await summarizeConversation(guard(conversation()), mockHandler(), 'S', 't', Number.NaN)
    expect(bad.error).toBe('Failed to condense context: summarizeConversation: prevContextTokens: expected a whole number >= 0, got number NaN')
  })
})

describe("today: folded file context from the host's outlines", () => {
  it('one <system-reminder> per file, relative paths resolved against cwd, error outlines and failures skipped, a character budget', async () => {
    const outlines: Record<string, string | undefined> = {
      '/w/a.ts': '1--5 | export interface User',
      '/abs/b.ts': 'Unsupported file type: /abs/b.ts',
      '/w/c.ts': undefined,
    }
    const outlineFile = vi.fn(async (p: string) => {
      if (p === '/w/boom.ts') throw new Error('parser crashed')
      return outlines[p]
    })
    const { warn } = quiet()
    const r = await today.generateFoldedFileContext(['a.ts', '/abs/b.ts', 'c.ts', 'boom.ts'], { cwd: '/w', outlineFile })
    expect(outlineFile).toHaveBeenCalledWith('/w/a.ts', undefined)
    expect(r.sections).toEqual(['<system-reminder>\n## File Context: a.ts\n1--5 | export interface User\n</system-reminder>'])
    expect(r.filesProcessed).toBe(1)
    expect(r.filesSkipped).toBe(3)
    expect(r.characterCount).toBe(r.content.length)
    expect(warn).toHaveBeenCalledWith('Folded context generation: skipped 1 file(s) due to errors: boom.ts')
    const long = await today.generateFoldedFileContext(['a.ts', 'b.ts'], { cwd: '/w', maxCharacters: 400, outlineFile: async () => 'x'.repeat(1000) })
    expect(long.sections).toHaveLength(1)
    expect(long.sections[0].endsWith('\n... (truncated)\n</system-reminder>')).toBe(true)
    expect(long.filesSkipped).toBe(1)
    await expect(today.generateFoldedFileContext(['a.ts'], { cwd: '/w' } as never)).rejects.toThrow(/options\.outlineFile: expected a function/)
  })

  it('summarizeConversation appends those sections when configured with outlineFile', async () => {
    today.configure({ outlineFile: async (p: string) => `outline of ${p}` })
    const r = await today.summarizeConversation({
      messages: guard(conversation()),
      apiHandler: todayHandler(),
      systemPrompt: 'S',
      taskId: 't',
      filesReadByRoo: ['x.ts'],
      cwd: '/w',
    })
    expect((r.messages.at(-1)!.content as Array<{ text: string }>)[1].text).toBe(
      '<system-reminder>\n## File Context: x.ts\noutline of /w/x.ts\n</system-reminder>',
    )
  })
})

describe('today: folded file context from the history when the host gives no outlines', () => {
  it("without outlineFile or foldedFileContext, each file's outline is the engine's, from its latest read in the history", async () => {
    const body = ['export interface User {', '  id: string', '}', '', 'export function load(id: string): User {', '  return { id }', '}']
    const read = body.map((l, i) => `${i + 1} | ${l}`).join('\n')
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: [{ type: 'text', text: '<task>fix load</task>' }], ts: 1 },
      { role: 'assistant', content: [{ type: 'text', text: '<read_file>\n<path>src/a.ts</path>\n</read_file>' }], ts: 2 },
      {
        role: 'user',
        content: [
          { type: 'text', text: "[read_file for 'src/a.ts'] Result:" },
          { type: 'text', text: `<files>\n<file><path>src/a.ts</path>\n<content lines="1-7">\n${read}\n</content>\n</file>\n</files>` },
        ],
        ts: 3,
      },
      { role: 'assistant', content: 'Read it.', ts: 4 },
      { role: 'user', content: 'Go on', ts: 5 },
    ])
    const r = await today.summarizeConversation({
      messages,
      apiHandler: todayHandler(),
      systemPrompt: 'S',
      taskId: 't',
      filesReadByRoo: ['src/a.ts', 'src/unknown.ts'],
      cwd: '/w',
    })
    expect(r.error).toBeUndefined()
    expect((r.messages.at(-1)!.content as Array<{ text: string }>)[1].text).toBe(
      '<system-reminder>\n## File Context: src/a.ts\n1 | export interface User {\n5 | export function load(id: string): User {\n</system-reminder>',
    )
    expect(r.messages.at(-1)!.content as unknown[]).toHaveLength(2)
  })
})

describe('today: a first step before the fresh-start summary', () => {
  itReal('lossless alone under the threshold: its copies are stored after their messages, no model call, the model is sent the shorter history', async () => {
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const handler = todayHandler({ count: engineCount })
    const lossless = await condense(input, { provider: 'lossless' })
    expect(lossless.newContextTokens!).toBeLessThan(before)
    // A window where lossless alone brings the context under the threshold.
    const contextWindow = Math.ceil((lossless.newContextTokens! + 10) / 0.5)
    const last = engineCount(
      Array.isArray(input.at(-1)!.content) ? (input.at(-1)!.content as ContentBlock[]) : [{ type: 'text', text: String(input.at(-1)!.content) }],
    )
    const r = await today.manageContext({
      messages: input,
      totalTokens: before - last,
      contextWindow: Math.max(contextWindow, Math.ceil(before / 0.6)),
      maxTokens: 1,
      apiHandler: handler,
      autoCondenseContext: true,
      autoCondenseContextPercent: 50,
      systemPrompt: '',
      taskId: 't',
      profileThresholds: {},
      currentProfileId: 'd',
      provider: 'lossless',
    })
    expect(r.error).toBeUndefined()
    expect(r.provider).toBe('lossless')
    expect(handler.createMessage).not.toHaveBeenCalled()
    expect(r.messages.length).toBeGreaterThan(input.length) // nothing removed: copies beside originals
    const sent = today.getEffectiveApiHistory(r.messages)
    expect(validateConversation(sent)).toEqual([])
    // Lossless's saving, the first message aside (Roo keeps it as it is).
    expect(countTokens(sent)).toBe(r.newContextTokens)
    expect(r.newContextTokens).toBe(lossless.newContextTokens! + countTokens([input[0]]) - countTokens([lossless.messages[0]]))
    expect(sent[0]).toBe(input[0])
    // Without the copies, the originals are sent again, as they were.
    expect(today.getEffectiveApiHistory(today.cleanupAfterTruncation(r.messages.filter((m) => !m.condensedBy)))).toEqual(input)
  })

  itReal('a first step that misses the target: the fresh-start summary follows as usual', async () => {
    const input = guard(loadFixture('synthetic-3-tool-dedup'))
    const before = countTokens(input)
    const handler = todayHandler({ count: engineCount })
    const r = await today.manageContext({
      messages: input,
      totalTokens: before,
      contextWindow: before + 20_000,
      maxTokens: 1,
      apiHandler: handler,
      autoCondenseContext: true,
      autoCondenseContextPercent: 5,
      systemPrompt: '',
      taskId: 't',
      profileThresholds: {},
      currentProfileId: 'd',
      provider: 'lossless',
    })
    expect(r.error).toBeUndefined()
    expect(handler.createMessage).toHaveBeenCalledTimes(1)
    expect(r.messages.at(-1)!.isSummary).toBe(true)
  })
})

describe('references through a first step and a summary', () => {
  it('a reference whose target stays while it moves (one to the first message) is expanded back, never left dangling', async () => {
    const { expandReferences } = await import('../lib/index.js')
    const body =
      '<files>\n<file><path>a.ts</path>\n<content lines="1-30">\n' +
      Array.from({ length: 30 }, (_, i) => `${String(i + 1).padStart(2)} | export const v${i} = ${i} // some line`).join('\n') +
      '\n</content>\n</file>\n</files>'
    const read = (): ApiMessage => ({
      role: 'user',
      content: [
        { type: 'text', text: "[read_file for 'a.ts'] Result:" },
        { type: 'text', text: body },
      ],
    })
    const input: ApiMessage[] = [
      {
        role: 'user',
        content: [
          { type: 'text', text: '<task>\nfix a.ts\n</task>' },
          { type: 'text', text: "[read_file for 'a.ts'] Result:" },
          { type: 'text', text: body },
        ],
      },
    ]
    for (let i = 0; i < 6; i++)
      input.push({ role: 'assistant', content: [{ type: 'text', text: `step ${i} <read_file><path>a.ts</path></read_file>` }] }, read())
    input.push({ role: 'assistant', content: [{ type: 'text', text: 'done' }] })
    guard(input)
    const first = await condense(input, { provider: 'lossless' })
    expect(JSON.stringify(first.messages[input.length - 2])).toContain('identical to message #0')
    const r = await summarizeConversation(input, mockHandler({ count: engineCount }), '', 't', countTokens(input), true, undefined, undefined, {
      provider: 'lossless',
      targetTokens: 100,
    })
    expect(r.error).toBeUndefined()
    expect(r.messages.length).toBeLessThan(input.length)
    // Every marker left in the result expands where it is.
    const left = JSON.stringify(expandReferences(r.messages))
    expect(left).not.toContain('⟨ Reference:')
  })
})
