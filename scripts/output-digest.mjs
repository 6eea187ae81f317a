// The check that a refactor changed no output: condenses every real history (CONTEXT_CONDENSE_FIXTURES
// or ../shared, when it is there) and six generated ones (60k to 1M tokens, both tool formats) with every provider and preset
// (Native with a deterministic stand-in summarizer), and writes one digest per pair of the
// condensed messages, summary and token count. Run it on main and on the change, then diff:
//   node scripts/output-digest.mjs . before.json   (on main)
//   node scripts/output-digest.mjs . after.json    (on the change) && diff before.json after.json
// Reads only; needs the built addon.
import { createHash } from 'node:crypto'
import { readFileSync, readdirSync, existsSync, writeFileSync, statSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { pathToFileURL } from 'node:url'
const repo = path.resolve(process.argv[2] ?? '.')
const require = createRequire(path.join(repo, 'package.json'))
const cc = require(path.join(repo, 'lib/index.js'))
const { generateHistory } = await import(pathToFileURL(path.join(repo, 'fixtures/generate.mjs')).href)
const histories = []
// The real histories where the suites and the benchmarks look: CONTEXT_CONDENSE_FIXTURES, else
// ../shared beside the repository given.
const real = process.env.CONTEXT_CONDENSE_FIXTURES
  ? path.resolve(process.env.CONTEXT_CONDENSE_FIXTURES)
  : path.join(repo, '..', 'shared', 'fixtures', 'roo-pr8743')
for (const d of existsSync(real) ? readdirSync(real) : []) {
  const f = path.join(real, d, 'api_conversation_history.json')
  if (existsSync(f)) histories.push([d, JSON.parse(readFileSync(f, 'utf8'))])
}
for (const d of readdirSync(path.join(repo, 'fixtures'))) {
  const f = path.join(repo, 'fixtures', d, 'api_conversation_history.json')
  if (existsSync(f) && statSync(f).isFile()) histories.push(['fixtures/' + d, JSON.parse(readFileSync(f, 'utf8'))])
}
for (const format of ['xml', 'native'])
  for (const [seed, t] of [
    [1, 60000],
    [2, 250000],
    [3, 1000000],
  ])
    histories.push([`gen-${format}-${seed}-${t}`, generateHistory({ seed, format, targetTokens: t, thinking: seed === 2 })])
const summarize = async (req) => ({
  text: 'SUMMARY of ' + (req.messages?.length ?? 0) + ' ' + createHash('sha256').update(JSON.stringify(req)).digest('hex').slice(0, 12),
  cost: 0.001,
})
const configs = [
  ['lossless', { provider: 'lossless' }],
  ['lossless-latest', { provider: 'lossless', config: { keep: 'latest' } }],
  ['truncation', { provider: 'truncation' }],
  ['smart-conservative', { provider: 'smart', config: { preset: 'conservative' } }],
  ['smart-balanced', { provider: 'smart', config: { preset: 'balanced' } }],
  ['smart-aggressive', { provider: 'smart', config: { preset: 'aggressive' } }],
  ['native', { provider: 'native', summarize }],
]
const out = {}
for (const [name, h] of histories) {
  for (const [cname, opts] of configs) {
    let v
    try {
      const r = await cc.condense(h, opts)
      v = createHash('sha256')
        .update(JSON.stringify([r.messages, r.summary, r.newContextTokens, r.error ?? null]))
        .digest('hex')
        .slice(0, 16)
    } catch (e) {
      v = 'ERR ' + String(e.message).slice(0, 80)
    }
    out[`${name} ${cname}`] = v
  }
}
const text = JSON.stringify(out, null, 1)
if (process.argv[3]) writeFileSync(process.argv[3], text)
console.log(`${Object.keys(out).length} digests`)
