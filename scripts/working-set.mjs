// How well Smart keeps the working set: for generated tasks (several seeds, both tool formats) and
// the real Roo Code histories (../shared/fixtures/roo-pr8743, or CONTEXT_CONDENSE_FIXTURES), the
// files touched in the latest turns (workingSet), how many of them are still whole after Smart
// (the text of their latest read or write verbatim: "whole", the rule), how many only as their
// outline ("outl"), and the share of tokens Smart removed; one verdict line per corpus against the
// target (at least 90% of the files whole with at least 80% of the tokens removed).
//   node scripts/working-set.mjs [preset] [--off]   (balanced by default; needs the built addon;
//   --off runs the preset with `workingSet: null`, as it was before Smart kept the working set;
//   --turns=N and --budget=N replace the preset's working set settings; --summarize gives Smart a
//   stand-in summarize callback, so batch summaries run)
// A file counts as whole when the text of its latest read or write is found whole in a string of
// the condensed history, as outlined when only its outline is, and as lost when neither is. Files
// the history only edits (never read or written whole) have no state to keep and are counted apart
// ("edit"). Each corpus also gets a bound that holds for any condensing: what is removed at most
// when the first message, the last exchange (the request's last two messages) and every file of the
// working set stay whole, each counted once, and when the target's share of the files stays whole
// (the largest others outlined, at no cost). Reads only.
import { existsSync, readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { generateHistory } from '../fixtures/generate.mjs'

const require = createRequire(import.meta.url)
const { condense, countTokens, smartPreset, workingSet } = require('../lib/index.js')

const args = process.argv.slice(2)
const off = args.includes('--off')
// A stand-in for the host's model: a short fixed summary (what follows a batch summary is the engine's).
const summarize = args.includes('--summarize') ? async () => 'The agent worked on the task; details left out.' : undefined
const preset = args.find((a) => !a.startsWith('--')) ?? 'balanced'
const config = smartPreset(preset)
// The working set as the preset defines it, or the engine's defaults when the preset has none.
const wsOptions = { ...config.workingSet }
for (const a of args) {
  const [k, v] = a.split('=')
  if (k === '--turns') wsOptions.turns = Number(v)
  if (k === '--budget') wsOptions.budgetTokens = Number(v)
}
const smartConfig = off ? { preset, workingSet: null } : { preset, workingSet: wsOptions }

/** Every string of a history a model reads: texts, tool results, tool inputs. */
function strings(messages) {
  const out = []
  const walk = (v) => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') for (const k of Object.keys(v)) if (k !== 'signature' && k !== 'id' && k !== 'tool_use_id') walk(v[k])
  }
  for (const m of messages) walk(m.content)
  return out
}

/** The tokens a condensing keeps at least when the first message and the last two stay whole
 * (`least`), and the tokens of each working-set file's latest state none of those holds
 * (`outside`): every file whole keeps them all. */
function leastKept(messages, files) {
  const kept = [...new Set([0, Math.max(0, messages.length - 2), messages.length - 1])].filter((i) => i >= 0 && i < messages.length)
  const held = kept.map((i) => strings([messages[i]]))
  const outside = []
  for (const f of files) if (f.text && !held.some((s) => s.some((x) => x.includes(f.text)))) outside.push(countTokens(f.text))
  return { least: countTokens(kept.map((i) => messages[i])), outside }
}

async function measure(messages) {
  const files = workingSet(messages, { ...wsOptions, text: true })
  const result = await condense(messages, { provider: 'smart', config: smartConfig, summarize })
  const out = strings(result.messages)
  const has = (t) => out.some((s) => s.includes(t))
  let whole = 0
  let outlined = 0
  let stateless = 0
  for (const f of files) {
    if (!f.text) {
      stateless++
      continue
    }
    if (has(f.text)) whole++
    else if (f.outline && has(f.outline.split('\n')[0])) outlined++
  }
  const before = result.metrics.tokensBefore
  const after = result.metrics.tokensAfter
  const lost = files.length - stateless - whole - outlined
  const { least, outside } = leastKept(messages, files)
  return { files: files.length - stateless, whole, outlined, lost, stateless, before, after, least, outside }
}

