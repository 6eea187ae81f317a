import { createRequire } from 'node:module'

import { generateHistory } from '../fixtures/generate.mjs'
import { readRealHistories, realHistoryDir } from './real-histories.mjs'

const require = createRequire(import.meta.url)
const lib = require('../lib/index.js')

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
  total.cost += r.billedCost
  total.requestsCost += r.requestsCost
  total.summaryInput += r.summaryInputCost
  total.summaryOutput += r.summaryOutputCost
  total.once += r.sendOnceCost
  total.floor += r.floorCost
  total.cacheFloor += r.cacheFloorCost
  total.summaries += r.summaries
  total.over += r.requestsOverLimit
  total.overWindow += r.requestsOverWindow
  total.unavoidable += r.requestsOverWindowUnavoidable
  total.tasks.push(r.billedCost)
  for (const k of ['typed', 'errors', 'workingSet']) {
    total[k].kept += r.checks[k].kept
    total[k].total += r.checks[k].total
  }
}

const empty = () => ({
  once: 0,
  floor: 0,
  cacheFloor: 0,
  cost: 0,
  requestsCost: 0,
  summaryInput: 0,
  summaryOutput: 0,
  summaries: 0,
  over: 0,
  overWindow: 0,
  unavoidable: 0,
  /** Each task's billed cost, in the order the tasks were replayed. */
  tasks: [],
  typed: { kept: 0, total: 0 },
  errors: { kept: 0, total: 0 },
  workingSet: { kept: 0, total: 0 },
})

function printTable(title, totals) {
  const base = totals.get('roo-default')
  const x = (v) => `${(v / base.cost).toFixed(2)}x`
  console.log(
    `\n${title}\nBounds, not targets (the requests alone, summaries aside; the same for every policy): each message sent once $${base.once.toFixed(2)}; prices alone $${base.floor.toFixed(2)} = ${x(base.floor)}; the cache model's floor $${base.cacheFloor.toFixed(2)} = ${x(base.cacheFloor)} of roo-default's billed cost; requests over the window whatever the policy (the first and last messages alone too large) ${base.unavoidable}\n`,
  )
  console.log(
    '| policy | billed | vs roo-default | worst task | requests | summary input | summary output | summaries | over limit | over window | typed | errors | working set |',
  )
  console.log('|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|')
  for (const [policy, t] of totals) {
    const worst = Math.max(...t.tasks.map((c, i) => c / base.tasks[i]))
    const kept = (c) => `${c.kept}/${c.total}`
    console.log(
      `| ${policy} | $${t.cost.toFixed(2)} | ${x(t.cost)} | ${worst.toFixed(2)}x | $${t.requestsCost.toFixed(2)} | $${t.summaryInput.toFixed(2)} | $${t.summaryOutput.toFixed(2)} | ${t.summaries} | ${t.over} | ${t.overWindow} | ${kept(t.typed)} | ${kept(t.errors)} | ${kept(t.workingSet)} |`,
    )
  }
}

function histories() {
  const generated = []
  for (const seed of [1, 2]) for (const format of ['xml', 'native']) generated.push(generateHistory({ seed, format, targetTokens: 1_000_000 }))
  return { dir: realHistoryDir, real: readRealHistories(), generated }
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
      cost.roo += roo.billedCost
      cost.estimated += (await lib.replay(h, { policy: 'cache-aware', contextWindow })).billedCost
      cost.told += (await lib.replay(h, { policy: 'cache-aware', contextWindow, expectedTurns: requests })).billedCost
    }
    console.log(
      `${label}: cache-aware ${(cost.estimated / cost.roo).toFixed(2)}x roo-default estimating the length, ${(cost.told / cost.roo).toFixed(2)}x told it`,
    )
  }
}

/** The generated tasks of several sizes the aims are stated for (besides the four of 1M tokens). */
const SIZED_TOKENS = [30_000, 100_000, 300_000, 1_500_000]
const SIZED_WINDOWS = [64_000, 128_000, 200_000]

function sizedTasks() {
  const out = []
  for (const targetTokens of SIZED_TOKENS)
    for (const seed of [1, 2]) for (const format of ['xml', 'native']) out.push(generateHistory({ seed, format, targetTokens }))
  return out
}

/** `sets`: which tables (`real`, `million`, `sized`), all by default. */
async function table(cache, lookbackBlocks, sets = ['real', 'million', 'sized']) {
  const extra = lookbackBlocks === undefined ? {} : { lookbackBlocks }
  const real = sets.includes('real') ? readRealHistories() : undefined
  if (real) {
    for (const contextWindow of [48_000, 64_000, 128_000]) {
      const totals = new Map(lib.REPLAY_POLICIES.map((p) => [p, empty()]))
      for (const h of real) for (const policy of lib.REPLAY_POLICIES) add(totals.get(policy), await lib.replay(h, { policy, contextWindow, cache, ...extra }))
      printTable(`The seven real histories, ${contextWindow / 1000}k window, ${cache} cache (sums over the seven)`, totals)
    }
  } else if (sets.includes('real')) console.log(`\n(no real Roo Code histories at ${realHistoryDir}: their tables are left out)`)
  if (sets.includes('million')) {
    const generated = []
    for (const seed of [1, 2]) for (const format of ['xml', 'native']) generated.push(generateHistory({ seed, format, targetTokens: 1_000_000 }))
    const totals = new Map(lib.REPLAY_POLICIES.map((p) => [p, empty()]))
    for (const h of generated) for (const policy of lib.REPLAY_POLICIES) add(totals.get(policy), await lib.replay(h, { policy, cache, ...extra }))
    printTable(`Four generated tasks of 1M tokens (seeds 1 and 2, XML and native tools), 200k window, ${cache} cache (sums over the four)`, totals)
  }
  if (sets.includes('sized')) {
    const sized = sizedTasks()
    for (const contextWindow of SIZED_WINDOWS) {
      const totals = new Map(lib.REPLAY_POLICIES.map((p) => [p, empty()]))
      for (const h of sized) for (const policy of lib.REPLAY_POLICIES) add(totals.get(policy), await lib.replay(h, { policy, contextWindow, cache, ...extra }))
      printTable(
        `Sixteen generated tasks of 30k to 1.5M tokens (${SIZED_TOKENS.map((t) => `${t / 1000}k`).join(', ')}; seeds 1 and 2, XML and native tools), ${contextWindow / 1000}k window, ${cache} cache (sums over the sixteen)`,
        totals,
      )
    }
  }
}

const args = process.argv.slice(2)
if (args[0] === 'known-length') await knownLength()
else if (args[0] === 'table') {
  const at = args.indexOf('--cache')
  const lb = args.indexOf('--lookback-blocks')
  const only = args.indexOf('--only')
  await table(at >= 0 ? args[at + 1] : 'anthropic', lb >= 0 ? Number(args[lb + 1]) : undefined, only >= 0 ? args[only + 1].split(',') : undefined)
} else await time(args.length > 0 ? args : ['roo-default', 'smart-balanced', 'cache-aware'])
