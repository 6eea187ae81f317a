// Conversations kept per task, so a host that passes the same task's history again (the manager,
// the Roo entry) gets the per-turn gain of a conversation without changing its calls: the history
// it passes is matched against what the task's conversation holds (`sync`: same objects, same
// shape) and only what differs crosses. Bounded: the least recently used task's conversation is
// closed when a new one would pass the limit. Never changes the host's messages.
//
// Calls for one task take turns (one at a time, in the order they came). A turn is given back on
// every path: when the call that took it ends, throws, or is aborted while it waits, and when the
// conversation could not be opened (the next call then opens it again, or answers the refusal).
'use strict'

const { abortError, checkSignal, whenAborted } = require('./abort.js')
const { DEFAULT_ENCODING } = require('./registry.js')

/** Tasks whose conversations are kept at once, by default. */
const DEFAULT_MAX_TASKS = 4

/** One task: its conversation (once opened) and the end of its queue of turns. */
class Task {
  conv = undefined
  encoding = undefined
  /** Settles when the last turn taken is given back. */
  tail = Promise.resolve()
  /** Calls that have taken a turn or wait for one. */
  calls = 0

  /**
   * Waits for this task's turn; answers the function that gives it back (safe to call twice).
   * When `signal` fires while waiting, rejects with its reason and the place in the queue is
   * given back as soon as the turn before it ends.
   */
  take(signal) {
    const before = this.tail
    let give
    this.tail = new Promise((resolve) => {
      give = resolve
    })
    let given = false
    this.calls++
    const release = () => {
      if (given) return
      given = true
      this.calls--
      give()
    }
    if (!signal) return before.then(() => release)
    try {
      checkSignal(signal, 'options.signal')
    } catch (e) {
      // Not a signal (the callers check it first): the place taken is given back in turn.
      before.then(release)
      return Promise.reject(e)
    }
    if (signal.aborted) {
      before.then(release)
      return Promise.reject(abortError(signal))
    }
    return new Promise((resolve, reject) => {
      const unfollow = whenAborted(signal, () => {
        before.then(release)
        reject(abortError(signal))
      })
      before.then(() => {
        unfollow()
        if (signal.aborted) {
          release()
          return
        }
        resolve(release)
      })
    })
  }
}

class ConversationPool {
  #max
  #open
  #condense
  /** Task id -> Task, least recently used first. */
  #tasks = new Map()

  /**
   * `openConversation(messages, { encoding, signal })` opens a task's conversation and
   * `condense(messages, options)` condenses without one (the library's own functions, which its
   * owner hands it: this module sits under them).
   */
  constructor({ openConversation, condense }, maxTasks = DEFAULT_MAX_TASKS) {
    if (!Number.isInteger(maxTasks) || maxTasks < 1) throw new TypeError(`ConversationPool: maxTasks: expected a whole number >= 1, got ${maxTasks}`)
    this.#max = maxTasks
    this.#open = openConversation
    this.#condense = condense
  }

  /**
   * The conversation of `taskId`, holding exactly `messages` (opened on first use, synced after),
   * with `release`, which gives the task's turn back (call it when done). Answers undefined
   * without a task id (the caller then works without one). Calls for one task are taken one after
   * another; a call that throws has given its turn back.
   */
  async get(taskId, messages, options = {}) {
    if (typeof taskId !== 'string' || taskId === '') return undefined
    const encoding = options.encoding ?? DEFAULT_ENCODING
    let task = this.#tasks.get(taskId)
    if (task) this.#tasks.delete(taskId)
    else task = new Task()
    // Most recently used last; a task past the limit is closed once its own calls are over.
    this.#tasks.set(taskId, task)
    for (const [id, old] of this.#tasks) {
      if (this.#tasks.size <= this.#max) break
      this.#tasks.delete(id)
      this.#closeTask(old)
    }
    const release = await task.take(options.signal)
    try {
      if (task.conv && (task.conv.closed || task.encoding !== encoding)) {
        task.conv.close()
        task.conv = undefined
      }
      if (task.conv) task.conv.sync(messages)
      else {
        task.conv = await this.#open(messages, { encoding, signal: options.signal })
        task.encoding = encoding
        // Closed by the pool while it was being opened: it is not kept.
        if (this.#tasks.get(taskId) !== task) this.#closeTask(task)
      }
      return { conv: task.conv, release }
    } catch (e) {
      // Nothing held and nobody waiting: the task is not kept (the next call starts afresh).
      if (!task.conv && task.calls === 1 && this.#tasks.get(taskId) === task) this.#tasks.delete(taskId)
      release()
      throw e
    }
  }

  /** Closes `task`'s conversation once the calls queued on it are over. */
  async #closeTask(task) {
    const release = await task.take()
    try {
      if (task.conv) await task.conv.close()
      task.conv = undefined
    } finally {
      release()
    }
  }

  /**
   * `condense(messages, options)` through the task's conversation (not adopted: the host decides
   * what it stores), or stateless without a task id or when the history cannot be held (the
   * stateless call then answers with the refusal that names the problem).
   */
  async condense(taskId, messages, options) {
    let held
    try {
      held = await this.get(taskId, messages, { encoding: options.encoding, signal: options.signal })
    } catch (e) {
      if (!(e instanceof TypeError)) throw e
    }
    if (!held) return this.#condense(messages, options)
    try {
      return await held.conv.condense({ ...options, adopt: false })
    } finally {
      held.release()
    }
  }

  /** Closes the conversation of `taskId` once its current calls are over. */
  async close(taskId) {
    const task = this.#tasks.get(taskId)
    if (!task) return
    this.#tasks.delete(taskId)
    await this.#closeTask(task)
  }

  /** Closes every conversation. */
  async clear() {
    await Promise.all([...this.#tasks.keys()].map((id) => this.close(id)))
  }

  /** Task ids with a conversation, least recently used first. */
  get tasks() {
    return [...this.#tasks.keys()]
  }
}

module.exports = { ConversationPool, DEFAULT_MAX_TASKS }
