// The manager's policy on Roo's context management (`policy` on manageContext and
// truncateConversationIfNeeded, lib/roo/policy.js): a Roo-shaped task replayed turn by turn through
// the entry and, beside it, through a CondensationManager with the same policy (the model): the
// entry condenses where the manager does, before Roo's threshold too, and the model is sent what
// the manager hands back; in both tool formats, destructive and non-destructive; its summaries are
// the host's handler's. Then what the option refuses, two tasks at once, an abort mid-call, and
// the calls without the option, unchanged.
import { describe, expect, it, vi } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { CondensationManager, type ApiMessage } from '../lib/index.js'
import * as roo2025 from '../lib/roo-2025.js'
import * as jan2026 from '../lib/roo-2026-01.js'
import * as today from '../lib/roo.js'
import type { ApiHandler, TruncateResponse } from '../lib/roo.js'
import { guard } from './roo-harness.js'

const SUMMARY = 'The user asked to fix the stream bug; the tests were run and the fix is in stream.ts.'
const WINDOW = 48_000
const MAX_TOKENS = 4000
const THRESHOLD = 80
const SYSTEM = 'You are Roo, a coding agent.'

/** A handler shaped like Roo's: createMessage streams the summary and a usage chunk. */
function handler(cost = 0.01) {
  const createMessage = vi.fn((_system: string, _messages: unknown[], _metadata?: unknown) =>
    (async function* () {
      yield { type: 'text' as const, text: SUMMARY }
      yield { type: 'usage' as const, inputTokens: 1000, outputTokens: 20, totalCost: cost }
    })(),
  )
  return { createMessage } as unknown as ApiHandler & { createMessage: typeof createMessage }
}

/** The recorded task as turns: the messages of each request (the user's) and the reply after it. */
function turnsOf(history: ApiMessage[]) {
  const turns: Array<{ request: ApiMessage[]; reply: ApiMessage[] }> = []
  let request: ApiMessage[] = []
  for (const m of history) {
    if (m.role === 'assistant') {
      turns.push({ request, reply: [m] })
      request = []
    } else request.push(m)
  }
  return turns
}

const content = (ms: ApiMessage[]) => ms.map(({ role, content }) => ({ role, content }))

type Era = 'roo-2025' | 'roo-2026-01' | 'roo'
type Answer = Promise<TruncateResponse<ApiMessage>>
const ENTRIES = {
  'roo-2025': (o: Record<string, unknown>) => roo2025.truncateConversationIfNeeded(o as never) as Answer,
  'roo-2026-01': (o: Record<string, unknown>) => jan2026.manageContext(o as never) as Answer,
  roo: (o: Record<string, unknown>) => today.manageContext(o as never) as Answer,
}
const effective = { 'roo-2025': (m: ApiMessage[]) => m, 'roo-2026-01': jan2026.getEffectiveApiHistory, roo: today.getEffectiveApiHistory }

/** Roo's arguments of one call over `messages` (the trigger: 80 % of a 48k window, 4,000 reserved). */
function rooCall(messages: ApiMessage[], taskId: string, apiHandler: ApiHandler, extra: Record<string, unknown> = {}) {
  return {
    messages,
    totalTokens: 0,
    contextWindow: WINDOW,
    maxTokens: MAX_TOKENS,
    apiHandler,
    autoCondenseContext: true,
    autoCondenseContextPercent: THRESHOLD,
    systemPrompt: SYSTEM,
    taskId,
    profileThresholds: {},
    currentProfileId: 'default',
    ...extra,
  }
}

/**
 * The task through the entry (`stored`, Roo's history) and through the manager with the same
 * policy (`model`), turn by turn; a host keeps the task's first message as it is (Roo's storage
 * never changes it), so the model's host does too. Stops after `stopAfterSummary` summaries when given.
 */
