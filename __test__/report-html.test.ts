// The visual condensation report (lib/report-html.js) and `context-condense report`: the page is
// self-contained (no URL it would load, a CSP denying the network), escapes what the history
// holds, says what each pass did to each message (exactly, pass by pass), and works in headless
// Chromium (Debian's `chromium`, driven by playwright-core): a bar per message on each side, the
// passes' totals as in the metrics, the full text on click, dedup links to the kept copy, a screenshot
// that shows it; long histories (report-html-browse.ts): the rows in view only, search, filters, jump.
import { spawn } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Browser } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { condense, type ApiMessage, type CondenseOptions, type CondenseResult, type SummarizeRequest } from '../lib/index.js'
import { generateHistory } from '../fixtures/generate.mjs'
import { buildReportData, renderHtmlReport } from '../lib/report-html.js'
import { FIXTURE_DIR, HAVE_FIXTURES, assertInvariants, loadFixture, itReal } from './helpers.js'
import { launchChromium } from '../scripts/chromium.mjs'
import { needsChromium } from './skip-when.js'
import { assertSelfContained, everyBar, openReport, pageData, pngColors, reveal } from './report-page.js'
import { browsingTests } from './report-html-browse.js'
import { completion, startMockLLM } from './mock-llm-server.js'

const ROOT = join(__dirname, '..')
const CLI = join(ROOT, 'bin', 'context-condense.mjs')
const tmp = mkdtempSync(join(tmpdir(), 'context-condense-report-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

const DEDUP = 'synthetic-3-tool-dedup' // references, superseded state, truncation, suppression
const HEAVY = 'heavy-uncondensed'
const HOSTILE = '</script><img src=x onerror=alert(1)>'

const balanced: CondenseOptions = { provider: 'smart', config: { preset: 'balanced' } }
const ACTIONS = ['deduplicated', 'superseded', 'omitted', 'suppressed', 'truncated', 'summarized'] as const
const standIn = async (r: SummarizeRequest) => `Stand-in summary of ${r.messages.length} messages (${r.purpose}).`

let dedupBefore: ApiMessage[]
let dedupResult: CondenseResult
let dedupHtml: string
beforeAll(async () => {
  if (!HAVE_FIXTURES) return // the tests that read these are skipped
  dedupBefore = loadFixture(DEDUP)
  dedupResult = await condense(dedupBefore, { ...balanced, provenance: true })
  dedupHtml = renderHtmlReport(dedupBefore, dedupResult, { title: DEDUP, preset: 'balanced' })
})

describe('the page', () => {
  itReal('is one self-contained file: inline CSS and JS, the data as JSON with < escaped, no URL it would load', () => {
    assertSelfContained(dedupHtml)
    // The fixture itself holds URLs (package.json, README.md): only in the data, escaped.
    expect(JSON.stringify(dedupBefore)).toMatch(/https:\/\//)
    const script = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(dedupHtml)![1]
    expect(script).not.toContain('<')
    expect(pageData(dedupHtml)).toEqual(JSON.parse(JSON.stringify(buildReportData(dedupBefore, dedupResult, { title: DEDUP, preset: 'balanced' }))))
    // The same input gives the same page (no date unless asked for one).
    expect(renderHtmlReport(dedupBefore, dedupResult, { title: DEDUP, preset: 'balanced' })).toBe(dedupHtml)
  })

  it('escapes everything from the history', async () => {
    const history: ApiMessage[] = [
      { role: 'user', content: [{ type: 'text', text: `<task>${HOSTILE} & "quotes" 'too'</task>` }], ts: 1 },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: `read_file${HOSTILE}`, input: { path: HOSTILE } }], ts: 2 },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: `${HOSTILE}\n`.repeat(40) }], ts: 3 },
      { role: 'assistant', content: HOSTILE, ts: 4 },
    ]
    const result = await condense(history, { provider: 'truncation', config: { preserveRecentCount: 1, maxToolResultLines: 2 }, provenance: true })
    const html = renderHtmlReport(history, result, { title: HOSTILE, source: HOSTILE })
    assertSelfContained(html)
    expect(html).not.toContain('<img')
    expect(html).not.toContain('onerror=alert(1)>')
    expect(html.match(/<\/script>/g)).toHaveLength(2) // the data's and the page script's own
    expect(html).toContain('<title>&lt;/script&gt;&lt;img src=x onerror=alert(1)&gt;</title>')
    const data = pageData(html)
    expect(data.before[0].parts[0].text).toBe(`<task>${HOSTILE} & "quotes" 'too'</task>`)
    expect(data.before[1].parts[0].label).toBe(`tool call: read_file${HOSTILE}`)
  })

  itReal("says what each pass did, from the engine's record (Smart balanced on a real history)", () => {
    const result = dedupResult
    const data = buildReportData(dedupBefore, result)
    expect(data.before).toHaveLength(dedupBefore.length)
    expect(data.after).toHaveLength(result.messages.length)
    // Tokens per message add up to the metrics.
    expect(data.before.reduce((n, b) => n + b.tokens, 0)).toBe(result.metrics.tokensBefore)
    expect(data.after.reduce((n, a) => n + a.tokens, 0)).toBe(result.metrics.tokensAfter)
    for (const b of data.before) expect(Object.values(b.types).reduce((n, v) => n + (v ?? 0), 0)).toBe(b.tokens)
    // The passes' totals are the metrics'.
    expect(data.passes.map((p) => [p.id, p.tokensBefore, p.tokensAfter, p.suppressed, p.truncated, p.summarized])).toEqual(
      result.metrics.passes.map((p) => [p.id, p.tokensBefore, p.tokensAfter, p.suppressed, p.truncated, p.summarized]),
    )
    // Unchanged messages are the caller's own objects; they, and only they, did nothing.
    result.messages.forEach((m, j) => {
      const same = dedupBefore.indexOf(m)
      expect(data.after[j].same).toBe(same >= 0 ? same : undefined)
      if (same >= 0) expect(data.before[same].actions).toEqual([])
      else expect(data.before[data.after[j].from!].actions.length).toBeGreaterThan(0)
    })
    // The prelude's operations deduplicated and superseded; the truncating pass suppressed and truncated.
    const [dedupPass, consolidatePass, obsoletePass, truncate] = data.passes
    expect([dedupPass.id, consolidatePass.id, obsoletePass.id]).toEqual(['deduplicateFileReads', 'consolidateToolResults', 'removeObsoleteState'])
    // The prelude keeps the latest of identical copies; references whose kept copy the truncating
    // pass then shortened (it was old too) are omitted: no longer expandable.
    expect(Object.keys(dedupPass.actions)).toEqual(['omitted'])
    expect(Object.keys(consolidatePass.actions)).toEqual(['deduplicated'])
    expect(Object.keys(obsoletePass.actions)).toEqual(['superseded'])
    expect(truncate.actions.suppressed).toBeGreaterThan(0)
    expect(truncate.actions.truncated).toBeGreaterThan(0)
    // Message 14 reads package.json, as message 16 does after it: the prelude made 14 a reference to
    // 16, the latest copy; the truncating pass then shortened 16 (old too), so the reference is omitted.
    const dedup = data.before[14].actions.find((a) => a.kind === 'omitted')!
    expect(dedup).toMatchObject({ pass: 'deduplicateFileReads', ref: 16, content: 'toolResults' })
    expect(JSON.stringify(result.messages[14].content)).toContain("⟨ Omitted: content of 'package.json' identical to message #16, since shortened ⟩")
    expect(data.before[16].actions.map((a) => a.kind)).toContain('truncated')
    expect(JSON.stringify(dedupBefore[16].content)).toContain('"name\\": \\"roo-code\\"')
    // Message 66 keeps its reference to 80, the latest of the same result (the prelude's); message
    // 0's environment is superseded by 2's.
    expect(data.before[66].actions.find((a) => a.kind === 'deduplicated')).toMatchObject({ pass: 'consolidateToolResults', ref: 80 })
    expect(data.before[0].actions).toEqual([
      expect.objectContaining({ kind: 'superseded', pass: 'removeObsoleteState', ref: 2, content: 'environmentDetails' }),
    ])
    // Every action names a pass.
    for (const b of data.before) for (const a of b.actions) expect(result.metrics.passes.map((p) => p.id)).toContain(a.pass)
  })

  it("refuses a result without the engine's record instead of guessing", async () => {
    const history = generateHistory({ seed: 3, format: 'xml', targetTokens: 20_000 }) as ApiMessage[]
    const result = await condense(history, { provider: 'truncation' })
    expect(result.provenance).toBeUndefined()
    expect(() => buildReportData(history, result)).toThrow(/result\.provenance is missing: condense with \{ provenance: true \}/)
    const withIt = await condense(history, { provider: 'truncation', provenance: true })
    expect(withIt.messages).toEqual(result.messages)
    expect(() => buildReportData(history, { ...withIt, messages: withIt.messages.slice(1) })).toThrow(/does not describe result\.messages/)
  })

  it('counts and shows what no pass did (a reference renumbered after a summary moved its target)', async () => {
    // Lossless leaves references; Smart aggressive then summarizes a span before some of their
    // targets, and the engine renumbers those references: a change made after the passes.
    const history = generateHistory({ seed: 2, targetTokens: 100_000 }) as ApiMessage[]
    const snapshot = structuredClone(history)
    const first = await condense(history, { provider: 'lossless', config: { keep: 'first' } })
    assertInvariants(history, snapshot, first)
    const firstSnapshot = structuredClone(first.messages)
    const result = await condense(first.messages, {
      provider: 'smart',
      config: { preset: 'aggressive' },
      provenance: true,
      summarize: async () => ({ text: 'What happened so far.' }),
    })
    assertInvariants(first.messages, firstSnapshot, result)
    const data = buildReportData(first.messages, result)
    const byHand = data.before.filter((b) => b.actions.some((a) => a.pass === null))
    expect(byHand.length).toBeGreaterThan(0)
    const kinds: Record<string, number> = {}
    for (const b of data.before) for (const a of b.actions) if (a.pass === null) kinds[a.kind] = (kinds[a.kind] ?? 0) + 1
    expect(data.unattributed).toEqual({ messagesChanged: byHand.length, actions: kinds })
    const html = renderHtmlReport(first.messages, result)
    // In the row of what changed after the passes when the engine has one (unnumbered), else a row of its own.
    const after = result.metrics.passes.find((p) => p.afterPasses)
    const row = html.match(after ? /<tr data-pass="afterPasses" class="after-passes unattributed"><td><\/td>.*?<\/tr>/ : /<tr class="unattributed">.*?<\/tr>/)
    expect(row).not.toBeNull()
    expect(html.match(/<tr[^>]*class="[^"]*unattributed"/g)).toHaveLength(1)
    expect(row![0]).toMatch(new RegExp(`<td class="num"( data-field="messagesChanged" data-value="${byHand.length}")?>${byHand.length}</td>`))
    expect(row![0]).toMatch(/class="chip k-/)
  })

  it("says which count is which: the passes' table counts changes, the legend counts messages", async () => {
    const history = generateHistory({ seed: 3, format: 'xml', targetTokens: 60_000 }) as ApiMessage[]
    const result = await condense(history, { provider: 'smart', config: { preset: 'balanced' }, provenance: true })
    const html = renderHtmlReport(history, result)
    const data = buildReportData(history, result)
    const truncated = data.passes.reduce((n, p) => n + (p.actions.truncated ?? 0), 0)
    const messages = data.before.filter((b) => b.actions.some((a) => a.kind === 'truncated')).length
    // The case that misleads: more changes than messages (a message truncated in several blocks).
    expect(truncated).toBeGreaterThan(messages)
    const has = (text: string) => expect(html.includes(text), text).toBe(true)
    has(
      '<th class="" title="the engine&#39;s count of changes by action: content blocks, or messages replaced by a summary (the legend below counts messages)">changes it made</th>',
    )
    for (const p of data.passes)
      if (p.actions.truncated) has(`data-field="truncated" data-value="${p.actions.truncated}" title="${p.actions.truncated} changes: truncated">`)
    has('<b>What happened</b> <span class="unit">(messages)</span>')
    has("Each number counts messages (the passes' table above counts changes: a message can have several).")
  })

  itReal('attributes Smart summaries to their pass (summarize callback asked once per request)', async () => {
    let calls = 0
    const result = await condense(dedupBefore, {
      ...balanced,
      provenance: true,
      summarize: async (r) => {
        calls++
        return standIn(r)
      },
    })
    const data = buildReportData(dedupBefore, result)
    const summarize = data.passes.find((p) => p.id === 'summarize-oldest')!
    expect(summarize.actions.summarized).toBeGreaterThan(0)
    expect(summarize.actions.summarized).toBe(result.metrics.passes.find((p) => p.id === 'summarize-oldest')!.summarized)
    expect(calls).toBe(result.metrics.callbackCalls)
    const summarized = data.before.flatMap((b) => b.actions.filter((a) => a.kind === 'summarized'))
    expect(summarized).toHaveLength(summarize.actions.summarized!)
    for (const a of summarized) expect(a).toMatchObject({ pass: 'summarize-oldest' })
    expect(summarized.every((a) => a.content !== 'message')).toBe(true)
  })

  itReal('shows a summary beside the run of messages it replaced (native)', async () => {
    const before = loadFixture(HEAVY)
    const result = await condense(before, { provider: 'native', summarize: standIn, provenance: true })
    const data = buildReportData(before, result)
    const s = data.after.findIndex((a) => a.isSummary)
    expect(result.provenance!.origins[s]).toEqual({ covers: [1, before.length - 4], summary: true })
    expect(data.after[s].covers).toEqual([1, before.length - 4])
    const row = data.rows.find((r) => r.after === s)!
    expect(row).toMatchObject({ before: 1, span: before.length - 4 })
    expect(data.rows).toHaveLength(before.length)
    for (let i = 1; i <= before.length - 4; i++)
      expect(data.before[i].actions).toEqual([
        {
          kind: 'summarized',
          pass: 'native',
          passName: result.metrics.passes[0].name,
          content: 'message',
          tokensSaved: data.before[i].tokens,
          whole: true,
          into: s,
        },
      ])
    expect(data.passes[0].actions).toEqual({ summarized: before.length - 4 })
    expect(result.metrics.messagesRemoved).toBe(before.length - 4)
  })
})

