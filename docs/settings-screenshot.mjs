#!/usr/bin/env node
// Regenerates docs/settings.png: the settings panel's demo page (examples/settings/) as it opens
// (Lossless chosen), with the preview run on the bundled history, 1100 wide, the whole page in
// headless Chromium, light scheme. Refuses to write the picture when a row of the preview failed:
// every provider but the one that needs the host's model (not run in the preview) must show its
// tokens, with no note under its bars.
//
//   node docs/settings-screenshot.mjs [out.png]
//
// Needs the built addon, playwright-core (a dev dependency) and Debian's chromium.
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { startSettingsDemo } from '../examples/settings/server.mjs'
import { launchChromium } from '../scripts/chromium.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = process.argv[2] ?? join(root, 'docs', 'settings.png')
const { PROVIDER, PROVIDER_IDS } = createRequire(import.meta.url)('../lib/internal/registry.js')

const demo = await startSettingsDemo()
const browser = await launchChromium(['--hide-scrollbars'])
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 }, colorScheme: 'light' })
  await page.goto(demo.url)
  await page.waitForFunction(() => window.panelReady)
  await page.getByRole('button', { name: 'Preview what each strategy removes' }).click()
  await page.locator(`tr[data-provider="${PROVIDER_IDS[PROVIDER_IDS.length - 1]}"]`).waitFor()
  const rows = await page
    .locator('tr[data-provider]')
    .evaluateAll((trs) =>
      trs.map((tr) => ({ provider: tr.dataset.provider, tokens: tr.querySelector('td.num').textContent, note: tr.querySelector('.cc-help')?.textContent })),
    )
  const failed = rows.filter((r) => r.provider !== PROVIDER.native && (!/^[\d,]+$/.test(r.tokens) || r.note))
  if (rows.length !== PROVIDER_IDS.length || failed.length)
    throw new Error(`the preview did not run every provider: ${JSON.stringify(failed.length ? failed : rows)}; no picture written`)
  await page.screenshot({ path: out, fullPage: true })
  console.log(`wrote ${out} (preview: ${rows.map((r) => `${r.provider} ${r.tokens}`).join(', ')})`)
} finally {
  await browser.close()
  await demo.close()
}
