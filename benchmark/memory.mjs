// Peak resident-memory growth of one cold Lossless condense, measured in a fresh process so that
// nothing earlier in the benchmark (other histories, the allocator's free lists) blurs it.
// Prints one JSON line: { jsonBytes, baseRss, peakRss, growth }. Run by bench.mjs.
import { createRequire } from 'node:module'

import { generateHistory } from '../fixtures/generate.mjs'

const lib = createRequire(import.meta.url)('../lib/index.js')
const tokens = Number(process.argv[2] ?? 1_000_000)
const gc = globalThis.gc ?? (() => {})

// As a host has it: parsed from the JSON it stored (flat strings; the generator's strings are
// ropes, which V8 would flatten on first read and count as growth).
const history = JSON.parse(JSON.stringify(generateHistory({ seed: 7, format: 'xml', targetTokens: tokens })))
const prev = lib.countTokens(history)
const jsonBytes = Buffer.byteLength(JSON.stringify(history))
// Warm what lives for the whole process: the BPE tables and the engine's threads.
await lib.condense(generateHistory({ seed: 3, format: 'xml', targetTokens: 20_000 }), { provider: 'lossless' })
lib.clearTokenCache()
gc()
await new Promise((r) => setTimeout(r, 50))
gc()
const baseRss = process.memoryUsage().rss
let peakRss = baseRss
const sampler = setInterval(() => {
  peakRss = Math.max(peakRss, process.memoryUsage().rss)
}, 1)
const result = await lib.condense(history, { provider: 'lossless', prevContextTokens: prev })
peakRss = Math.max(peakRss, process.memoryUsage().rss)
clearInterval(sampler)
if (result.messages.length !== history.length) throw new Error('unexpected result')
console.log(JSON.stringify({ jsonBytes, baseRss, peakRss, growth: peakRss - baseRss }))
