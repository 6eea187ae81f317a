// A conversation held in the engine between calls, so a host whose history grows by a message or
// two per turn pays for what changed, not for the whole history again: `openConversation(messages)`
// hands the history over once (parsed and counted in the engine), `append` / `replace` /
// `truncate` / `sync` keep it equal to the host's, and `condense` runs on what is held, after
// which the conversation holds the condensed history. The host's message objects are kept beside
// the engine's copy and come back in results; they are never changed.
'use strict'

const native = require('./internal/native.js')
const scheduler = require('./internal/scheduler.js')
const { describe, wholeNumber } = require('./internal/values.js')
const { pushChunk } = require('./internal/crossing.js')
const { checkMessagesArray, checkMessageObjects, checkEncoding, checkOptionsObject } = require('./internal/checks.js')
const { pushInChunks } = require('./internal/intake.js')
const { checkSignal, whenAborted } = require('./internal/abort.js')
const { runEngine, readCondenseOptions } = require('./internal/run.js')
const { stateError, withCode, tag } = require('./internal/errors.js')

/**
 * What `sync` compares besides identity: the fields and blocks a host might change in place. A
 * message whose object is the same but whose content array, blocks, texts or visibility fields
 * were swapped is seen as changed; an edit deeper than that (a character inside a string cannot
 * change: strings are immutable, so only such swaps can) needs `replace`.
 */
function shapeOf(m) {
  const c = m.content
  const shape = [m.role, c, m.isSummary, m.condenseParent, m.truncationParent, m.condenseId, m.truncationId]
  if (Array.isArray(c)) {
    shape.push(c.length)
    for (const b of c) {
      if (b !== null && typeof b === 'object') shape.push(b, b.type, b.text, b.content, b.input, b.thinking)
      else shape.push(b)
    }
  }
  return shape
}

/** Whether `m` has the shape `shapeOf` recorded, compared field by field as `shapeOf` lists them (nothing is allocated: `sync` asks it of every message held). */
function sameShape(m, shape) {
  if (m === null || typeof m !== 'object') return false
  let i = 0
  const same = (v) => Object.is(v, shape[i++])
  const c = m.content
  if (!(same(m.role) && same(c) && same(m.isSummary) && same(m.condenseParent) && same(m.truncationParent) && same(m.condenseId) && same(m.truncationId)))
    return false
  if (Array.isArray(c)) {
    if (!same(c.length)) return false
    for (const b of c) {
      if (b !== null && typeof b === 'object') {
        if (!(same(b) && same(b.type) && same(b.text) && same(b.content) && same(b.input) && same(b.thinking))) return false
      } else if (!same(b)) return false
    }
  }
  return i === shape.length
}

const OPEN = Symbol('openConversation')

class Conversation {
  #native
  #messages = []
  #shapes = []
  #encoding
  #busy = false
  #closed = false
  /** Native calls still running (a condense, a count, an analysis): the engine's copy is freed after the last. */
  #inFlight = 0
  /** The call in progress, `{ controller, at }`: `close` stops it. */
  #stop
  /** The last condense result not adopted yet (`condense(..., { adopt: false })`), with what it was made from. */
  #pending
  /** The count running off the JavaScript thread (`count`), while it runs. */
  #counting
  /**
   * The long strings the last `append` left out of the engine, still to be sent there in parts
   * (a step of lib/internal/crossing.js's textSender), so an append never holds the event loop for a long
   * string: what reads the messages in the engine sends them first, in slices when it is
   * asynchronous (`count`, `condense`, `analyze`), at once otherwise.
   */
  #unsent
  #unsentSizing = { size: 1 }

  /** Use `openConversation`. */
  constructor(key, encoding) {
    if (key !== OPEN) throw tag(new TypeError('Conversation: use openConversation(messages, options) to make one'))
    this.#encoding = encoding
    this.#native = new native.Conversation(encoding)
  }

