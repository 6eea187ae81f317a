// The stateful surfaces used as a careless host would: the per-task conversation pool when a
// hand-over fails or is aborted, `close()` in the middle of a call, the state errors and their
// codes, the manager's options and its per-task state. Every wait is bounded, so a hang fails
// here instead of stalling the suite.
import { describe, expect, it } from 'vitest'

import { CondensationManager, condense, openConversation, slidingWindow, type ApiMessage } from '../lib/index.js'
import { manageContext } from '../lib/roo-2026-01.js'
import { generateHistory } from '../fixtures/generate.mjs'
import { mockHandler } from './roo-harness.js'
import { itWhen } from './skip-when.js'

const native = require('../lib/internal/native.js') as { mallocInUse?: () => number }

/** `p`'s outcome, or 'hang' when it has not settled within `ms`. */
async function settle<T>(p: Promise<T>, ms = 15_000): Promise<{ ok: true; value: T } | { ok: false; error: any } | 'hang'> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<'hang'>((resolve) => {
    timer = setTimeout(() => resolve('hang'), ms)
  })
  try {
    return await Promise.race([
      p.then(
        (value) => ({ ok: true as const, value }),
        (error) => ({ ok: false as const, error }),
      ),
      hang,
    ])
  } finally {
    clearTimeout(timer)
  }
}

const history = (tokens = 60_000, seed = 1): ApiMessage[] => generateHistory({ seed, targetTokens: tokens }) as ApiMessage[]
/** A history the engine refuses to hold: a number JSON has no form for. */
const refused = (h: ApiMessage[]) => h.map((m, i) => (i === 3 ? { ...m, ts: Number.NaN } : m))

describe('the conversation pool gives every turn back', () => {
  it('three concurrent calls on one task whose history cannot be handed over all settle, with the refusal', async () => {
    const m = new CondensationManager({ config: { provider: 'lossless' } })
    const bad = refused(history())
    const ctx = { contextWindow: 50_000, taskId: 'refused', force: true }
    const outcomes = await Promise.all([1, 2, 3].map(() => settle(m.condenseIfNeeded(bad, ctx))))
    for (const o of outcomes) {
      expect(o).not.toBe('hang')
      if (o === 'hang') continue
      expect(o.ok).toBe(true)
      if (o.ok) expect(o.value.attempts[0].error).toMatch(/messages\[3\]\.ts: NaN is not a JSON number/)
    }
    // The task is usable afterwards with a good history.
    const good = await settle(m.condenseIfNeeded(history(), ctx))
    expect(good !== 'hang' && good.ok && good.value.condensed).toBe(true)
  })

  it('a first hand-over that is aborted gives its turn back: the calls queued behind it run', async () => {
    const m = new CondensationManager({ config: { provider: 'lossless' } })
    const h = history()
    const ctx = { contextWindow: 50_000, taskId: 'aborted', force: true }
    const ac = new AbortController()
    const first = m.condenseIfNeeded(h, { ...ctx, signal: ac.signal })
    ac.abort()
    const [a, b, c] = await Promise.all([settle(first), settle(m.condenseIfNeeded(h, ctx)), settle(m.condenseIfNeeded(h, ctx))])
    expect(a !== 'hang' && !a.ok && a.error.name).toBe('AbortError')
    for (const o of [b, c]) expect(o !== 'hang' && o.ok && o.value.condensed).toBe(true)
  })

  it('a call aborted while it waits for the task behind a long one leaves the queue moving', async () => {
    const m = new CondensationManager({ config: { provider: 'lossless' } })
    const h = history(150_000)
    const ctx = { contextWindow: 50_000, taskId: 'queued', force: true }
    const ac = new AbortController()
    const first = m.condenseIfNeeded(h, ctx)
    const second = m.condenseIfNeeded(h, { ...ctx, signal: ac.signal })
    const third = m.condenseIfNeeded(h, ctx)
    ac.abort()
    const [a, b, c] = await Promise.all([settle(first), settle(second), settle(third)])
    expect(a !== 'hang' && a.ok).toBe(true)
    expect(b !== 'hang' && !b.ok && b.error.name).toBe('AbortError')
    expect(c !== 'hang' && c.ok).toBe(true)
    if (a !== 'hang' && a.ok && c !== 'hang' && c.ok) expect(c.value.messages).toEqual(a.value.messages)
  })

  it("through Roo's manageContext with a task id: concurrent calls on a refused history all settle", async () => {
    const bad = refused(history())
    const call = () =>
      manageContext({
        messages: bad,
        totalTokens: 45_000,
        contextWindow: 50_000,
        maxTokens: 4_000,
        apiHandler: mockHandler() as any,
        autoCondenseContext: true,
        autoCondenseContextPercent: 10,
        systemPrompt: 'You are Roo.',
        taskId: 'roo-refused',
        profileThresholds: {},
        currentProfileId: 'default',
        provider: 'lossless',
      } as any)
    const outcomes = await Promise.all([1, 2, 3].map(() => settle(call())))
    for (const o of outcomes) expect(o).not.toBe('hang')
  })

  it('closeConversations releases the per-task loop-guard state', async () => {
    const m = new CondensationManager({ config: { provider: 'lossless' } })
    const h = history(30_000)
    for (let t = 0; t < 20; t++) await m.condenseIfNeeded(h, { contextWindow: 50_000, taskId: `task-${t}`, force: true })
    expect((m as any).guards.size).toBe(20)
    await m.closeConversations('task-0')
    expect((m as any).guards.has('task-0')).toBe(false)
    await m.closeConversations()
    expect((m as any).guards.size).toBe(0)
  })
})