// ---------------------------------------------------------------------------------------------
// In the browser

describe('in headless Chromium', () => {
  let browser: Browser
  // Without Chromium (outside CI) each test here is skipped, saying so; the rest of the file runs.
  const launch = needsChromium()
  beforeAll(async () => {
    if (launch) browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
  })

  /** Opens an HTML page from a file, 1400x900, with every request but file: and data: aborted and recorded. */
  const open = (html: string, name: string) => openReport(browser, join(tmp, name), html)

  it('the network guard sees what a page tries to load (a control page)', async () => {
    const { page, attempted } = await open(
      '<!DOCTYPE html><p>control</p><img src="http://192.0.2.1/x.png"><script>document.documentElement.dataset.ready = "true"</script>',
      'control.html',
    )
    await page.waitForTimeout(100)
    expect(attempted).toEqual(['http://192.0.2.1/x.png'])
    await page.close()
  })

  itReal('renders a bar per message on each side, and the passes totals of the metrics; loads nothing', async () => {
    const { page, attempted, errors } = await open(dedupHtml, 'dedup.html')
    const result = dedupResult
    const bars = await everyBar(page)
    const indices = (side: string) => bars.flatMap((b) => (b.side === side ? [b.index] : [])).sort((a, b) => a - b)
    expect(indices('before')).toEqual(dedupBefore.map((_m, i) => i))
    expect(indices('after')).toEqual(result.messages.map((_m, j) => j))
    // Bars are drawn (width > 0), colored by content type.
    const widths = bars.map((b) => b.width)
    expect(Math.min(...widths)).toBeGreaterThan(0)
    const colors = await page
      .locator('.bar[data-side="before"][data-index="0"] .seg')
      .evaluateAll((segs) => segs.map((s) => getComputedStyle(s).backgroundColor))
    expect(colors).toEqual(['rgb(76, 120, 168)', 'rgb(157, 117, 93)']) // user text, environment details
    // The passes table, cell by cell.
    const rows = await page.locator('#passes tbody tr[data-pass]').evaluateAll((trs) =>
      trs.map((tr) => ({
        id: tr.getAttribute('data-pass'),
        ...Object.fromEntries([...tr.querySelectorAll('[data-field]')].map((c) => [c.getAttribute('data-field'), Number(c.getAttribute('data-value'))])),
      })),
    )
    expect(rows).toEqual(
      result.metrics.passes.map((p) => ({
        id: p.id,
        tokensBefore: p.tokensBefore,
        tokensAfter: p.tokensAfter,
        tokensSaved: p.tokensBefore - p.tokensAfter,
        messagesChanged: p.messagesChanged,
        ...Object.fromEntries(ACTIONS.filter((k) => p[k] > 0).map((k) => [k, p[k]])),
      })),
    )
    const total = await page
      .locator('#passes tfoot tr[data-total]')
      .evaluate((tr) =>
        Object.fromEntries([...tr.querySelectorAll('[data-field]')].map((c) => [c.getAttribute('data-field'), Number(c.getAttribute('data-value'))])),
      )
    expect(total).toEqual({
      tokensBefore: result.metrics.tokensBefore,
      tokensAfter: result.metrics.tokensAfter,
      tokensSaved: result.metrics.tokensSaved,
      reductionPercent: result.metrics.reductionPercent,
      messagesAffected: expect.any(Number),
      // The totals are the passes' sums, plus the messages whose references were renumbered after the passes.
      ...Object.fromEntries(ACTIONS.filter((k) => result.metrics.actions[k] > 0).map((k) => [k, result.metrics.actions[k]])),
      ...(buildReportData(dedupBefore, result).kinds.changed ? { changed: buildReportData(dedupBefore, result).kinds.changed } : {}),
    })
    for (const k of ACTIONS) expect(result.metrics.actions[k]).toBe(result.metrics.passes.reduce((n, p) => n + p[k], 0))
    expect(await page.locator('#passes tfoot').innerText()).toContain(`−${result.metrics.reductionPercent.toFixed(1)}%`)
    expect(await page.locator('#kpi-tokens-after .v').innerText()).toBe(result.metrics.tokensAfter.toLocaleString('en-US'))
    // Bar length: √tokens by default, tokens on request.
    const tokens = buildReportData(dedupBefore, result).before.map((b) => b.tokens)
    const big = tokens.indexOf(Math.max(...tokens))
    const mid = tokens.findIndex((t) => t > tokens[big] / 20 && t < tokens[big] / 2)
    expect(mid).toBeGreaterThan(-1)
    const width = async (i: number) => {
      await reveal(page, `.bar[data-side="before"][data-index="${i}"]`)
      return page.locator(`.bar[data-side="before"][data-index="${i}"]`).evaluate((b) => b.getBoundingClientRect().width)
    }
    const ratio = async () => (await width(mid)) / (await width(big))
    expect(await ratio()).toBeCloseTo(Math.sqrt(tokens[mid] / tokens[big]), 2)
    await page.click('[data-scale="linear"]')
    expect(await ratio()).toBeCloseTo(tokens[mid] / tokens[big], 2)
    expect(attempted).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  itReal("a click on a bar shows the message's full text; the page changes; the screenshot is a real picture", async () => {
    const { page, attempted, errors } = await open(dedupHtml, 'dedup-click.html')
    const shotBefore = await page.screenshot()
    // Message 4: the first read of package.json, whole before.
    const text = (dedupBefore[4].content as Array<{ type: string; text: string }>).filter((b) => b.type === 'text').map((b) => b.text)
    await page.click('.bar[data-side="before"][data-index="4"]')
    const panel = page.locator('#panel-text')
    await expect.poll(() => panel.count()).toBe(1)
    const shown = await panel.evaluate((el) => el.textContent ?? '')
    for (const t of text) expect(shown).toContain(t)
    expect(await page.locator('#panel h2').innerText()).toBe('Before #4 · user')
    const did = await page.locator('#panel .p-actions li').allInnerTexts()
    expect(did[0]).toMatch(/^File reads deduplicated: omitted → kept copy #16 · tool results, −[\d,]+ tokens$/)
    expect(
      did.slice(1).map((t) =>
        t
          .split('\n')[0]
          .replace(/\s+$/, '')
          .replace(/, −[\d,]+ tokens$/, ''),
      ),
    ).toEqual(['Obsolete state removed: superseded by #6 · environment details', 'Truncate old tool results and parameters: suppressed · environment details'])
    expect(await page.locator('.bar[data-side="before"][data-index="4"]').getAttribute('class')).toContain('selected')
    // The condensed version: its markers, from the other side.
    await page.click('#panel .p-switch button:has-text("After")')
    const after = await page.locator('#panel-text').evaluate((el) => el.textContent ?? '')
    expect(after).toContain("⟨ Omitted: lines 1-66 of 'package.json' shown again in message #16, since shortened ⟩")
    expect(after).not.toContain(text[1])
    const shotAfter = await page.screenshot()
    for (const png of [shotBefore, shotAfter]) {
      expect(png.subarray(0, 8).toString('hex')).toBe('89504e470d0a1a0a')
      expect(png.readUInt32BE(16)).toBe(1400) // IHDR width
      expect(png.readUInt32BE(20)).toBe(900) // IHDR height
      expect(png.length).toBeGreaterThan(30_000)
      expect(await pngColors(page, png)).toBeGreaterThan(40)
    }
    expect(shotAfter.equals(shotBefore)).toBe(false)
    expect(attempted).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  itReal('a dedup link scrolls to the kept copy and highlights it', async () => {
    const { page, errors } = await open(dedupHtml, 'dedup-link.html')
    // Message 28 reads README.md, as message 34 does later: its badge links to message 34, the copy
    // its reference pointed at (omitted now: a later pass shortened that copy).
    const link = page.locator('#b-28 a.badge.k-omitted[data-ref="34"]')
    await reveal(page, '#b-28', 'end')
    expect(await link.count()).toBe(1)
    const kept = page.locator('#b-34')
    const inView = () =>
      kept.evaluate((el) => {
        const r = el.getBoundingClientRect()
        return r.top >= 0 && r.bottom <= window.innerHeight
      })
    expect(await inView()).toBe(false)
    expect(await kept.getAttribute('class')).not.toContain('highlight')
    await link.click()
    expect(await kept.getAttribute('class')).toContain('highlight')
    expect(await page.locator('#a-34').getAttribute('class')).toContain('highlight')
    await expect.poll(inView).toBe(true)
    expect(await page.locator('#panel h2').innerText()).toBe('Before #34 · user')
    expect(await page.locator('.cell.highlight').count()).toBe(2)
    expect(errors).toEqual([])
    await page.close()
  })

  it('hostile text stays text: nothing runs, nothing loads', async () => {
    const history: ApiMessage[] = [
      { role: 'user', content: [{ type: 'text', text: `<task>${HOSTILE}</task>` }], ts: 1 },
      { role: 'assistant', content: `<b>bold?</b> ${HOSTILE}`, ts: 2 },
    ]
    const result = await condense(history, { provider: 'lossless', provenance: true })
    const { page, attempted, errors, dialogs } = await open(renderHtmlReport(history, result, { title: HOSTILE }), 'hostile.html')
    await page.click('.bar[data-side="before"][data-index="1"]')
    expect(await page.locator('#panel-text').evaluate((el) => el.textContent)).toContain(`<b>bold?</b> ${HOSTILE}`)
    expect(await page.locator('img, #panel b:has-text("bold?")').count()).toBe(0)
    expect(await page.title()).toBe(HOSTILE)
    expect(dialogs).toEqual([])
    expect(attempted).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  itReal('a summary spans the rows of the messages it replaced', async () => {
    const before = loadFixture(HEAVY)
    const result = await condense(before, { provider: 'native', summarize: standIn, provenance: true })
    const { page, errors } = await open(renderHtmlReport(before, result), 'native.html')
    const spans = page.locator('.cell.after.spans')
    expect(await spans.count()).toBe(1)
    expect(await spans.getAttribute('data-covers')).toBe(`1-${before.length - 4}`)
    const h = await spans.evaluate((el) => el.getBoundingClientRect().height)
    const one = await page.locator('#b-1').evaluate((el) => el.getBoundingClientRect().height)
    expect(h).toBeGreaterThan(20 * one)
    await page.click('.cell.after.spans .bar')
    expect(await page.locator('#panel-text').evaluate((el) => el.textContent)).toContain('Stand-in summary of')
    expect(errors).toEqual([])
    await page.close()
  })
})

describe('browsing a long history in headless Chromium', () => browsingTests(tmp))

// ---------------------------------------------------------------------------------------------
// The command line

interface Run {
  code: number | null
  stdout: string
  stderr: string
}
function cli(args: string[]): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env = { ...process.env }
    delete env.CONTEXT_CONDENSE_API_KEY
    delete env.OPENAI_API_KEY
    const child = spawn(process.execPath, [CLI, ...args], { cwd: tmp, env, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code) => resolve({ code, stdout, stderr }))
  })
}

describe('context-condense report', () => {
  itReal('writes a self-contained page of a Roo Code task folder (smart balanced by default); exit 0', async () => {
    const file = join(tmp, 'r.html')
    const r = await cli(['report', join(FIXTURE_DIR, DEDUP), '--html', file])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    expect(r.stdout).toMatch(
      new RegExp(
        `^Report: ${file.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\([\\d,]+ bytes, self-contained: open it in a browser\\)\n - smart balanced: 187,406 → 9,154 tokens \\(-95\\.1%\\), 92 messages → 92\n$`,
      ),
    )
    expect(statSync(file).size).toBeGreaterThan(10_000)
    const html = readFileSync(file, 'utf8')
    assertSelfContained(html)
    const data = pageData(html)
    expect(data).toMatchObject({ provider: 'smart', preset: 'balanced', title: `Condensation report: ${DEDUP}` })
    expect(data.before).toHaveLength(dedupBefore.length)
    expect(data.passes.map((p) => p.tokensAfter)).toEqual(dedupResult.metrics.passes.map((p) => p.tokensAfter))
    expect(data.before[14].actions.find((a) => a.kind === 'omitted')).toMatchObject({ pass: 'deduplicateFileReads', ref: 16 })
    expect(data.before.map((b) => b.actions)).toEqual(buildReportData(dedupBefore, dedupResult).before.map((b) => b.actions))
    // Exists: refused without --force, replaced with it.
    const again = await cli(['report', join(FIXTURE_DIR, DEDUP), '--html', file, '-p', 'lossless'])
    expect(again.code).toBe(2)
    expect(again.stderr).toBe(`context-condense: --html ${file} exists\n  pass --force to overwrite it, or choose another file\n`)
    const forced = await cli([
      'report',
      join(FIXTURE_DIR, DEDUP, 'api_conversation_history.json'),
      '--html',
      file,
      '-p',
      'lossless',
      '--force',
      '--title',
      'Mine',
    ])
    expect(forced.code).toBe(0)
    expect(pageData(readFileSync(file, 'utf8'))).toMatchObject({ provider: 'lossless', title: 'Mine' })
  })

  itReal('without --html: exit 2, saying what to pass; other errors as condense has them', async () => {
    const r = await cli(['report', join(FIXTURE_DIR, DEDUP)])
    expect(r.code).toBe(2)
    expect(r.stdout).toBe('')
    expect(r.stderr).toBe('context-condense: report: --html FILE is required\n  pass --html report.html: the file to write the page to\n')
    const missing = await cli(['report', join(tmp, 'nope.json'), '--html', join(tmp, 'x.html')])
    expect(missing.code).toBe(3)
    expect(missing.stderr).toContain('no such file or folder')
    const preset = await cli(['report', join(FIXTURE_DIR, DEDUP), '--html', join(tmp, 'y.html'), '-p', 'lossless', '--preset', 'balanced'])
    expect(preset.code).toBe(2)
    expect(preset.stderr).toContain('--preset applies to --provider smart, not lossless')
    const native = await cli(['report', join(FIXTURE_DIR, HEAVY), '--html', join(tmp, 'z.html'), '-p', 'native'])
    expect(native.code).toBe(1)
    expect(native.stderr).toContain('pass --llm-url URL')
    for (const f of ['x.html', 'y.html', 'z.html']) expect(existsSync(join(tmp, f))).toBe(false)
    const help = await cli(['help', 'report'])
    expect(help.code).toBe(0)
    expect(help.stdout).toContain('context-condense report   <history> --html FILE [options]')
    expect(help.stdout).toContain('--html FILE         write the report to FILE (required)')
  })

  itReal('native with a model: the summary replaces its run of messages; the model is asked once', async () => {
    const server = await startMockLLM(() => ({ json: completion('SUMMARY: what happened so far.', { prompt_tokens: 900, completion_tokens: 20 }) }))
    try {
      const file = join(tmp, 'cli-native.html')
      const r = await cli(['report', join(FIXTURE_DIR, HEAVY), '--html', file, '-p', 'native', '--llm-url', server.url, '--json'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const json = JSON.parse(r.stdout)
      expect(json).toMatchObject({ ok: true, command: 'report', provider: 'native', out: { file } })
      expect(server.requests).toHaveLength(1)
      const data = pageData(readFileSync(file, 'utf8'))
      const summary = data.after.find((a) => a.isSummary)!
      expect(summary.covers).toEqual([1, loadFixture(HEAVY).length - 4])
      expect(summary.parts![0].text).toContain('SUMMARY: what happened so far.')
    } finally {
      await server.close()
    }
  })
})
