// Headless Chromium for the browser tests and the screenshot scripts: Debian's chromium (or the
// Chrome that CONTEXT_CONDENSE_CHROMIUM names, as on the release workflow's macOS and Windows
// runners), started with the flags a machine without open network needs (no background
// networking, no component updates, no sync). Starts a browser; touches no file.
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'

const require = createRequire(import.meta.url)

export const CHROMIUM = process.env.CONTEXT_CONDENSE_CHROMIUM || '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
]

/** Launches it with playwright-core, or throws saying how to install it. */
export async function launchChromium(extraArgs = []) {
  if (!existsSync(CHROMIUM)) {
    throw new Error(
      `${CHROMIUM} is missing: the browser tests and screenshots need Debian's chromium; run \`apt-get install -y chromium\` (as root; .ci/run does it), or name a Chrome in CONTEXT_CONDENSE_CHROMIUM`,
    )
  }
  const { chromium } = require('playwright-core')
  return chromium.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, ...extraArgs] })
}
