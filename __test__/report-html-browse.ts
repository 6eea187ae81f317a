// The report page on long histories, in headless Chromium (run by report-html.test.ts): only the
// rows in view are in the DOM, the page as tall as all of them; the search, the filters, the jump to
// a message (and #b-N in the address), the keyboard; at 800 px wide the panel sits below the
// content, never over the passes table. Generated histories: no real fixture needed.
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, type ApiMessage } from '../lib/index.js'
import { buildReportData, renderHtmlReport, type ReportData } from '../lib/report-html.js'
import { launchChromium } from '../scripts/chromium.mjs'
import { needsChromium } from './skip-when.js'
import { openReport } from './report-page.js'

/** A generated history condensed with Smart balanced, its report's data and page. */
interface Report {
  history: ApiMessage[]
  data: ReportData
  html: string
}
async function report(history: ApiMessage[]): Promise<Report> {
  const result = await condense(history, { provider: 'smart', config: { preset: 'balanced' }, provenance: true })
  return { history, data: buildReportData(history, result, { preset: 'balanced' }), html: renderHtmlReport(history, result, { preset: 'balanced' }) }
}

/** What the page counts as a row's kinds: its message before's actions, kept when none, changed when the condensation added it. */
function rowKinds(data: ReportData, r: number): string[] {
  const row = data.rows[r]
  if (row.before === null) return ['changed']
  const acts = data.before[row.before].actions
  return acts.length === 0 ? ['kept'] : acts.map((a) => a.kind)
}
function rowTypes(data: ReportData, r: number): string[] {
  const row = data.rows[r]
  return [row.before !== null ? data.before[row.before] : null, row.after !== null ? data.after[row.after] : null].flatMap((m) =>
    m ? Object.keys(m.types).filter((k) => m.types[k as keyof typeof m.types]! > 0) : [],
  )
}

const box = (page: Page, selector: string) =>
  page.locator(selector).evaluate((e) => {
    const r = e.getBoundingClientRect()
    return { left: r.left, top: r.top, right: r.right, bottom: r.bottom }
  })
type Box = Awaited<ReturnType<typeof box>>
const overlap = (a: Box, b: Box) => a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom
/** Whether an element lies wholly within the window. */
const inView = (page: Page, selector: string) =>
  page.locator(selector).evaluate((e) => {
    const r = e.getBoundingClientRect()
    return r.top >= 0 && r.bottom <= window.innerHeight
  })
/** The rows rendered (their index in data.rows). */
const renderedRows = (page: Page) => page.locator('.row').evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.row)))

