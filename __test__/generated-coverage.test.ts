// What the suites on the real Roo Code histories check in general, on generated histories (both
// tool formats, thinking, parallel calls, is_error results), so that a plain clone without the
// real ones still exercises every invariant: token counts against npm tiktoken, analyze's
// accounting, Truncation and every Smart preset with and without a callback, Native, the Roo
// drop-in in both modes, the OpenAI-format round trip, the command line against the library, and
// the HTML report. Reduction targets stay with the real histories (they are about those).
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { analyze, condense, countTokens, countTokensAsync, validateConversation, type ApiMessage, type CondenseOptions } from '../lib/index.js'
import { fromAnthropic, toAnthropic } from '../lib/openai-format.js'
import { renderHtmlReport } from '../lib/report-html.js'
import { getEffectiveApiHistory, manageContext, type ApiHandler, type ApiStreamChunk } from '../lib/roo-2026-01.js'
import { getEffectiveApiHistory as effectiveToday, summarizeConversation } from '../lib/roo.js'
import { assertInvariants, HAVE_PROBES } from './helpers.js'
import { referenceCount } from './reference-count.js'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require('../index.js') as { countMessages(m: unknown, e?: string): number }

const HISTORIES: Array<[string, () => ApiMessage[]]> = [
  ['xml, seed 31', () => generateHistory({ seed: 31, format: 'xml', targetTokens: 60_000 }) as ApiMessage[]],
  ['native with thinking, seed 32', () => generateHistory({ seed: 32, format: 'native', targetTokens: 60_000, thinking: true }) as ApiMessage[]],
  ['native, seed 33', () => generateHistory({ seed: 33, format: 'native', targetTokens: 90_000, thinking: false }) as ApiMessage[]],
]

const summary = async (r: { messages: unknown[] }) => ({ text: `SUMMARY of ${r.messages.length} messages: files read and changed, commands run.`, cost: 0.01 })

const PROVIDERS: Array<[string, CondenseOptions]> = [
  ['truncation', { provider: 'truncation' }],
  ...(['conservative', 'balanced', 'aggressive', 'speed', 'quality', 'cost'] as const).map((preset): [string, CondenseOptions] => [
    `smart ${preset}`,
    { provider: 'smart', config: { preset } },
  ]),
  ...(['balanced', 'quality'] as const).map((preset): [string, CondenseOptions] => [
    `smart ${preset} with a callback`,
    { provider: 'smart', config: { preset }, summarize: summary },
  ]),
  ['native', { provider: 'native', summarize: summary }],
]