describe('close() in the middle of a call', () => {
  for (const when of ['at once', 'a microtask later', 'while the summarize callback is answering'] as const) {
    it(`closed ${when}: the condense rejects with an AbortError (errorCode "closed"), close() does not throw, the conversation stays empty`, async () => {
      const h = history(120_000)
      const conv = await openConversation(h)
      let called: () => void = () => {}
      const asked = new Promise<void>((resolve) => {
        called = resolve
      })
      // A callback that answers only when its signal fires: the run is in progress until then.
      const summarize = (_request: unknown, { signal }: { signal: AbortSignal }) => {
        called()
        return new Promise<string>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason)))
      }
      const running = conv.condense(when === 'while the summarize callback is answering' ? { provider: 'native', summarize } : { provider: 'lossless' })
      if (when === 'a microtask later') await null
      if (when === 'while the summarize callback is answering') await asked
      expect(() => conv.close()).not.toThrow()
      const o = await settle(running)
      expect(o).not.toBe('hang')
      if (o === 'hang') return
      expect(o.ok).toBe(false)
      if (!o.ok) {
        expect(o.error.name).toBe('AbortError')
        expect(o.error.errorCode).toBe('closed')
        expect(o.error.message).toMatch(/conversation\.condense: the conversation was closed/)
      }
      expect(conv.closed).toBe(true)
      expect(conv.length).toBe(0)
      expect(conv.messages).toEqual([])
      expect(() => conv.tokens).toThrow(/the conversation is closed/)
    })
  }

  it("a caller's own abort still rejects with the caller's reason", async () => {
    const conv = await openConversation(history())
    const ac = new AbortController()
    const reason = new Error('mine')
    const running = conv.condense({ provider: 'lossless', signal: ac.signal })
    ac.abort(reason)
    const o = await settle(running)
    expect(o !== 'hang' && !o.ok && o.error).toBe(reason)
    // Not closed: the conversation still works.
    const r = await conv.condense({ provider: 'lossless' })
    expect(r.newContextTokens).toBeLessThan(r.prevContextTokens)
    conv.close()
  })

  it('an analysis running when the conversation is closed rejects the same way', async () => {
    const conv = await openConversation(history())
    const running = conv.analyze()
    conv.close()
    const o = await settle(running)
    expect(o !== 'hang' && !o.ok && o.error.errorCode).toBe('closed')
  })

  itWhen(
    typeof native.mallocInUse === 'function' && native.mallocInUse() >= 0,
    "the engine's allocator figure (mallocInUse: the probes build, on glibc) is not available here",
  )("the engine's copy is freed once the stopped run has ended", async () => {
    const h = history(2_000_000, 7)
    // Earlier tests' conversations are freed on the engine's threads: wait until the figure stops moving.
    let base = native.mallocInUse!()
    for (let i = 0; i < 50; i++) {
      await new Promise((r) => setTimeout(r, 20))
      const now = native.mallocInUse!()
      const still = Math.abs(now - base) < 64 << 10
      base = now
      if (still) break
    }
    const conv = await openConversation(h)
    const held = native.mallocInUse!() - base
    // About 4 MB of text held by the engine; half of it is enough to tell a freed copy from a kept one.
    expect(held).toBeGreaterThan(2 << 20)
    const running = conv.condense({ provider: 'lossless' })
    await null
    conv.close()
    await settle(running)
    // The engine frees on its own threads shortly after: give it a moment.
    let left = Number.POSITIVE_INFINITY
    for (let i = 0; i < 50 && left > held * 0.2; i++) {
      await new Promise((r) => setTimeout(r, 20))
      left = native.mallocInUse!() - base
    }
    expect(left).toBeLessThan(held * 0.2)
  })
})

