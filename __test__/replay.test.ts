// The replay: its prompt-cache pricing on small hand-made histories with known answers, its options'
// errors, determinism, the caller's history left unchanged, every policy on the bundled examples and
// generated tasks with the condensing invariants, the command line, and (when they are here) the
// seven real Roo Code histories.
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { REPLAY_POLICIES, countTokens, replay, validateConversation, type ApiMessage, type ReplayResult } from '../lib/index.js'
import { generateHistory } from '../fixtures/generate.mjs'
import { cli, serve } from './cli-harness.js'
import { completion } from './mock-llm-server.js'
import { FIXTURES, itReal, loadFixture, userTypedTexts } from './helpers.js'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { CacheModel } = require('../lib/internal/prompt-cache.js') as {
  CacheModel: new (
    kind: 'anthropic' | 'openai',
    pricing: { inputPrice: number; cacheWritesPrice: number; cacheReadsPrice: number },
    systemTokens: number,
    lookbackBlocks?: number,
  ) => {
    request(
      messages: object[],
      tokensOf: (m: object) => number,
    ): { tokens: number; cachedRead: number; cacheWrite: number; uncached: number; cost: number; firstChanged: number }
  }
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { splitTurns } = require('../lib/replay/messages.js') as { splitTurns(h: ApiMessage[]): Array<{ append: ApiMessage[]; at: number }> }

const ANTHROPIC = { inputPrice: 3, cacheWritesPrice: 3.75, cacheReadsPrice: 0.3 }
const OPENAI = { inputPrice: 2.5, cacheWritesPrice: 2.5, cacheReadsPrice: 1.25 }
const EXAMPLES = ['xml-session', 'native-session'].map((n) => ({
  name: n,
  messages: JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'examples', `${n}.json`), 'utf8')) as ApiMessage[],
}))

/** Messages whose token counts the test decides (each a different message). */
let made = 0
function sized(role: 'user' | 'assistant', tokens: number) {
  return { role, tokens, id: made++ }
}
const tokensOf = (m: object) => (m as { tokens: number }).tokens
const close = (a: number, b: number) => expect(a).toBeCloseTo(b, 12)