describe.each(HISTORIES)('generated history (%s)', (_label, make) => {
  it('is valid, and countTokens agrees with npm tiktoken and the engine, both encodings', async () => {
    const h = make()
    expect(validateConversation(h)).toEqual([])
    expect(countTokens(h)).toBe(referenceCount(h, 'o200k_base'))
    expect(countTokens(h, { encoding: 'cl100k_base' })).toBe(referenceCount(h, 'cl100k_base'))
    if (HAVE_PROBES) expect(countTokens(h)).toBe(native.countMessages(h))
    expect(await countTokensAsync(h)).toBe(countTokens(h))
  })

  it('analyze accounts for every token and agrees with what Lossless does', async () => {
    const h = make()
    const a = analyze(h)
    expect(a.totalTokens).toBe(countTokens(h))
    const t = a.byContentType
    expect(t.userText + t.assistantText + t.toolResults + t.environmentDetails + t.thinking + t.toolCalls + t.images + t.summaries).toBe(a.totalTokens)
    const r = await condense(h, { provider: 'lossless' })
    expect(a.losslessTokensSaved).toBe(r.prevContextTokens - r.newContextTokens)
    expect(a.losslessTokensSaved).toBeGreaterThan(0)
    expect(a.byTool.length).toBeGreaterThan(0)
  })

  it.each(PROVIDERS)('%s keeps every invariant, saves tokens, and keeps error results', async (_name, options) => {
    const input = make()
    const snapshot = structuredClone(input)
    const r = await condense(input, options)
    expect(r.error).toBeUndefined()
    expect(input).toEqual(snapshot)
    expect(validateConversation(r.messages)).toEqual([])
    expect(r.newContextTokens).toBeLessThan(r.prevContextTokens)
    expect(r.newContextTokens).toBe(countTokens(r.messages))
    if (options.provider === 'native') {
      // Native replaces a run of messages by one summary: the first message stays the caller's.
      expect(r.messages[0]).toBe(input[0])
      expect(r.messages.filter((m) => m.isSummary)).toHaveLength(1)
      return
    }
    assertInvariants(input, snapshot, r)
    // Every is_error tool result is kept word for word by everything but the aggressive preset.
    if (options.provider === 'truncation' || !/aggressive/.test(_name)) {
      const errors = (ms: ApiMessage[]) =>
        ms.flatMap((m) =>
          Array.isArray(m.content) ? m.content.filter((b) => b.type === 'tool_result' && b.is_error === true).map((b) => JSON.stringify(b)) : [],
        )
      expect(errors(r.messages)).toEqual(errors(input))
    }
  })

  it('the Roo drop-in of January 2026: manageContext and every provider in both modes, valid and never more tokens', async () => {
    const input = make()
    const snapshot = structuredClone(input)
    const before = countTokens(input)
    const handler = rooHandler()
    const r = await manageContext({
      messages: input,
      totalTokens: before - countTokens([input[input.length - 1]]),
      contextWindow: 200_000,
      maxTokens: 8_000,
      apiHandler: handler,
      autoCondenseContext: true,
      autoCondenseContextPercent: 10,
      systemPrompt: 'You are Roo.',
      taskId: 'generated',
      profileThresholds: {},
      currentProfileId: 'default',
    })
    expect(r.error).toBeUndefined()
    expect(handler.calls).toBe(1)
    expect(r.prevContextTokens).toBe(before)
    const effective = getEffectiveApiHistory(r.messages)
    expect(validateConversation(effective)).toEqual([])
    expect(countTokens(effective)).toBeLessThan(before)
    expect(effective[0]).toBe(input[0])
    expect(effective.slice(-3)).toEqual(input.slice(-3))
    for (const provider of ['lossless', 'smart', 'truncation'] as const) {
      for (const nonDestructive of [false, true]) {
        const s = await summarizeConversation(input, rooHandler(), '', 'generated', before, true, undefined, undefined, { provider, nonDestructive })
        const sent = nonDestructive ? effectiveToday(s.messages) : s.messages
        expect(s.error, `${provider} ${nonDestructive}`).toBeUndefined()
        expect(validateConversation(sent), `${provider} ${nonDestructive}`).toEqual([])
        expect(countTokens(sent), `${provider} ${nonDestructive}`).toBeLessThanOrEqual(before)
        // Today's Roo starts afresh from its summary: the history sent opens with a user message.
        expect(sent[0].role, `${provider} ${nonDestructive}`).toBe('user')
      }
    }
    expect(input).toEqual(snapshot)
  }, 120_000)
})

describe('an XML-format generated history in OpenAI format', () => {
  // Text-block histories (the legacy XML format, like the real ones) go to OpenAI and back
  // exactly; native ones with thinking are the openai-format suite's.
  it('converted to OpenAI format and back is exact, and condenses to the same figures', async () => {
    const h = HISTORIES[0][1]()
    const openai = fromAnthropic(h)
    const back = toAnthropic(openai)
    expect(JSON.parse(JSON.stringify(back.messages))).toEqual(h)
    expect(JSON.stringify(back.restore(back.messages))).toBe(JSON.stringify(openai))
    expect(countTokens(openai, { format: 'openai' })).toBe(countTokens(h))
    const a = await condense(h, { provider: 'lossless' })
    const o = await condense(openai, { provider: 'lossless', format: 'openai' })
    expect(o.newContextTokens).toBe(a.newContextTokens)
    expect(o.messages).toEqual(fromAnthropic(a.messages))
  })
})

