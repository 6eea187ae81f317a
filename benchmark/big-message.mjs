// One big message and the event loop (run by bench.mjs in a fresh process; prints one JSON line
// last): how long the loop is held at most, GC pauses aside (watch.mjs), when a 10 MB tool result
// is appended to a held conversation and counted (`append` + `await count()`), when a manager turn
// with a task id takes it (its conversation), and when a 9 MB message holding lone surrogates is
// condensed, analyzed (`analyzeAsync`) and opened as a conversation. Beside them: what the
// synchronous `conv.tokens` holds it for on the same message, and 100,000 single appends counted.
//
//   node --expose-gc benchmark/big-message.mjs [mb=10] [surrogateMb=9]
import { createRequire } from 'node:module'

import { generateHistory } from '../fixtures/generate.mjs'
import { watch } from './watch.mjs'

const require = createRequire(import.meta.url)
const lib = require('../lib/index.js')
const MB = Number(process.argv[2] ?? 10)
const SURROGATE_MB = Number(process.argv[3] ?? 9)
const round = (n) => Math.round(n * 10) / 10
const held = (w) => ({ ms: round(w.ms), gapMs: round(w.gapMs), gcMs: round(w.gcMs), ownMs: round(w.ownMs) })

// Flat strings, as a file read or JSON.parse makes them (a rope would be flattened on first use,
// a cost of how the benchmark built it).
const LINE = '2026-11-22T10:00:00Z INFO worker-3 processed batch 1234 in 56 ms: const x = f(a, b);\n'
const text = (mb, seed) => Buffer.alloc(Math.round(mb * 1e6), `${seed} ${LINE}`).toString('latin1')
/** `mb` MB of UTF-16 text with a lone surrogate every `every` units (1.4M of them in 9 MB at every = 6). */
function withLoneSurrogates(mb, every) {
  const n = Math.round(mb * 1e6)
  const units = new Uint16Array(n)
  for (let i = 0; i < n; i++) units[i] = i % every === every - 1 ? 0xd800 + (i % 0x400) : LINE.charCodeAt(i % LINE.length)
  return Buffer.from(units.buffer).toString('utf16le')
}

const base = generateHistory({ seed: 7, format: 'native', targetTokens: 200_000 })
const end = base[base.length - 1].role === 'user' ? base.length : base.length - 1
const history = base.slice(0, end)
const call = { role: 'assistant', content: [{ type: 'tool_use', id: 'big', name: 'read_file', input: { path: 'big.log' } }] }
const result = (content) => ({ role: 'user', content: [{ type: 'tool_result', tool_use_id: 'big', content }] })

const out = { mb: MB, surrogateMb: SURROGATE_MB, historyMessages: history.length }

// A warm-up of every path measured below, on a 1 MB message: the code compiled and the engine's
// threads started, as in a host that has been running (a fresh process is benchmark/cold-start.mjs).
{
  const conv = await lib.openConversation(history)
  conv.append([call, result(text(1, 'w'))])
  await conv.count()
  conv.close()
  const manager = new lib.CondensationManager({ config: { provider: 'lossless' } })
  await manager.condenseIfNeeded(history, { contextWindow: 10_000_000, taskId: 'warm' })
  await manager.condenseIfNeeded([...history, call, result(text(1, 'x'))], { contextWindow: 10_000_000, taskId: 'warm' })
  await manager.closeConversations()
  const odd = [...history, call, result(withLoneSurrogates(1, 6))]
  await lib.condense(odd, { provider: 'lossless' })
  await lib.analyzeAsync(odd)
  ;(await lib.openConversation(odd)).close()
  lib.clearTokenCache()
}

// A held conversation takes a 10 MB tool result and counts it.
{
  const conv = await lib.openConversation(history)
  const message = result(text(MB, 'a'))
  const w = await watch(async () => {
    conv.append([call, message])
    return conv.count()
  })
  out.appendAndCount = { ...held(w), same: w.value === lib.countTokens([...history, call, message]) }
  conv.close()
  // The synchronous getter on the same kind of message (another text: not in the count cache).
  const sync = await lib.openConversation(history)
  const other = result(text(MB, 'b'))
  out.syncTokens = held(
    await watch(async () => {
      sync.append([call, other])
      return sync.tokens
    }),
  )
  sync.close()
}

// A manager turn with a task id: its conversation takes the new messages and counts them.
{
  const manager = new lib.CondensationManager({ config: { provider: 'lossless' } })
  await manager.condenseIfNeeded(history, { contextWindow: 10_000_000, taskId: 'big' })
  const turn = [...history, call, result(text(MB, 'c'))]
  const w = await watch(() => manager.condenseIfNeeded(turn, { contextWindow: 10_000_000, taskId: 'big' }))
  out.managerTurn = { ...held(w), prevContextTokens: w.value.decision.prevContextTokens }
  await manager.closeConversations()
}

// 100,000 single appends (short messages), then one count.
{
  const conv = await lib.openConversation(history.slice(0, 2))
  const n = 100_000
  const t = performance.now()
  for (let i = 0; i < n; i++) conv.append([{ role: i % 2 ? 'user' : 'assistant', content: [{ type: 'text', text: `turn ${i}: done with step ${i % 97}.` }] }])
  const appendMs = performance.now() - t
  const w = await watch(() => conv.count())
  out.manyAppends = { appends: n, usPerAppend: round((1000 * appendMs) / n), count: held(w) }
  conv.close()
}

// A 9 MB message holding lone surrogates (1.4M of them: one every sixth unit), three ways in.
{
  const odd = withLoneSurrogates(SURROGATE_MB, 6)
  const messages = [...history, call, result(odd)]
  lib.clearTokenCache()
  const c = await watch(() => lib.condense(messages, { provider: 'lossless' }))
  out.surrogates = { count: Math.floor(odd.length / 6), condense: { ...held(c), same: c.value.messages.at(-1) === messages.at(-1) } }
  lib.clearTokenCache()
  out.surrogates.analyzeAsync = held(await watch(() => lib.analyzeAsync(messages)))
  lib.clearTokenCache()
  const o = await watch(() => lib.openConversation(messages))
  out.surrogates.openConversation = held(o)
  o.value.close()
  // One lone surrogate (at the end) in the same size.
  const one = withLoneSurrogates(SURROGATE_MB, Math.round(SURROGATE_MB * 1e6))
  lib.clearTokenCache()
  out.surrogates.one = held(await watch(() => lib.condense([...history, call, result(one)], { provider: 'lossless' })))
}

console.log(JSON.stringify(out))