describe('errors a conversation throws carry errorCode', () => {
  it('index errors are invalid-argument, closed / busy / stale-result errors invalid-state', async () => {
    const h = history(20_000)
    const conv = await openConversation(h)
    const code = (f: () => unknown) => {
      try {
        f()
      } catch (e: any) {
        return [e.name, e.errorCode, e.message]
      }
      return 'no error'
    }
    expect(code(() => conv.tokensOf(-1))).toEqual(['RangeError', 'invalid-argument', expect.stringMatching(/conversation\.tokensOf: no message at index -1/)])
    expect(code(() => conv.replace(99_999, h[0]))).toEqual([
      'RangeError',
      'invalid-argument',
      expect.stringMatching(/conversation\.replace: no message at index 99999/),
    ])
    const stale = await conv.condense({ provider: 'lossless', adopt: false })
    conv.append([{ role: 'user', content: 'more' }])
    expect(code(() => conv.adopt(stale))).toEqual([
      'Error',
      'invalid-state',
      expect.stringMatching(/conversation\.adopt: expected the result of the last condense/),
    ])
    const running = conv.condense({ provider: 'lossless' })
    expect(code(() => conv.append([h[1]]))).toEqual(['Error', 'invalid-state', expect.stringMatching(/conversation\.append: the conversation is busy/)])
    expect(code(() => conv.tokens)).toEqual(['Error', 'invalid-state', expect.stringMatching(/conversation\.tokens: the conversation is busy/)])
    await running
    conv.close()
    expect(code(() => conv.tokens)).toEqual(['Error', 'invalid-state', expect.stringMatching(/conversation\.tokens: the conversation is closed/)])
    await expect(conv.condense({ provider: 'lossless' })).rejects.toMatchObject({ errorCode: 'invalid-state' })
  })
})