describe('the Anthropic cache model', () => {
  it('writes the system prompt and the last user message at 1.25x, then reads them at 0.1x', () => {
    const cache = new CacheModel('anthropic', ANTHROPIC, 2000)
    const u1 = sized('user', 1000)
    const a1 = sized('assistant', 500)
    const u2 = sized('user', 1000)
    const r1 = cache.request([u1], tokensOf)
    expect(r1).toMatchObject({ tokens: 3000, cachedRead: 0, cacheWrite: 3000, uncached: 0 })
    close(r1.cost, (3000 * 3.75) / 1e6)
    // The second request reads the prefix through u1 and writes a1 and u2 (through the last user message).
    const r2 = cache.request([u1, a1, u2], tokensOf)
    expect(r2).toMatchObject({ tokens: 4500, cachedRead: 3000, cacheWrite: 1500, uncached: 0 })
    close(r2.cost, (3000 * 0.3 + 1500 * 3.75) / 1e6)
  })

  it('an edit at message k: the request reads only the cached prefix before k and writes the rest again', () => {
    const cache = new CacheModel('anthropic', ANTHROPIC, 2000)
    const h = [sized('user', 1000), sized('assistant', 500), sized('user', 1000), sized('assistant', 500), sized('user', 1000)]
    cache.request(h.slice(0, 1), tokensOf)
    cache.request(h.slice(0, 3), tokensOf)
    const full = cache.request(h, tokensOf)
    expect(full).toMatchObject({ cachedRead: 4500, cacheWrite: 1500 })
    // Message 2 replaced by a smaller one: the prefix through message 1 is cached only up to the
    // breakpoint after message 0 (user messages carry the breakpoints), so 3000 are read.
    const edited = [h[0], h[1], sized('user', 200), h[3], h[4]]
    const r = cache.request(edited, tokensOf)
    expect(r).toMatchObject({ tokens: 5200, cachedRead: 3000, cacheWrite: 2200, uncached: 0, firstChanged: 2 })
    close(r.cost, (3000 * 0.3 + 2200 * 3.75) / 1e6)
    // An edit of the first message leaves only the system prompt cached.
    const first = cache.request([sized('user', 900), ...edited.slice(1)], tokensOf)
    expect(first).toMatchObject({ cachedRead: 2000, cacheWrite: 3100, firstChanged: 0 })
  })

  it('entries exist only where breakpoints were: an edit reads back to the last one before it; a lookback finds fewer', () => {
    const blocks = { content: [{ type: 'text' }, { type: 'text' }] }
    const h = Array.from({ length: 40 }, (_, i) => ({ ...sized(i % 2 ? 'assistant' : 'user', 500), ...blocks }))
    const run = (lookback?: number) => {
      const cache = new CacheModel('anthropic', ANTHROPIC, 2000, lookback)
      for (let k = 1; k <= 40; k++) cache.request(h.slice(0, k), tokensOf)
      const edited = [...h]
      edited[4] = { ...sized('user', 500), ...blocks }
      return cache.request([...edited, { ...sized('user', 500), ...blocks }], tokensOf)
    }
    // Every user message was the last one of some request: the entry through message 2 is read.
    expect(run()).toMatchObject({ cachedRead: 3500, firstChanged: 4 })
    // Found only within 20 blocks of this request's breakpoints: the system prompt's entry alone.
    expect(run(20)).toMatchObject({ cachedRead: 2000, firstChanged: 4 })
  })

  it('a prefix under 1,024 tokens is not cached: all of it is plain input', () => {
    const cache = new CacheModel('anthropic', ANTHROPIC, 500)
    const u = sized('user', 300)
    const r1 = cache.request([u], tokensOf)
    expect(r1).toMatchObject({ tokens: 800, cachedRead: 0, cacheWrite: 0, uncached: 800 })
    close(r1.cost, (800 * 3) / 1e6)
  })

  it('a request ending with an assistant message sends what follows the last user message uncached', () => {
    const cache = new CacheModel('anthropic', ANTHROPIC, 2000)
    const r = cache.request([sized('user', 1000), sized('assistant', 700)], tokensOf)
    expect(r).toMatchObject({ cachedRead: 0, cacheWrite: 3000, uncached: 700 })
  })
})

describe('the OpenAI cache model', () => {
  it('reads the prefix shared with the previous request in steps of 128 tokens from 1,024, no write surcharge', () => {
    const cache = new CacheModel('openai', OPENAI, 1000)
    const u1 = sized('user', 100)
    const r1 = cache.request([u1], tokensOf)
    expect(r1).toMatchObject({ tokens: 1100, cachedRead: 0, cacheWrite: 0, uncached: 1100 })
    close(r1.cost, (1100 * 2.5) / 1e6)
    const r2 = cache.request([u1, sized('assistant', 50), sized('user', 100)], tokensOf)
    // 1,100 shared: 1,024 cached (8 steps of 128), the rest input.
    expect(r2).toMatchObject({ tokens: 1250, cachedRead: 1024, cacheWrite: 0, uncached: 226 })
    close(r2.cost, (1024 * 1.25 + 226 * 2.5) / 1e6)
    // The first message changed: only the system prompt is shared, under 1,024: nothing cached.
    const r3 = cache.request([sized('user', 100)], tokensOf)
    expect(r3).toMatchObject({ cachedRead: 0, uncached: 1100 })
  })
})

