// The manager's cache-aware policy, used as a host uses it: one condenseIfNeeded per request over a
// growing history (a generated task split into its requests). It condenses in batches before the
// trigger and summarizes less than the default policy, keeps its state per task, refuses bad
// settings naming the key, never changes the caller's messages, keeps the condensing invariants,
// and is what the replay measures (the replay's condensings are the manager's steps).
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import {
  CondensationManager,
  countTokens,
  replay,
  slidingWindow,
  validateConversation,
  type ApiMessage,
  type CondenseResult,
  type ManagedResult,
} from '../lib/index.js'
import { assertInvariants } from './helpers.js'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { splitTurns } = require('../lib/replay/messages.js') as { splitTurns(h: ApiMessage[]): Array<{ append: ApiMessage[]; at: number; sentAt: number }> }

const SYSTEM = 3000
const MAX_TOKENS = 4000
const TEXT = 'Summary: the user asked for a refactor of the parser; files read and edited; tests run and passing; next step pending. '.repeat(5)

/** A summarize callback that answers the same text every time, and counts its calls. */
function summarizer() {
  const s = {
    calls: 0,
    summarize: async () => {
      s.calls++
      return { text: TEXT, inputTokens: 1000, outputTokens: 100 }
    },
  }
  return s
}

const MS_PER_REQUEST = 20_000

/**
 * A host: before each request of `history` it appends what the task added, asks the manager, sends
 * what it hands back (its own sliding window past the allowed size, as Roo does) and keeps that.
 * `inPlace`: it appends to its own array (as Roo does) instead of making a new one per request.
 */
function host(manager: CondensationManager, history: ApiMessage[], o: { taskId: string; window: number; clock?: { turn: number }; inPlace?: boolean }) {
  const turns = splitTurns(history)
  const allowed = o.window * 0.9 - MAX_TOKENS
  let messages: ApiMessage[] = []
  let k = 0
  const results: ManagedResult[] = []
  const slid: number[] = []
  return {
    turns: turns.length,
    results,
    slid,
    get messages() {
      return messages
    },
    /** The next request; false when the task is over. */
    async step(check?: (input: ApiMessage[], snapshot: ApiMessage[], r: ManagedResult) => void) {
      if (k >= turns.length) return false
      if (o.clock) o.clock.turn = k
      if (o.inPlace) messages.push(...turns[k].append)
      else messages = [...messages, ...turns[k].append]
      const snapshot = check ? structuredClone(messages) : []
      const last = countTokens(messages.slice(-1))
      const r = await manager.condenseIfNeeded(messages, {
        contextWindow: o.window,
        maxTokens: MAX_TOKENS,
        taskId: o.taskId,
        systemPromptTokens: SYSTEM,
        // What Roo passes; the policy counts the history itself, the default takes these.
        totalTokens: SYSTEM + countTokens(messages) - last,
        lastMessageTokens: last,
      })
      if (check) check(messages, snapshot, r)
      results.push(r)
      let next = r.messages === messages ? messages : [...r.messages]
      while (SYSTEM + countTokens(next) > allowed && next.length > 2) {
        const cut = slidingWindow(next, 0.5)
        if (cut.length === next.length) break
        next = cut
      }
      if (next.length !== r.messages.length) slid.push(k)
      messages = next
      k++
      return true
    },
  }
}

async function runAll(h: ReturnType<typeof host>, check?: Parameters<ReturnType<typeof host>['step']>[0]) {
  while (await h.step(check));
  return h
}

const taken = (r: ManagedResult) => (r.policy ? r.policy.steps.filter((s) => s.taken) : [])

