// Conversations kept per task, so a host that passes the same task's history again (the manager,
// the Roo entry) gets the per-turn gain of a conversation without changing its calls: the history
// it passes is matched against what the task's conversation holds (`sync`: same objects, same
// shape) and only what differs crosses. Bounded: the least recently used task's conversation is
// closed when a new one would pass the limit. Never changes the host's messages.
'use strict'

const { openConversation } = require('./conversation.js')

// lib/index.js requires the manager, which requires this module: read it when first used.
const lib = () => require('./index.js')

/** Tasks whose conversations are kept at once, by default. */
const DEFAULT_MAX_TASKS = 4

class ConversationPool {
  #max
  /** Task id -> { conv, ready }: `ready` settles once the conversation holds the task's history. */
  #tasks = new Map()

  constructor(maxTasks = DEFAULT_MAX_TASKS) {
    if (!Number.isInteger(maxTasks) || maxTasks < 1) throw new TypeError(`ConversationPool: maxTasks: expected a whole number >= 1, got ${maxTasks}`)
    this.#max = maxTasks
  }

  /**
   * The conversation of `taskId`, holding exactly `messages` (opened on first use, synced after).
   * Answers undefined without a task id (the caller then works without one). Calls for one task
   * are taken one after another.
   */
  async get(taskId, messages, options = {}) {
    if (typeof taskId !== 'string' || taskId === '') return undefined
    const encoding = options.encoding ?? 'o200k_base'
    let entry = this.#tasks.get(taskId)
    if (entry && entry.encoding !== encoding) {
      await this.close(taskId)
      entry = undefined
    }
    if (entry) {
      // Most recently used last.
      this.#tasks.delete(taskId)
      this.#tasks.set(taskId, entry)
      const previous = entry.turn
      let done
      entry.turn = new Promise((resolve) => {
        done = resolve
      })
      await previous
      if (entry.conv.closed) {
        done()
        return this.get(taskId, messages, options)
      }
      try {
        entry.conv.sync(messages)
      } catch (e) {
        done()
        throw e
      }
      return { conv: entry.conv, release: done }
    }
    let done
    entry = {
      encoding,
      conv: undefined,
      turn: new Promise((resolve) => {
        done = resolve
      }),
    }
    this.#tasks.set(taskId, entry)
    while (this.#tasks.size > this.#max) {
      const [oldest] = this.#tasks.keys()
      await this.close(oldest)
    }
    try {
      entry.conv = await openConversation(messages, { encoding, signal: options.signal })
    } catch (e) {
      this.#tasks.delete(taskId)
      done()
      throw e
    }
    return { conv: entry.conv, release: done }
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
    if (!held) return lib().condense(messages, options)
    try {
      return await held.conv.condense({ ...options, adopt: false })
    } finally {
      held.release()
    }
  }

  /** Closes the conversation of `taskId` once its current call is over. */
  async close(taskId) {
    const entry = this.#tasks.get(taskId)
    if (!entry) return
    this.#tasks.delete(taskId)
    await entry.turn
    if (entry.conv) entry.conv.close()
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