describe('splitting a history into requests', () => {
  it('one request per assistant turn, holding what came before it', () => {
    const h = EXAMPLES[0].messages
    const turns = splitTurns(h)
    expect(turns.length).toBe(h.filter((m, i) => m.role === 'assistant' && i > 0).length)
    expect(turns.flatMap((t) => t.append)).toEqual(h.slice(0, turns[turns.length - 1].at))
    for (const t of turns) expect(h[t.at].role).toBe('assistant')
  })
})

// eslint-disable-next-line @typescript-eslint/no-require-imports
const checks = require('../lib/replay/checks.js') as {
  expectations(
    h: ApiMessage[],
    turns: Array<{ at: number }>,
    workingSetTurns: number,
  ): { typed: Array<{ text: string }>; errors: Array<{ text: string }>; workingSet: Array<{ path: string; text: string }> }
  runChecks(e: unknown, final: ApiMessage[]): Record<'typed' | 'errors' | 'workingSet', { total: number; kept: number }>
}

describe('the end-of-task checks', () => {
  const text = (t: string) => [{ type: 'text' as const, text: t }]
  const history: ApiMessage[] = [
    { role: 'user', content: text('<task>\nFix the parser, keep the old API\n</task>') },
    { role: 'assistant', content: text('<read_file>\n<args>\n<file>\n<path>src/a.ts</path>\n</file>\n</args>\n</read_file>') },
    {
      role: 'user',
      content: text(
        "[read_file for 'src/a.ts'] Result:\n<files>\n<file><path>src/a.ts</path>\n<content lines=\"1-2\">\n1 | export const a = 1 // old version\n2 | throw new Error('a source line, not an error')\n</content>\n</file>\n</files>",
      ),
    },
    { role: 'assistant', content: text('<execute_command>\n<command>npm test</command>\n</execute_command>') },
    { role: 'user', content: text("[execute_command for 'npm test'] Result:\nTests  1 failed | 3 passed (4)\nall good otherwise") },
    {
      role: 'assistant',
      content: text('<write_to_file>\n<path>src/a.ts</path>\n<content>\nexport const a = 2 // the latest state\n</content>\n</write_to_file>'),
    },
    { role: 'user', content: text("[write_to_file for 'src/a.ts'] Result:\n<feedback>\nUse a constant, not a literal\n</feedback>") },
    { role: 'assistant', content: text('Done.') },
  ]
  const turns = splitTurns(history)
  const expected = checks.expectations(history, turns, 10)

  it("finds what the user typed, error lines of tool output (not of file contents), and each file's latest state", () => {
    expect(expected.typed.map((t) => t.text)).toEqual([
      '<task>\nFix the parser, keep the old API\n</task>',
      '<feedback>\nUse a constant, not a literal\n</feedback>',
    ])
    expect(expected.errors.map((t) => t.text)).toEqual(['Tests  1 failed | 3 passed (4)'])
    expect(expected.workingSet).toEqual([{ message: 5, path: 'src/a.ts', text: 'export const a = 2 // the latest state', kind: 'write_to_file' }])
  })

  it('counts an item kept only when its text is still in the final context, verbatim', () => {
    const all = checks.runChecks(expected, history.slice(0, 7))
    expect(all).toMatchObject({ typed: { total: 2, kept: 2 }, errors: { total: 1, kept: 1 }, workingSet: { total: 1, kept: 1 } })
    // The write replaced by a summary, the test output cut: the latest state and the error line are gone.
    const cut = [history[0], { role: 'assistant' as const, content: text('summary') }, history[6]]
    expect(checks.runChecks(expected, cut)).toMatchObject({ typed: { kept: 2 }, errors: { kept: 0 }, workingSet: { kept: 0 } })
    // An earlier read of the file does not count as its latest state.
    expect(checks.runChecks(expected, history.slice(0, 5)).workingSet.kept).toBe(0)
  })
})

