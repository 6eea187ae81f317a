// Where the benchmarks find the seven real Roo Code histories: the folder in
// CONTEXT_CONDENSE_FIXTURES, else ../shared/fixtures/roo-pr8743 beside the clone. Reads them;
// never copies or writes them.
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(new URL('.', import.meta.url))

export const REAL_HISTORIES = [
  'heavy-uncondensed',
  'natural-already-condensed',
  'natural-mini-uncondensed',
  'synthetic-1-heavy-write',
  'synthetic-2-heavy-read',
  'synthetic-3-tool-dedup',
  'synthetic-4-mixed-ops',
]

/** The folder the real histories are looked for in. */
export const realHistoryDir = process.env.CONTEXT_CONDENSE_FIXTURES
  ? resolve(process.env.CONTEXT_CONDENSE_FIXTURES)
  : join(here, '..', '..', 'shared', 'fixtures', 'roo-pr8743')

/** The file of one real history. */
export const realHistoryFile = (name) => join(realHistoryDir, name, 'api_conversation_history.json')

/** Whether all seven are there. */
export const haveRealHistories = () => REAL_HISTORIES.every((n) => existsSync(realHistoryFile(n)))

/** The seven histories, parsed, in REAL_HISTORIES' order; undefined when any is missing. */
export const readRealHistories = () => (haveRealHistories() ? REAL_HISTORIES.map((n) => JSON.parse(readFileSync(realHistoryFile(n), 'utf8'))) : undefined)
