#!/usr/bin/env node
// Regenerates docs/report.png: the HTML report (lib/report-html.js) of a real Roo Code history
// condensed with Smart `balanced`, shown 1400x900 in headless Chromium with one message open.
//
//   node docs/report-screenshot.mjs [fixture name] [out.png]
//
// Needs the built addon, ../shared/fixtures/roo-pr8743 beside the repository, playwright-core (a
// dev dependency) and Debian's chromium (apt-get install -y chromium).
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { dirname, join } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

import { launchChromium } from '../scripts/chromium.mjs'

const require = createRequire(import.meta.url)
const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const { traceCondense, renderHtmlReport } = require('../lib/report-html.js')

const fixture = process.argv[2] ?? 'synthetic-3-tool-dedup'
const out = process.argv[3] ?? join(root, 'docs', 'report.png')
const history = join(root, '..', 'shared', 'fixtures', 'roo-pr8743', fixture, 'api_conversation_history.json')

const messages = JSON.parse(readFileSync(history, 'utf8'))
const trace = await traceCondense(messages, { provider: 'smart', config: { preset: 'balanced' } })
const html = renderHtmlReport(messages, trace.result, {
  stages: trace.stages,
  title: `Condensation report: ${fixture}`,
  source: `roo-pr8743/${fixture}`,
  preset: 'balanced',
})

const dir = mkdtempSync(join(tmpdir(), 'context-condense-shot-'))
const browser = await launchChromium(['--hide-scrollbars'])
try {
  const file = join(dir, 'report.html')
  writeFileSync(file, html)
  const page = await browser.newPage({ viewport: { width: 1400, height: 900 } })
  await page.route('**', (route) => (/^(file|data):/.test(route.request().url()) ? route.continue() : route.abort()))
  await page.goto(pathToFileURL(file).href)
  await page.waitForSelector('html[data-ready="true"]')
  // Open a message the passes changed (a repeated read of package.json), then show the top of the page.
  const open =
    (await page.locator('a.badge.k-deduplicated').count()) > 0
      ? page.locator('.cell.before:has(a.badge.k-deduplicated) .bar').first()
      : page.locator('.bar').first()
  await open.click()
  await page.mouse.move(1399, 899)
  await page.evaluate(() => window.scrollTo(0, 0))
  await page.screenshot({ path: out })
  console.log(`${out}: ${fixture}, smart balanced, ${messages.length} messages`)
} finally {
  await browser.close()
  rmSync(dir, { recursive: true, force: true })
}