describe('replay', () => {
  const history = EXAMPLES[0].messages

  it('without condensing, each request reads what the previous one wrote: the figures add up', async () => {
    const r = await replay(history, { contextWindow: 1_000_000, systemTokens: 2000 })
    expect(r.condensings).toEqual([])
    expect(r.summaries).toBe(0)
    expect(r.requests).toBe(splitTurns(history).length)
    const turns = splitTurns(history)
    let sent: ApiMessage[] = []
    r.perRequest.forEach((row, k) => {
      sent = [...sent, ...turns[k].append]
      expect(row.tokens).toBe(2000 + countTokens(sent))
      expect(row.cachedRead + row.cacheWrite + row.uncached).toBe(row.tokens)
      if (k > 0) {
        // Read: the previous request through its last user message (where it wrote).
        const prev = sent.slice(0, sent.length - turns[k].append.length)
        const lastUser = prev.map((m) => m.role).lastIndexOf('user')
        expect(row.cachedRead).toBe(2000 + countTokens(prev.slice(0, lastUser + 1)))
      }
    })
    close(
      r.requestsCost,
      r.perRequest.reduce((a, x) => a + x.cost, 0),
    )
    close(r.requestsCost, (r.uncachedTokens * 3 + r.cacheWriteTokens * 3.75 + r.cachedReadTokens * 0.3) / 1e6)
    expect(r.cacheHitRate).toBeCloseTo(r.cachedReadTokens / r.inputTokens, 12)
    expect(r.peakContext).toBe(Math.max(...r.perRequest.map((x) => x.tokens)))
    expect(r.messages).toEqual(history.slice(0, turns[turns.length - 1].at))
  })

  it('gives the same result every time (the stand-in summarizer is deterministic)', async () => {
    const h = generateHistory({ seed: 3, format: 'native', targetTokens: 60_000 }) as ApiMessage[]
    const strip = (r: ReplayResult) => ({ ...r, timeMs: 0 })
    for (const policy of ['roo-default', 'cache-aware'] as const) {
      const a = await replay(h, { policy, contextWindow: 32_000, systemTokens: 4000 })
      const b = await replay(h, { policy, contextWindow: 32_000, systemTokens: 4000 })
      expect(a.condensings.length).toBeGreaterThan(0)
      expect(strip(a)).toEqual(strip(b))
    }
  })

  it('a summary costs its input at the input price, and is counted', async () => {
    const h = generateHistory({ seed: 5, format: 'xml', targetTokens: 60_000 }) as ApiMessage[]
    const r = await replay(h, { policy: 'roo-default', contextWindow: 32_000, systemTokens: 4000, summaryTokens: 500 })
    expect(r.summaries).toBeGreaterThan(0)
    expect(r.summaryCalls.conversation).toBe(r.summaries)
    close(r.summaryInputCost, (r.summaryInputTokens * 3) / 1e6)
    close(r.billedInputCost, r.requestsCost + r.summaryInputCost)
    expect(r.summaryOutputTokens).toBeLessThanOrEqual(500 * r.summaries)
    // A summary breaks the prefix: the request after it reads little of what was cached.
    const after = r.condensings.find((c) => c.provider === 'native')!
    const k = r.perRequest.findIndex((x) => x.turn === after.turn)
    const row = r.perRequest[k]
    expect(row.firstChanged).toBeLessThanOrEqual(after.firstChanged)
    expect(row.cachedRead).toBeLessThan(r.perRequest[k - 1].cachedRead)
  })

  it('refuses bad options, naming the option', async () => {
    const bad: Array<[unknown, RegExp]> = [
      [{ contextWindow: -5 }, /^replay: options\.contextWindow: expected a whole number >= 1000, got number -5$/],
      [{ contextWindow: 2000 }, /^replay: options\.contextWindow: 2000 tokens leave no room for the history/],
      [{ threshold: 150 }, /^replay: options\.threshold: expected a whole number from 5 to 100, got number 150$/],
      [{ policy: 'fastest' }, /^replay: options\.policy: expected one of roo-default, .*cache-aware-strict, got "fastest"$/],
      [{ cache: 'gemini' }, /^replay: options\.cache: expected "anthropic" or "openai", got "gemini"$/],
      [{ pricing: { inputPrice: -1 } }, /^replay: options\.pricing\.inputPrice: expected a price >= 0/],
      [{ pricing: { input: 3 } }, /^replay: options\.pricing\.input: unknown key, expected one of inputPrice/],
      [{ window: 5 }, /^replay: options\.window: unknown key, expected one of policy, contextWindow/],
      [{ summarize: 'yes' }, /^replay: options\.summarize: expected an async function/],
      [{ model: 'x' }, /^replay: options\.model: needs options\.llmUrl$/],
      [{ cache: 'openai', lookbackBlocks: 20 }, /^replay: options\.lookbackBlocks: applies to the "anthropic" cache model only$/],
      ['fast', /^replay: options: expected an object, got string "fast"$/],
    ]
    for (const [options, message] of bad) {
      const e = await replay(history, options as never).catch((x) => x)
      expect(e, JSON.stringify(options)).toBeInstanceOf(TypeError)
      expect(e.message).toMatch(message)
      expect(e.errorCode).toBe('invalid-argument')
    }
    // The options object is read, never written.
    const options = Object.freeze({
      policy: 'cache-aware' as const,
      contextWindow: 16_000,
      systemTokens: 3000,
      maxTokens: 2000,
      pricing: Object.freeze({ inputPrice: 3 }),
    })
    await replay(history, options)
    // An aborted signal stops the replay with its reason.
    const controller = new AbortController()
    controller.abort(new Error('stop'))
    await expect(replay(history, { signal: controller.signal })).rejects.toThrow('stop')
    await expect(replay({} as never)).rejects.toThrow('replay: history: expected an array of messages, got an object')
    await expect(replay([{ role: 'system', content: 'x' }] as never)).rejects.toThrow('replay: history[0].role: expected "user" or "assistant", got "system"')
  })
})