async function replayBoth(era: Era, history: ApiMessage[], policy: string, taskId: string, stopAfterSummary?: number) {
  const h = handler()
  const model = new CondensationManager({
    config: { threshold: THRESHOLD, provider: 'native', providers: { native: { keepLast: 3 } }, fallback: false },
    policy: policy as never,
  })
  const summarize = vi.fn(async () => ({ text: SUMMARY, cost: 0.01 }))
  let stored: ApiMessage[] = []
  let sent: ApiMessage[] = []
  const log: Array<{ turn: number; entry: string[]; model: string[]; beforeTrigger: boolean }> = []
  let summaries = 0
  let cost = 0
  for (const [turn, { request, reply }] of turnsOf(history).entries()) {
    stored = [...stored, ...request]
    sent = [...sent, ...request]
    if (stored.length >= 2) {
      const r = await ENTRIES[era](rooCall(stored, taskId, h, { policy }))
      const m = await model.condenseIfNeeded(sent, {
        contextWindow: WINDOW,
        maxTokens: MAX_TOKENS,
        profileId: 'default',
        taskId,
        systemPrompt: SYSTEM,
        summarize,
      })
      expect(r.error, `turn ${turn}`).toBeUndefined()
      cost += r.cost
      const taken = (x: { policy?: { steps: Array<{ role: string; taken: boolean }> } }) => (x.policy?.steps ?? []).filter((s) => s.taken).map((s) => s.role)
      if (m.condensed) log.push({ turn, entry: taken(r as never), model: taken(m), beforeTrigger: !m.decision.condense })
      else expect(r.messages, `turn ${turn}: not condensed, the history comes back as it was`).toBe(stored)
      stored = r.messages
      sent = m.messages[0] === sent[0] ? m.messages : [sent[0], ...m.messages.slice(1)]
      if (m.condensed && taken(m).some((role) => role === 'summary' || role === 'ownSummary')) summaries++
      if (era !== 'roo' || summaries === 0) expect(content(effective[era](stored)), `turn ${turn}: what the model is sent`).toEqual(content(sent))
      if (stopAfterSummary !== undefined && summaries >= stopAfterSummary) return { log, stored, sent, h, summarize, turn, cost }
    }
    stored = [...stored, ...reply]
    sent = [...sent, ...reply]
  }
  return { log, stored, sent, h, summarize, turn: -1, cost }
}

