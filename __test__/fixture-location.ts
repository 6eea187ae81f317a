// Where the real Roo Code histories are, for the vitest suites and their reporter: the folder in
// CONTEXT_CONDENSE_FIXTURES, else ../shared/fixtures/roo-pr8743 beside the clone. Only reads the
// disk to see whether they are there; never copies or writes them.
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'

export const FIXTURES_ENV = 'CONTEXT_CONDENSE_FIXTURES'

export const FIXTURES = [
  'heavy-uncondensed',
  'natural-already-condensed',
  'natural-mini-uncondensed',
  'synthetic-1-heavy-write',
  'synthetic-2-heavy-read',
  'synthetic-3-tool-dedup',
  'synthetic-4-mixed-ops',
] as const

export interface FixtureLocation {
  dir: string
  present: boolean
  /** Why they are missing (empty when present). */
  reason: string
  file(name: string): string
}

/** Where the histories are and whether all seven are there. When the environment variable names a
 * folder, the histories are required: a folder without them is an error, not a skip (CI sets it). */
export function fixtureLocation(): FixtureLocation {
  const fromEnv = process.env[FIXTURES_ENV]
  const dir = fromEnv ? resolve(fromEnv) : resolve(__dirname, '..', '..', 'shared', 'fixtures', 'roo-pr8743')
  const file = (name: string) => join(dir, name, 'api_conversation_history.json')
  const missing = FIXTURES.filter((n) => !existsSync(file(n)))
  if (fromEnv && missing.length) {
    throw new Error(`${FIXTURES_ENV}=${fromEnv}: ${missing.map((n) => `${n}/api_conversation_history.json`).join(', ')} not found in ${dir}`)
  }
  const reason = missing.length === FIXTURES.length ? `no real Roo Code histories at ${dir}` : missing.length ? `${missing.join(', ')} missing from ${dir}` : ''
  return { dir, present: missing.length === 0, reason, file }
}
