// What a call does to the process around it, for the benchmarks run in fresh processes: the
// longest the event loop is held (the garbage collector's pauses told apart: they are V8's, not
// this library's), and the peak of resident memory, sampled from a worker thread so a blocked
// loop cannot hide it.
import { PerformanceObserver } from 'node:perf_hooks'
import { Worker } from 'node:worker_threads'

const gc = globalThis.gc ?? (() => {})
const sleep = (ms) => new Promise((r) => setTimeout(r, ms))

let gcPauses = []
new PerformanceObserver((list) => {
  for (const e of list.getEntries()) gcPauses.push([e.startTime, e.startTime + e.duration])
}).observe({ entryTypes: ['gc'] })

/**
 * Runs `fn`, watching the loop with a 1 ms timer: the longest gap less the timer's own 1 ms
 * (`gapMs`), the longest garbage-collector pause meanwhile (`gcMs`), and the longest gap once the
 * collector's pauses inside it are taken out (`ownMs`: the code's own hold).
 */
export async function watch(fn) {
  gc()
  await sleep(20)
  let last = performance.now()
  const gaps = []
  const probe = setInterval(() => {
    const now = performance.now()
    if (now - last > 2) gaps.push([last, now])
    last = now
  }, 1)
  await sleep(5)
  gaps.length = 0
  gcPauses = []
  last = performance.now()
  const t = performance.now()
  const value = await fn()
  const ms = performance.now() - t
  await sleep(5)
  clearInterval(probe)
  await sleep(0) // the observer's last entries
  const overlap = (a, b) => gcPauses.reduce((n, [s, e]) => n + Math.max(0, Math.min(b, e) - Math.max(a, s)), 0)
  const gapMs = Math.max(0, ...gaps.map(([a, b]) => b - a - 1))
  const ownMs = Math.max(0, ...gaps.map(([a, b]) => b - a - 1 - overlap(a, b)))
  const gcMs = Math.max(0, ...gcPauses.map(([s, e]) => e - s))
  return { value, ms, gapMs, gcMs, ownMs }
}

/**
 * A sampler of the process's resident memory every millisecond on a worker thread:
 * `await sampler.peakDuring(fn, base)` answers fn's value and its peak resident memory over `base`
 * (by default the resident memory just before it). `close()` ends the worker.
 */
export async function rssSampler() {
  const shared = new Float64Array(new SharedArrayBuffer(16))
  const worker = new Worker(
    `const { workerData } = require('node:worker_threads')
     const peak = new Float64Array(workerData)
     setInterval(() => { const r = process.memoryUsage.rss(); if (r > peak[0]) peak[0] = r }, 1)`,
    { eval: true, workerData: shared.buffer },
  )
  worker.unref()
  await sleep(50)
  return {
    async peakDuring(fn, base) {
      gc()
      await sleep(20)
      const before = base ?? process.memoryUsage.rss()
      shared[0] = process.memoryUsage.rss()
      const value = await fn()
      await sleep(5)
      return { value, peakGrowth: Math.max(0, shared[0] - before) }
    },
    close: () => worker.terminate(),
  }
}