/** The invariants of the replay's condensings on one result. */
function assertReplayInvariants(input: ApiMessage[], snapshot: ApiMessage[], r: ReplayResult) {
  // The caller's history is never changed.
  expect(input).toEqual(snapshot)
  // The final context is valid for the APIs whenever the recorded history was.
  if (validateConversation(input).length === 0) expect(validateConversation(r.messages)).toEqual([])
  // Every condensing made the context smaller; the figures are the measured ones.
  for (const c of r.condensings) expect(c.tokensAfter, `${r.policy} turn ${c.turn} ${c.provider}`).toBeLessThan(c.tokensBefore)
  // No request over the allowed size unless the policy left it there (then counted).
  const over = r.perRequest.filter((x) => x.tokens > r.settings.allowedTokens).length
  expect(over).toBeLessThanOrEqual(r.requestsOverLimit)
  // Messages the replay did not condense away are the caller's own objects, never copies.
  const own = new Set(input)
  const kept = r.messages.filter((m) => own.has(m))
  expect(kept.length).toBeGreaterThan(0)
  expect(r.messages[r.messages.length - 1].role).toBe(input[splitTurns(input).at(-1)!.at - 1].role)
  // The checks count what the recorded task holds (the suites' own finder misses what a tool
  // result holds as blocks; the replay's reads those too).
  expect(r.checks.typed.total).toBeGreaterThanOrEqual(userTypedTexts(input.slice(0, splitTurns(input).at(-1)!.at)).length)
  // Every policy keeps each request's last three messages: none is billed under the floor, which
  // is itself at least the cheapest way to send each message once.
  expect(r.requestsCost, r.policy).toBeGreaterThanOrEqual(r.floorCost - 1e-9)
  expect(r.floorCost).toBeGreaterThan(0)
}

