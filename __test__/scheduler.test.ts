// The one scheduler (lib/internal/scheduler.js) every call's JavaScript-side work goes through: slices of
// all jobs share one budget per macrotask, round-robin; an abort rejects a waiting job at once; a
// throwing slice rejects only its job; engine turns are limited and given back. Then the entry
// points on top of it: concurrent condense calls, aborts, countTokensAsync giving the loop back.
// Timings under load are the benchmark's (benchmark/event-loop.mjs); here a fake clock drives the
// budget, so these tests do not depend on the machine's speed.
import { afterEach, describe, expect, it, vi } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, countTokens, countTokensAsync, clearTokenCache, type ApiMessage } from '../lib/index.js'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const scheduler = require('../lib/internal/scheduler.js') as {
  run: (work: (size: number) => boolean, signal?: AbortSignal, size?: number | { size: number }) => Promise<void>
  engineTurn: (signal?: AbortSignal) => Promise<() => void>
  pending: () => number
  BUDGET_MS: number
  ENGINE_SLOTS: number
}

/** Counts macrotasks: a setImmediate re-armed from itself runs once per turn of the loop. */
function macrotaskCounter() {
  let n = 0
  let on = true
  const step = () => {
    n++
    if (on) setImmediate(step)
  }
  setImmediate(step)
  return { now: () => n, stop: () => (on = false) }
}

afterEach(() => vi.restoreAllMocks())

describe('the scheduler', () => {
  it('shares one budget per macrotask across all jobs, round-robin', async () => {
    let clock = 0
    vi.spyOn(performance, 'now').mockImplementation(() => clock)
    const ticks = macrotaskCounter()
    const slices: Array<{ job: number; tick: number }> = []
    const jobs = Array.from({ length: 10 }, (_, job) => {
      let left = 5
      return scheduler.run(() => {
        slices.push({ job, tick: ticks.now() })
        clock += 0.6 // each slice costs 0.6 ms of the fake clock
        return --left === 0
      })
    })
    await Promise.all(jobs)
    ticks.stop()
    expect(slices).toHaveLength(50)
    // Round-robin: every job gets its slice before any gets its next.
    expect(slices.map((s) => s.job)).toEqual(Array.from({ length: 50 }, (_, i) => i % 10))
    // Per macrotask: slices while the budget lasts (2 ms: at 0, 0.6, 1.2 and 1.8 ms), never more.
    const perTick = new Map<number, number>()
    for (const s of slices) perTick.set(s.tick, (perTick.get(s.tick) ?? 0) + 1)
    const most = Math.max(...perTick.values())
    expect(most).toBe(Math.ceil(scheduler.BUDGET_MS / 0.6))
    expect(perTick.size).toBeGreaterThanOrEqual(Math.ceil(50 / most))
    expect(scheduler.pending()).toBe(0)
  })

  it('a slice longer than the budget runs alone in its macrotask; sizes follow the cost', async () => {
    let clock = 0
    vi.spyOn(performance, 'now').mockImplementation(() => clock)
    const ticks = macrotaskCounter()
    const seen: Array<{ size: number; tick: number }> = []
    let done = 0
    await scheduler.run(
      (size) => {
        seen.push({ size, tick: ticks.now() })
        clock += size * 0.1 // 0.1 ms per unit
        done += size
        return done >= 200
      },
      undefined,
      50,
    )
    ticks.stop()
    // 50 units cost 5 ms: alone in its macrotask; the next slices aim at 0.5 ms (5 units).
    expect(seen[0]).toEqual({ size: 50, tick: seen[0].tick })
    expect(seen[1].tick).toBeGreaterThan(seen[0].tick)
    expect(seen.slice(1).every((s) => s.size === 5)).toBe(true)
  })

  it('a size held in an object is learnt across runs of one slice each', async () => {
    let clock = 0
    vi.spyOn(performance, 'now').mockImplementation(() => clock)
    const sizing = { size: 40 }
    const sizes: number[] = []
    for (let r = 0; r < 3; r++) {
      await scheduler.run(
        (size) => {
          sizes.push(size)
          clock += size * 0.1 // 0.1 ms per unit: 5 units make a 0.5 ms slice
          return true
        },
        undefined,
        sizing,
      )
    }
    expect(sizes).toEqual([40, 5, 5])
    expect(sizing.size).toBe(5)
  })

  it('an abort rejects a waiting job at once with the reason; its work never runs again; the others go on', async () => {
    const controller = new AbortController()
    let abortedSlices = 0
    let otherSlices = 0
    let left = 20
    const other = scheduler.run(() => {
      otherSlices++
      return --left === 0
    })
    const aborted = scheduler.run(() => {
      abortedSlices++
      if (abortedSlices === 2) controller.abort(new Error('stop now'))
      return false
    }, controller.signal)
    await expect(aborted).rejects.toThrow('stop now')
    expect(abortedSlices).toBe(2)
    await other
    expect(otherSlices).toBe(20)
    await expect(scheduler.run(() => true, AbortSignal.abort())).rejects.toMatchObject({ name: 'AbortError' })
    expect(scheduler.pending()).toBe(0)
  })

  it('a slice that throws rejects its own job only', async () => {
    let left = 5
    const fine = scheduler.run(() => --left === 0)
    const broken = scheduler.run(() => {
      throw new TypeError('messages[3]: bad')
    })
    await expect(broken).rejects.toThrow('messages[3]: bad')
    await expect(fine).resolves.toBe(undefined)
  })

  it('engine turns: at most ENGINE_SLOTS at once, in order; a waiting turn can be aborted; giving back twice is harmless', async () => {
    const held = await Promise.all(Array.from({ length: scheduler.ENGINE_SLOTS }, () => scheduler.engineTurn()))
    const order: string[] = []
    const controller = new AbortController()
    const first = scheduler.engineTurn().then((r) => {
      order.push('first')
      return r
    })
    const cancelled = scheduler.engineTurn(controller.signal)
    const second = scheduler.engineTurn().then((r) => {
      order.push('second')
      return r
    })
    await new Promise((r) => setTimeout(r, 10))
    expect(order).toEqual([])
    controller.abort()
    await expect(cancelled).rejects.toMatchObject({ name: 'AbortError' })
    held[0]()
    held[0]() // a second call gives nothing more back
    const a = await first
    await new Promise((r) => setTimeout(r, 10))
    expect(order).toEqual(['first'])
    a()
    const b = await second
    expect(order).toEqual(['first', 'second'])
    for (const r of [...held, b]) r()
  })
})

