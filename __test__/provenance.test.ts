// The engine's record of a condensation (`provenance: true`): one act per change, where each
// message of the result came from, and the counts every reader shows (metrics, the text report,
// the HTML report's data), which must agree because they are counted from the same acts.
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, type ApiMessage, type CondenseOptions, type CondenseResult, type SummarizeRequest } from '../lib/index.js'
import { buildReportData } from '../lib/report-html.js'
import { assertInvariants, FIXTURES, HAVE_FIXTURES, loadFixture } from './helpers.js'

const ACTIONS = ['deduplicated', 'superseded', 'omitted', 'suppressed', 'truncated', 'summarized'] as const
const standIn = async (r: SummarizeRequest) => `Stand-in summary of ${r.messages.length} messages.`

const PROVIDERS: Array<[string, CondenseOptions]> = [
  ['lossless', { provider: 'lossless' }],
  ['truncation', { provider: 'truncation' }],
  ['smart conservative', { provider: 'smart', config: { preset: 'conservative' }, summarize: standIn }],
  ['smart balanced', { provider: 'smart', config: { preset: 'balanced' }, summarize: standIn }],
  ['smart aggressive', { provider: 'smart', config: { preset: 'aggressive' }, summarize: standIn }],
  ['native', { provider: 'native', summarize: standIn }],
]

const HISTORIES: Array<[string, () => ApiMessage[]]> = [
  ['generated xml', () => generateHistory({ seed: 21, format: 'xml', targetTokens: 120_000 }) as ApiMessage[]],
  ['generated native', () => generateHistory({ seed: 22, format: 'native', targetTokens: 120_000 }) as ApiMessage[]],
  ...(HAVE_FIXTURES ? FIXTURES.map((name): [string, () => ApiMessage[]] => [name, () => loadFixture(name)]) : []),
]

/** Per action, the acts of pass `pass` (all passes when undefined). */
function countActs(r: CondenseResult, pass?: number): Record<(typeof ACTIONS)[number], number> {
  const out = Object.fromEntries(ACTIONS.map((a) => [a, 0])) as Record<(typeof ACTIONS)[number], number>
  for (const a of r.provenance!.acts) if (pass === undefined || a.pass === pass) out[a.action]++
  return out
}

const nonZero = (counts: Record<string, number>) => Object.fromEntries(Object.entries(counts).filter(([, n]) => n > 0))

function checkRecord(history: ApiMessage[], r: CondenseResult) {
  const { acts, origins } = r.provenance!
  const passes = r.metrics.passes
  // Every act belongs to a pass the metrics list, and names a message of the history.
  for (const a of acts) {
    expect(a.pass).toBeGreaterThanOrEqual(0)
    expect(a.pass).toBeLessThan(passes.length)
    expect(history[a.message]).toBeDefined()
    expect(a.tokensSaved).toBeGreaterThan(0)
  }
  // Each pass's counts are its acts'; the totals are the sum of the passes'.
  passes.forEach((p, i) => {
    const own = countActs(r, i)
    for (const k of ACTIONS) expect(p[k], `${p.id}.${k}`).toBe(own[k])
    expect(p.messagesChanged).toBe(new Set(acts.filter((a) => a.pass === i).map((a) => a.message)).size)
  })
  for (const k of ACTIONS) expect(r.metrics.actions[k]).toBe(passes.reduce((n, p) => n + p[k], 0))
  expect(r.metrics.actions).toEqual(countActs(r))
  // Where each message came from: the caller's own object when unchanged, a changed copy, or a summary of a run.
  expect(origins).toHaveLength(r.messages.length)
  const placed = new Set<number>()
  origins.forEach((o, j) => {
    if ('from' in o) {
      placed.add(o.from)
      if (o.changed) expect(r.messages[j]).not.toEqual(history[o.from])
      else expect(r.messages[j]).toBe(history[o.from])
    } else {
      expect(r.messages[j].isSummary).toBe(true)
      expect(o.covers).not.toBeNull()
      for (let i = o.covers![0]; i <= o.covers![1]; i++) placed.add(i + history.length)
    }
  })
  // Every message is kept or covered by a summary, and a message replaced by a summary has its act.
  history.forEach((_, i) => expect(placed.has(i) || placed.has(i + history.length), `message ${i}`).toBe(true))
  const replaced = new Set(acts.filter((a) => a.content === 'message').map((a) => a.message))
  history.forEach((_, i) => expect(replaced.has(i), `message ${i} replaced`).toBe(!placed.has(i)))
  // Every message a pass changed is changed or gone from the result.
  for (const a of acts) {
    const o = origins.find((x) => 'from' in x && x.from === a.message)
    if (o && 'from' in o) expect(o.changed, `act on message ${a.message}`).toBe(true)
  }
  // The report's data shows the same counts, pass by pass and in total.
  const data = buildReportData(history, r)
  expect(data.passes.map((p) => p.actions)).toEqual(passes.map((p) => nonZero(Object.fromEntries(ACTIONS.map((k) => [k, p[k]])))))
  const { kept, changed, removed, ...kinds } = data.kinds
  expect(kinds).toEqual(nonZero(r.metrics.actions))
  expect(removed).toBeUndefined()
  expect(data.before.flatMap((b) => b.actions).filter((a) => a.kind !== 'changed')).toHaveLength(acts.length)
  expect((kept ?? 0) + data.before.filter((b) => b.actions.length > 0).length).toBe(history.length)
  expect(changed ?? 0).toBe(data.before.filter((b) => b.actions.some((a) => a.pass === null)).length)
  // The text report prints each pass's counts.
  for (const p of passes) {
    if (p.skipped) continue
    const line = r.report.split('\n').find((l) => l.startsWith(` - ${p.name}: `) || l.includes(`(${p.name}): `))!
    expect(line, p.name).toBeDefined()
    for (const k of ACTIONS) if (p[k] > 0) expect(line).toContain(`${p[k]} ${k}`)
  }
}

