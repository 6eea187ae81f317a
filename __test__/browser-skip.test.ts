// Without Chromium, the browser suites are skipped, not failed, and say why: the run of the two
// files that drive Chromium (settings, report-html with its long-history part) with
// CONTEXT_CONDENSE_CHROMIUM pointing at nothing passes; their tests that need no browser still run;
// the end-of-run summary names each skip's own reason (no Chromium, and how to get it; no real
// histories), not one reason for all. Under CI (CI=true) a missing Chromium still fails the run.
// Runs vitest on those files in a child process (a few seconds each; bounded at 5 minutes for a
// loaded machine); changes nothing.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

import { FIXTURES } from './fixture-location.js'

const root = join(__dirname, '..')
const tmp = mkdtempSync(join(tmpdir(), 'context-condense-no-chromium-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))
const SUITES = ['__test__/settings.test.ts', '__test__/report-html.test.ts']
/** Whether the child, which is not told where the histories are, finds them at their default place. */
const historiesBesideTheClone = FIXTURES.every((n) => existsSync(join(root, '..', 'shared', 'fixtures', 'roo-pr8743', n, 'api_conversation_history.json')))

interface Run {
  status: number | null
  stdout: string
  stderr: string
  /** Each test's status by its full name. */
  tests: Map<string, string>
}

/** vitest on the browser suites with Chromium at a path where there is none, the real histories absent. */
function runWithoutChromium(ci: boolean): Run {
  const env: NodeJS.ProcessEnv = {}
  for (const [k, v] of Object.entries(process.env)) if (!k.startsWith('VITEST') && k !== 'CI' && k !== 'CONTEXT_CONDENSE_FIXTURES') env[k] = v
  env.CONTEXT_CONDENSE_CHROMIUM = join(tmp, 'no-chromium-here')
  if (ci) env.CI = 'true'
  const json = join(tmp, `results-${ci}.json`)
  const r = spawnSync(
    process.execPath,
    [
      join(root, 'node_modules', 'vitest', 'vitest.mjs'),
      'run',
      ...SUITES,
      '--reporter=default',
      '--reporter=./__test__/skip-reporter.ts',
      '--reporter=json',
      `--outputFile.json=${json}`,
    ],
    { cwd: root, env, encoding: 'utf8', timeout: 240_000 },
  )
  const results = JSON.parse(readFileSync(json, 'utf8')) as { testResults: Array<{ assertionResults: Array<{ fullName: string; status: string }> }> }
  const tests = new Map(results.testResults.flatMap((f) => f.assertionResults.map((a) => [a.fullName, a.status] as [string, string])))
  return { status: r.status, stdout: r.stdout, stderr: r.stderr, tests }
}

describe('the browser suites on a machine without Chromium', () => {
  it('are skipped, saying why and how to get Chromium; the tests that need no browser pass', () => {
    const run = runWithoutChromium(false)
    expect(run.status, run.stdout.slice(-3000)).toBe(0)
    const status = (prefix: string) => [...run.tests].filter(([name]) => name.startsWith(prefix)).map(([, s]) => s)
    // The browser describes: every test skipped.
    for (const suite of ['the panel in Chromium', 'in headless Chromium', 'browsing a long history in headless Chromium']) {
      expect(status(suite).length, suite).toBeGreaterThan(0)
      expect(new Set(status(suite)), suite).toEqual(new Set(['skipped']))
    }
    // The settings panel's checks against Ajv need no browser: they ran and passed.
    expect(status("the panel checks settings as the engine's schemas say").length).toBeGreaterThan(3)
    expect(new Set(status("the panel checks settings as the engine's schemas say"))).toEqual(new Set(['passed']))
    // One line per reason, each with its own count.
    const chromium = run.stdout.match(
      /SKIPPED: (\d+) tests?: no Chromium at (\S+): install it \(apt-get install chromium\) or name a Chromium or Chrome in CONTEXT_CONDENSE_CHROMIUM/,
    )
    expect(chromium, run.stdout.slice(-3000)).not.toBeNull()
    expect(chromium![2]).toBe(join(tmp, 'no-chromium-here'))
    const browserSkips = ['the panel in Chromium', 'in headless Chromium', 'browsing a long history in headless Chromium'].flatMap(status).length
    // The real-history tests inside the browser describes count under their own reason, when the
    // child finds no histories (it looks beside the clone: CI and a developer's machine have them).
    const histories = run.stdout.match(/SKIPPED: (\d+) tests?: no real Roo Code histories at /)
    const skipped = [...run.tests.values()].filter((s) => s === 'skipped').length
    if (historiesBesideTheClone) {
      expect(histories).toBeNull()
      expect(Number(chromium![1])).toBe(skipped)
    } else {
      expect(histories).not.toBeNull()
      expect(Number(chromium![1]) + Number(histories![1])).toBe(skipped)
    }
    expect(Number(chromium![1])).toBeLessThanOrEqual(browserSkips)
  }, 300_000)

  it('under CI a missing Chromium fails the browser tests, naming what is missing', () => {
    const run = runWithoutChromium(true)
    expect(run.status).not.toBe(0)
    // The describes' beforeAll (launchChromium) fails, naming the missing browser; vitest then
    // reports their tests as not run, and the summary does not count them as skipped.
    expect(run.stdout + run.stderr).toContain(`${join(tmp, 'no-chromium-here')} is missing: the browser tests and screenshots need`)
    expect(run.stdout).not.toMatch(/SKIPPED: \d+ tests?: no Chromium/)
  }, 300_000)
})