describe('every policy on the bundled examples and generated tasks', () => {
  const cases = [
    ...EXAMPLES.map((e) => ({ name: e.name, messages: e.messages, window: 16_000 })),
    { name: 'generated xml 120k', messages: generateHistory({ seed: 11, format: 'xml', targetTokens: 120_000 }) as ApiMessage[], window: 48_000 },
    { name: 'generated native 120k', messages: generateHistory({ seed: 12, format: 'native', targetTokens: 120_000 }) as ApiMessage[], window: 48_000 },
  ]
  it.each(cases)('$name', async ({ messages, window }) => {
    const snapshot = structuredClone(messages)
    const results: ReplayResult[] = []
    for (const policy of REPLAY_POLICIES) {
      const r = await replay(messages, { policy, contextWindow: window, systemTokens: 3000, maxTokens: 2000 })
      assertReplayInvariants(messages, snapshot, r)
      results.push(r)
    }
    const byName = new Map(results.map((r) => [r.policy, r]))
    // Roo's default summarizes here, so condensing matters.
    expect(byName.get('roo-default')!.condensings.length).toBeGreaterThan(0)
    // Lossless on every turn edits more often than Lossless at the threshold.
    expect(byName.get('lossless-every-turn')!.condensings.length).toBeGreaterThanOrEqual(byName.get('lossless-then-summary')!.condensings.length)
  })
})

describe('the cache-aware policy', () => {
  it('with no turns left to pay for it, it condenses only at the trigger', async () => {
    const h = generateHistory({ seed: 21, format: 'xml', targetTokens: 150_000 }) as ApiMessage[]
    const r = await replay(h, { policy: 'cache-aware', contextWindow: 48_000, systemTokens: 3000, maxTokens: 2000, expectedTurns: 1 })
    expect(r.condensings.length).toBeGreaterThan(0)
    const trigger = r.settings.allowedTokens
    for (const c of r.condensings) expect(c.tokensBefore, `turn ${c.turn} ${c.role}`).toBeGreaterThan(trigger)
    // Told the task is long, it condenses in batches before the trigger too.
    const long = await replay(h, { policy: 'cache-aware', contextWindow: 48_000, systemTokens: 3000, maxTokens: 2000, expectedTurns: 10_000 })
    expect(long.condensings.some((c) => c.tokensBefore <= trigger)).toBe(true)
  })

  // The cost aimed for was 0.7x; with nothing lost from the messages the policy keeps whole it is
  // 0.704x on this task (0.693 to 0.706x on the four generated tasks, docs/replay.md): the bound
  // here guards that figure, it does not claim the aim.
  it('on a generated task of 1M tokens: under 0.72x the billed input of roo-default, with at most half its summaries, keeping everything at least as well', async () => {
    const h = generateHistory({ seed: 1, format: 'xml', targetTokens: 1_000_000 }) as ApiMessage[]
    const roo = await replay(h, { policy: 'roo-default' })
    const aware = await replay(h, { policy: 'cache-aware' })
    expect(roo.summaries).toBeGreaterThan(2)
    expect(aware.billedInputCost).toBeLessThanOrEqual(0.72 * roo.billedInputCost)
    expect(aware.summaries).toBeLessThanOrEqual(0.5 * roo.summaries)
    for (const k of ['typed', 'errors', 'workingSet'] as const) expect(aware.checks[k].kept, k).toBeGreaterThanOrEqual(roo.checks[k].kept)
  }, 60_000)
})