/** A Roo ApiHandler whose model answers one summary and whose count is the engine's. */
function rooHandler(): ApiHandler & { calls: number } {
  const handler = {
    calls: 0,
    createMessage() {
      handler.calls++
      return (async function* (): AsyncGenerator<ApiStreamChunk> {
        yield { type: 'text', text: 'SUMMARY: the user asked for the refactor; the files changed are listed; next: the docs.' }
        yield { type: 'usage', inputTokens: 100, outputTokens: 20, totalCost: 0.01 }
      })()
    },
    async countTokens(blocks: unknown[]) {
      return countTokens([{ role: 'user', content: blocks as never }])
    },
  }
  return handler as unknown as ApiHandler & { calls: number }
}

describe('the command line on a generated history', () => {
  const tmp = mkdtempSync(join(tmpdir(), 'context-condense-generated-'))
  afterAll(() => rmSync(tmp, { recursive: true, force: true }))
  const history = generateHistory({ seed: 34, format: 'native', targetTokens: 40_000, thinking: true }) as ApiMessage[]
  const file = join(tmp, 'api_conversation_history.json')
  writeFileSync(file, JSON.stringify(history, null, '\t'))
  const cli = (args: string[]) =>
    spawnSync(process.execPath, [join(__dirname, '..', 'bin', 'context-condense.mjs'), ...args], {
      cwd: tmp,
      encoding: 'utf8',
      env: { ...process.env, CONTEXT_CONDENSE_API_KEY: '', OPENAI_API_KEY: '' },
    })

  it('analyze --json gives what the library gives', () => {
    const r = cli(['analyze', file, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    expect(JSON.parse(r.stdout).analysis).toEqual(analyze(history))
  })

  it.each([
    [['-p', 'lossless'], { provider: 'lossless' }],
    [['-p', 'truncation'], { provider: 'truncation' }],
    [['-p', 'smart', '--preset', 'balanced'], { provider: 'smart', config: { preset: 'balanced' } }],
  ] as Array<[string[], CondenseOptions]>)('condense %j --json gives what the library gives', async (args, options) => {
    const r = cli(['condense', file, ...args, '--json'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const json = JSON.parse(r.stdout)
    const lib = await condense(history, options)
    expect(json.messages).toEqual(lib.messages)
    expect(json.newContextTokens).toBe(lib.newContextTokens)
    expect(json.prevContextTokens).toBe(lib.prevContextTokens)
  })

  it('report --html writes one self-contained page with the figures renderHtmlReport has', async () => {
    const page = join(tmp, 'report.html')
    const r = cli(['report', file, '--html', page, '-p', 'lossless'])
    expect(r.stderr).toBe('')
    expect(r.status).toBe(0)
    const result = await condense(history, { provider: 'lossless', provenance: true })
    const data = (html: string) => JSON.parse(/<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)![1])
    for (const html of [readFileSync(page, 'utf8'), renderHtmlReport(history, result)]) {
      expect(html).toMatch(/^<!doctype html>/i)
      // Outside the embedded data and the tooltips, nothing that would load a URL.
      const markup = html.replace(/<script type="application\/json" id="report-data">[\s\S]*?<\/script>/, '').replace(/ title="[^"<>]*"/g, '')
      expect(markup).not.toMatch(/\s(src|srcset|poster|action)\s*=|href\s*=\s*"(?!#|data:)/i)
      const d = data(html)
      expect(d.before).toHaveLength(history.length)
      expect(d.passes.map((p: { tokensAfter: number }) => p.tokensAfter)).toEqual(result.metrics.passes.map((p) => p.tokensAfter))
    }
  })
})
