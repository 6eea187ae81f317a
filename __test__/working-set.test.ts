// The working set: which files it finds and where their latest state lives (workingSet), and that
// Smart keeps it whole (the text of each file's latest read or write verbatim, not its outline)
// while still removing most of the tokens, on generated tasks of both tool formats and on the real
// Roo Code histories.
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, smartPreset, validateConversation, workingSet, workingSetAsync, type ApiMessage, type SmartConfig } from '../lib/index.js'
import { FIXTURES, assertInvariants, itReal, loadFixture } from './helpers.js'

/** Every string a model reads in a history: texts, tool results, tool inputs. */
function strings(messages: ApiMessage[]): string[] {
  const out: string[] = []
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) if (k !== 'signature') walk(x)
  }
  for (const m of messages) walk(m.content)
  return out
}

interface Tally {
  files: number
  /** Files whose latest state is in the result verbatim. */
  whole: number
  /** Files only their outline stands for. */
  outlined: number
  /** Tokens of the latest state of the files kept whole. */
  wholeTokens: number
  before: number
  after: number
}

/** Smart with `config` on `messages`: the working set's files whose latest state is still in the
 * result whole (the text of its latest read or write verbatim), those only outlined, and the tokens. */
async function tally(messages: ApiMessage[], config: SmartConfig, summarize?: () => Promise<string>): Promise<Tally & { summaries: string[] }> {
  const preset = smartPreset(config.preset ?? 'balanced')
  // A preset's working set as it is: its budget may be null (the default), as workingSet() takes it.
  const { turns, budgetTokens } = preset.workingSet ?? smartPreset('balanced').workingSet ?? {}
  const files = workingSet(messages, { turns, budgetTokens, text: true })
  const snapshot = structuredClone(messages)
  const result = await condense(messages, { provider: 'smart', config, summarize })
  if (result.messages.length === messages.length) assertInvariants(messages, snapshot, result)
  else {
    // A batch summary replaced a span: the input is untouched and the result still valid.
    expect(messages).toEqual(snapshot)
    expect(validateConversation(result.messages)).toEqual([])
  }
  const out = strings(result.messages)
  const has = (t: string) => out.some((s) => s.includes(t))
  let whole = 0
  let outlined = 0
  let wholeTokens = 0
  let withState = 0
  for (const f of files) {
    if (!f.text) continue
    withState++
    if (has(f.text)) {
      whole++
      wholeTokens += f.tokens
    } else if (f.outline && has(f.outline.split('\n')[0])) outlined++
  }
  const summaries = result.messages.filter((m) => m.isSummary).map((m) => JSON.stringify(m.content))
  return { files: withState, whole, outlined, wholeTokens, before: result.metrics.tokensBefore, after: result.metrics.tokensAfter, summaries }
}

async function corpus(histories: ApiMessage[][], config: SmartConfig, summarize?: () => Promise<string>) {
  const t: Tally = { files: 0, whole: 0, outlined: 0, wholeTokens: 0, before: 0, after: 0 }
  const summaries: string[] = []
  for (const h of histories) {
    const r = await tally(h, config, summarize)
    t.files += r.files
    t.whole += r.whole
    t.outlined += r.outlined
    t.wholeTokens += r.wholeTokens
    t.before += r.before
    t.after += r.after
    summaries.push(...r.summaries)
  }
  return {
    files: t.files,
    whole: t.whole / t.files,
    outlined: t.outlined / t.files,
    removed: (t.before - t.after) / t.before,
    // Of the tokens outside the working set kept whole, the share removed.
    removedBeside: (t.before - t.after) / (t.before - t.wholeTokens),
    summaries,
  }
}

const GENERATED: Array<{ seed: number; format: 'xml' | 'native'; targetTokens: number }> = []
for (const format of ['xml', 'native'] as const)
  for (const [seed, targetTokens] of [
    [1, 60_000],
    [2, 150_000],
    [3, 250_000],
    [4, 500_000],
  ])
    GENERATED.push({ seed, format, targetTokens })