describe("the binding's history and run used out of turn (the raw handles lib/ drives)", () => {
  type RawEvent = { kind: string; summary?: string }
  type RawHistory = { push(chunk: unknown[]): string[]; expand(): unknown }
  type RawRun = { start(history: RawHistory, withSummarizer: boolean): void; next(): Promise<RawEvent> }
  type RawConversation = { push(chunk: unknown[]): string[]; start(run: RawRun, withSummarizer: boolean): void; close(): void }
  const raw = require('../lib/internal/native.js') as {
    History: new () => RawHistory
    Run: new (options: object) => RawRun
    Conversation: new () => RawConversation
  }
  /** What `f` throws: its code and message, or 'no error'. */
  const thrown = (f: () => unknown) => {
    try {
      f()
    } catch (e: any) {
      return { code: e.code, message: e.message }
    }
    return 'no error'
  }
  const pushed = (h: ApiMessage[]) => {
    const x = new raw.History()
    x.push(h)
    return x
  }

  it('a history answers once: a second run, query or push is refused naming the call, and the refused run still starts', async () => {
    const h = history(20_000)
    const shared = pushed(h)
    const first = new raw.Run({ provider: 'lossless' })
    first.start(shared, false)
    const second = new raw.Run({ provider: 'lossless' })
    const spent = (call: string) => ({
      code: 'invalid-state',
      message: `${call}: this history was already handed to a query or a run: push the messages into a new one`,
    })
    expect(thrown(() => second.start(shared, false))).toEqual(spent('start'))
    expect(thrown(() => shared.expand())).toEqual(spent('expand'))
    expect(thrown(() => shared.push(h))).toEqual(spent('push'))
    second.start(pushed(h), false)
    expect(await settle(second.next())).toMatchObject({ ok: true, value: { kind: 'done' } })
    expect(await settle(first.next())).toMatchObject({ ok: true, value: { kind: 'done' } })
  })

  it('a run starts once: a conversation refuses a run already started, and takes a new one', async () => {
    const h = history(20_000)
    const run = new raw.Run({ provider: 'lossless' })
    run.start(pushed(h), false)
    const conv = new raw.Conversation()
    conv.push(h)
    expect(thrown(() => conv.start(run, false))).toEqual({ code: 'invalid-state', message: 'this run was already started' })
    const fresh = new raw.Run({ provider: 'lossless' })
    conv.start(fresh, false)
    expect(await settle(fresh.next())).toMatchObject({ ok: true, value: { kind: 'done' } })
    conv.close()
  })

  it('a conversation with a run in progress refuses a second; closing it stops the run waiting for summaries; closed, it refuses a run', async () => {
    const conv = new raw.Conversation()
    conv.push(history(30_000, 4))
    const run = new raw.Run({ provider: 'native' })
    conv.start(run, true)
    expect(await settle(run.next())).toMatchObject({ ok: true, value: { kind: 'summarize' } })
    const second = new raw.Run({ provider: 'native' })
    expect(thrown(() => conv.start(second, true))).toMatchObject({ code: 'invalid-state', message: /the conversation is busy/ })
    conv.close()
    // The wait for summaries ends at once (unstopped it would wait for a reply): the run answers
    // that it failed, aborted.
    const ended = await settle(run.next())
    expect(ended).toMatchObject({ ok: true, value: { kind: 'done' } })
    const summary = (ended as { value: { summary: string } }).value.summary
    expect(JSON.parse(summary).error).toMatch(/aborted/)
    expect(thrown(() => conv.start(second, true))).toEqual({ code: 'invalid-state', message: 'start: the conversation is closed' })
  })
})

