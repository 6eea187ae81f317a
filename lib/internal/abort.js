// A caller's AbortSignal: checked, followed, and the error its abort stands for, and one listener on it however
// many calls follow it at once (a host passing one task-wide signal to fifty calls, or one condense
// answering a batch of summaries, would otherwise add a listener each and Node would warn of a
// leak). Never aborts the caller's signal, never keeps a follower after it is disposed.
'use strict'

const { describe } = require('./values.js')

/** `signal` when it is one (or undefined); a TypeError naming `at` otherwise. */
function checkSignal(signal, at) {
  if (signal === undefined) return undefined
  if (signal === null || typeof signal !== 'object' || typeof signal.aborted !== 'boolean' || typeof signal.addEventListener !== 'function') {
    throw new TypeError(`${at}: expected an AbortSignal, got ${describe(signal)}`)
  }
  return signal
}

/** What an abort of `signal` rejects with: its reason, or an AbortError when it gave none. */
function abortError(signal) {
  if (signal && signal.reason !== undefined) return signal.reason
  return new DOMException('This operation was aborted', 'AbortError')
}

/** signal -> the followers of its one listener, in the order they came. */
const followers = new WeakMap()

/**
 * Calls `fn` once when `signal` aborts. Answers the function that stops following (call it when
 * the work is done; calling it again does nothing). Nothing is followed without a signal; a signal
 * already aborted is the caller's to check first.
 *
 * @param {AbortSignal | undefined} signal
 * @param {() => void} fn
 * @returns {() => void}
 */
function whenAborted(signal, fn) {
  if (!signal) return () => {}
  let set = followers.get(signal)
  if (!set) {
    const own = new Set()
    set = own
    followers.set(signal, own)
    signal.addEventListener(
      'abort',
      () => {
        followers.delete(signal)
        const now = [...own]
        own.clear()
        for (const f of now) f()
      },
      { once: true },
    )
  }
  // A wrapper each, so the same function may follow twice and be disposed once.
  const entry = () => fn()
  const own = set
  own.add(entry)
  return () => {
    own.delete(entry)
  }
}

module.exports = { abortError, whenAborted, checkSignal }
