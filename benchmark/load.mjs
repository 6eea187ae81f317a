// The load test (run by bench.mjs in a fresh process; prints one JSON line last):
// 200 concurrent condense calls from one Node process on different generated histories, mixed
// providers, a third of them with slow summarize callbacks, a quarter aborted at random moments.
// Checks every result (valid, never more tokens, input untouched; aborted calls reject with an
// AbortError) and measures time, peak memory during the run and settled memory after it,
// against the baseline taken once the histories exist and the engine is warm (and has been idle
// past its 1 s decay, after which it gives freed memory back).
//
//   node --expose-gc benchmark/load.mjs [calls=200] [rounds=2]
import { createRequire } from 'node:module'

import { generateHistory } from '../fixtures/generate.mjs'

const require = createRequire(import.meta.url)
const lib = require('../lib/index.js')
// The C heap in use (glibc's mallinfo2; the engine's allocations and Node's own outside the JS
// heap), exact where resident memory also counts the free pages the allocator keeps; null without
// the probe (release builds).
const native = require('../lib/internal/native.js')
const inUse = () => (typeof native.mallocInUse === 'function' && native.mallocInUse() >= 0 ? native.mallocInUse() : null)
const gc = globalThis.gc ?? (() => {})
const CALLS = Number(process.argv[2] ?? 200)
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

// A deterministic spread of sizes and formats.
const histories = []
for (let i = 0; i < CALLS; i++) {
  histories.push(generateHistory({ seed: 1000 + i, format: i % 2 ? 'native' : 'xml', targetTokens: 8_000 + (i % 10) * 4_000, thinking: i % 4 === 1 }))
}
const snapshots = histories.map((h) => JSON.stringify(h))
const tokensIn = histories.map((h) => lib.countTokens(h))

const slow =
  (ms) =>
  async (req, { signal }) => {
    await new Promise((resolve, reject) => {
      const t = setTimeout(resolve, ms)
      signal.addEventListener(
        'abort',
        () => {
          clearTimeout(t)
          reject(signal.reason)
        },
        { once: true },
      )
    })
    return { text: `SUMMARY of ${req.messages.length} messages: the task, what was done, what is next.`, inputTokens: 1000, outputTokens: 50 }
  }

function optionsFor(i) {
  switch (i % 6) {
    case 0:
      return { provider: 'lossless' }
    case 1:
      return { provider: 'truncation' }
    case 2:
      return { provider: 'smart', config: { preset: 'balanced' } }
    case 3:
      return { provider: 'native', summarize: slow(20 + (i % 5) * 20) }
    case 4:
      return { provider: 'smart', config: { preset: 'quality' }, summarize: slow(10 + (i % 7) * 10) }
    default:
      return { provider: 'smart', config: { preset: 'aggressive' } }
  }
}

async function settle() {
  for (let i = 0; i < 4; i++) {
    gc()
    await sleep(50)
  }
  return process.memoryUsage()
}

// Warm the engine (tables, thread pool) and the allocator with one round of every provider.
for (let i = 0; i < 6; i++) await lib.condense(histories[i], optionsFor(i))
lib.clearTokenCache()
await sleep(1300)
const base = await settle()
const baseInUse = inUse()

const ROUNDS = Number(process.argv[3] ?? 2)
let peakRss = base.rss
let peakHeap = base.heapUsed
const settledRss = []
const settledInUse = []
const settledHeap = []
const sampler = setInterval(() => {
  const m = process.memoryUsage()
  peakRss = Math.max(peakRss, m.rss)
  peakHeap = Math.max(peakHeap, m.heapUsed)
}, 5)

const failures = []
let aborted = 0
let finishedDespiteAbort = 0
let calls = 0
const times = []
for (let round = 0; round < ROUNDS; round++) {
  const started = performance.now()
  await burst()
  times.push(performance.now() - started)
  // Settled: what is left once the results are dropped, the collector has run and the engine
  // has been idle past its 1 s decay (it then gives freed memory back to the system).
  await sleep(1300)
  lib.clearTokenCache()
  const after = await settle()
  settledRss.push(after.rss)
  settledInUse.push(inUse())
  settledHeap.push(after.heapUsed)
}
clearInterval(sampler)

async function burst() {
  await Promise.all(
    histories.map(async (h, i) => {
      const options = { ...optionsFor(i) }
      const abortThis = i % 4 === 3
      if (abortThis) {
        const c = new AbortController()
        setTimeout(() => c.abort(), (i * 7) % 60)
        options.signal = c.signal
      }
      try {
        const r = await lib.condense(h, options)
        calls++
        if (abortThis) finishedDespiteAbort++
        const problems = lib.validateConversation(r.messages).length
        if (problems > lib.validateConversation(h).length) failures.push(`#${i}: ${problems} validation problems`)
        const out = lib.countTokens(r.messages)
        if (out > tokensIn[i]) failures.push(`#${i}: tokens went up ${tokensIn[i]} -> ${out}`)
        if (!r.error && r.newContextTokens !== r.prevContextTokens - (tokensIn[i] - out)) failures.push(`#${i}: reported saving is not the measured one`)
      } catch (e) {
        if (abortThis && e && e.name === 'AbortError') aborted++
        else failures.push(`#${i}: ${e && e.message}`)
      }
      if (JSON.stringify(h) !== snapshots[i]) failures.push(`#${i}: the input was changed`)
    }),
  )
}

console.log(
  JSON.stringify({
    calls: CALLS,
    rounds: ROUNDS,
    completed: calls,
    aborted,
    finishedDespiteAbort,
    failures,
    ms: times,
    baseRss: base.rss,
    peakRss,
    settledRss,
    baseInUse,
    settledInUse,
    baseHeap: base.heapUsed,
    peakHeap,
    settledHeap,
  }),
)
