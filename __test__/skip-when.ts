// Tests that run only when something from outside the repository is there (the real Roo Code
// histories, Chromium, the probes build), skipped otherwise with their reason recorded: in the
// test's metadata for a test skipped as it is registered (itWhen), in the skip's note for the tests
// of a describe skipped as each starts (needsChromium). __test__/skip-reporter.ts prints the skips
// grouped by reason at the end of the run. Registers tests and hooks; runs nothing itself.
import { existsSync } from 'node:fs'
import { beforeEach, it, type TestFunction } from 'vitest'

import { CHROMIUM } from '../scripts/chromium.mjs'

declare module 'vitest' {
  interface TaskMeta {
    /** Why the test is skipped when it is (itWhen). */
    skipReason?: string
  }
}

/** A test that runs only when a condition holds. */
export type ConditionalIt = (name: string, fn: TestFunction, timeout?: number) => void

/** `it` when `present`; else the test is registered as skipped, with `reason` for the run's summary. */
export function itWhen(present: boolean, reason: string): ConditionalIt {
  return (name, fn, timeout) => it.skipIf(!present)(name, { timeout, meta: present ? {} : { skipReason: reason } }, fn)
}

/** Whether the run is on a CI service (CI set, as GitHub Actions and most services set it), where a
 * missing dependency is an error, not a skip. */
export const ON_CI = Boolean(process.env.CI) && !['false', '0'].includes(process.env.CI!.toLowerCase())

/** Why the browser tests are skipped here, or '' when Chromium is there. */
export const NO_CHROMIUM = existsSync(CHROMIUM)
  ? ''
  : `no Chromium at ${CHROMIUM}: install it (apt-get install chromium) or name a Chromium or Chrome in CONTEXT_CONDENSE_CHROMIUM`

/**
 * Called inside a describe whose tests drive Chromium: when there is none, each of its tests is
 * skipped as it starts, saying so; under CI they run and fail (launchChromium names what is
 * missing). Returns whether to launch the browser: the describe's beforeAll must check it.
 */
export function needsChromium(): boolean {
  if (!NO_CHROMIUM || ON_CI) return true
  beforeEach((ctx) => ctx.skip(NO_CHROMIUM))
  return false
}
