// The event loop under load (run by bench.mjs in a fresh process; prints one JSON line last):
// how long the loop is held at most while 200 Lossless calls run at once on one real history, how
// long an abort takes to reject all of them, and how long countTokensAsync holds it on a history of
// 1M messages and on one 200 MB string. "Held" is the longest gap between two ticks of a 1 ms
// timer, less the 1 ms it waits.
//
//   node --expose-gc benchmark/event-loop.mjs [calls=200] [messages=1000000] [blockMB=200]
import { setMaxListeners } from 'node:events'
import { existsSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

import { watch } from './watch.mjs'

const require = createRequire(import.meta.url)
const lib = require('../lib/index.js')
const here = dirname(fileURLToPath(import.meta.url))
const CALLS = Number(process.argv[2] ?? 200)
const MESSAGES = Number(process.argv[3] ?? 1_000_000)
const BLOCK_MB = Number(process.argv[4] ?? 200)
const round = (n) => Math.round(n * 10) / 10

const out = { calls: CALLS }
// The machine's own floor: JavaScript that gives the loop back every 2 ms (busy in between), for a
// second. On a shared machine the operating system's scheduling shows here, not the library.
{
  const until = performance.now() + 1000
  const w = await watch(
    () =>
      new Promise((resolve) => {
        const step = () => {
          const end = performance.now() + 2
          while (performance.now() < end);
          if (performance.now() < until) setImmediate(step)
          else resolve()
        }
        setImmediate(step)
      }),
  )
  out.floor = { gapMs: round(w.gapMs), gcMs: round(w.gcMs), ownMs: round(w.ownMs) }
}
const FIXTURE = join(here, '..', '..', 'shared', 'fixtures', 'roo-pr8743', 'synthetic-3-tool-dedup', 'api_conversation_history.json')
if (existsSync(FIXTURE)) {
  const history = JSON.parse(readFileSync(FIXTURE, 'utf8'))
  const snapshot = JSON.stringify(history)
  out.history = { file: 'synthetic-3-tool-dedup', messages: history.length, tokens: lib.countTokens(history) }
  const one = await lib.condense(history, { provider: 'lossless' })
  // 200 concurrent calls: every one must give the same result as one call alone.
  const concurrent = []
  for (let r = 0; r < 2; r++) {
    lib.clearTokenCache()
    const w = await watch(() => Promise.all(Array.from({ length: CALLS }, () => lib.condense(history, { provider: 'lossless' }))))
    const same = w.value.every((x) => x.newContextTokens === one.newContextTokens && x.messages.length === one.messages.length)
    concurrent.push({ ms: round(w.ms), gapMs: round(w.gapMs), gcMs: round(w.gcMs), ownMs: round(w.ownMs), same })
  }
  out.concurrent = concurrent
  // Abort under load: all calls share one signal, aborted 50 ms in (during intake or the engine's run).
  const aborts = []
  for (const delay of [50, 200]) {
    lib.clearTokenCache()
    const controller = new AbortController()
    setMaxListeners(4 * CALLS, controller.signal) // one signal for all the calls: no leak warning
    let abortedAt = 0
    const latencies = []
    let completed = 0
    const w = await watch(async () => {
      const calls = Array.from({ length: CALLS }, () =>
        lib.condense(history, { provider: 'lossless', signal: controller.signal }).then(
          () => completed++,
          (e) => {
            if (e.name !== 'AbortError') throw e
            latencies.push(performance.now() - abortedAt)
          },
        ),
      )
      setTimeout(() => {
        abortedAt = performance.now()
        controller.abort()
      }, delay)
      await Promise.all(calls)
    })
    latencies.sort((a, b) => a - b)
    aborts.push({
      abortAtMs: delay,
      rejected: latencies.length,
      completed,
      maxMs: round(latencies.at(-1) ?? 0),
      medianMs: round(latencies[latencies.length >> 1] ?? 0),
      gapMs: round(w.gapMs),
      ownMs: round(w.ownMs),
    })
  }
  out.abort = aborts
  out.inputUntouched = JSON.stringify(history) === snapshot
} else {
  out.skipped = `${FIXTURE} is not there: the concurrent-call and abort figures need the real histories`
}

// countTokensAsync on MESSAGES small messages, cold and warm cache.
{
  const messages = Array.from({ length: MESSAGES }, (_, i) =>
    i % 2
      ? {
          role: 'assistant',
          content: [
            { type: 'text', text: `answer ${i}` },
            { type: 'tool_use', id: `t${i}`, name: 'read_file', input: { path: `src/f${i % 1000}.ts` } },
          ],
        }
      : { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i - 1}`, content: `line ${i} of a file` }] },
  )
  lib.clearTokenCache()
  const sync = lib.countTokens(messages)
  lib.clearTokenCache()
  const cold = await watch(() => lib.countTokensAsync(messages))
  const warm = await watch(() => lib.countTokensAsync(messages))
  out.countMessages = {
    messages: MESSAGES,
    cold: { ms: round(cold.ms), gapMs: round(cold.gapMs), gcMs: round(cold.gcMs), ownMs: round(cold.ownMs) },
    warm: { ms: round(warm.ms), gapMs: round(warm.gapMs), gcMs: round(warm.gcMs), ownMs: round(warm.ownMs) },
    sameAsSync: cold.value === sync && warm.value === sync,
  }
}

// countTokensAsync on one string of BLOCK_MB MB, and what Node-API's copy of it costs alone.
{
  // A flat string (as one read from a file is; String.repeat would give a rope that V8 flattens
  // on first use, a cost of the benchmark, not of the library).
  const block = Buffer.alloc(BLOCK_MB * 1e6, 'fn main() { println!("hello"); }\n').toString('latin1')
  lib.clearTokenCache()
  const cold = await watch(() => lib.countTokensAsync(block))
  const t = performance.now()
  Buffer.from(block, 'utf8') // the UTF-8 copy any crossing into native code makes
  const copyMs = performance.now() - t
  lib.clearTokenCache()
  const asMessage = await watch(() => lib.countTokensAsync([{ role: 'user', content: block }]))
  out.countBlock = {
    mb: BLOCK_MB,
    ms: round(cold.ms),
    gapMs: round(cold.gapMs),
    gcMs: round(cold.gcMs),
    asMessageGapMs: round(asMessage.gapMs),
    utf8CopyMs: round(copyMs),
    same: cold.value === asMessage.value,
  }
}

console.log(JSON.stringify(out))
