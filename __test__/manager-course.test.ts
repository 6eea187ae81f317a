// The course of a manager call as the engine runs it (src/manager/attempt.rs, through
// ManagerAttempt and ManagerGuards): the loop guard counts every call of a task, calls made at once
// included, and keeps a bounded number of tasks' states.
import { describe, expect, it } from 'vitest'

import { CondensationManager, condense, countTokens, validateConversation, type ApiMessage } from '../lib/index.js'
import { generateHistory } from '../fixtures/generate.mjs'
import { fittedWindow } from './helpers.js'

const history = generateHistory({ seed: 1, targetTokens: 20_000 }) as ApiMessage[]

/** A provider written in JavaScript that fails after a tick, or keeps only the first message. */
const provider = (id: string, ok: boolean) => ({
  id,
  name: id,
  description: ok ? 'keeps the first message' : 'always fails',
  async condense(messages: ApiMessage[]) {
    await new Promise((resolve) => setTimeout(resolve, 5))
    if (!ok) throw new Error('no luck')
    return { messages: messages.slice(0, 1) }
  },
})

describe('the loop guard of a manager', () => {
  it('counts every failure of a task, the calls made at once too (no histories kept: nothing queues them)', async () => {
    const m = new CondensationManager({
      config: { provider: 'fails', loopGuard: { maxAttempts: 2, coolDownMs: 60_000 } },
      now: () => 1_000,
      conversations: 0,
    })
    m.registerProvider(provider('fails', false))
    const context = { contextWindow: 1_000_000, force: true, taskId: 't' }
    const both = await Promise.all([m.condenseIfNeeded(history, context), m.condenseIfNeeded(history, context)])
    for (const r of both) expect(r.error).toBe('fails: provider "fails" threw: no luck')
    // Two failures in a row: the task cools down (each call counted, none lost to the other).
    const third = await m.condenseIfNeeded(history, context)
    expect(third.error).toBe('condensing is cooling down for 60 s after attempts that made no progress')
    expect(third.attempts).toEqual([{ provider: 'fails', skipped: third.error }])
  })

  it('keeps at most 256 tasks, a task cooling down outliving those that made progress', async () => {
    const m = new CondensationManager({ config: { provider: 'fails', loopGuard: { maxAttempts: 1, coolDownMs: 60_000 } }, now: () => 1_000 })
    m.registerProvider(provider('fails', false))
    m.registerProvider(provider('keeps', true))
    await m.condenseIfNeeded(history, { contextWindow: 1_000_000, force: true, taskId: 'hot' })
    m.setConfig({ provider: 'keeps', loopGuard: { maxAttempts: 1, coolDownMs: 60_000 } })
    for (let t = 0; t < 300; t++) {
      const r = await m.condenseIfNeeded(history, { contextWindow: 1_000_000, force: true, taskId: `task-${t}` })
      expect(r.condensed).toBe(true)
    }
    const guards = (m as unknown as { guards: { size: number; has(id: string): boolean } }).guards
    expect(guards.size).toBeLessThanOrEqual(256)
    expect(guards.has('hot')).toBe(true)
    const hot = await m.condenseIfNeeded(history, { contextWindow: 1_000_000, force: true, taskId: 'hot' })
    expect(hot.error).toBe('condensing is cooling down for 60 s after attempts that made no progress')
  })
})

