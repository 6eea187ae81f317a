// The report page's test helpers (__test__/report-html.test.ts and report-html-browse.ts): the
// page's embedded data, what a self-contained page must not hold, and opening a page in headless
// Chromium with the network guarded, then scrolling its list (only the rows in view are rendered).
import { writeFileSync } from 'node:fs'
import { pathToFileURL } from 'node:url'
import type { Browser, Page } from 'playwright-core'
import { expect } from 'vitest'

import type { ReportData } from '../lib/report-html.js'

/** The page's embedded data. */
export function pageData(html: string): ReportData {
  const m = /<script type="application\/json" id="report-data">([\s\S]*?)<\/script>/.exec(html)
  expect(m).not.toBeNull()
  return JSON.parse(m![1])
}

/** What a self-contained page must not hold: anything the browser would fetch. The history's own
 * text (which holds URLs) may only be in the embedded data and in escaped title attributes. */
export function assertSelfContained(html: string) {
  const markup = html
    .replace(/<script type="application\/json" id="report-data">[\s\S]*?<\/script>/, '<script type="application/json"></script>')
    .replace(/ title="[^"<>]*"/g, '')
  expect(markup.length).toBeLessThan(html.length)
  const scripts = [...markup.matchAll(/<script>([\s\S]*?)<\/script>/g)].map((m) => m[1])
  const styles = [...markup.matchAll(/<style>([\s\S]*?)<\/style>/g)].map((m) => m[1])
  expect(scripts).toHaveLength(1)
  expect(styles).toHaveLength(1)
  const tags = markup.replace(/<(script|style)>[\s\S]*?<\/\1>/g, '').match(/<[a-z][^>]*>/gi) ?? []
  expect(tags.length).toBeGreaterThan(100)
  // No attribute that loads a URL, other than data: (the empty favicon) and links within the page.
  const loads = tags.flatMap((t) =>
    [...t.matchAll(/\s(src|href|action|formaction|poster|srcset|background|data|xlink:href)\s*=\s*("[^"]*"|'[^']*'|[^\s>]+)/gi)].map((m) =>
      m[2].replace(/^["']|["']$/g, ''),
    ),
  )
  expect(loads.filter((v) => !/^(#b-\d+|data:,)$/.test(v))).toEqual([])
  expect(tags.filter((t) => /^<(iframe|object|embed|base|img|video|audio|source|form|frame)\b/i.test(t))).toEqual([])
  expect(tags.filter((t) => /^<link\b/i.test(t))).toEqual(['<link rel="icon" href="data:,">'])
  expect(tags.filter((t) => /^<script\b/i.test(t))).toEqual(['<script type="application/json">'])
  expect(tags).toContain(
    `<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">`,
  )
  // The CSS loads nothing; the script fetches nothing and makes no element that would.
  expect(styles[0]).not.toMatch(/@import|url\(/i)
  expect(scripts[0]).not.toMatch(
    /fetch\(|XMLHttpRequest|WebSocket|EventSource|sendBeacon|import\(|new Image|\.src\s*=|createElement\(['"](img|script|link|iframe)|innerHTML|document\.write/,
  )
  // Outside the embedded data and the escaped text, no URL at all.
  expect(markup).not.toMatch(/(https?:)?\/\/[a-z0-9.-]+\.[a-z]{2,}/i)
}

/** Opens an HTML page written to `file` (at `hash`), with every request but file: and data: aborted and recorded. */
export async function openReport(browser: Browser, file: string, html: string, viewport = { width: 1400, height: 900 }, hash = '') {
  writeFileSync(file, html)
  const page = await browser.newPage({ viewport })
  const attempted: string[] = []
  const errors: string[] = []
  const dialogs: string[] = []
  page.on('request', (r) => {
    if (!/^(file|data):/.test(r.url())) attempted.push(r.url())
  })
  await page.route('**', (route) => (/^(file|data):/.test(route.request().url()) ? route.continue() : route.abort()))
  page.on('pageerror', (e) => errors.push(String(e)))
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('dialog', (d) => {
    dialogs.push(d.message())
    void d.dismiss()
  })
  await page.goto(pathToFileURL(file).href + hash)
  await page.waitForSelector('html[data-ready="true"]')
  return { page, attempted, errors, dialogs }
}

/** Distinct colors of a PNG, decoded by the browser itself. */
export async function pngColors(page: Page, png: Buffer): Promise<number> {
  return page.evaluate(async (b64) => {
    const img = new Image()
    img.src = `data:image/png;base64,${b64}`
    await img.decode()
    const canvas = document.createElement('canvas')
    canvas.width = img.width
    canvas.height = img.height
    const ctx = canvas.getContext('2d')!
    ctx.drawImage(img, 0, 0)
    const px = ctx.getImageData(0, 0, img.width, img.height).data
    const seen = new Set<number>()
    for (let i = 0; i < px.length; i += 4 * 7) seen.add((px[i] << 16) | (px[i + 1] << 8) | px[i + 2])
    return seen.size
  }, png.toString('base64'))
}

/** Scrolls the window top to bottom half a view at a time (the list renders only the rows in view
 * and a margin), and returns every bar rendered on the way: side, index and drawn width. */
export async function everyBar(page: Page): Promise<Array<{ side: string; index: number; width: number }>> {
  return page.evaluate(async () => {
    const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
    const seen = new Map<string, { side: string; index: number; width: number }>()
    window.scrollTo(0, 0)
    for (;;) {
      await frames()
      for (const b of document.querySelectorAll<HTMLElement>('.bar')) {
        seen.set(`${b.dataset.side}:${b.dataset.index}`, { side: b.dataset.side!, index: Number(b.dataset.index), width: b.getBoundingClientRect().width })
      }
      const y = window.scrollY
      window.scrollBy(0, window.innerHeight / 2)
      if (window.scrollY === y) break
    }
    window.scrollTo(0, 0)
    await frames()
    return [...seen.values()]
  })
}

/** Scrolls the window down from the top until `selector` is rendered, then puts it at `block`. */
export async function reveal(page: Page, selector: string, block: ScrollLogicalPosition = 'center') {
  await page.evaluate(
    async ([sel, at]) => {
      const frames = () => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))
      window.scrollTo(0, 0)
      for (;;) {
        await frames()
        const el = document.querySelector(sel)
        if (el) {
          el.scrollIntoView({ block: at as ScrollLogicalPosition })
          await frames()
          return
        }
        const y = window.scrollY
        window.scrollBy(0, window.innerHeight / 2)
        if (window.scrollY === y) throw new Error(`${sel} is rendered nowhere on the page`)
      }
    },
    [selector, block],
  )
}