describe('workingSet', () => {
  it('finds the files of the latest turns and where the latest state of each lives', () => {
    for (const format of ['xml', 'native'] as const) {
      const h = generateHistory({ seed: 5, format, targetTokens: 80_000 }) as ApiMessage[]
      const files = workingSet(h, { turns: 10, text: true })
      expect(files.length).toBeGreaterThan(2)
      const touched = files.map((f) => f.touched)
      expect(touched).toEqual([...touched].sort((a, b) => b - a))
      for (const f of files) {
        expect(f.base).not.toBeNull()
        const base = f.base!
        expect(base.message).toBeLessThanOrEqual(f.touched)
        // The text it names is in the message and block it names.
        const block = (h[base.message].content as Array<Record<string, unknown>>)[base.content!]
        expect(JSON.stringify(block)).toContain(JSON.stringify(f.text).slice(1, -1))
        expect(f.keep).toBe('full')
        for (const e of f.edits) expect(e.message).toBeGreaterThan(base.message)
      }
      // Fewer turns, fewer files; a small budget outlines what does not fit.
      expect(workingSet(h, { turns: 2 }).length).toBeLessThan(files.length)
      const tight = workingSet(h, { turns: 10, budgetTokens: 1, text: true })
      expect(tight.every((f) => f.keep !== 'full')).toBe(true)
      for (const f of tight.filter((x) => x.keep === 'outline')) expect(f.outline).toMatch(/^⟨ Outline of '/)
    }
  })

  it('reads a null budget as a Smart config does: the default one', async () => {
    const h = generateHistory({ seed: 1, format: 'xml', targetTokens: 20_000 }) as ApiMessage[]
    expect(workingSet(h, { budgetTokens: null, text: true })).toEqual(workingSet(h, { text: true }))
    expect(await workingSetAsync(h, { budgetTokens: null })).toEqual(await workingSetAsync(h))
    expect(() => workingSet(h, { budgetTokens: Number.NaN })).toThrow(/options\.budgetTokens/)
  })

  it('refuses bad options, naming them', async () => {
    const h = generateHistory({ seed: 1, format: 'xml', targetTokens: 20_000 }) as ApiMessage[]
    expect(() => workingSet(h, { turns: -1 })).toThrow(/options\.turns/)
    expect(() => workingSet(h, { text: 'yes' as never })).toThrow(/options\.text/)
    expect(() => workingSet({} as never)).toThrow(/expected an array/)
    await expect(workingSetAsync(h, { turns: -1 })).rejects.toThrow(/options\.turns/)
    await expect(workingSetAsync(h, { text: 'yes' as never })).rejects.toThrow(/workingSetAsync: options\.text/)
  })

  it('off the JavaScript thread (workingSetAsync), the same answer; the messages untouched', async () => {
    for (const format of ['xml', 'native'] as const) {
      const h = generateHistory({ seed: 6, format, targetTokens: 80_000 }) as ApiMessage[]
      const before = JSON.stringify(h)
      for (const options of [{ turns: 10, text: true }, { turns: 1_000_000, budgetTokens: 0, text: true }, {}]) {
        const sync = workingSet(h, options)
        expect(sync.length).toBeGreaterThan(0)
        expect(await workingSetAsync(h, options)).toEqual(sync)
      }
      expect(JSON.stringify(h)).toBe(before)
    }
  })
})

describe('Smart keeps the working set', () => {
  const generated = () => GENERATED.map((c) => generateHistory(c) as ApiMessage[])

  it('balanced keeps at least 90% of it whole and removes at least 80% on generated tasks (both formats)', async () => {
    const r = await corpus(generated(), { preset: 'balanced' })
    expect(r.files).toBeGreaterThan(30)
    expect(r.whole).toBeGreaterThanOrEqual(0.9)
    expect(r.removed).toBeGreaterThanOrEqual(0.8)
  })

  it('every preset keeps at least 90% of it whole on generated tasks', async () => {
    const histories = generated()
    for (const preset of ['conservative', 'aggressive', 'speed', 'quality', 'cost'] as const) {
      const r = await corpus(histories, { preset })
      expect(r.whole, preset).toBeGreaterThanOrEqual(0.9)
    }
  })

  it('without it, balanced loses most of the working set (the measure tells them apart)', async () => {
    const r = await corpus(generated(), { preset: 'balanced', workingSet: null })
    expect(r.whole).toBeLessThan(0.5)
  })

  it('a batch summary carries the working set it replaces (aggressive, with a callback)', async () => {
    const summarize = async () => 'SUMMARY: the agent worked on the task.'
    for (const preset of ['aggressive'] as const) {
      const r = await corpus(generated(), { preset }, summarize)
      expect(r.summaries.length).toBeGreaterThan(0)
      expect(r.summaries.some((t) => t.includes('## File Context: '))).toBe(true)
      expect(r.whole).toBeGreaterThanOrEqual(0.9)
      const off = await corpus(generated(), { preset, workingSet: null }, summarize)
      expect(off.summaries.some((t) => t.includes('## File Context: '))).toBe(false)
      expect(off.whole).toBeLessThan(0.5)
    }
  })

  // Three of the real histories are working-set stress cases (files read or written back to back,
  // the working set a quarter to more than half of the context), so with the working set whole the
  // share removed of the whole history cannot reach 80%: what is guarded is that everything
  // beside the working set kept whole is condensed by at least 80%.
  itReal('balanced keeps at least 90% of it whole and removes at least 80% of the rest on the real histories', async () => {
    const r = await corpus(
      FIXTURES.map((n) => loadFixture(n)),
      { preset: 'balanced' },
    )
    expect(r.whole).toBeGreaterThanOrEqual(0.9)
    expect(r.removedBeside).toBeGreaterThanOrEqual(0.8)
  })
})