describe('the entry points on top of it', () => {
  it('50 concurrent condense calls give what one call gives, and leave nothing queued', async () => {
    const h = generateHistory({ seed: 21, format: 'xml', targetTokens: 40_000 }) as ApiMessage[]
    const snapshot = JSON.stringify(h)
    const one = await condense(h, { provider: 'lossless' })
    const all = await Promise.all(Array.from({ length: 50 }, (_, i) => condense(h, { provider: i % 2 ? 'lossless' : 'truncation' })))
    const trunc = await condense(h, { provider: 'truncation' })
    all.forEach((r, i) => expect(r.messages).toEqual(i % 2 ? one.messages : trunc.messages))
    expect(JSON.stringify(h)).toBe(snapshot)
    expect(scheduler.pending()).toBe(0)
  })

  it('an abort under 50 concurrent calls rejects every one with an AbortError, input untouched; the next call works', async () => {
    const h = generateHistory({ seed: 5, format: 'xml', targetTokens: 60_000 }) as ApiMessage[]
    const snapshot = JSON.stringify(h)
    const controller = new AbortController()
    const calls = Array.from({ length: 50 }, () => condense(h, { provider: 'lossless', signal: controller.signal }))
    await new Promise((r) => setImmediate(r))
    controller.abort()
    const settled = await Promise.allSettled(calls)
    expect(settled.every((s) => s.status === 'rejected' && (s.reason as Error).name === 'AbortError')).toBe(true)
    expect(JSON.stringify(h)).toBe(snapshot)
    expect(scheduler.pending()).toBe(0)
    const r = await condense(h, { provider: 'lossless' })
    expect(r.error).toBe(undefined)
  })

  it('one signal shared by 50 calls gets one listener from the package (no leak warning), and each call stops following it when done', async () => {
    const h = generateHistory({ seed: 6, format: 'native', targetTokens: 30_000 }) as ApiMessage[]
    const warnings: string[] = []
    const onWarning = (w: Error) => warnings.push(w.name)
    process.on('warning', onWarning)
    try {
      const controller = new AbortController()
      const added = vi.spyOn(controller.signal, 'addEventListener')
      const calls = Array.from({ length: 50 }, (_, i) => condense(h, { provider: i % 2 ? 'lossless' : 'truncation', signal: controller.signal }))
      const done = await Promise.all(calls)
      expect(done.every((r) => r.error === undefined)).toBe(true)
      expect(added.mock.calls.filter(([type]) => type === 'abort').length).toBe(1)
      // The calls are over: aborting now reaches none of them (nothing throws, nothing is left queued).
      controller.abort()
      const again = new AbortController()
      const running = Array.from({ length: 20 }, () => condense(h, { provider: 'lossless', signal: again.signal }))
      await new Promise((r) => setImmediate(r))
      again.abort()
      const settled = await Promise.allSettled(running)
      expect(settled.every((s) => s.status === 'rejected' && (s.reason as Error).name === 'AbortError')).toBe(true)
      await new Promise((r) => setImmediate(r))
      expect(warnings.filter((w) => w === 'MaxListenersExceededWarning')).toEqual([])
      expect(scheduler.pending()).toBe(0)
    } finally {
      process.off('warning', onWarning)
    }
  })

  it('countTokensAsync gives the loop back while it walks and counts, and agrees with countTokens', async () => {
    const h = generateHistory({ seed: 8, format: 'native', targetTokens: 400_000, thinking: true }) as ApiMessage[]
    const many = Array.from({ length: 20 }, () => h).flat()
    clearTokenCache()
    const sync = countTokens(many)
    clearTokenCache()
    const cold = await countTokensAsync(many)
    // Warm, nothing is left for the engine's threads: what remains is the walk and the cache
    // look-ups, on this thread. Many macrotasks go by meanwhile: they were sliced.
    const ticks = macrotaskCounter()
    const warm = await countTokensAsync(many)
    const turns = ticks.now()
    ticks.stop()
    expect(cold).toBe(sync)
    expect(warm).toBe(sync)
    expect(turns).toBeGreaterThan(2) // none at all when the walk is one synchronous run
    expect(await countTokensAsync('a plain string, counted as one text')).toBe(countTokens('a plain string, counted as one text'))
    expect(await countTokensAsync([])).toBe(0)
  })

  it('countTokensAsync names a bad message by index, as countTokens does', async () => {
    const h = [{ role: 'user', content: 'hi' }, 42] as unknown as ApiMessage[]
    expect(() => countTokens(h)).toThrow('countTokens: input[1]: expected a message object, got number 42')
    await expect(countTokensAsync(h)).rejects.toThrow('countTokensAsync: input[1]: expected a message object, got number 42')
  })
})
