// The replay (lib/replay/): how long a task of 1M tokens takes to replay, and the table of what each
// policy costs and keeps, on the seven real Roo Code histories and on generated tasks of 1M tokens.
//
//   node benchmark/replay.mjs                       time: one generated 1M-token task (about 700
//                                                   requests), each policy given (default:
//                                                   roo-default, smart-balanced, cache-aware), best of 3
//   node benchmark/replay.mjs table [--cache openai] [--lookback-blocks N]
//                                                   the table in docs/replay.md and the README: the real
//                                                   histories (CONTEXT_CONDENSE_FIXTURES, else
//                                                   ../shared/fixtures/roo-pr8743) at 48k, 64k and
//                                                   128k windows, and generated 1M-token tasks
//                                                   (two seeds, both tool formats) at 200k
//   node benchmark/replay.mjs known-length          cache-aware estimating each task's length against
//                                                   told it (expectedTurns = its request count), the
//                                                   same histories and windows
//
// Defaults of the replay throughout: threshold 100 %, 8,192 tokens reserved for the answer, a
// system prompt of 10,000 tokens, stand-in summaries of 2,000 tokens, Claude Sonnet's prices.
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

import { generateHistory } from '../fixtures/generate.mjs'

const require = createRequire(import.meta.url)
const lib = require('../lib/index.js')
const here = fileURLToPath(new URL('.', import.meta.url))

const REAL = [
  'heavy-uncondensed',
  'natural-already-condensed',
  'natural-mini-uncondensed',
  'synthetic-1-heavy-write',
  'synthetic-2-heavy-read',
  'synthetic-3-tool-dedup',
  'synthetic-4-mixed-ops',
]

async function time(policies) {
  const history = generateHistory({ seed: 1, format: 'xml', targetTokens: 1_000_000 })
  console.log(`generated task: ${history.length} messages, ${lib.countTokens(history).toLocaleString('en-US')} tokens`)
  for (const policy of policies) {
    const runs = []
    let r
    for (let i = 0; i < 3; i++) {
      const t0 = performance.now()
      r = await lib.replay(history, { policy })
      runs.push(performance.now() - t0)
    }
    console.log(
      `${policy.padEnd(22)} ${r.requests} requests  ${(Math.min(...runs) / 1000).toFixed(2)} s (best of 3: ${runs.map((t) => (t / 1000).toFixed(2)).join(', ')})`,
    )
  }
}

function add(total, r) {
  total.cost += r.billedInputCost
  total.once += r.sendOnceCost
  total.summaries += r.summaries
  total.over += r.requestsOverLimit
  for (const k of ['typed', 'errors', 'workingSet']) {
    total[k].kept += r.checks[k].kept
    total[k].total += r.checks[k].total
  }
}

const empty = () => ({
  once: 0,
  cost: 0,
  summaries: 0,
  over: 0,
  typed: { kept: 0, total: 0 },
  errors: { kept: 0, total: 0 },
  workingSet: { kept: 0, total: 0 },
})

function printTable(title, totals) {
  const base = totals.get('roo-default')
  console.log(`\n${title}; each message sent once: $${base.once.toFixed(2)}\n`)
  console.log('| policy | billed input | vs roo-default | summaries | over limit | typed | errors | working set |')
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|')
  for (const [policy, t] of totals) {
    const ratio = (t.cost / base.cost).toFixed(2)
    const kept = (c) => `${c.kept}/${c.total}`
    console.log(`| ${policy} | $${t.cost.toFixed(2)} | ${ratio}x | ${t.summaries} | ${t.over} | ${kept(t.typed)} | ${kept(t.errors)} | ${kept(t.workingSet)} |`)
  }
}

