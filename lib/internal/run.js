// One engine run driven from JavaScript (a native Run, over a History for condense or over a held
// Conversation's messages): the turn on the scheduler, summary requests answered by the host's callback, abort, and the result built
// from the engine's changes with structural sharing. Reads the messages; never changes them.
'use strict'

const scheduler = require('./scheduler.js')
const { fromEngine, checkCrossable } = require('./crossing.js')
const { buildMessages, copyMessages } = require('./apply.js')
const { abortError, checkSignal, whenAborted } = require('./abort.js')
const { summarizeBatch, readRequests, checkSummarizeOptions } = require('./summarize.js')
const { describe } = require('./values.js')
const { PROVIDER } = require('./registry.js')
const { withCode } = require('./errors.js')

/**
 * Runs the engine over `messages`: `start()` starts a native Run over them once a turn is free and
 * answers it. Answers the condense result, or throws as `condense` does.
 */
async function runEngine(messages, { summarize, llm, signal, start }) {
  // The run, once started (an abort before it is caught below, after the turn: nothing starts).
  let handle
  const unfollow = whenAborted(signal, () => {
    if (handle) handle.abort()
  })
  // A turn to run the engine (scheduler.engineTurn: at most one run per core at once), given
  // back while the callback answers and once the engine has answered.
  let release
  try {
    release = await scheduler.engineTurn(signal)
    // Aborted while the turn was granted: nothing is started.
    if (signal && signal.aborted) throw abortError(signal)
    handle = start()
    for (;;) {
      const event = await handle.next()
      release()
      release = undefined
      if (signal && signal.aborted) throw abortError(signal)
      if (event.kind === 'summarize') {
        // The requests come out of the engine in the host's form; the answers' texts cross
        // apart, as UTF-16, and the engine escapes them (a lone surrogate in one comes back).
        const requests = await readRequests((maxBytes) => handle.readPart(maxBytes), signal, messages)
        const answers = await summarizeBatch(requests, summarize, llm, signal)
        release = await scheduler.engineTurn(signal)
        handle.reply(
          answers.map((a) => (a.ok ? { ...a, reply: { ...a.reply, text: '' } } : a)),
          answers.map((a) => (a.ok ? a.reply.text : '')),
        )
        continue
      }
      if (event.kind === 'error') {
        if (event.aborted && signal && signal.aborted) throw abortError(signal)
        // The engine's code for it (an abort the caller did not ask for is internal too).
        throw withCode(new Error(event.error), event.errorCode)
      }
      const summary = fromEngine(event.summary)
      const result = {
        messages: summary.error
          ? await copyMessages(messages, signal)
          : await buildMessages(messages, event.changes, summary, signal, (maxBytes) => handle.readPart(maxBytes)),
        summary: summary.summary,
        cost: summary.cost,
        prevContextTokens: summary.prevContextTokens,
        newContextTokens: summary.newContextTokens,
        metrics: summary.metrics,
        report: summary.report,
      }
      if (summary.provenance) result.provenance = summary.provenance
      if (summary.error) {
        result.error = summary.error
        result.errorCode = summary.errorCode
      }
      return result
    }
  } finally {
    if (release) release()
    unfollow()
  }
}

/** The options of a condensation checked, split into the host's part and the engine's. */
function readCondenseOptions(options, at) {
  if (options === null || typeof options !== 'object' || Array.isArray(options)) {
    throw new TypeError(`${at}: options: expected an object such as { provider: "${PROVIDER.lossless}" }, got ${describe(options)}`)
  }
  const { signal: rawSignal, summarize, summarizeOptions, repair, ...engineOptions } = options
  if (repair !== undefined && typeof repair !== 'boolean') {
    throw new TypeError(`${at}: options.repair: expected true or false, got ${describe(repair)}`)
  }
  const signal = checkSignal(rawSignal, `${at}: options.signal`)
  if (summarize !== undefined && typeof summarize !== 'function') {
    throw new TypeError(`${at}: options.summarize: expected an async function, got ${describe(summarize)}`)
  }
  const llm = checkSummarizeOptions(summarizeOptions, `${at}: options.summarizeOptions`)
  checkCrossable(engineOptions, at, ['options'])
  return { signal, summarize, llm, repair, engineOptions }
}

module.exports = { runEngine, readCondenseOptions }
