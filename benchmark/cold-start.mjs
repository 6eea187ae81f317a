// The first call in a fresh process: require the package, then condense a small generated history
// (20k tokens). Prints one JSON line: time of the require, of the first call, and resident memory
// grown over the process before the require. Run several times by bench.mjs.
//
//   node --expose-gc benchmark/cold-start.mjs [provider=lossless]
import { createRequire } from 'node:module'

import { generateHistory } from '../fixtures/generate.mjs'

const require = createRequire(import.meta.url)
const provider = process.argv[2] ?? 'lossless'
const history = generateHistory({ seed: 7, format: 'xml', targetTokens: 20_000 })
globalThis.gc?.()
const rss0 = process.memoryUsage().rss
const t0 = performance.now()
const lib = require('../lib/index.js')
const t1 = performance.now()
const options = provider === 'smart' ? { provider, config: { preset: 'balanced' } } : { provider }
const result = await lib.condense(history, options)
const t2 = performance.now()
if (result.error || !Array.isArray(result.messages)) throw new Error(`cold start: ${result.error ?? 'no messages'}`)
console.log(JSON.stringify({ provider, requireMs: t1 - t0, firstCallMs: t2 - t1, totalMs: t2 - t0, rss: process.memoryUsage().rss - rss0 }))