function histories() {
  const dir = process.env.CONTEXT_CONDENSE_FIXTURES
    ? resolve(process.env.CONTEXT_CONDENSE_FIXTURES)
    : join(here, '..', '..', 'shared', 'fixtures', 'roo-pr8743')
  const file = (n) => join(dir, n, 'api_conversation_history.json')
  const real = REAL.every((n) => existsSync(file(n))) ? REAL.map((n) => JSON.parse(readFileSync(file(n), 'utf8'))) : undefined
  const generated = []
  for (const seed of [1, 2]) for (const format of ['xml', 'native']) generated.push(generateHistory({ seed, format, targetTokens: 1_000_000 }))
  return { dir, real, generated }
}

async function knownLength() {
  const { dir, real, generated } = histories()
  const sets = [
    ...(real ? [48_000, 64_000, 128_000].map((w) => [`seven real histories, ${w / 1000}k`, real, w]) : []),
    ['four generated 1M-token tasks, 200k', generated, 200_000],
  ]
  if (!real) console.log(`(no real Roo Code histories at ${dir}: left out)`)
  for (const [label, hs, contextWindow] of sets) {
    const cost = { roo: 0, estimated: 0, told: 0 }
    for (const h of hs) {
      const roo = await lib.replay(h, { policy: 'roo-default', contextWindow })
      const requests = roo.requests
      cost.roo += roo.billedInputCost
      cost.estimated += (await lib.replay(h, { policy: 'cache-aware', contextWindow })).billedInputCost
      cost.told += (await lib.replay(h, { policy: 'cache-aware', contextWindow, expectedTurns: requests })).billedInputCost
    }
    console.log(
      `${label}: cache-aware ${(cost.estimated / cost.roo).toFixed(2)}x roo-default estimating the length, ${(cost.told / cost.roo).toFixed(2)}x told it`,
    )
  }
}

async function table(cache, lookbackBlocks) {
  const extra = lookbackBlocks === undefined ? {} : { lookbackBlocks }
  const dir = process.env.CONTEXT_CONDENSE_FIXTURES
    ? resolve(process.env.CONTEXT_CONDENSE_FIXTURES)
    : join(here, '..', '..', 'shared', 'fixtures', 'roo-pr8743')
  const file = (n) => join(dir, n, 'api_conversation_history.json')
  if (REAL.every((n) => existsSync(file(n)))) {
    const real = REAL.map((n) => JSON.parse(readFileSync(file(n), 'utf8')))
    for (const contextWindow of [48_000, 64_000, 128_000]) {
      const totals = new Map(lib.REPLAY_POLICIES.map((p) => [p, empty()]))
      for (const h of real) for (const policy of lib.REPLAY_POLICIES) add(totals.get(policy), await lib.replay(h, { policy, contextWindow, cache, ...extra }))
      printTable(`The seven real histories, ${contextWindow / 1000}k window, ${cache} cache (sums over the seven)`, totals)
    }
  } else console.log(`\n(no real Roo Code histories at ${dir}: their tables are left out)`)
  const generated = []
  for (const seed of [1, 2]) for (const format of ['xml', 'native']) generated.push(generateHistory({ seed, format, targetTokens: 1_000_000 }))
  const totals = new Map(lib.REPLAY_POLICIES.map((p) => [p, empty()]))
  for (const h of generated) for (const policy of lib.REPLAY_POLICIES) add(totals.get(policy), await lib.replay(h, { policy, cache, ...extra }))
  printTable(`Four generated tasks of 1M tokens (seeds 1 and 2, XML and native tools), 200k window, ${cache} cache (sums over the four)`, totals)
}

const args = process.argv.slice(2)
if (args[0] === 'known-length') await knownLength()
else if (args[0] === 'table') {
  const at = args.indexOf('--cache')
  const lb = args.indexOf('--lookback-blocks')
  await table(at >= 0 ? args[at + 1] : 'anthropic', lb >= 0 ? Number(args[lb + 1]) : undefined)
} else await time(args.length > 0 ? args : ['roo-default', 'smart-balanced', 'cache-aware'])