describe('the manager refuses what it cannot use, at once', () => {
  const made = (options: unknown) => {
    try {
      new CondensationManager(options as any)
    } catch (e: any) {
      return { message: e.message, errorCode: e.errorCode }
    }
    return 'accepted'
  }
  it.each([
    [{ conversations: -1 }, /options\.conversations: expected a whole number >= 0, got number -1/],
    [{ confg: { provider: 'smart' } }, /options\.confg: unknown key, expected one of config, policy/],
    [{ now: 5 }, /options\.now: expected a function/],
    [{ summarize: 5 }, /options\.summarize: expected an async function, got number 5/],
    [{ summarizeOptions: { timeoutMs: -1 } }, /options\.summarizeOptions\.timeoutMs: expected a whole number of milliseconds from 1/],
    [{ summarizeOptions: { retry: 1 } }, /options\.summarizeOptions\.retry: unknown key/],
    [{ telemetry: 5 }, /options\.telemetry: expected an object/],
    [null, /CondensationManager: options: expected an object, got null/],
  ])('new CondensationManager(%j) throws naming the option', (options, message) => {
    expect(made(options)).toEqual({ message: expect.stringMatching(message), errorCode: 'invalid-argument' })
  })

  it('a config value JSON has no form for is named by its path, everywhere a config is taken', () => {
    const cyclic: Record<string, unknown> = {}
    cyclic.self = cyclic
    expect(made({ config: { threshold: Number.NaN } })).toEqual({
      message: 'CondensationManager: config.threshold: NaN is not a JSON number',
      errorCode: 'invalid-argument',
    })
    const m = new CondensationManager({})
    expect(m.validateConfig({ threshold: Number.NaN })).toEqual([{ path: 'config.threshold', code: 'unsupported_value', message: 'NaN is not a JSON number' }])
    expect(() => m.setConfig(cyclic as any)).toThrow('config.self: the value contains itself (a cycle)')
    expect(() => m.getEffectiveThreshold(3 as any)).toThrow('getEffectiveThreshold: profileId: expected a string, got number 3')
  })

  it("condenseIfNeeded names its context's fields as the caller passed them", async () => {
    const m = new CondensationManager({ config: { provider: 'lossless' } })
    const h = history(5_000)
    await expect(m.condenseIfNeeded(h, { contextWindow: 2 ** 60 })).rejects.toThrow(/condenseIfNeeded: context\.contextWindow: expected a whole number >= 0/)
    await expect(m.condenseIfNeeded(h, { contextWindow: 50_000, totalTokens: -1 })).rejects.toThrow(/condenseIfNeeded: context\.totalTokens/)
    await expect(m.condenseIfNeeded(h, { contextWindow: 50_000, maxTokens: Number.NaN })).rejects.toThrow(
      /condenseIfNeeded: context\.maxTokens: expected a whole number >= 0, got NaN/,
    )
    await expect(m.condenseIfNeeded(h, { contextWindow: 50_000, profileId: 5 as any })).rejects.toThrow(
      /condenseIfNeeded: context\.profileId: expected a string/,
    )
    const policy = new CondensationManager({ config: { provider: 'lossless' }, policy: 'cache-aware' })
    await expect(policy.condenseIfNeeded(h, { contextWindow: 50_000, maxTokens: -5, systemPromptTokens: 100 })).rejects.toThrow(
      /condenseIfNeeded: context\.maxTokens/,
    )
    // decide() keeps naming its own argument.
    expect(() => m.decide({ totalTokens: -1, contextWindow: 1000 })).toThrow(/situation\.totalTokens/)
  })
})

describe('slidingWindow', () => {
  const h: ApiMessage[] = ['a', 'b', 'c', 'd', 'e'].map((content, i) => ({ role: i % 2 ? 'assistant' : 'user', content }))
  it.each([Number.NaN, Number.POSITIVE_INFINITY, -1, 1.5, '0.5', null])('refuses the fraction %s, naming it', (frac) => {
    expect(() => slidingWindow(h, frac as any)).toThrow(/slidingWindow: fracToRemove: expected a number from 0 to 1/)
    try {
      slidingWindow(h, frac as any)
    } catch (e: any) {
      expect(e.errorCode).toBe('invalid-argument')
    }
  })
  it('keeps the first message and drops an even number of the oldest others', () => {
    expect(slidingWindow(h).map((m) => m.content)).toEqual(['a', 'd', 'e'])
    expect(slidingWindow(h, 0).map((m) => m.content)).toEqual(['a', 'b', 'c', 'd', 'e'])
    expect(slidingWindow(h, 1).map((m) => m.content)).toEqual(['a'])
  })
})