describe('the command line', () => {
  it('replays one policy and prints its condensings; --policy all names the best and why', async () => {
    const file = join(__dirname, '..', 'fixtures', 'examples', 'xml-session.json')
    const one = await cli(['replay', file, '--context-window', '16000', '--system-tokens', '3000', '--max-tokens', '2000'])
    expect(one.stderr).toBe('')
    expect(one.code).toBe(0)
    expect(one.stdout).toMatch(/^Replay: .*xml-session\.json \(\d+ messages, \d+ requests\)/)
    expect(one.stdout).toContain('Condensings')
    const all = await cli(['replay', file, '--policy', 'all', '--context-window', '16000', '--system-tokens', '3000', '--max-tokens', '2000', '--json'])
    expect(all.code).toBe(0)
    const out = JSON.parse(all.stdout)
    expect(out.results.map((r: ReplayResult) => r.policy)).toEqual(REPLAY_POLICIES)
    expect(REPLAY_POLICIES).toContain(out.best.policy)
    expect(out.best.why).toMatch(/billed input/)
    const text = await cli(['replay', file, '--policy', 'all', '--context-window', '16000', '--system-tokens', '3000', '--max-tokens', '2000'])
    expect(text.stdout).toContain(`Best: ${out.best.policy}: `)
  })

  it("--llm-url: summaries by the model (its text is what stays in context), and the function's llmUrl the same", async () => {
    const TEXT = 'The user asked to fix the parser and keep the old API; tests were run.'
    const s = await serve(() => ({ json: completion(TEXT, { prompt_tokens: 1000, completion_tokens: 20 }) }))
    const file = join(__dirname, '..', 'fixtures', 'examples', 'xml-session.json')
    const r = await cli(['replay', file, '--context-window', '16000', '--system-tokens', '3000', '--max-tokens', '2000', '--llm-url', s.url, '--json'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const out = JSON.parse(r.stdout).results[0] as ReplayResult
    expect(out.summaries).toBeGreaterThan(0)
    expect(s.requests.length).toBe(out.summaries)
    expect(out.summaryOutputTokens).toBe(out.summaries * countTokens(TEXT))
    expect(JSON.stringify(out.messages)).toContain(TEXT)
    const history = JSON.parse(readFileSync(file, 'utf8')) as ApiMessage[]
    const direct = await replay(history, { contextWindow: 16_000, systemTokens: 3000, maxTokens: 2000, llmUrl: s.url })
    expect(direct.summaries).toBe(out.summaries)
    expect(direct.billedInputCost).toBeCloseTo(out.billedInputCost, 12)
  })

  it('names the bad flag', async () => {
    const file = join(__dirname, '..', 'fixtures', 'examples', 'xml-session.json')
    const r = await cli(['replay', file, '--policy', 'fast'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('context-condense: --policy: unknown value "fast"; expected roo-default')
    const w = await cli(['replay', file, '--context-window', '2000'])
    expect(w.code).toBe(2)
    expect(w.stderr).toContain('context-condense: --context-window: 2000 tokens leave no room for the history')
    const t = await cli(['replay', file, '--threshold', '120'])
    expect(t.code).toBe(2)
    expect(t.stderr).toContain('--threshold: expected a percentage from 5 to 100, got "120"')
  })
})

describe('the seven real Roo Code histories', () => {
  itReal(
    "every policy keeps the invariants at a 64k window, where Roo's default summarizes most of them",
    async () => {
      let summarized = 0
      const sums = new Map<string, { cost: number; summaries: number }>()
      for (const name of FIXTURES) {
        const h = loadFixture(name)
        const snapshot = structuredClone(h)
        for (const policy of REPLAY_POLICIES) {
          const r = await replay(h, { policy, contextWindow: 64_000 })
          assertReplayInvariants(h, snapshot, r)
          if (policy === 'roo-default' && r.summaries > 0) summarized++
          const t = sums.get(policy) ?? { cost: 0, summaries: 0 }
          sums.set(policy, { cost: t.cost + r.billedInputCost, summaries: t.summaries + r.summaries })
        }
      }
      expect(summarized).toBeGreaterThanOrEqual(3)
      // Measured (docs/replay.md): cache-aware spends less than roo-default here (0.93x), with fewer summaries.
      const roo = sums.get('roo-default')!
      const aware = sums.get('cache-aware')!
      expect(aware.cost).toBeLessThan(0.95 * roo.cost)
      expect(aware.summaries).toBeLessThan(roo.summaries)
    },
    120_000,
  )
})
