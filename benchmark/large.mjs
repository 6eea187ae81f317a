// One provider on a large generated history (20M tokens by default), in a fresh process (bench.mjs
// starts one per provider): a first call and a second one, each with the longest hold of the event
// loop (the garbage collector's pauses told apart) and the peak of resident memory over the
// process holding the history before either call, against the history's JSON size. Native's summarizer is a
// stand-in that answers at once. Prints one JSON line.
//
//   node --expose-gc benchmark/large.mjs <lossless|truncation|smart|native|conversation> [tokens=20000000]
//
// `conversation` measures the conversation handle's turns on the same history instead (see
// conversation.mjs), against its own floor.
import { createRequire } from 'node:module'

import { generateHistory } from '../fixtures/generate.mjs'
import { conversationFigures } from './conversation.mjs'
import { rssSampler, watch } from './watch.mjs'

const require = createRequire(import.meta.url)
const lib = require('../lib/index.js')
const what = process.argv[2] ?? 'lossless'
const tokens = Number(process.argv[3] ?? 20_000_000)
const history = generateHistory({ seed: 7, format: 'xml', targetTokens: tokens })
const jsonBytes = Buffer.byteLength(JSON.stringify(history))
const round = (n) => Math.round(n * 10) / 10

if (what === 'conversation') {
  const c = await conversationFigures(lib, history)
  console.log(JSON.stringify({ what, tokens, jsonBytes, ...c }))
} else {
  const options = { provider: what }
  if (what === 'smart') options.config = { preset: 'balanced' }
  if (what === 'native') options.summarize = async () => 'The task so far: files read, edits made, tests run.'
  const sampler = await rssSampler()
  // Both calls against the process holding the history before either ran: memory one call keeps
  // (or gives back) then counts in the other's figure as it is.
  // Generating the history left garbage: collected, and its pages given back (V8 does that a
  // little after a collection), before the base is read.
  for (let i = 0; i < 3; i++) {
    globalThis.gc?.()
    await new Promise((r) => setTimeout(r, 200))
  }
  const base = process.memoryUsage.rss()
  const runs = {}
  for (const label of ['first', 'second']) {
    const { value: w, peakGrowth } = await sampler.peakDuring(() => watch(() => lib.condense(history, options)), base)
    if (w.value.error) throw new Error(`${what}: ${w.value.error}`)
    runs[label] = {
      ms: round(w.ms),
      ownMs: round(w.ownMs),
      gapMs: round(w.gapMs),
      gcMs: round(w.gcMs),
      peakGrowth,
      peakX: Math.round((peakGrowth / jsonBytes) * 100) / 100,
    }
  }
  sampler.close()
  console.log(JSON.stringify({ what, tokens, jsonBytes, ...runs }))
}
