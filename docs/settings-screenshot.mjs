#!/usr/bin/env node
// Regenerates docs/settings.png: the settings panel's demo page (examples/settings/) with Smart
// chosen and the preview run on the bundled history, 1100 wide, the whole page in headless Chromium.
//
//   node docs/settings-screenshot.mjs [out.png]
//
// Needs the built addon, playwright-core (a dev dependency) and Debian's chromium.
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { startSettingsDemo } from '../examples/settings/server.mjs'
import { launchChromium } from '../scripts/chromium.mjs'

const root = join(dirname(fileURLToPath(import.meta.url)), '..')
const out = process.argv[2] ?? join(root, 'docs', 'settings.png')

const demo = await startSettingsDemo()
const browser = await launchChromium(['--hide-scrollbars'])
try {
  const page = await browser.newPage({ viewport: { width: 1100, height: 1000 } })
  await page.goto(demo.url)
  await page.waitForFunction(() => window.panelReady)
  await page.getByRole('button', { name: 'Preview what each strategy removes' }).click()
  await page.locator('tr[data-provider="lossless"]').waitFor()
  await page.screenshot({ path: out, fullPage: true })
  console.log(`wrote ${out}`)
} finally {
  await browser.close()
  await demo.close()
}