export function browsingTests(tmp: string) {
  let browser: Browser
  let big: Report // 2,000+ messages
  let mid: Report
  // Without Chromium (outside CI) each test is skipped, saying so, and nothing is built for them.
  const launch = needsChromium()
  beforeAll(async () => {
    if (!launch) return
    browser = await launchChromium()
    big = await report(generateHistory({ seed: 41, format: 'xml', targetTokens: 1_800_000 }) as ApiMessage[])
    mid = await report(generateHistory({ seed: 31, format: 'xml', targetTokens: 120_000 }) as ApiMessage[])
  })
  afterAll(async () => {
    await browser?.close()
  })
  const open = (html: string, name: string, viewport?: { width: number; height: number }, hash?: string) =>
    openReport(browser, join(tmp, name), html, viewport, hash)

  it('opens a 2,000-message history with only the rows in view in the DOM (under 3,000 elements), the page as tall as all rows', async () => {
    const { history, data, html } = big
    expect(history.length).toBeGreaterThanOrEqual(2000)
    expect(html).not.toContain('class="cell') // the page's script builds the rows from the data
    const { page, attempted, errors } = await open(html, 'big.html')
    const elements = () => page.evaluate(() => document.getElementsByTagName('*').length)
    expect(await elements()).toBeLessThan(3000)
    const shown = await renderedRows(page)
    expect(shown.length).toBeGreaterThan(10)
    expect(shown.length).toBeLessThan(150)
    // Every row counts in the height (a row is at least 30 px), rendered or not.
    const height = await page.evaluate(() => document.getElementById('rows')!.getBoundingClientRect().height)
    expect(height).toBeGreaterThan(30 * data.rows.length)
    // Wherever the page is scrolled, the rows rendered fill the view, one below the other.
    for (const at of [0.1, 0.37, 0.5, 0.81, 0.2, 1]) {
      const gaps = await page.evaluate(async (f) => {
        window.scrollTo(0, f * (document.documentElement.scrollHeight - window.innerHeight))
        await new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
        const list = document.getElementById('rows')!.getBoundingClientRect()
        const boxes = [...document.querySelectorAll('.row')].map((r) => r.getBoundingClientRect()).sort((a, b) => a.top - b.top)
        const out: string[] = []
        if (boxes[0].top > Math.max(list.top, 0) + 1) out.push(`nothing above ${boxes[0].top}`)
        if (boxes[boxes.length - 1].bottom < Math.min(list.bottom, window.innerHeight) - 1) out.push(`nothing below ${boxes[boxes.length - 1].bottom}`)
        for (let k = 1; k < boxes.length; k++) if (Math.abs(boxes[k].top - boxes[k - 1].bottom) > 1) out.push(`${boxes[k - 1].bottom} → ${boxes[k].top}`)
        return out
      }, at)
      expect(gaps).toEqual([])
      expect(await elements()).toBeLessThan(3000)
    }
    // At the bottom: the last message, in view; the first is gone.
    await expect.poll(() => page.locator(`#b-${history.length - 1}`).count()).toBe(1)
    expect(await inView(page, `#b-${history.length - 1}`)).toBe(true)
    expect(await page.locator('#b-0').count()).toBe(0)
    expect(attempted).toEqual([])
    expect(errors).toEqual([])
    await page.close()
  })

  it("searches the messages' text (any case): n of m, Enter and Shift+Enter step through them, the panel marks them", async () => {
    const { data, html } = mid
    const query = 'package.json'
    const text = (parts?: Array<{ text: string }>) => (parts ?? []).map((p) => p.text.toLowerCase()).join('\n')
    const expected = data.rows
      .map((row, r) => ({ row, r }))
      .filter(
        ({ row }) =>
          (row.before !== null && text(data.before[row.before].parts).includes(query)) ||
          (row.after !== null && data.after[row.after].same === undefined && text(data.after[row.after].parts).includes(query)),
      )
      .map(({ r }) => r)
    expect(expected.length).toBeGreaterThan(2)
    expect(expected.length).toBeLessThan(data.rows.length / 4)
    const { page, errors } = await open(html, 'search.html')
    // "/" goes to the search box.
    await page.keyboard.press('/')
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('search')
    await page.keyboard.type('PACKAGE.JSON')
    const count = page.locator('#search-count')
    await expect.poll(() => count.innerText()).toBe(`${expected.length} matches`)
    const current = () => page.locator('.row.hit-current').evaluateAll((rows) => rows.map((r) => Number((r as HTMLElement).dataset.row)))
    await page.keyboard.press('Enter')
    expect(await count.innerText()).toBe(`1 of ${expected.length}`)
    expect(await current()).toEqual([expected[0]])
    expect(await inView(page, '.row.hit-current')).toBe(true)
    expect((await page.locator('#panel-text mark.hit').first().innerText()).toLowerCase()).toBe(query)
    await page.keyboard.press('Enter')
    expect(await count.innerText()).toBe(`2 of ${expected.length}`)
    expect(await current()).toEqual([expected[1]])
    await page.keyboard.press('Shift+Enter')
    await page.keyboard.press('Shift+Enter')
    expect(await count.innerText()).toBe(`${expected.length} of ${expected.length}`)
    expect(await current()).toEqual([expected[expected.length - 1]])
    // The rows rendered are marked as matches or not, as their text is.
    const marks = await page.locator('.row').evaluateAll((rows) => rows.map((r) => [Number((r as HTMLElement).dataset.row), r.classList.contains('hit')]))
    expect(marks.length).toBeGreaterThan(5)
    for (const [r, hit] of marks) expect(hit).toBe(expected.includes(r as number))
    // Only the matches: the list holds those rows alone.
    await page.check('#search-only')
    expect(await page.locator('#shown-count').innerText()).toBe(`${expected.length} of ${data.rows.length} rows shown`)
    expect((await renderedRows(page)).sort((a, b) => a - b)).toEqual(expected)
    await page.uncheck('#search-only')
    expect(await page.locator('#shown-count').innerText()).toBe(`${data.rows.length} of ${data.rows.length} rows shown`)
    // Escape empties the box.
    await page.press('#search', 'Escape')
    expect(await count.innerText()).toBe('')
    expect(await page.locator('.row.hit').count()).toBe(0)
    expect(errors).toEqual([])
    await page.close()
  })

  it('filters by what happened and by content type: only those rows, counted, the list re-virtualized over them', async () => {
    const { data, html } = mid
    const n = data.rows.length
    const all = data.rows.map((_row, r) => r)
    const { page, errors } = await open(html, 'filters.html')
    const shownCount = () => page.locator('#shown-count').innerText()
    const listHeight = () => page.evaluate(() => document.getElementById('rows')!.getBoundingClientRect().height)
    expect(await shownCount()).toBe(`${n} of ${n} rows shown`)
    const fullHeight = await listHeight()
    // Each button counts its rows; kinds no row has are disabled.
    for (const kind of ['kept', 'truncated', 'summarized', 'changed']) {
      const k = all.filter((r) => rowKinds(data, r).includes(kind)).length
      const button = page.locator(`#legend button[data-kind="${kind}"]`)
      expect(await button.locator('.n').innerText()).toBe(String(k))
      expect(await button.isDisabled()).toBe(k === 0)
    }
    const truncated = all.filter((r) => rowKinds(data, r).includes('truncated'))
    expect(truncated.length).toBeGreaterThan(3)
    await page.click('#legend button[data-kind="truncated"]')
    expect(await page.locator('#legend button[data-kind="truncated"]').getAttribute('aria-pressed')).toBe('true')
    expect(await shownCount()).toBe(`${truncated.length} of ${n} rows shown`)
    const rendered = await renderedRows(page)
    expect(rendered.length).toBeGreaterThan(3)
    for (const r of rendered) expect(truncated).toContain(r)
    expect(await page.locator('.row .cell.before:not(:has(.badge.k-truncated))').count()).toBe(0)
    expect(await listHeight()).toBeLessThan(fullHeight / 2)
    // Two kinds: either; and a content type: both.
    await page.click('#legend button[data-kind="omitted"]')
    const either = all.filter((r) => rowKinds(data, r).some((k) => k === 'truncated' || k === 'omitted'))
    expect(await shownCount()).toBe(`${either.length} of ${n} rows shown`)
    const type = 'environmentDetails'
    const both = either.filter((r) => rowTypes(data, r).includes(type))
    expect(both.length).toBeGreaterThan(0)
    expect(both.length).toBeLessThan(either.length)
    await page.click(`#legend button[data-type="${type}"]`)
    expect(await shownCount()).toBe(`${both.length} of ${n} rows shown`)
    for (const r of await renderedRows(page)) expect(both).toContain(r)
    // Going to a message the filters hide shows all again.
    const kept = all.find((r) => rowKinds(data, r)[0] === 'kept' && data.rows[r].before !== null && data.rows[r].before! > 20)!
    const index = data.rows[kept].before!
    await page.fill('#jump', String(index))
    await page.press('#jump', 'Enter')
    expect(await shownCount()).toBe(`${n} of ${n} rows shown`)
    expect(await page.locator('#jump-status').innerText()).toBe('filters cleared to show it')
    expect(await page.locator('#legend button[aria-pressed="true"]').count()).toBe(0)
    expect(await inView(page, `#b-${index}`)).toBe(true)
    // "show all" clears them too.
    await page.click('#legend button[data-kind="kept"]')
    expect(await shownCount()).not.toBe(`${n} of ${n} rows shown`)
    await page.click('#filter-clear')
    expect(await shownCount()).toBe(`${n} of ${n} rows shown`)
    expect(await listHeight()).toBeGreaterThan(fullHeight * 0.9)
    expect(errors).toEqual([])
    await page.close()
  })

  it('goes to a message by its number (#N or N), and to #b-N in the address on load; arrow keys move through the messages', async () => {
    const { history, html } = big
    const { page, errors } = await open(html, 'jump.html')
    await page.fill('#jump', '#1500')
    await page.press('#jump', 'Enter')
    expect(await page.locator('#b-1500').getAttribute('class')).toContain('highlight')
    expect(await inView(page, '#b-1500')).toBe(true)
    expect(await page.locator('.cell.highlight').count()).toBe(2) // and its version after
    expect(await page.locator('#panel h2').innerText()).toMatch(/^Before #1500 · /)
    expect(await page.evaluate(() => location.hash)).toBe('#b-1500')
    await page.fill('#jump', '1200')
    await page.press('#jump', 'Enter')
    expect(await inView(page, '#b-1200')).toBe(true)
    expect(await page.locator('#b-1200').getAttribute('class')).toContain('highlight')
    expect(await page.locator('#b-1500').count()).toBe(0) // far away: not rendered
    await page.fill('#jump', '99999')
    await page.press('#jump', 'Enter')
    expect(await page.locator('#jump-status').innerText()).toBe(`no message #99999 (there are #0 to #${history.length - 1})`)
    // ↓ moves the panel to the next message, rendered and scrolled to as needed.
    await page.evaluate(() => (document.activeElement as HTMLElement | null)?.blur())
    for (let k = 0; k < 40; k++) await page.keyboard.press('ArrowDown')
    expect(await page.locator('#panel h2').innerText()).toMatch(/^Before #1240 · /)
    expect(await page.locator('#b-1240').getAttribute('class')).toContain('selected')
    expect(await inView(page, '#b-1240')).toBe(true)
    await page.keyboard.press('ArrowUp')
    expect(await page.locator('#panel h2').innerText()).toMatch(/^Before #1239 · /)
    expect(errors).toEqual([])
    await page.close()
    // The address names a message: shown on load.
    const linked = await open(html, 'jump.html', undefined, '#b-1800')
    expect(await linked.page.locator('#b-1800').getAttribute('class')).toContain('highlight')
    expect(await inView(linked.page, '#b-1800')).toBe(true)
    expect(await linked.page.locator('#panel h2').innerText()).toMatch(/^Before #1800 · /)
    expect(linked.errors).toEqual([])
    await linked.page.close()
  })

  it('at 800 px wide the panel sits below the content, never over the passes table; at 1400 px beside it', async () => {
    const { html } = big
    const { page, errors } = await open(html, 'narrow.html', { width: 800, height: 900 })
    /** Whether what is drawn at points across the table's visible part is the table itself. */
    const uncovered = () =>
      page.evaluate(() => {
        const table = document.getElementById('passes')!
        const r = table.getBoundingClientRect()
        const content = document.querySelector('.content')!.getBoundingClientRect()
        const points: Array<[number, number]> = []
        // 4 px inside each edge: the table's last fraction of a pixel is its wrapper's to the hit test.
        for (let x = r.left + 4; x < r.right; x += (r.width - 8) / 6)
          for (let y = r.top + 4; y < Math.min(r.bottom - 4, content.bottom, window.innerHeight); y += 20) points.push([Math.min(x, r.right - 4), y])
        return points.length > 20 && points.every(([x, y]) => table.contains(document.elementFromPoint(x, y)))
      })
    let passes = await box(page, '#passes')
    let panel = await box(page, '#panel')
    expect(overlap(passes, panel)).toBe(false)
    expect(passes.left).toBeGreaterThanOrEqual(0)
    expect(passes.right).toBeLessThanOrEqual(800)
    expect(panel.top).toBeLessThan(900) // the panel is there, folded at the bottom
    expect(panel.bottom).toBeLessThanOrEqual(900)
    expect(await uncovered()).toBe(true)
    // A message opened: the panel unfolds below the content, which scrolls above it.
    await page.click('.bar[data-side="before"][data-index="1"]')
    expect(await page.locator('#panel-toggle').getAttribute('aria-expanded')).toBe('true')
    panel = await box(page, '#panel')
    expect(panel.bottom - panel.top).toBeGreaterThan(300)
    expect((await box(page, '.content')).bottom).toBeLessThanOrEqual(panel.top + 0.5)
    expect(await page.locator('#panel h2').innerText()).toMatch(/^Before #1 · /)
    await page.evaluate(() => document.querySelector('.content')!.scrollTo(0, 0))
    expect(await uncovered()).toBe(true)
    // The list still renders as the content scrolls.
    await page.evaluate(() => document.querySelector('.content')!.scrollTo(0, 40_000))
    await expect.poll(async () => Math.min(...(await renderedRows(page)))).toBeGreaterThan(400)
    await page.click('#panel-toggle')
    passes = await box(page, '#passes')
    expect(overlap(passes, await box(page, '#panel'))).toBe(false)
    // Wide: the panel is a column of its own, right of the table.
    await page.setViewportSize({ width: 1400, height: 900 })
    expect((await box(page, '#panel')).left).toBeGreaterThanOrEqual((await box(page, '#passes')).right)
    await page.evaluate(() => window.scrollTo(0, 0))
    expect(await uncovered()).toBe(true)
    expect(errors).toEqual([])
    await page.close()
  })
}