describe('a summary the sliding window would cut away', () => {
  // The first message, ten turns of notes, then three large messages: what Native keeps.
  const big = 'fn parse(input: &str) -> Result<Tree, Error> { todo!() }\n'.repeat(200)
  const turns: ApiMessage[] = [{ role: 'user', content: '<task>\nFix the parser\n</task>' }]
  for (let i = 0; i < 10; i++)
    turns.push({ role: i % 2 === 0 ? 'assistant' : 'user', content: `step ${i}: read src/parse${i}.rs and noted its shape. `.repeat(20) })
  turns.push(
    { role: 'assistant', content: `Reading the file.\n${big}` },
    { role: 'user', content: `The output:\n${big}` },
    { role: 'assistant', content: `Next.\n${big}` },
  )
  const total = countTokens(turns)
  const kept = countTokens([turns[0], ...turns.slice(-3)])
  /** A context whose allowed size (90 % of the window less maxTokens) is `allowed`. */
  const at = (allowed: number) => ({ contextWindow: 100_000, maxTokens: 90_000 - allowed, totalTokens: total, lastMessageTokens: 0, taskId: 't' })

  it('is not asked: the manager cuts the window at once, and no request would have carried the summary', async () => {
    let calls = 0
    const summarize = async () => {
      calls++
      return 'Read the parser.'
    }
    expect(kept).toBeGreaterThan(total / 2) // the set-up: the kept messages are most of the context
    const m = new CondensationManager({ config: { provider: 'native' }, summarize })
    const r = await m.condenseIfNeeded(turns, at(kept))
    expect(calls).toBe(0)
    expect(r.provider).toBe('sliding-window')
    expect(r.attempts[0].error).toBe(
      `No summary asked: the messages it keeps leave ${kept} tokens without it, at or past the allowed size of ${kept}, so the sliding window would cut the summary away`,
    )
    expect(r.messages).toEqual(fittedWindow(turns, kept))
    expect(turns).toHaveLength(14) // the caller's array untouched

    // Roo's way asks, hands the summary back past the allowed size, and the host's window cuts it away.
    const roo = new CondensationManager({
      config: { provider: 'native', cutUntilFits: false },
      summarize,
    })
    const asked = await roo.condenseIfNeeded(turns, at(kept))
    expect(calls).toBe(1)
    expect(asked.provider).toBe('native')
    expect(asked.newContextTokens).toBeGreaterThan(kept)
    expect(asked.messages.some((x) => (x as { isSummary?: boolean }).isSummary)).toBe(true)
    expect(fittedWindow(asked.messages, kept).some((x) => (x as { isSummary?: boolean }).isSummary)).toBe(false)
  })

  it('is asked when no window of the manager cuts after it (fallback or cutUntilFits off): the summary is what the host gets', async () => {
    for (const config of [
      { provider: 'native', fallback: false },
      { provider: 'native', cutUntilFits: false },
    ]) {
      let calls = 0
      const m = new CondensationManager({
        config,
        summarize: async () => {
          calls++
          return 'Read the parser.'
        },
      })
      const r = await m.condenseIfNeeded(turns, at(kept))
      expect(calls, JSON.stringify(config)).toBe(1)
      expect(r.provider).toBe('native')
      expect(r.messages.some((x) => (x as { isSummary?: boolean }).isSummary)).toBe(true)
    }
  })

  it('is asked when the kept messages leave room under the allowed size', async () => {
    let calls = 0
    const m = new CondensationManager({
      config: { provider: 'native' },
      summarize: async () => {
        calls++
        return 'Read the parser.'
      },
    })
    const r = await m.condenseIfNeeded(turns, at(kept + 200))
    expect(calls).toBe(1)
    expect(r.provider).toBe('native')
    expect(r.newContextTokens).toBeLessThanOrEqual(kept + 200)
  })
})