describe('a Roo task through the entry with the policy, against the manager with the same policy', () => {
  const cases: Array<[Era, 'native' | 'xml', string]> = [
    ['roo-2026-01', 'native', 'cache-aware'],
    ['roo-2026-01', 'xml', 'cache-aware-strict'],
    ['roo-2025', 'native', 'cache-aware'],
    ['roo-2025', 'xml', 'cache-aware'],
  ]
  for (const [era, format, policy] of cases) {
    it(`${era}, ${format} tools, ${policy}: condenses where the manager does (before the threshold too), the model sent what the manager hands back`, async () => {
      const history = generateHistory({ seed: 3, format, targetTokens: 120_000 }) as ApiMessage[]
      const { log, stored, h, summarize, cost } = await replayBoth(era, guard(history), policy, `${era}-${format}`)
      expect(log.length).toBeGreaterThan(2)
      for (const x of log) expect(x.entry, `turn ${x.turn}`).toEqual(x.model)
      // Some condensing came before Roo's own trigger: the default (no policy) leaves those histories alone.
      expect(log.some((x) => x.beforeTrigger)).toBe(true)
      // Its summaries are the host handler's: one request per summary the manager made.
      expect(h.createMessage).toHaveBeenCalledTimes(summarize.mock.calls.length)
      expect(summarize.mock.calls.length).toBeGreaterThan(0)
      // What the handler's usage chunks said each summary cost.
      expect(cost).toBeCloseTo(0.01 * h.createMessage.mock.calls.length, 10)
      if (era === 'roo-2025') expect(stored.some((m) => 'condenseParent' in m)).toBe(false)
      else {
        // Nothing removed: what was condensed is tagged, what replaced it follows it.
        expect(stored.length).toBeGreaterThan(history.length)
        expect(stored.filter((m) => m.isSummary).every((m) => typeof m.condenseId === 'string')).toBe(true)
      }
    }, 120_000)
  }

  it('where Roo would not condense, the entry with the policy may: the same history, with and without it', async () => {
    const history = generateHistory({ seed: 3, format: 'native', targetTokens: 120_000 }) as ApiMessage[]
    const { log } = await replayBoth('roo-2026-01', history, 'cache-aware', 'before-trigger')
    const early = log.find((x) => x.beforeTrigger)!
    // Replayed up to that turn's request, the call without the policy changes nothing.
    const upTo = turnsOf(history)
      .slice(0, early.turn + 1)
      .flatMap((t, i) => (i === early.turn ? t.request : [...t.request, ...t.reply]))
    const without = await jan2026.manageContext(rooCall(upTo, 'before-trigger-default', handler()) as never)
    expect(without.messages).toBe(upTo)
    expect(without.error).toBeUndefined()
  }, 120_000)

  it("roo (today): the policy's summary is stored as today's Roo reads one (it is sent from the summary on), through the handler with Roo's metadata", async () => {
    const history = generateHistory({ seed: 3, format: 'native', targetTokens: 120_000 }) as ApiMessage[]
    const { stored, sent, h } = await replayBoth('roo', history, 'cache-aware', 'today-task', 1)
    let at = -1
    stored.forEach((m, i) => {
      if (m.isSummary) at = i
    })
    expect(at).toBeGreaterThan(0)
    const summary = stored[at]
    expect(summary.condenseId).toEqual(expect.any(String))
    // Written as today's Roo writes its own summary (no command blocks in this task's first message).
    const blocks = summary.content as Array<{ type: string; text: string }>
    expect(blocks).toHaveLength(1)
    expect(blocks[0].text.startsWith(`## Conversation Summary\n${SUMMARY}`)).toBe(true)
    // What the model is sent: the manager's result from its summary on, the summary as Roo writes it.
    const from = content(sent).findIndex((m) => JSON.stringify(m.content).includes(SUMMARY))
    const sentFrom = content(sent).slice(from)
    expect(content(today.getEffectiveApiHistory(stored))).toEqual([{ role: 'user', content: summary.content }, ...sentFrom.slice(1)])
    // Today's handler gets Roo's third argument (the request's metadata; none given here).
    expect(h.createMessage.mock.calls[0].length).toBe(3)
  }, 120_000)

  it("roo (today): the policy's summary keeps what Roo's own keeps once the first message is no longer sent: the task's active workflows and the environment details", async () => {
    const history = generateHistory({ seed: 3, format: 'native', targetTokens: 120_000 }) as ApiMessage[]
    const command = '<command name="release">Run the release checklist before every commit.</command>'
    const first = history[0]
    const firstText = typeof first.content === 'string' ? first.content : JSON.stringify(first.content)
    history[0] = { ...first, content: [{ type: 'text', text: `${command}\n${firstText}` }] }
    const environmentDetails = '<environment_details>\n# Current Time\n2026-11-27\n</environment_details>'
    const h = handler()
    let stored: ApiMessage[] = []
    let summary: ApiMessage | undefined
    for (const { request, reply } of turnsOf(history)) {
      stored = [...stored, ...request]
      if (stored.length >= 2) {
        const r = await today.manageContext(rooCall(stored, 'today-workflows', h, { policy: 'cache-aware', environmentDetails }) as never)
        expect(r.error).toBeUndefined()
        stored = r.messages as ApiMessage[]
        summary = stored.find((m) => m.isSummary)
        if (summary) break
      }
      stored = [...stored, ...reply]
    }
    expect(summary, 'the policy summarized within the task').toBeDefined()
    const texts = ((summary as ApiMessage).content as Array<{ type: string; text: string }>).map((b) => b.text)
    expect(texts[0].startsWith(`## Conversation Summary\n${SUMMARY}`)).toBe(true)
    expect(texts).toContain(
      `<system-reminder>\n## Active Workflows\nThe following directives must be maintained across all future condensings:\n${command}\n</system-reminder>`,
    )
    expect(texts).toContain(environmentDetails)
    // The first message is no longer sent; its workflows are, in the summary.
    const sentNow = today.getEffectiveApiHistory(stored)
    expect(sentNow[0]).toBe(summary)
    expect(sentNow[0].role, 'a request begins with a user message').toBe('user')
  }, 120_000)
})