describe('the engine records what each pass did', () => {
  it.each(HISTORIES)(
    '%s: every provider, counts add up by construction',
    async (_name, load) => {
      const history = load()
      const snapshot = JSON.stringify(history)
      for (const [label, options] of PROVIDERS) {
        const r = await condense(history, { ...options, provenance: true })
        if (r.error) {
          expect(r.provenance, label).toBeUndefined()
          continue
        }
        expect(r.metrics.passes.length, label).toBeGreaterThan(0)
        checkRecord(history, r)
        // The invariants of every condensation (one for one: those with a summary of a run are
        // checked by their providers' suites).
        if (r.provenance!.origins.every((o) => 'from' in o)) assertInvariants(history, JSON.parse(snapshot), r)
        // Asking for the record changes nothing else.
        const plain = await condense(history, options)
        expect(plain.provenance).toBeUndefined()
        expect(plain.messages, label).toEqual(r.messages)
        expect(plain.metrics.actions, label).toEqual(r.metrics.actions)
      }
      expect(JSON.stringify(history)).toBe(snapshot)
    },
    120_000,
  )

  it('a summary that would grow the context is undone with its acts', async () => {
    const history = generateHistory({ seed: 5, format: 'xml', targetTokens: 30_000 }) as ApiMessage[]
    // A batch summary longer than the run it replaces is refused: the messages stay, and no act
    // says they were summarized.
    const long = async () => 'word '.repeat(200_000)
    const r = await condense(history, {
      provider: 'smart',
      config: { passes: [{ id: 'all', mode: 'batch', selection: { type: 'preserve_recent', keepRecentCount: 2 }, batchConfig: { operation: 'summarize' } }] },
      summarize: long,
      provenance: true,
    })
    const pass = r.metrics.passes[0]
    expect(pass.skipped).toBeDefined()
    expect(pass.summarized).toBe(0)
    expect(r.provenance!.acts).toEqual([])
    expect(r.provenance!.origins.every((o) => 'from' in o && !o.changed)).toBe(true)
  })

  it('Lossless lists its operations as passes whose tokens chain to the total', async () => {
    const history = generateHistory({ seed: 9, format: 'native', targetTokens: 60_000 }) as ApiMessage[]
    const r = await condense(history, { provider: 'lossless', provenance: true })
    expect(r.metrics.passes.map((p) => p.id)).toEqual(['deduplicateFileReads', 'consolidateToolResults', 'removeObsoleteState'])
    expect(r.metrics.passes[0].tokensBefore).toBe(r.metrics.tokensBefore)
    for (let i = 1; i < 3; i++) expect(r.metrics.passes[i].tokensBefore).toBe(r.metrics.passes[i - 1].tokensAfter)
    expect(r.metrics.passes[2].tokensAfter).toBe(r.metrics.tokensAfter)
    const saved = (k: 'deduplicated' | 'superseded') => r.provenance!.acts.filter((a) => a.action === k).reduce((n, a) => n + a.tokensSaved, 0)
    expect(saved('deduplicated')).toBe(r.metrics.reversibleTokensSaved)
    expect(saved('superseded')).toBe(r.metrics.supersededTokensSaved)
    expect(r.metrics.reversibleTokensSaved + r.metrics.supersededTokensSaved).toBe(r.metrics.tokensSaved)
  })
})