describe('a host with the cache-aware policy', () => {
  const task = generateHistory({ seed: 2, format: 'xml', targetTokens: 300_000 }) as ApiMessage[]
  const window = 64_000

  it('condenses in batches before the trigger, and summarizes at most half as often as the default policy', async () => {
    const plain = summarizer()
    const byDefault = await runAll(host(new CondensationManager({ summarize: plain.summarize }), task, { taskId: 't', window }))
    const aware = summarizer()
    const manager = new CondensationManager({ policy: 'cache-aware', summarize: aware.summarize })
    const h = await runAll(host(manager, task, { taskId: 't', window }))
    expect(h.results.every((r) => r.policy !== undefined && r.policy.name === 'cache-aware')).toBe(true)
    // The default summarizes here, several times.
    expect(plain.calls).toBeGreaterThanOrEqual(4)
    expect(byDefault.results.every((r) => r.policy === undefined)).toBe(true)
    expect(aware.calls).toBeGreaterThan(0)
    expect(aware.calls).toBeLessThanOrEqual(plain.calls / 2)
    // Batches: Lossless or Smart taken below the trigger, on a few requests.
    const isBatch = (r: ManagedResult, st: { role: string; tokensBefore: number }) =>
      (st.role === 'lossless' || st.role === 'smart') && st.tokensBefore < r.policy!.triggerTokens
    const batches = h.results.filter((r) => taken(r).some((st) => isBatch(r, st)))
    expect(batches.length).toBeGreaterThanOrEqual(3)
    expect(batches.length).toBeLessThan(h.turns / 5)
    // It asks again only once the context has grown by a batch since it last tried (where nothing
    // else condensed in between: a summary or the trigger also resets where it counts from).
    const tries = h.results.map((r, i) => ({ i, r, tried: r.policy!.steps.some((st) => isBatch(r, st)) })).filter((x) => x.tried)
    let pairs = 0
    for (let k = 1; k < tries.length; k++) {
      const [a, b] = [tries[k - 1], tries[k]]
      const quiet =
        a.r.policy!.steps.every((st) => isBatch(a.r, st)) &&
        h.results.slice(a.i + 1, b.i).every((r) => r.policy!.steps.length === 0) &&
        isBatch(b.r, b.r.policy!.steps[0])
      if (!quiet) continue
      pairs++
      expect(b.r.policy!.promptTokens - a.r.newContextTokens, `try at turn ${b.i}`).toBeGreaterThanOrEqual(b.r.policy!.batchTokens)
      // And not much later: it tried on the first request past the batch.
      expect(h.results[b.i - 1].newContextTokens - a.r.newContextTokens, `turn ${b.i - 1}`).toBeLessThan(h.results[b.i - 1].policy!.batchTokens)
    }
    expect(pairs).toBeGreaterThanOrEqual(2)
    // Each step says why; the turns count the requests.
    expect(h.results.map((r) => r.policy!.turn)).toEqual(h.results.map((_, i) => i))
    for (const r of h.results) for (const s of r.policy!.steps) expect(s.why.length, `${r.policy!.turn} ${s.role}`).toBeGreaterThan(10)
    // It never needed the host's sliding window.
    expect(h.slid).toEqual([])
  }, 60_000)

  it('keeps the condensing invariants and hands back the caller’s messages untouched', async () => {
    const manager = new CondensationManager({ policy: { name: 'cache-aware-strict', cache: 'openai' }, summarize: summarizer().summarize })
    let checked = 0
    await runAll(host(manager, task, { taskId: 't', window }), (input, snapshot, r) => {
      // The caller's messages, deep-equal to what they were before the call.
      expect(input).toEqual(snapshot)
      // Valid whenever the input was; never more tokens; the figures are the measured ones.
      expect(validateConversation(r.messages).length).toBeLessThanOrEqual(validateConversation(input).length)
      expect(countTokens(r.messages)).toBeLessThanOrEqual(countTokens(input))
      expect(r.prevContextTokens).toBe(SYSTEM + countTokens(input))
      expect(r.newContextTokens).toBe(SYSTEM + countTokens(r.messages))
      if (!r.condensed) {
        expect(r.messages).toBe(input)
        return
      }
      expect(r.newContextTokens).toBeLessThan(r.prevContextTokens)
      // Messages it did not change are the caller's own objects.
      const own = new Set(input)
      expect(r.messages.some((m) => own.has(m))).toBe(true)
      // Without a summary the history keeps every message in place: the invariants of every condensation.
      if (taken(r).every((s) => s.provider === 'lossless' || s.provider === 'smart')) {
        assertInvariants(input, snapshot, r as unknown as CondenseResult)
        checked++
      }
    })
    expect(checked).toBeGreaterThanOrEqual(3)
  }, 60_000)

  it('keeps its state per task: two tasks interleaved give what each gives alone', async () => {
    const other = generateHistory({ seed: 3, format: 'native', targetTokens: 200_000 }) as ApiMessage[]
    const alone = async (history: ApiMessage[], taskId: string) => {
      const clock = { turn: 0 }
      const m = new CondensationManager({ policy: 'cache-aware', summarize: summarizer().summarize, now: () => clock.turn * MS_PER_REQUEST })
      return runAll(host(m, history, { taskId, window, clock }))
    }
    const a = await alone(task, 'a')
    const b = await alone(other, 'b')
    const clocks = { a: { turn: 0 }, b: { turn: 0 } }
    // One clock per task: the loop guard reads the manager's clock, and the tasks move at their own pace.
    let now = () => 0
    const shared = new CondensationManager({ policy: 'cache-aware', summarize: summarizer().summarize, now: () => now() })
    const ha = host(shared, task, { taskId: 'a', window, clock: clocks.a })
    const hb = host(shared, other, { taskId: 'b', window, clock: clocks.b })
    for (let more = true; more; ) {
      now = () => clocks.a.turn * MS_PER_REQUEST
      const x = await ha.step()
      now = () => clocks.b.turn * MS_PER_REQUEST
      const y = await hb.step()
      more = x || y
    }
    const strip = (rs: ManagedResult[]) => rs.map((r) => ({ messages: r.messages, policy: r.policy, condensed: r.condensed }))
    // Both condense, so the state matters.
    expect(a.results.some((r) => r.condensed) && b.results.some((r) => r.condensed)).toBe(true)
    expect(strip(ha.results)).toEqual(strip(a.results))
    expect(strip(hb.results)).toEqual(strip(b.results))
  }, 120_000)

  it('a host that appends to its own array in place gets the same answers', async () => {
    const run = async (inPlace: boolean) => {
      const m = new CondensationManager({ policy: 'cache-aware', summarize: summarizer().summarize })
      return runAll(host(m, task, { taskId: 't', window, inPlace }))
    }
    const fresh = await run(false)
    const inPlace = await run(true)
    expect(inPlace.results.map((r) => r.policy)).toEqual(fresh.results.map((r) => r.policy))
    expect(inPlace.messages).toEqual(fresh.messages)
  }, 60_000)

  it('is what the replay measures: its condensings are the steps the manager took', async () => {
    const h = generateHistory({ seed: 4, format: 'native', targetTokens: 150_000 }) as ApiMessage[]
    const s = summarizer()
    const r = await replay(h, { policy: 'cache-aware', contextWindow: 48_000, systemTokens: SYSTEM, maxTokens: MAX_TOKENS, summarize: s.summarize })
    // The replay's clock: the recorded times (this history has pauses the cache does not outlive).
    const at = splitTurns(h).map((t) => t.sentAt)
    const clock = { turn: 0 }
    const m = new CondensationManager({
      config: { provider: 'native', threshold: 100 },
      policy: { name: 'cache-aware', summaryTokens: 2000 },
      summarize: summarizer().summarize,
      conversations: 1,
      now: () => at[clock.turn],
    })
    const own = await runAll(host(m, h, { taskId: 'replay', window: 48_000, clock }))
    const steps = own.results.flatMap((x, turn) =>
      taken(x).map((t) => ({ turn, role: t.role, provider: t.provider, tokensBefore: t.tokensBefore, tokensAfter: t.tokensAfter })),
    )
    const fromReplay = r.condensings
      .filter((c) => c.role !== 'host')
      .map((c) => ({ turn: c.turn, role: c.role, provider: c.provider, tokensBefore: c.tokensBefore, tokensAfter: c.tokensAfter }))
    expect(steps.length).toBeGreaterThan(3)
    expect(fromReplay).toEqual(steps)
    expect(r.condensings.filter((c) => c.role === 'host').map((c) => c.turn)).toEqual(own.slid)
    expect(r.messages).toEqual(own.messages)
  }, 60_000)

  it("prices Roo's default on the same task beside itself: what the replay bills roo-default; on a short task both bills are the same", async () => {
    // Without recorded times the replay sends requests 20 s apart: no cache entry expires, as in the policy's model.
    const untimed = (h: ApiMessage[]) => h.map(({ ts: _, ...m }) => m as ApiMessage)
    const bills = async (h: ApiMessage[], window: number) => {
      const m = new CondensationManager({ policy: { name: 'cache-aware', lookbackBlocks: 20 }, summarize: summarizer().summarize })
      const own = await runAll(host(m, h, { taskId: 't', window }))
      const roo = await replay(h, { policy: 'roo-default', contextWindow: window, systemTokens: SYSTEM, maxTokens: MAX_TOKENS })
      // The report's bills stop at the request before the last call's.
      const rooBilled = roo.requestsCost - roo.perRequest[roo.perRequest.length - 1].cost + roo.summaryCost
      return { own, roo, rooBilled, last: own.results[own.results.length - 1].policy! }
    }
    // Roo's default summarizes twice here: the shadow's bill is the replay's, within 2 % (the
    // shadow counts what a summary reads from the messages, the replay's stand-in from their text).
    const long = await bills(untimed(generateHistory({ seed: 1, format: 'native', targetTokens: 100_000 }) as ApiMessage[]), 48_000)
    expect(long.roo.summaries).toBeGreaterThanOrEqual(2)
    expect(long.last.rooDefaultBilled).toBeGreaterThan(0.98 * long.rooBilled)
    expect(long.last.rooDefaultBilled).toBeLessThan(1.02 * long.rooBilled)
    // Too short to pay a step back: it condenses nothing, and is billed what Roo's default is, on every call.
    const short = await bills(untimed(generateHistory({ seed: 2, format: 'native', targetTokens: 30_000 }) as ApiMessage[]), 128_000)
    expect(short.own.results.every((r) => !r.condensed && r.policy!.billed === r.policy!.rooDefaultBilled)).toBe(true)
    expect(short.last.rooDefaultBilled).toBeCloseTo(short.rooBilled, 9)
  }, 60_000)

  it('condenses when the cache has expired: after a pause longer than its life, at once, and never because of it otherwise', async () => {
    const h = generateHistory({ seed: 1, format: 'native', targetTokens: 100_000 }) as ApiMessage[]
    const at = splitTurns(h).map((t) => t.sentAt)
    const COLD = 'the cache holds nothing to read'
    const run = async (times: number[]) => {
      const clock = { turn: 0 }
      const m = new CondensationManager({ policy: 'cache-aware', summarize: summarizer().summarize, now: () => times[clock.turn] })
      const own = await runAll(host(m, h, { taskId: 't', window: 128_000, clock }))
      return own.results.map((r) => r.policy!.steps.filter((s) => s.why.startsWith(COLD)))
    }
    const timed = await run(at)
    const expired = at.map((t, k) => k > 0 && t - at[k - 1] > 5 * 60_000)
    expect(expired.filter(Boolean).length).toBeGreaterThanOrEqual(2)
    // Asked only on a call after an expiry (or on the task's first, which nothing was cached for) ...
    timed.forEach((steps, k) => {
      if (steps.length > 0) expect(k === 0 || expired[k], `call ${k}`).toBe(true)
    })
    // ... and taken after the long pauses: the history then has old output to suppress.
    expect(timed.filter((steps, k) => expired[k] && steps.some((s) => s.taken)).length).toBeGreaterThanOrEqual(1)
    // The same requests 20 s apart: never.
    const paced = await run(at.map((_, k) => k * 20_000))
    expect(paced.slice(1).every((steps) => steps.length === 0)).toBe(true)
  }, 60_000)

  it('reads its clock once a call and refuses an answer that is no time, leaving the task as it was', async () => {
    const h = generateHistory({ seed: 1, format: 'native', targetTokens: 60_000 }) as ApiMessage[]
    const context = { contextWindow: 48_000, systemPromptTokens: SYSTEM, taskId: 't' }
    let answer: unknown = 0
    const m = new CondensationManager({ policy: 'cache-aware', summarize: summarizer().summarize, now: () => answer as number })
    // The same clock, never read while it answers no time.
    const plain = new CondensationManager({ policy: 'cache-aware', summarize: summarizer().summarize, now: () => answer as number })
    const snapshot = structuredClone(h)
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, 10n, undefined, '1000', null]) {
      answer = bad
      await expect(m.condenseIfNeeded(h, context), String(bad)).rejects.toThrow(
        /^CondensationManager: options\.now: expected a function answering the time in ms, it answered /,
      )
    }
    expect(h).toEqual(snapshot)
    // A clock that throws: its error, as it was.
    const throwing = new CondensationManager({
      policy: 'cache-aware',
      now: () => {
        throw new Error('clock broke')
      },
    })
    await expect(throwing.condenseIfNeeded(h, context)).rejects.toThrow('clock broke')
    // Then times: the task answers what a manager never given a bad one answers (a clock that goes
    // back is a time too; 2^60 ms after the last call the cache has expired and both condense).
    for (const t of [0, -1, 2 ** 60, 5]) {
      answer = t
      const [a, b] = [await m.condenseIfNeeded(h, context), await plain.condenseIfNeeded(h, context)]
      expect(a.messages).toEqual(b.messages)
    }
  })

  it('knows the cache expires: on the requests’ own clock its bills are what the replay bills, pauses and all', async () => {
    // Recorded times with pauses longer than five minutes (the generator's resumed tasks).
    const h = generateHistory({ seed: 1, format: 'native', targetTokens: 100_000 }) as ApiMessage[]
    const at = splitTurns(h).map((t) => t.sentAt)
    const gaps = at.slice(1).map((t, k) => t - at[k])
    expect(Math.max(...gaps)).toBeGreaterThan(5 * 60_000)
    const run = async (cacheTtl: '5m' | '1h', pricing?: object) => {
      const clock = { turn: 0 }
      const m = new CondensationManager({
        policy: { name: 'cache-aware', cacheTtl, lookbackBlocks: 20, ...(pricing ? { pricing } : {}) },
        summarize: summarizer().summarize,
        now: () => at[clock.turn],
      })
      const own = await runAll(host(m, h, { taskId: 't', window: 128_000, clock }))
      return own.results[own.results.length - 1].policy!
    }
    const roo = await replay(h, { policy: 'roo-default', contextWindow: 128_000, systemTokens: SYSTEM, maxTokens: MAX_TOKENS })
    const rooBilled = roo.requestsCost - roo.perRequest[roo.perRequest.length - 1].cost + roo.summaryCost
    const fiveMinutes = await run('5m')
    // Its shadow of Roo's default is billed what the replay bills it, to the cent: the requests after a pause written again.
    expect(fiveMinutes.rooDefaultBilled).toBeCloseTo(rooBilled, 2)
    // With the one-hour cache at the same prices no entry expires here: Roo's default is billed less.
    const samePrices = roo.settings.pricing
    const oneHour = await run('1h', samePrices)
    const rooOneHour = await replay(h, {
      policy: 'roo-default',
      contextWindow: 128_000,
      systemTokens: SYSTEM,
      maxTokens: MAX_TOKENS,
      cacheTtl: '1h',
      pricing: samePrices,
    })
    expect(oneHour.rooDefaultBilled).toBeLessThan(fiveMinutes.rooDefaultBilled)
    expect(oneHour.rooDefaultBilled).toBeCloseTo(
      rooOneHour.requestsCost - rooOneHour.perRequest[rooOneHour.perRequest.length - 1].cost + rooOneHour.summaryCost,
      2,
    )
  }, 60_000)
})