describe('the policy option refuses what the manager refuses, naming it', () => {
  const cyclic: Record<string, unknown> = { name: 'cache-aware' }
  cyclic.pricing = cyclic
  const throwing = {
    get name(): string {
      throw new Error('a getter of the host')
    },
  }
  const hostile: Array<[string, unknown, string]> = [
    [
      'NaN',
      Number.NaN,
      'options.policy: expected one of "default", "cache-aware", "cache-aware-strict" or an object { name, cache, pricing, ... }, got number NaN',
    ],
    ['-1', -1, 'options.policy: expected one of "default", "cache-aware", "cache-aware-strict" or an object { name, cache, pricing, ... }, got number -1'],
    [
      '2^31',
      2 ** 31,
      'options.policy: expected one of "default", "cache-aware", "cache-aware-strict" or an object { name, cache, pricing, ... }, got number 2147483648',
    ],
    [
      'a BigInt',
      10n,
      'options.policy: expected one of "default", "cache-aware", "cache-aware-strict" or an object { name, cache, pricing, ... }, got bigint 10n',
    ],
    ['an unknown name', 'fast', 'options.policy: expected one of default, cache-aware, cache-aware-strict, got "fast"'],
    ['a wrong type of name', { name: 3 }, 'options.policy.name: expected one of default, cache-aware, cache-aware-strict, got number 3'],
    ['an unknown cache', { name: 'cache-aware', cache: 'gemini' }, 'options.policy.cache: expected "anthropic" or "openai", got "gemini"'],
    ['NaN turns', { name: 'cache-aware', expectedTurns: Number.NaN }, 'options.policy.expectedTurns: expected a whole number >= 1, got number NaN'],
    ['-1 tokens', { name: 'cache-aware', summaryTokens: -1 }, 'options.policy.summaryTokens: expected a whole number >= 1, got number -1'],
    ['a cycle', cyclic, 'options.policy.pricing.name: unknown key'],
    ['a throwing getter', throwing, 'options.policy: could not be read: a getter of the host'],
    ['an unknown key', { name: 'cache-aware', turns: 3 }, 'options.policy.turns: unknown key'],
    ['settings on the default', { name: 'default', cache: 'openai' }, 'options.policy.cache: the default policy takes no settings'],
  ]
  for (const [what, value, text] of hostile) {
    it(`${what}: an error result naming options.policy, the history unchanged, no request; configure throws naming it`, async () => {
      const h = handler()
      const messages = guard(
        turnsOf(generateHistory({ seed: 1, format: 'xml', targetTokens: 20_000 }) as ApiMessage[]).flatMap((t) => [...t.request, ...t.reply]),
      )
      for (const [name, call] of [
        ['manageContext', (o: Record<string, unknown>) => today.manageContext(o as never)],
        ['manageContext', (o: Record<string, unknown>) => jan2026.manageContext(o as never)],
        ['truncateConversationIfNeeded', (o: Record<string, unknown>) => roo2025.truncateConversationIfNeeded(o as never)],
      ] as const) {
        const r = await call(rooCall(messages, 'hostile', h, { policy: value, totalTokens: 60_000 }))
        expect(r.messages).toBe(messages)
        expect(r.error).toContain(`Failed to condense context: ${name}: ${text}`)
      }
      expect(h.createMessage).not.toHaveBeenCalled()
      let thrown: (Error & { errorCode?: string }) | undefined
      try {
        today.configure({ policy: value as never })
      } catch (e) {
        thrown = e as Error
      }
      expect(thrown).toBeInstanceOf(TypeError)
      expect(thrown!.message).toContain(`configure: ${text}`)
      expect(thrown!.errorCode).toBe('invalid-argument')
      expect(today.configuration().policy).toBeUndefined()
    })
  }
})

