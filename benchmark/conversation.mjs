// The conversation handle (lib/conversation.js) as a host uses it, turn by turn: open it on a
// history once, condense (taking on the result), then per turn append one message and condense
// again. Timed in this process against the same floor as the rest of bench.mjs (the JSON round
// trip of the whole history). Also: `conv.tokens` after an append, and the last turn's result
// against the stateless condense() of the same messages.
//
// Run as a script it measures memory instead, in a fresh process, and prints one JSON line: the C
// heap a conversation holds (against the history's JSON size; the token cache its counting filled
// apart), again once a condensing has built the semantic view it keeps, and what is left after
// close().
// With one libuv thread (UV_THREADPOOL_SIZE=1, as bench.mjs runs it): the tokenizer keeps a fixed
// cache of about 1.2 MB in each thread that counts, which a first count on a new thread would add.
//
//   UV_THREADPOOL_SIZE=1 node --expose-gc benchmark/conversation.mjs memory [tokens=1000000]
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import { generateHistory } from '../fixtures/generate.mjs'

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

/**
 * Per provider: the first condense on the opened conversation, then `turns` turns of append one
 * message + condense, each timed as a whole (median), with and without taking on the result.
 */
export async function measureConversation({ lib, history, more, providers, turns = 20 }) {
  const out = []
  for (const [label, options] of providers) {
    const t0 = performance.now()
    const conv = await lib.openConversation(history)
    const openMs = performance.now() - t0
    const t1 = performance.now()
    await conv.condense(options)
    const firstMs = performance.now() - t1
    const heldTokens = conv.tokens
    const adopted = []
    let last
    for (const m of more.slice(0, turns)) {
      const t = performance.now()
      conv.append([m])
      last = await conv.condense(options)
      adopted.push(performance.now() - t)
    }
    // The last turn against the stateless condense of what the conversation held before it.
    const before = [...conv.messages]
    conv.append([more[turns]])
    const held = await conv.condense({ ...options, adopt: false })
    const stateless = await lib.condense([...before, more[turns]], options)
    const same = JSON.stringify(held.messages) === JSON.stringify(stateless.messages)
    conv.close()

    // Without taking results on: the whole history held, one more message each turn.
    const full = await lib.openConversation(history)
    await full.condense({ ...options, adopt: false })
    const kept = []
    for (const m of more.slice(0, turns)) {
      const t = performance.now()
      full.append([m])
      await full.condense({ ...options, adopt: false })
      kept.push(performance.now() - t)
    }
    full.close()
    out.push({ label, openMs, firstMs, heldTokens, adoptedMs: median(adopted), keptMs: median(kept), same, lastChanged: last?.changed.length })
  }

  // conv.tokens after appending one short message: the getter alone, and append + getter.
  const conv = await lib.openConversation(history)
  void conv.tokens
  const getter = []
  const appendAndCount = []
  for (const m of more.slice(0, turns)) {
    const small = { role: m.role, content: [{ type: 'text', text: `turn ${getter.length}: done.` }] }
    const t = performance.now()
    conv.append([small])
    const t2 = performance.now()
    void conv.tokens
    const t3 = performance.now()
    getter.push(t3 - t2)
    appendAndCount.push(t3 - t)
  }
  conv.close()
  return { providers: out, tokensMs: median(getter), appendAndTokensMs: median(appendAndCount) }
}

/**
 * The conversation figures of bench.mjs on `history`: cut 22 messages before its end (after a user
 * message; the rest are the turns), the floor of what the conversation opens on (the JSON round
 * trip, median of five), and measureConversation with Lossless and Smart balanced.
 */
export async function conversationFigures(lib, history) {
  let cut = history.length - 22
  while (history[cut - 1].role !== 'user') cut--
  const opened = history.slice(0, cut)
  const floor = median(
    [1, 2, 3, 4, 5].map(() => {
      const t = performance.now()
      JSON.parse(JSON.stringify(opened))
      return performance.now() - t
    }),
  )
  const figures = await measureConversation({
    lib,
    history: opened,
    more: history.slice(cut),
    providers: [
      ['Lossless', { provider: 'lossless' }],
      ['Smart balanced', { provider: 'smart', config: { preset: 'balanced' } }],
    ],
  })
  return { cut, floor, ...figures }
}

async function memory(tokens) {
  const require = createRequire(import.meta.url)
  const lib = require('../lib/index.js')
  const native = require('../lib/internal/native.js')
  const gc = globalThis.gc ?? (() => {})
  const history = JSON.parse(JSON.stringify(generateHistory({ seed: 7, format: 'xml', targetTokens: tokens })))
  const jsonBytes = Buffer.byteLength(JSON.stringify(history))
  // Warm what lives for the whole process: the BPE tables, the engine's threads and each counting
  // thread's fixed piece cache (about 1.2 MB per thread, the tokenizer's own), by counting this
  // history once; and the code paths of a whole cycle (open, condense, close: compiled code and
  // the allocator's own structures grow on a first cycle and stay), on a small history.
  const small = await lib.openConversation(generateHistory({ seed: 3, format: 'xml', targetTokens: 20_000 }))
  await small.condense({ provider: 'lossless', adopt: false })
  small.append([])
  small.close()
  lib.countTokens(history)
  lib.clearTokenCache()
  const settle = async () => {
    gc()
    await sleep(1200) // past the engine's 1 s idle decay, after which it gives freed memory back
    gc()
    return process.memoryUsage().rss
  }
  // The C heap in use (the engine's allocations, and Node's own outside the JS heap): exact,
  // where resident memory moves with the allocator's free lists. -1 without the probe.
  const inUse = () => (typeof native.mallocInUse === 'function' ? native.mallocInUse() : -1)
  const baseRss = await settle()
  const base = inUse()
  const conv = await lib.openConversation(history)
  void conv.tokens
  await settle()
  // Counting the messages also filled the process-wide token cache (shared by every call,
  // bounded, emptied by clearTokenCache): measured apart from what the conversation holds.
  const heldAndCache = inUse()
  lib.clearTokenCache()
  const heldRss = await settle()
  const held = inUse()
  // After a condensing (its result not taken on, then dropped): the semantic view is kept too.
  await conv.condense({ provider: 'lossless', adopt: false })
  conv.append([])
  lib.clearTokenCache()
  await settle()
  const withView = inUse()
  conv.close()
  lib.clearTokenCache()
  const closedRss = await settle()
  const closed = inUse()
  return {
    jsonBytes,
    held: held - base,
    tokenCache: heldAndCache - held,
    heldWithView: withView - base,
    afterClose: closed - base,
    heldRss: heldRss - baseRss,
    afterCloseRss: closedRss - baseRss,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url) && process.argv[2] === 'memory') {
  console.log(JSON.stringify(await memory(Number(process.argv[3] ?? 1_000_000))))
}
