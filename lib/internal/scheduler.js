// One scheduler for the JavaScript-side work of every call that must leave the event loop free:
// feeding histories to the engine, applying its results, walking histories to count tokens. Each
// job is a function that does one slice of its work (up to `size` units: messages, changes,
// texts) and says whether it is done. The scheduler runs slices round-robin across all jobs of all
// calls, at most about BUDGET_MS of them per macrotask (a setImmediate), so timers, I/O and other
// callbacks run between macrotasks however many calls are in flight, and each job's slice size
// follows what its last slice cost, aiming at SLICE_MS. An AbortSignal rejects its job at once
// (the job is dropped from the queue; it is checked again before every slice). The scheduler holds
// only its queue: it never reads or changes the data the jobs work on.
'use strict'

const { abortError, whenAborted } = require('./abort.js')

/** Milliseconds of such work one macrotask may run, across all calls. */
const BUDGET_MS = 2
/** Milliseconds one slice of one job aims at. */
const SLICE_MS = 0.5
const MIN_SIZE = 1
const MAX_SIZE = 1 << 16

/** Jobs waiting for a slice, oldest first. */
const queue = []
let scheduled = false

function tick() {
  scheduled = false
  const started = performance.now()
  // At least one slice per macrotask, then slices while the budget lasts.
  do {
    const job = queue.shift()
    if (job === undefined) break
    if (job.settled) continue // aborted while waiting
    const sliceStart = performance.now()
    let done
    try {
      done = job.work(job.sizing.size)
    } catch (e) {
      job.finish(e, true)
      continue
    }
    const spent = performance.now() - sliceStart
    if (done) {
      if (job.resizeLast) resize(job.sizing, spent)
      job.finish(undefined, false)
      continue
    }
    resize(job.sizing, spent)
    queue.push(job)
  } while (queue.length > 0 && performance.now() - started < BUDGET_MS)
  if (queue.length > 0) schedule()
}

/** Aims the next slice at SLICE_MS, from what the last one cost; grows at most fourfold at a time. */
function resize(sizing, spent) {
  const aimed = Math.floor((sizing.size * SLICE_MS) / Math.max(spent, 0.01))
  sizing.size = Math.max(MIN_SIZE, Math.min(MAX_SIZE, sizing.size * 4, aimed))
}

function schedule() {
  if (scheduled) return
  scheduled = true
  setImmediate(tick)
}

/**
 * Runs `work(size)` in slices until it returns true. Resolves when it is done, rejects with what
 * it threw, or with the signal's reason as soon as the signal aborts.
 *
 * @param {(size: number) => boolean} work does up to `size` units; true when all is done
 * @param {AbortSignal | undefined} signal
 * @param {number | { size: number }} [size] the first slice's size; or an object holding it,
 *   which then keeps the size learnt across runs (for work done one slice per run)
 * @returns {Promise<void>}
 */
function run(work, signal, size = 16) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(abortError(signal))
      return
    }
    const shared = typeof size === 'object'
    const sizing = shared ? size : { size }
    sizing.size = Math.max(MIN_SIZE, Math.min(MAX_SIZE, Math.floor(sizing.size)))
    const job = {
      work,
      sizing,
      resizeLast: shared,
      settled: false,
      finish(value, failed) {
        if (job.settled) return
        job.settled = true
        unfollow()
        if (failed) reject(value)
        else resolve(value)
      },
    }
    // Dropped from the queue's point of view at once; its slot is skipped when reached.
    const unfollow = whenAborted(signal, () => job.finish(abortError(signal), true))
    queue.push(job)
    schedule()
  })
}

// Engine runs at once. Each running engine is a native thread, and its wait for the next event
// holds one of libuv's pool threads (UV_THREADPOOL_SIZE, 4 by default): more runs than cores only
// take CPU time from the JavaScript thread (and 200 at once from everything else in the process),
// and as many waits as pool threads would leave none for file I/O and token counting. So at most
// one per core, and always one pool thread left over; the others wait their turn in order.
const POOL_THREADS = Math.max(1, Number.parseInt(process.env.UV_THREADPOOL_SIZE ?? '', 10) || 4)
const CORES = require('node:os').availableParallelism()
const ENGINE_SLOTS = Math.max(1, Math.min(CORES, POOL_THREADS - 1))
/**
 * Batches of native work JavaScript hands out at once (token counting): one core is left to the
 * JavaScript thread, and one pool thread to everything else.
 */
const NATIVE_BATCHES = Math.max(1, Math.min(CORES - 1, POOL_THREADS - 1))
let enginesRunning = 0
const engineWaiters = []

/**
 * Waits for a turn to run the engine; resolves with the function that gives the turn back (call
 * it once), rejects with the signal's reason if it aborts first.
 *
 * @param {AbortSignal | undefined} signal
 * @returns {Promise<() => void>}
 */
function engineTurn(signal) {
  return new Promise((resolve, reject) => {
    if (signal && signal.aborted) {
      reject(abortError(signal))
      return
    }
    const grant = () => {
      enginesRunning++
      let given = false
      resolve(() => {
        if (given) return
        given = true
        enginesRunning--
        const next = engineWaiters.shift()
        if (next) next()
      })
    }
    if (enginesRunning < ENGINE_SLOTS) {
      grant()
      return
    }
    const waiter = () => {
      unfollow()
      grant()
    }
    const unfollow = whenAborted(signal, () => {
      const at = engineWaiters.indexOf(waiter)
      if (at >= 0) engineWaiters.splice(at, 1)
      reject(abortError(signal))
    })
    engineWaiters.push(waiter)
  })
}

/** Jobs waiting (for tests and the benchmark). */
function pending() {
  return queue.filter((j) => !j.settled).length
}

module.exports = { run, engineTurn, pending, abortError, BUDGET_MS, SLICE_MS, ENGINE_SLOTS, NATIVE_BATCHES }
