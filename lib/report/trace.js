// Tracing a condensation pass by pass: the history after each pass, the summarize callback asked
// each request once (its answers reused for every prefix of the passes).
'use strict'

const lib = require('../index.js')

// ---------------------------------------------------------------------------------------------
// Tracing: the history after each pass

/** A summarize callback that answers a request it has seen with its first answer. */
function memoizeSummarize(summarize) {
  if (typeof summarize !== 'function' || summarize.memoized) return summarize
  const cache = new Map()
  const memo = (request, context) => {
    memo.calls++
    let key
    try {
      key = JSON.stringify(request)
    } catch {
      return summarize(request, context)
    }
    if (!cache.has(key)) {
      const reply = Promise.resolve().then(() => summarize(request, context))
      cache.set(key, reply)
      reply.catch(() => {
        // A retry asks again (the library retries with the same request).
        cache.delete(key)
        memo.failures++
      })
    }
    return cache.get(key)
  }
  memo.memoized = true
  memo.calls = 0
  memo.failures = 0
  return memo
}

/**
 * Condenses `messages` and records the history after each pass, so the report can say exactly
 * which pass did what. For Smart, each pass's state comes from running the passes up to it (the
 * engine is deterministic; a summarize callback is asked each request once: its answers are
 * reused); for the other providers their single pass is the result. `condense` (default: the
 * library's) runs each condensation. Resolves to `{ result, stages, traced, note? }`; `traced` is
 * false (and `stages` null) when the stages could not be told apart: the report then infers.
 */
async function traceCondense(messages, options, { condense = lib.condense } = {}) {
  const opts = { ...options }
  if (typeof opts.summarize === 'function') opts.summarize = memoizeSummarize(opts.summarize)
  const result = await condense(messages, opts)
  const passes = (result.metrics && result.metrics.passes) || []
  if (result.error) return { result, stages: null, traced: false, note: 'the engine did not condense' }
  if (opts.summarize && opts.summarize.failures > 0)
    return { result, stages: null, traced: false, note: 'pass attribution inferred (a summary request failed)' }
  if (opts.format === 'openai' || opts.format === 'auto') return { result, stages: null, traced: false, note: 'OpenAI-format histories are not traced' }
  if (opts.provider !== 'smart' || passes.length <= 1) {
    const id = passes.length === 1 ? passes[0].id : undefined
    const name = passes.length === 1 ? passes[0].name : String(opts.provider)
    return { result, stages: [{ id, name, messages: result.messages }], traced: true }
  }
  try {
    const config = opts.config && typeof opts.config === 'object' ? opts.config : {}
    const configured = Array.isArray(config.passes) ? config.passes : config.preset ? lib.smartPreset(config.preset).passes : []
    const stages = []
    for (const [n, pass] of passes.entries()) {
      const count = pass.id === 'lossless-prelude' ? 0 : configured.findIndex((p) => p.id === pass.id) + 1
      if (pass.id !== 'lossless-prelude' && count === 0) throw new Error(`pass ${pass.id} is not in the config`)
      let stageMessages
      if (n === passes.length - 1) stageMessages = result.messages
      else {
        const r = await condense(messages, { ...opts, config: { ...config, passes: configured.slice(0, count) } })
        const ids = r.metrics.passes.map((p) => p.id)
        const want = passes.slice(0, n + 1).map((p) => p.id)
        const last = r.metrics.passes[r.metrics.passes.length - 1]
        if (r.error || ids.join('\n') !== want.join('\n') || !last || last.tokensAfter !== pass.tokensAfter)
          throw new Error(`the run up to pass ${pass.id} differs from the full run`)
        stageMessages = r.messages
      }
      stages.push({ id: pass.id, name: pass.name, messages: stageMessages })
    }
    return { result, stages, traced: true }
  } catch (e) {
    if (opts.signal && opts.signal.aborted) throw e
    return { result, stages: null, traced: false, note: `pass attribution inferred (${e && e.message ? e.message : e})` }
  }
}

module.exports = { memoizeSummarize, traceCondense }