describe('calls at once, an abort, and no option', () => {
  it('two tasks at once: each as it is alone (the per-task state is kept apart)', async () => {
    const a = generateHistory({ seed: 5, format: 'native', targetTokens: 90_000 }) as ApiMessage[]
    const b = generateHistory({ seed: 6, format: 'xml', targetTokens: 90_000 }) as ApiMessage[]
    const run = async (history: ApiMessage[], taskId: string) => {
      const h = handler()
      let stored: ApiMessage[] = []
      const seen: string[] = []
      for (const { request, reply } of turnsOf(history)) {
        stored = [...stored, ...request]
        if (stored.length >= 2) {
          const r = await ENTRIES['roo-2026-01'](rooCall(stored, taskId, h, { policy: 'cache-aware' }))
          expect(r.error).toBeUndefined()
          seen.push(JSON.stringify(content(jan2026.getEffectiveApiHistory(r.messages))))
          stored = r.messages
        }
        stored = [...stored, ...reply]
      }
      return seen
    }
    const alone = [await run(a, 'alone-a'), await run(b, 'alone-b')]
    const together = await Promise.all([run(a, 'together-a'), run(b, 'together-b')])
    expect(together[0]).toEqual(alone[0])
    expect(together[1]).toEqual(alone[1])
  }, 180_000)

  it('an abort while the handler writes the summary: "Context condensing was aborted", the history unchanged, no sliding window', async () => {
    // Plain text only: neither Lossless nor Smart without model calls can shorten it, so the policy asks for the summary.
    const messages = guard(
      Array.from({ length: 14 }, (_, i) => ({
        role: i % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: `Message ${i}: ${'the design discussion goes on with more detail '.repeat(420)}`,
      })),
    )
    const controller = new AbortController()
    let release: () => void = () => {}
    const createMessage = vi.fn(() =>
      (async function* () {
        controller.abort()
        await new Promise<void>((resolve) => {
          release = resolve
        })
        yield { type: 'text' as const, text: SUMMARY }
      })(),
    )
    const telemetry = { captureContextCondensed: vi.fn(), captureSlidingWindowTruncation: vi.fn() }
    const t0 = Date.now()
    const r = await today.manageContext(
      rooCall(messages, 'abort', { createMessage } as unknown as ApiHandler, {
        policy: 'cache-aware',
        signal: controller.signal,
        telemetry,
        totalTokens: 60_000,
      }) as never,
    )
    release()
    expect(createMessage).toHaveBeenCalledTimes(1)
    expect(r.error).toBe('Context condensing was aborted')
    expect(r.messages).toBe(messages)
    expect(telemetry.captureSlidingWindowTruncation).not.toHaveBeenCalled()
    expect(telemetry.captureContextCondensed).not.toHaveBeenCalled()
    expect(Date.now() - t0).toBeLessThan(10_000)
  })

  it('"default", or no option: the same answers as before, call for call', async () => {
    const history = generateHistory({ seed: 2, format: 'native', targetTokens: 60_000 }) as ApiMessage[]
    const ids = () => {
      let n = 0
      return () => `id-${n++}`
    }
    const run = async (policy: unknown) => {
      const out = []
      let stored: ApiMessage[] = []
      const generateId = ids()
      for (const { request, reply } of turnsOf(history)) {
        stored = [...stored, ...request]
        if (stored.length >= 2) {
          const r = await ENTRIES['roo-2026-01'](
            rooCall(stored, 'no-policy', handler(), { totalTokens: 30_000, generateId, ...(policy === undefined ? {} : { policy }) }),
          )
          out.push(JSON.stringify(r))
          stored = r.messages
        }
        stored = [...stored, ...reply]
      }
      return out
    }
    const none = await run(undefined)
    expect(await run('default')).toEqual(none)
    expect(await run({ name: 'default' })).toEqual(none)
  }, 120_000)
})