  #usable(at) {
    if (this.#closed) throw stateError(`${at}: the conversation is closed`)
    if (this.#busy) throw stateError(`${at}: the conversation is busy (a condense, a count or an analysis is running on it); await it first`)
  }

  /**
   * Runs `work(signal)` (which awaits native calls) as the conversation's one call in progress:
   * busy meanwhile; `signal` fires when `close` comes during it (with an AbortError naming `at`,
   * errorCode "closed") or when `callerSignal` fires (with its reason); the engine's copy is freed
   * once the call has ended.
   */
  async #whileStoppable(at, work, callerSignal) {
    const stop = new AbortController()
    let unfollow = () => {}
    if (callerSignal) {
      if (callerSignal.aborted) stop.abort(callerSignal.reason)
      else unfollow = whenAborted(callerSignal, () => stop.abort(callerSignal.reason))
    }
    this.#stop = { controller: stop, at }
    this.#busy = true
    this.#inFlight++
    try {
      return await work(stop.signal)
    } finally {
      unfollow()
      if (this.#stop && this.#stop.controller === stop) this.#stop = undefined
      this.#busy = false
      this.#inFlight--
      if (this.#closed && this.#inFlight === 0) this.#native.close()
    }
  }

  /** Sends what the last append left out, at once (before anything else reads or changes the messages). */
  #sendNow() {
    if (this.#unsent) this.#unsent(Number.POSITIVE_INFINITY)
    this.#unsent = undefined
  }

  /** Sends what the last append left out through the scheduler (kept for later if `signal` aborts first). */
  async #send(signal) {
    if (!this.#unsent) return
    await scheduler.run(this.#unsent, signal, this.#unsentSizing)
    this.#unsent = undefined
  }

  /** The native conversation as the intake pushes to it; remembers a problem it was rejected with. */
  #target() {
    const conv = this.#native
    let problem
    return {
      push: (chunk, longUnits) => conv.push(chunk, longUnits),
      textPart: (part, whole) => conv.textPart(part, whole),
      setText: (j) => conv.setText(j),
      reject: (p) => {
        problem = p
      },
      problem: () => problem,
    }
  }

  /** Hands the history over and counts it (see openConversation). */
  async [OPEN](messages, signal) {
    const problem = await pushInChunks(this.#target(), messages, signal)
    if (problem) {
      this.#native.close()
      throw new TypeError(`openConversation: ${problem}`)
    }
    this.#messages = messages.slice()
    this.#shapes = messages.map(shapeOf)
    await this.#native.count()
  }

  /** How many messages are held. */
  get length() {
    return this.#messages.length
  }

  /** The messages held: the host's own objects (condensed ones are new objects), in a new array. */
  get messages() {
    return this.#messages.slice()
  }

  /** The encoding the conversation counts in. */
  get encoding() {
    return this.#encoding
  }

  /**
   * Tokens of the messages held. What is not counted yet (appended, replaced or condensed since the
   * last count) is counted here, on the calling thread: after a large append, `await count()`
   * counts it off the thread instead.
   */
  get tokens() {
    this.#usable('conversation.tokens')
    this.#sendNow()
    return this.#native.tokens()
  }

  /**
   * Tokens of the messages held, counting what is not counted yet off the JavaScript thread (the
   * engine's thread pool), so the event loop stays free whatever was appended. Once it resolves,
   * `tokens` and `tokensOf` answer without counting until the conversation changes. While it runs
   * the conversation is busy (a second call shares it).
   */
  count() {
    if (this.#counting) return this.#counting
    try {
      this.#usable('conversation.count')
    } catch (e) {
      return Promise.reject(e)
    }
    if (!this.#unsent && this.#native.uncounted === 0) return Promise.resolve(this.#native.tokens())
    const conv = this.#native
    this.#counting = this.#whileStoppable('conversation.count', async (stop) => {
      // Closed while counting: the count running off the thread is stopped too.
      const stopCount = () => conv.stopCount()
      stop.addEventListener('abort', stopCount, { once: true })
      try {
        await this.#send(stop)
        const total = await conv.count()
        if (stop.aborted) throw stop.reason
        return total
      } catch (e) {
        throw stop.aborted ? stop.reason : e
      } finally {
        stop.removeEventListener('abort', stopCount)
        this.#counting = undefined
      }
    })
    return this.#counting
  }

  /** Tokens of the message at `index` (counted here if it is not yet, as `tokens` does). */
  tokensOf(index) {
    this.#usable('conversation.tokensOf')
    checkIndex(index, this.#messages.length, 'conversation.tokensOf')
    this.#sendNow()
    return this.#native.tokensOf(index)
  }

  /** Adds messages at the end (a long string sent to the engine later, see `#unsent`); answers the new length. */
  append(messages) {
    this.#usable('conversation.append')
    checkMessagesArray(messages, 'conversation.append')
    checkMessageObjects(messages, 'conversation.append')
    this.#sendNow()
    this.#pending = undefined
    const before = this.#messages.length
    const problem = pushChunk(this.#target(), messages, 0, (step) => {
      this.#unsent = step
    })
    if (problem) {
      this.#native.truncate(before)
      throw new TypeError(`conversation.append: ${problem}`)
    }
    for (const m of messages) {
      this.#messages.push(m)
      this.#shapes.push(shapeOf(m))
    }
    return this.#messages.length
  }

  /** Replaces the message at `index` (an edit the host made). */
  replace(index, message) {
    this.#usable('conversation.replace')
    checkIndex(index, this.#messages.length, 'conversation.replace')
    checkMessageObjects([message], 'conversation.replace', () => 'message')
    this.#sendNow()
    this.#pending = undefined
    // Pushed at the end, checked and escaped there, then moved into place.
    const end = this.#messages.length
    const problem = pushChunk(this.#target(), [message], 0)
    if (problem) {
      this.#native.truncate(end)
      throw new TypeError(`conversation.replace: ${problem.replace(/^messages\[0\]/, 'message')}`)
    }
    this.#native.moveLast(index)
    this.#messages[index] = message
    this.#shapes[index] = shapeOf(message)
  }

  /** Keeps the first `length` messages (a rewind). */
  truncate(length) {
    this.#usable('conversation.truncate')
    wholeNumber(length, 'conversation.truncate: length', 0)
    this.#pending = undefined
    if (length >= this.#messages.length) return
    this.#sendNow()
    this.#native.truncate(length)
    this.#messages.length = length
    this.#shapes.length = length
  }

  /**
   * Makes the conversation hold `messages`, the host's current history: messages that are the
   * same objects as those held, unchanged in shape (see `shapeOf`), are kept; from the first that
   * is not, the rest is taken again. Answers how many were kept and how many taken.
   */
  sync(messages) {
    this.#usable('conversation.sync')
    checkMessagesArray(messages, 'conversation.sync')
    checkMessageObjects(messages, 'conversation.sync')
    const held = this.#messages
    let k = 0
    const n = Math.min(held.length, messages.length)
    while (k < n && messages[k] === held[k] && sameShape(messages[k], this.#shapes[k])) k++
    if (k < held.length) this.truncate(k)
    if (k < messages.length) this.append(k === 0 ? messages : messages.slice(k))
    return { kept: k, taken: messages.length - k }
  }

  /** What fills the context of the messages held (as `analyze`), off the JavaScript thread. */
  async analyze() {
    this.#usable('conversation.analyze')
    return this.#whileStoppable('conversation.analyze', async (signal) => {
      await this.#send(signal)
      const found = await this.#native.analyze()
      if (this.#closed) throw closedDuring('conversation.analyze')
      return found
    })
  }

  /**
   * Condenses the messages held, with the options `condense` takes (`repair` and `format` aside).
   * Answers what `condense` answers, plus `changed` (indexes of the result's messages that are new
   * objects: edited or written) and `layout` (per result message, its index before or -1 for a
   * written one; null when every message kept its place). Afterwards the conversation holds the
   * condensed messages (unless the result carries an `error`: then nothing changed), or, with
   * `adopt: false`, still the messages it held (`adopt(result)` takes the result on later).
   */
  async condense(options) {
    this.#usable('conversation.condense')
    // The options are checked to be an object before anything is taken out of them (spreading a
    // string would make a key of each of its characters).
    const { signal, summarize, llm, repair, engineOptions: given } = readCondenseOptions(options, 'conversation.condense')
    const { adopt = true, ...engineOptions } = given
    if (typeof adopt !== 'boolean') throw new TypeError(`conversation.condense: options.adopt: expected true or false, got ${describe(adopt)}`)
    if (repair) throw new TypeError('conversation.condense: options.repair: repair the messages before they are appended (repairConversation)')
    if ('format' in engineOptions) {
      throw new TypeError(
        'conversation.condense: options.format: a conversation holds Anthropic-format messages; convert them with context-condense/openai-format first',
      )
    }
    if (engineOptions.encoding === undefined) engineOptions.encoding = this.#encoding
    const conv = this.#native
    const before = this.#messages
    // A result waiting to be adopted stays so unless this call answers a new one: a condense that
    // is refused, fails, is stopped or answers an error leaves it (the engine keeps the run's
    // changes apart until `keepResult`).
    const start = () => {
      // The run is made (its options checked) when its turn comes, as the conversation starts it.
      const run = new native.Run(engineOptions)
      conv.start(run, summarize !== undefined)
      return run
    }
    // The run stops when the caller's signal fires (with its reason) or the conversation is closed.
    return this.#whileStoppable(
      'conversation.condense',
      async (stop) => {
        await this.#send(stop)
        const result = await runEngine(before, { summarize, llm, signal: stop, start })
        result.changed = []
        result.layout = null
        if (result.error) return result
        conv.keepResult()
        this.#pending = result
        if (adopt) Object.assign(result, this.#adopt(result))
        return result
      },
      signal,
    )
  }

  /**
   * Makes the conversation hold the messages of `result`, the last `condense` made with
   * `adopt: false`, when nothing changed since (the host took the result after all). Answers
   * `{ changed, layout }` as `condense` gives them when it adopts, and writes them into `result`
   * too unless the host froze it.
   */
  adopt(result) {
    this.#usable('conversation.adopt')
    if (result === undefined || result !== this.#pending) {
      throw stateError('conversation.adopt: expected the result of the last condense on this conversation, with no change to the conversation since')
    }
    const placed = this.#adopt(result)
    Reflect.set(result, 'changed', placed.changed)
    Reflect.set(result, 'layout', placed.layout)
    return placed
  }

  /** Takes `result` on; answers where its messages came from (`changed`, `layout`). */
  #adopt(result) {
    this.#pending = undefined
    const origin = this.#native.adopt()
    const changed = []
    let moved = origin.length !== this.#messages.length
    const shapes = new Array(origin.length)
    for (let i = 0; i < origin.length; i++) {
      const o = origin[i]
      if (o >= 0) {
        if (o !== i) moved = true
        shapes[i] = this.#shapes[o]
        continue
      }
      if (o !== -1 && -2 - o !== i) moved = true
      changed.push(i)
      shapes[i] = shapeOf(result.messages[i])
    }
    this.#messages = result.messages.slice()
    this.#shapes = shapes
    return { changed, layout: moved ? Array.from(origin, (o) => (o >= 0 ? o : o === -1 ? -1 : -2 - o)) : null }
  }

  /**
   * Lets go of what the engine holds for this conversation; later calls throw. A condense running
   * on it is stopped and rejects with an AbortError (an analysis rejects the same way when it
   * ends); the engine's copy is freed at once, or as soon as that call has ended.
   */
  close() {
    if (this.#closed) return
    this.#closed = true
    this.#unsent = undefined
    this.#messages = []
    this.#shapes = []
    this.#pending = undefined
    if (this.#stop) this.#stop.controller.abort(closedDuring(this.#stop.at))
    if (this.#inFlight === 0) this.#native.close()
  }

  /** Whether `close` was called. */
  get closed() {
    return this.#closed
  }
}

function checkIndex(index, length, at) {
  if (!Number.isInteger(index) || index < 0 || index >= length) {
    const error = new RangeError(`${at}: no message at index ${typeof index === 'number' ? index : describe(index)} (the conversation holds ${length})`)
    throw withCode(error, 'invalid-argument')
  }
}

/** What a call in progress rejects with when the conversation is closed during it: an AbortError, errorCode "closed". */
function closedDuring(at) {
  return withCode(new DOMException(`${at}: the conversation was closed while the call was running`, 'AbortError'), 'closed')
}

/**
 * Hands `messages` to the engine once and answers a `Conversation` holding them, counted.
 * Options: `encoding` (the default encoding unless given: lib/internal/registry.js), `signal` (stops the hand-over).
 */
async function openConversation(messages, options) {
  checkMessagesArray(messages, 'openConversation')
  checkMessageObjects(messages, 'openConversation')
  const opts = checkOptionsObject(options, 'openConversation', ['encoding', 'signal'])
  const encoding = checkEncoding(opts.encoding, 'openConversation: options.encoding')
  const signal = checkSignal(opts.signal, 'openConversation: options.signal')
  const conv = new Conversation(OPEN, encoding)
  await conv[OPEN](messages, signal)
  return conv
}

module.exports = { openConversation, Conversation }