describe('the stateless path is the model', () => {
  it('a pooled call after a refused one answers what condense answers', async () => {
    const m = new CondensationManager({ config: { provider: 'lossless' } })
    const h = history()
    // Forced, with room: Lossless's result is taken as it is (past the allowed size the window would cut it).
    await m.condenseIfNeeded(refused(h), { contextWindow: 1_000_000, taskId: 'model', force: true })
    const r = await m.condenseIfNeeded(h, { contextWindow: 1_000_000, taskId: 'model', force: true })
    const direct = await condense(h, { provider: 'lossless', prevContextTokens: r.prevContextTokens })
    expect(r.messages).toEqual(direct.messages)
  })
})

describe('the sliding window keeps references honest', () => {
  it("after Lossless, every marker the window keeps still expands to what it stood for (slidingWindow, which the manager's fallback and the replay use, and the Roo entries' destructive truncation)", async () => {
    const { checkMarkers } = await import('./reference-chains.mjs')
    const { truncateConversation } = await import('../lib/roo-2025.js')
    for (const seed of [1, 2, 3]) {
      const h = generateHistory({ seed, targetTokens: 120_000, format: seed === 2 ? 'native' : 'xml' }) as ApiMessage[]
      const lossless = (await condense(h, { provider: 'lossless' })).messages
      const cuts = { slidingWindow: slidingWindow(lossless, 0.5), roo: truncateConversation(lossless, 0.5, 't') as ApiMessage[] }
      for (const [name, cut] of Object.entries(cuts)) {
        const checked = checkMarkers([h, lossless], cut)
        expect(checked.bad, `${name}, seed ${seed}`).toEqual([])
        expect(checked.markers + checked.omitted, `${name}, seed ${seed}: the cut keeps some markers`).toBeGreaterThan(0)
        // Messages that held no marker are the caller's own objects.
        const plain = lossless.filter((m) => !JSON.stringify(m.content).includes('⟨ Reference: '))
        const kept = cut.filter((m) => lossless.includes(m))
        expect(kept.length, `${name}, seed ${seed}`).toBeGreaterThanOrEqual(cut.length - (lossless.length - plain.length))
        for (const m of cut.slice(1))
          if (!lossless.includes(m)) expect(JSON.stringify(lossless[lossless.length - cut.length + cut.indexOf(m)].content)).toContain('⟨ Reference: ')
      }
    }
  })
})

describe('a bad signal leaves the task usable', () => {
  it('condenseIfNeeded with a signal that is not an AbortSignal is refused naming it, and the task still answers after', async () => {
    const m = new CondensationManager({ config: { provider: 'lossless' } })
    const h = history(20_000)
    const ctx = { contextWindow: 50_000, taskId: 'bad-signal', force: true }
    await expect(m.condenseIfNeeded(h, { ...ctx, signal: 5 as any })).rejects.toMatchObject({
      message: expect.stringMatching(/condenseIfNeeded: context\.signal: expected an AbortSignal, got number 5/),
      errorCode: 'invalid-argument',
    })
    const after = await settle(m.condenseIfNeeded(h, ctx))
    expect(after !== 'hang' && after.ok && after.value.condensed).toBe(true)
    expect(await settle(m.closeConversations())).not.toBe('hang')
  })
})

describe('error messages stay small', () => {
  it('a huge string where options belong is named by its length, not quoted whole', async () => {
    const conv = await openConversation(history(5_000))
    const huge = 'x'.repeat(1 << 20)
    const error = await conv.condense(huge as any).catch((e: Error) => e)
    expect(error).toBeInstanceOf(TypeError)
    expect((error as Error).message).toMatch(/conversation\.condense: options: expected an object .*got a string of 1048576 characters starting "xxxx/)
    expect((error as Error).message.length).toBeLessThan(300)
    conv.close()
  })
})