describe('the policy setting', () => {
  it('refuses bad settings, naming the key', async () => {
    const bad: Array<[unknown, RegExp]> = [
      ['fastest', /^CondensationManager: options\.policy: expected one of default, cache-aware, cache-aware-strict, got "fastest"$/],
      [{ name: 'cheap' }, /^CondensationManager: options\.policy\.name: expected one of default, cache-aware, cache-aware-strict, got "cheap"$/],
      [42, /^CondensationManager: options\.policy: expected one of "default", "cache-aware", "cache-aware-strict" or an object/],
      [{ name: 'cache-aware', cach: 'openai' }, /^CondensationManager: options\.policy\.cach: unknown key, expected one of name, cache, cacheTtl, pricing,/],
      [{ name: 'cache-aware', cacheTtl: '10m' }, /^CondensationManager: options\.policy\.cacheTtl: expected one of "5m", "1h", got "10m"$/],
      [{ name: 'cache-aware', cacheTtl: 300_000 }, /^CondensationManager: options\.policy\.cacheTtl: expected one of "5m", "1h", got number 300000$/],
      [{ name: 'cache-aware', cacheTtl: null }, /^CondensationManager: options\.policy\.cacheTtl: expected one of "5m", "1h", got null$/],
      [{ name: 'cache-aware', cache: 'gemini' }, /^CondensationManager: options\.policy\.cache: expected "anthropic" or "openai", got "gemini"$/],
      [{ name: 'cache-aware', pricing: { inputPrice: -1 } }, /^CondensationManager: options\.policy\.pricing\.inputPrice: expected a price >= 0/],
      [
        { name: 'cache-aware', pricing: { input: 3 } },
        /^CondensationManager: options\.policy\.pricing\.input: unknown key, expected one of inputPrice, outputPrice, cacheWritesPrice, cacheReadsPrice, accounting$/,
      ],
      [{ name: 'cache-aware', workingSetTurns: 0 }, /^CondensationManager: options\.policy\.workingSetTurns: expected a whole number >= 1, got number 0$/],
      [{ name: 'cache-aware', expectedTurns: 2.5 }, /^CondensationManager: options\.policy\.expectedTurns: expected a whole number >= 1, got number 2.5$/],
      [
        { name: 'cache-aware', cache: 'openai', lookbackBlocks: 20 },
        /^CondensationManager: options\.policy\.lookbackBlocks: applies to the "anthropic" cache model only$/,
      ],
      [{ name: 'default', cache: 'openai' }, /^CondensationManager: options\.policy\.cache: the default policy takes no settings$/],
    ]
    for (const [policy, message] of bad) {
      expect(() => new CondensationManager({ policy: policy as never }), JSON.stringify(policy)).toThrow(message)
      expect(() => new CondensationManager({ policy: policy as never })).toThrow(TypeError)
    }
    // The config is the engine's, and the policy is not one of its keys.
    expect(() => new CondensationManager({ config: { policy: 'cache-aware' } as never })).toThrow(/config\.policy: unknown key/)
    // A price list in the config that the policy would use is checked too.
    expect(() => new CondensationManager({ policy: 'cache-aware', config: { providers: { native: { pricing: { inputPrice: 'three' } } } } as never })).toThrow(
      /pricing/,
    )
    // Per call: the system prompt's size is needed, and checked.
    const m = new CondensationManager({ policy: 'cache-aware' })
    const h = [{ role: 'user' as const, content: 'hi' }]
    await expect(m.condenseIfNeeded(h, { contextWindow: 100_000 })).rejects.toThrow(
      /^condenseIfNeeded: context\.systemPromptTokens: the cache-aware policy prices each request with its system prompt/,
    )
    await expect(m.condenseIfNeeded(h, { contextWindow: 100_000, systemPromptTokens: -1 })).rejects.toThrow(
      /^condenseIfNeeded: context\.systemPromptTokens: expected a whole number >= 0, got number -1$/,
    )
    await expect(m.condenseIfNeeded(h, { contextWindow: 100_000, systemPrompt: 7 as never })).rejects.toThrow(
      /^condenseIfNeeded: context\.systemPrompt: expected a string, got number 7$/,
    )
    await expect(m.condenseIfNeeded(h, { contextWindow: 100_000, systemPromptTokens: 10, expectedTurns: 0 })).rejects.toThrow(
      /^condenseIfNeeded: context\.expectedTurns: expected a whole number >= 1, got number 0$/,
    )
    const e = await m.condenseIfNeeded(h, { contextWindow: 100_000 }).catch((x) => x)
    expect(e.errorCode).toBe('invalid-argument')
  })

  it('reads back as given, with its defaults; the prices default to the config provider’s, then the known ones', async () => {
    expect(new CondensationManager().policy).toEqual({ name: 'default' })
    expect(new CondensationManager({ policy: 'default' }).policy).toEqual({ name: 'default' })
    expect(new CondensationManager({ policy: 'cache-aware' }).policy).toEqual({
      name: 'cache-aware',
      cache: 'anthropic',
      cacheTtl: '5m',
      workingSetTurns: 10,
      summaryTokens: 2000,
    })
    const given = {
      name: 'cache-aware-strict' as const,
      cache: 'openai' as const,
      cacheTtl: '1h' as const,
      pricing: { inputPrice: 5 },
      expectedTurns: 40,
      workingSetTurns: 5,
      summaryTokens: 900,
    }
    expect(new CondensationManager({ policy: given }).policy).toEqual({
      ...given,
      pricing: { inputPrice: 5, outputPrice: 20, cacheWritesPrice: 5, cacheReadsPrice: 2.5 },
    })
    // A one-hour cache writes at twice the input price unless the prices say otherwise.
    expect(new CondensationManager({ policy: { name: 'cache-aware', cacheTtl: '1h' } }).policy).toMatchObject({ cacheTtl: '1h' })
    const oneHour = new CondensationManager({ policy: { name: 'cache-aware', cacheTtl: '1h', pricing: { inputPrice: 3 } } }).policy as {
      pricing: { cacheWritesPrice: number }
    }
    expect(oneHour.pricing.cacheWritesPrice).toBe(6)
    // The price a re-write costs shows in the batch size: a dearer cache write, a bigger batch.
    const h = generateHistory({ seed: 5, format: 'xml', targetTokens: 20_000 }) as ApiMessage[]
    const batchWith = async (config: object) => {
      const m = new CondensationManager({ policy: 'cache-aware', config })
      const r = await m.condenseIfNeeded(h, { contextWindow: 200_000, systemPromptTokens: SYSTEM, taskId: 't' })
      return r.policy!.batchTokens
    }
    const known = await batchWith({})
    const dear = await batchWith({ providers: { native: { pricing: { inputPrice: 3, cacheWritesPrice: 30, cacheReadsPrice: 0.3 } } } })
    expect(dear).toBeGreaterThan(known * 2)
  })
})