describe('a request made to fit the allowed size', () => {
  /** A provider written in JavaScript that drops one message after the first: progress, but not enough. */
  const dropsOne = {
    id: 'drops-one',
    name: 'drops one',
    description: 'removes the second message',
    async condense(messages: ApiMessage[]) {
      return { messages: [messages[0], ...messages.slice(2)] }
    },
  }
  const total = countTokens(history)
  const context = (allowed: number) => ({ contextWindow: 1_000_000, maxTokens: 900_000 - allowed, totalTokens: total, lastMessageTokens: 0 })

  it("cuts a provider's result still past it with the sliding window, again while it is past and a cut removes something", async () => {
    const m = new CondensationManager({ config: { provider: 'drops-one' } })
    m.registerProvider(dropsOne)
    const allowed = Math.floor(total / 5)
    const r = await m.condenseIfNeeded(history, context(allowed))
    expect(r.condensed).toBe(true)
    expect(r.newContextTokens).toBeLessThanOrEqual(allowed)
    expect(countTokens(r.messages)).toBe(r.newContextTokens)
    expect(r.provider).toBe('sliding-window')
    expect(r.report).toMatch(
      new RegExp(
        `^Context condensed by drops-one: ${total} -> \\d+ tokens, then truncated by the sliding window to ${r.newContextTokens} \\(the allowed size is ${allowed}\\)$`,
      ),
    )
    expect(r.attempts.map((a) => a.provider)).toEqual(['drops-one', 'sliding-window'])
    expect(r.error).toBeUndefined()
    // What one cut after another leaves: the window applied to the provider's result until it fits.
    expect(r.messages).toEqual(fittedWindow([history[0], ...history.slice(2)], allowed))
  })

  it('a result the window cannot cut at all stays the provider’s, and the report says it is still past the allowed size', async () => {
    const m = new CondensationManager({ config: { provider: 'keeps-two' } })
    m.registerProvider({
      ...dropsOne,
      id: 'keeps-two',
      condense: async (messages: ApiMessage[]) => ({ messages: [messages[0], messages[messages.length - 1]] }),
    })
    const r = await m.condenseIfNeeded(history, context(1))
    expect(r.provider).toBe('keeps-two')
    expect(r.messages).toEqual([history[0], history[history.length - 1]])
    expect(r.report).toMatch(/^Context condensed by keeps-two: \d+ -> \d+ tokens; still past the allowed size of 1: the window has nothing more to cut$/)
  })

  it('when the half cut removes nothing, all between the first message and the last exchange goes (tool pairs kept whole)', async () => {
    const big = 'an old note that no longer matters. '.repeat(2000)
    const call = (id: string): ApiMessage => ({ role: 'assistant', content: [{ type: 'tool_use', id, name: 'read_file', input: { path: 'a.ts' } }] })
    const result = (id: string): ApiMessage => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'export const a = 1' }] })
    const first: ApiMessage = { role: 'user', content: '<task>\nFix a.ts\n</task>' }
    // Four messages: the half cut removes none; the old note goes, the last exchange stays.
    const tail = [call('t1'), result('t1')]
    const answer = [first, { role: 'assistant', content: big } as ApiMessage, ...tail]
    const m = new CondensationManager({ config: { provider: 'leaves-a-note' } })
    m.registerProvider({ ...dropsOne, id: 'leaves-a-note', condense: async () => ({ messages: answer }) })
    const small = countTokens([first, ...tail])
    const r = await m.condenseIfNeeded(history, context(small))
    expect(r.messages).toEqual([first, ...tail])
    expect(r.newContextTokens).toBeLessThanOrEqual(small)
    expect(r.provider).toBe('sliding-window')
    // The last exchange beginning with results of an earlier call: the cut moves back to keep the pair.
    const { cutToTail } = require('../lib/internal/window.js') as { cutToTail: (m: ApiMessage[], keep: number) => ApiMessage[] }
    const split = [first, answer[1], call('t2'), result('t2'), result('t2')]
    expect(cutToTail(split, 2)).toEqual([first, call('t2'), result('t2'), result('t2')])
    expect(cutToTail(answer, 2)).toEqual([first, ...tail])
    // Nothing to remove: the same array back (none, one, or the first and the last exchange).
    const whole = [first, ...tail]
    expect(cutToTail(whole, 2)).toBe(whole)
    for (const few of [[], [first]]) expect(cutToTail(few, 2)).toBe(few)
  })

  it('past the allowed size with no messages, or a message that is not one, the window answers or names the place', async () => {
    const past = { contextWindow: 20_000, maxTokens: 1000, totalTokens: 30_000, lastMessageTokens: 0 }
    for (const provider of ['native', 'lossless', 'smart', 'truncation']) {
      const m = new CondensationManager({ config: { provider }, summarize: async () => 'sum' })
      const none = await m.condenseIfNeeded([], past)
      expect(none.messages, provider).toEqual([])
      const junk = [{ role: 'user', content: 'task' }, null, { role: 'assistant', content: 'x '.repeat(20_000) }] as unknown as ApiMessage[]
      await expect(m.condenseIfNeeded(junk, past), provider).rejects.toMatchObject({
        message: 'condenseIfNeeded: messages[1]: expected a message object, got null',
        errorCode: 'invalid-argument',
      })
    }
  })

  it('aborted while a provider that ignores the signal runs, the call rejects with the reason: its result is neither taken nor cut', async () => {
    for (const allowed of [Math.floor(total / 5), total]) {
      const m = new CondensationManager({ config: { provider: 'slow' } })
      m.registerProvider({
        ...dropsOne,
        id: 'slow',
        async condense(messages: ApiMessage[]) {
          await new Promise((resolve) => setTimeout(resolve, 30))
          return { messages: [messages[0], ...messages.slice(2)] }
        },
      })
      const ac = new AbortController()
      const reason = new Error('the user pressed stop')
      setTimeout(() => ac.abort(reason), 5)
      await expect(m.condenseIfNeeded(history, { ...context(allowed), signal: ac.signal, force: true })).rejects.toBe(reason)
    }
  })

  it('three calls at once on one task holding its conversation answer what a manager holding none answers, the caller’s history untouched', async () => {
    const allowed = Math.floor(total / 5)
    const snapshot = structuredClone(history)
    const held = new CondensationManager({ config: { provider: 'lossless', triggers: { minGainTokens: 0 } } })
    const plain = new CondensationManager({ config: { provider: 'lossless', triggers: { minGainTokens: 0 } }, conversations: 0 })
    const ctx = { ...context(allowed), taskId: 'at-once' }
    const [expected, ...got] = await Promise.all([plain.condenseIfNeeded(history, ctx), ...[1, 2, 3].map(() => held.condenseIfNeeded(history, ctx))])
    expect(expected.provider).toBe('sliding-window')
    for (const r of got) {
      expect(r.messages).toEqual(expected.messages)
      expect([r.provider, r.newContextTokens, r.report]).toEqual([expected.provider, expected.newContextTokens, expected.report])
    }
    // The invariants of a cut: the first message kept as it is, valid wherever the input was, fewer tokens.
    expect(history).toEqual(snapshot)
    // The task's first message stays first, as Lossless left it (it may shorten an old state in it).
    expect(expected.messages[0]).toEqual((await condense(history, { provider: 'lossless' })).messages[0])
    expect(validateConversation(expected.messages)).toEqual(validateConversation(history))
    expect(countTokens(expected.messages)).toBeLessThanOrEqual(allowed)
    await held.closeConversations()
  })

  it("Roo Code's way (cutUntilFits: false) hands the result back as it is", async () => {
    const m = new CondensationManager({ config: { provider: 'drops-one', cutUntilFits: false } })
    m.registerProvider(dropsOne)
    const r = await m.condenseIfNeeded(history, context(Math.floor(total / 5)))
    expect(r.provider).toBe('drops-one')
    expect(r.messages).toHaveLength(history.length - 1)
  })

  it('refuses a cutUntilFits that is not true or false', () => {
    for (const bad of ['yes', 1, null])
      expect(() => new CondensationManager({ config: { cutUntilFits: bad as never } })).toThrow(/config\.cutUntilFits: expected true or false/)
  })
})