const pct = (a, b) => (b === 0 ? '—' : `${((100 * a) / b).toFixed(1)}%`)

function row(name, r) {
  return `${name.padEnd(34)} ${String(r.files).padStart(5)} ${String(r.whole).padStart(5)} ${pct(r.whole, r.files).padStart(7)} ${String(r.outlined).padStart(5)} ${String(r.lost).padStart(5)} ${String(r.stateless).padStart(4)} ${pct(r.before - r.after, r.before).padStart(8)}`
}

/** The target: at least this share of the working set's files whole, with at least this share of the tokens removed. */
const TARGET = { whole: 90, removed: 80 }

function verdict(corpus, r) {
  const whole = r.files === 0 ? 100 : (100 * r.whole) / r.files
  const removed = r.before === 0 ? 0 : (100 * (r.before - r.after)) / r.before
  const ok = whole >= TARGET.whole && removed >= TARGET.removed
  // Every file whole keeps all their tokens; the target's share whole lets the largest others go.
  const sizes = [...r.outside].sort((a, b) => b - a)
  const sum = (a) => a.reduce((x, y) => x + y, 0)
  const spare = r.files - Math.ceil((TARGET.whole / 100) * r.files)
  const bound = (kept) => (r.before === 0 ? 0 : (100 * (r.before - kept)) / r.before)
  const all = r.least + sum(sizes)
  const most = all - sum(sizes.slice(0, Math.max(0, spare)))
  return (
    `verdict ${corpus}: ${ok ? 'MET' : 'MISSED'}: ${whole.toFixed(1)}% of ${r.files} files whole (target >= ${TARGET.whole}%), ${removed.toFixed(1)}% of tokens removed (target >= ${TARGET.removed}%)\n` +
    `bound ${corpus}: with the first message and the last two whole, any condensing removes at most ${bound(all).toFixed(1)}% keeping every working-set file whole, ${bound(most).toFixed(1)}% keeping ${TARGET.whole}% of them (the ${spare} largest outlined)`
  )
}

function add(total, r) {
  for (const k of Object.keys(r)) total[k] = Array.isArray(r[k]) ? [...(total[k] ?? []), ...r[k]] : (total[k] ?? 0) + r[k]
  return total
}

console.log(
  `Smart ${preset}${off ? ' with workingSet: null' : ''}${summarize ? ', with a stand-in summarize callback' : ''}; working set measured with ${JSON.stringify(wsOptions)}`,
)
const header = `${'history'.padEnd(34)} ${'files'.padStart(5)} ${'whole'.padStart(5)} ${'whole%'.padStart(7)} ${'outl'.padStart(5)} ${'lost'.padStart(5)} ${'edit'.padStart(4)} ${'removed'.padStart(8)}`

const corpora = []
const generated = []
for (const format of ['xml', 'native'])
  for (const [seed, tokens] of [
    [1, 60000],
    [2, 150000],
    [3, 250000],
    [4, 500000],
  ])
    generated.push([`gen-${format}-${seed}-${tokens}`, () => generateHistory({ seed, format, targetTokens: tokens })])
corpora.push(['generated', generated])
const realDir = process.env.CONTEXT_CONDENSE_FIXTURES ?? path.join(import.meta.dirname, '..', '..', 'shared', 'fixtures', 'roo-pr8743')
const real = []
for (const d of existsSync(realDir) ? readdirSync(realDir).sort() : []) {
  const f = path.join(realDir, d, 'api_conversation_history.json')
  if (existsSync(f)) real.push([d, () => JSON.parse(readFileSync(f, 'utf8'))])
}
if (real.length) corpora.push(['real', real])
else console.log(`(no real histories at ${realDir})`)

for (const [corpus, list] of corpora) {
  console.log(`\n${corpus}\n${header}`)
  let total = {}
  for (const [name, load] of list) {
    const r = await measure(load())
    total = add(total, r)
    console.log(row(name, r))
  }
  console.log(row(`all ${corpus}`, total))
  console.log(verdict(corpus, total))
}
