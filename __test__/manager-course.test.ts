// The course of a manager call as the engine runs it (src/manager/attempt.rs, through
// ManagerAttempt and ManagerGuards): the loop guard counts every call of a task, calls made at once
// included, and keeps a bounded number of tasks' states.
import { describe, expect, it } from 'vitest'

import { CondensationManager, type ApiMessage } from '../lib/index.js'
import { generateHistory } from '../fixtures/generate.mjs'

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
