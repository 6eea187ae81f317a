// Seeds the fuzz corpora from the real fixtures (CONTEXT_CONDENSE_FIXTURES, else
// ../shared/fixtures/roo-pr8743; skipped with a note when absent) and the generator: windows of a few
// consecutive messages, long strings cut, so each seed is small enough for libFuzzer to mutate.
//   node fuzz/seed.mjs            -> fuzz/corpus/{parse,providers}/
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { generateHistory } from '../fixtures/generate.mjs'

const here = dirname(fileURLToPath(import.meta.url))
const fixtureDir = process.env.CONTEXT_CONDENSE_FIXTURES ? resolve(process.env.CONTEXT_CONDENSE_FIXTURES) : join(here, '..', '..', 'shared', 'fixtures', 'roo-pr8743')
const names = ['heavy-uncondensed', 'natural-already-condensed', 'natural-mini-uncondensed', 'synthetic-1-heavy-write', 'synthetic-2-heavy-read', 'synthetic-3-tool-dedup', 'synthetic-4-mixed-ops']

const cut = (v) => {
  if (typeof v === 'string') return v.length > 1500 ? v.slice(0, 1000) + v.slice(-300) : v
  if (Array.isArray(v)) return v.map(cut)
  if (v && typeof v === 'object') return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, cut(x)]))
  return v
}
const histories = []
for (const n of names) {
  const p = join(fixtureDir, n, 'api_conversation_history.json')
  if (existsSync(p)) histories.push([n, JSON.parse(readFileSync(p, 'utf8'))])
}
if (histories.length === 0) console.log(`SKIPPED: the real Roo Code histories (none under ${fixtureDir}); seeding from generated histories only`)
for (const format of ['xml', 'native']) histories.push([`gen-${format}`, generateHistory({ seed: 3, format, targetTokens: 60000, thinking: format === 'native' })])

for (const target of ['parse', 'providers']) mkdirSync(join(here, 'corpus', target), { recursive: true })
let n = 0
for (const [name, h] of histories) {
  // The first message with a window of later ones, so reads and their repeats meet in one seed.
  for (let start = 1, k = 0; start < h.length && k < 24; start += Math.max(3, Math.floor(h.length / 24)), k++) {
    const window = cut([h[0], ...h.slice(start, start + 2 + (k % 7))])
    const json = JSON.stringify(window)
    writeFileSync(join(here, 'corpus', 'parse', `${name}-${k}.json`), json)
    const head = Buffer.from([k % 16, (k * 37) & 0x7f])
    writeFileSync(join(here, 'corpus', 'providers', `${name}-${k}`), Buffer.concat([head, Buffer.from(json)]))
    n++
  }
}
console.log(`seeded ${n} windows from ${histories.length} histories into fuzz/corpus/`)
