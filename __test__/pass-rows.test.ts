// The passes' rows add up: `metrics.passes` chains from the context given to the one handed back
// (each row starts where the one before ended), so the rows' savings are the total's exactly,
// whatever happened outside the passes (the references kept honest after them have a row of their
// own). The same rows in the text report and the HTML report's passes table. Every provider and
// Smart preset on generated histories, and on the real ones.
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, providerCatalogue, validateConversation, type ApiMessage, type CondenseOptions, type CondenseResult } from '../lib/index.js'
import { buildReportData, renderHtmlReport } from '../lib/report-html.js'
import { FIXTURES, assertInvariants, loadFixture, itReal } from './helpers.js'

const catalogue = providerCatalogue()
/** Every provider (Smart once per preset); Native with a summary that always fits. */
const runs: Array<[string, CondenseOptions]> = catalogue.providers.flatMap(
  (p): Array<[string, CondenseOptions]> =>
    p.id === 'smart'
      ? catalogue.presets.map((preset): [string, CondenseOptions] => [`smart ${preset}`, { provider: 'smart', config: { preset } }])
      : [[p.id, { provider: p.id, summarize: async () => ({ text: 'What happened so far: files were read and edited.' }) }]],
)

/** The invariants of a condensing; Native replaces the middle by one summary, so of its run: input
 * untouched, a history the APIs accept, no more tokens than before. */
function checkInvariants(label: string, history: ApiMessage[], snapshot: ApiMessage[], result: CondenseResult) {
  if (result.error) return expect(history).toEqual(snapshot)
  if (label !== 'native') return assertInvariants(history, snapshot, result)
  expect(history).toEqual(snapshot)
  expect(validateConversation(result.messages)).toEqual([])
  expect(result.newContextTokens).toBeLessThanOrEqual(result.prevContextTokens)
}

function checkRows(what: string, result: CondenseResult) {
  const m = result.metrics
  if (result.error) return
  const rows = m.passes
  expect(rows.length, what).toBeGreaterThan(0)
  expect(rows[0].tokensBefore, `${what}: the first row starts at the total's before`).toBe(m.tokensBefore)
  for (let i = 1; i < rows.length; i++) expect(rows[i].tokensBefore, `${what}: row ${i} starts where row ${i - 1} ended`).toBe(rows[i - 1].tokensAfter)
  const sum = rows.reduce((s, p) => s + (p.tokensBefore - p.tokensAfter), 0)
  expect(sum, `${what}: the rows' savings`).toBe(m.tokensBefore - m.tokensAfter)
  expect(m.tokensBefore - m.tokensAfter, what).toBe(m.tokensSaved)
  // Only the last row may be the one after the passes, and it counts no change of its own.
  rows.slice(0, -1).forEach((p) => expect(p.afterPasses, what).toBeUndefined())
  const last = rows[rows.length - 1]
  if (last.afterPasses) {
    expect(last.id).toBe('afterPasses')
    expect(last.tokensAfter).not.toBe(last.tokensBefore)
    for (const k of ['deduplicated', 'superseded', 'omitted', 'suppressed', 'truncated', 'summarized'] as const) expect(last[k]).toBe(0)
  }
  // The text report: one line per row, the same numbers, ending at the total.
  const fmt = (n: number) => n.toLocaleString('en-US')
  const lines = result.report.split('\n').filter((l) => / → [\d,]+ tokens \(/.test(l) && !l.startsWith(' - Total'))
  expect(lines, `${what}: ${result.report}`).toHaveLength(rows.filter((p) => !p.skipped).length)
  const literal = (t: string) => t.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
  // "Pass 2 (name): a → b tokens" for a numbered pass, "name: a → b tokens" for the others.
  for (const p of rows.filter((r) => !r.skipped))
    expect(result.report, what).toMatch(new RegExp(`${literal(p.name)}\\)?: ${literal(`${fmt(p.tokensBefore)} → ${fmt(p.tokensAfter)} tokens`)}`))
  expect(result.report).toContain(`(${fmt(m.tokensBefore)} → ${fmt(m.tokensAfter)} tokens`)
}

/** The HTML report's passes table: its rows' savings add up to its total row's. */
function checkTable(what: string, before: ApiMessage[], result: CondenseResult) {
  const data = buildReportData(before, result)
  expect(
    data.passes.reduce((s: number, p: { tokensSaved: number }) => s + p.tokensSaved, 0),
    what,
  ).toBe(data.totals.tokensSaved)
  const html = renderHtmlReport(before, result)
  const table = html.slice(html.indexOf('<table class="passes" id="passes">'), html.indexOf('</table>', html.indexOf('id="passes"')))
  const body = table.slice(table.indexOf('<tbody>'), table.indexOf('</tbody>'))
  const saved = [...body.matchAll(/data-field="tokensSaved" data-value="(-?\d+)"/g)].map((x) => Number(x[1]))
  expect(
    saved.reduce((s, n) => s + n, 0),
    `${what}: the table's rows`,
  ).toBe(result.metrics.tokensSaved)
  const after = result.metrics.passes.find((p) => p.afterPasses)
  if (after) expect(body, what).toMatch(/<tr data-pass="afterPasses" class="after-passes unattributed"><td><\/td>/)
}

describe("the passes' rows add up to the total", () => {
  const generated: Array<[string, ApiMessage[]]> = []
  for (const format of ['xml', 'native'] as const)
    for (const [seed, targetTokens] of [
      [1, 60_000],
      [2, 100_000],
    ])
      generated.push([`${format} ${seed}`, generateHistory({ seed, format, targetTokens, thinking: seed === 2 }) as ApiMessage[]])

  it('on generated histories, every provider and preset, in the metrics, the text report and the HTML table', async () => {
    let outside = 0
    for (const [name, history] of generated)
      for (const [label, options] of runs) {
        const snapshot = structuredClone(history)
        const result = await condense(history, { ...options, provenance: true })
        checkInvariants(label, history, snapshot, result)
        checkRows(`${name}, ${label}`, result)
        if (!result.error) checkTable(`${name}, ${label}`, history, result)
        if (result.metrics.passes.some((p) => p.afterPasses)) outside++
      }
    // The case this is about: the references kept honest after Smart's passes changed the size.
    expect(outside).toBeGreaterThan(0)
  }, 120_000)

  itReal(
    'on the real histories, every provider and preset',
    async () => {
      for (const name of FIXTURES) {
        const history = loadFixture(name)
        const snapshot = structuredClone(history)
        for (const [label, options] of runs) {
          const result = await condense(history, options)
          checkInvariants(label, history, snapshot, result)
          checkRows(`${name}, ${label}`, result)
        }
      }
    },
    300_000,
  )
})
