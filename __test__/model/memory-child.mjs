// What the engine still holds after conversations are closed, measured in a process of its own:
// node --expose-gc __test__/model/memory-child.mjs <tokens>. Prints one JSON line: the C heap in use
// (the `mallocInUse` probe of builds with the `probes` feature, glibc's count of bytes handed out
// and not given back: there is no exact per-conversation counter) at the start, with the
// conversations open, and after they were closed — one closed while a condense ran on it, one a
// microtask after a condense started, one whose condense was aborted, one a manager kept for a
// task — as benchmark/conversation.mjs
// measures "left after close()"; and `refused`: what close() threw, if it did. -1 everywhere without
// the probe. Touches no file.
import { createRequire } from 'node:module'
import { setTimeout as sleep } from 'node:timers/promises'

import { generateHistory } from '../../fixtures/generate.mjs'

const require = createRequire(import.meta.url)
const lib = require('../../lib/index.js')
const native = require('../../index.js')
const tokens = Number(process.argv[2] ?? 300_000)
const gc = globalThis.gc ?? (() => {})
const inUse = () => (typeof native.mallocInUse === 'function' ? native.mallocInUse() : -1)
// Past the engine's 1 s idle decay, after which it gives freed memory back; on a loaded machine
// that can take longer: the least of a few readings over the next 2 s.
const settle = async () => {
  gc()
  await sleep(1200)
  let least = inUse()
  for (let i = 0; i < 8; i++) {
    await sleep(250)
    gc()
    least = Math.min(least, inUse())
  }
  return least
}
const summarize = async (request) => ({ text: `Summary of ${request.messages.length} messages.` })
const slow = async (request) => {
  await sleep(20)
  return summarize(request)
}

const history = JSON.parse(JSON.stringify(generateHistory({ seed: 7, format: 'xml', targetTokens: tokens })))
// Warm what lives for the whole process (the BPE tables, the threads, compiled code) on a small history.
const small = await lib.openConversation(generateHistory({ seed: 3, format: 'xml', targetTokens: 20_000 }))
await small.condense({ provider: 'lossless', adopt: false })
await small.condense({ provider: 'native', summarize, adopt: false })
small.close()
lib.countTokens(history)
lib.clearTokenCache()
const base = await settle()

const a = await lib.openConversation(history)
const b = await lib.openConversation(history)
const c = await lib.openConversation(history)
const d = await lib.openConversation(history)
await a.condense({ provider: 'smart', config: { preset: 'balanced' }, adopt: false })
const manager = new lib.CondensationManager({ config: { provider: 'lossless', threshold: 5 }, conversations: 2 })
await manager.condenseIfNeeded(history, { contextWindow: 50_000, taskId: 'task-1' })
lib.clearTokenCache()
const held = await settle()

// What close() threw, if it did (a close while the run waits on the engine can be refused).
const refused = []
const close = (conv) => {
  try {
    conv.close()
  } catch (e) {
    refused.push(e.message)
  }
}
// b: closed while a condense runs on it; c: its condense aborted, then closed.
const running = b.condense({ provider: 'native', summarize: slow, config: { keepLast: 3 } }).catch((e) => e)
await sleep(5)
close(b)
await running
const controller = new AbortController()
const aborted = c.condense({ provider: 'native', summarize: slow, signal: controller.signal }).catch((e) => e)
await sleep(5)
controller.abort()
await aborted
close(c)
// d: closed a microtask after a condense started on it (the moment the run is waiting for the engine).
const waiting = d.condense({ provider: 'native', summarize: slow, config: { keepLast: 3 } }).catch((e) => e)
await Promise.resolve()
close(d)
await waiting
close(d)
close(a)
await manager.closeConversations()
lib.clearTokenCache()
const after = await settle()
console.log(JSON.stringify({ base, held, after, conversations: 5, refused }))
