// The code every error the library throws carries in `errorCode`, stable where the text may
// change: "invalid-argument" (an argument JavaScript checks refused: a TypeError or RangeError, or
// Node-API refusing an argument's type), "invalid-options" (options the engine refused: an unknown
// key, a wrong type or range, an unknown provider), "invalid-state" (a call the object cannot take
// now: a closed or busy conversation, a result that no longer fits it), "closed" (a call stopped
// because its conversation was closed), "internal" (a bug caught at the boundary). The list, and
// which engine error has which code, live in the engine (`ErrorCode` in src/error.rs): the
// binding throws its errors with their code as `code`, and this module copies it to `errorCode`;
// it codes only the errors JavaScript makes itself. An abort rejects with the signal's own reason,
// untouched. Tags errors on their way out (functions, methods, getters, and constructors through
// `tag`); never catches one for good.
'use strict'

let engineCodes
/** The codes the engine throws its errors with (read from the addon when first needed). */
function engineCode(code) {
  if (typeof code !== 'string') return false
  engineCodes ??= new Set(
    require('./native.js')
      .errorCodes()
      .map((c) => c.code),
  )
  return engineCodes.has(code)
}

/** The code of an error the library made, or undefined for one it did not (a host's). */
function codeOf(e) {
  if (engineCode(e.code)) return e.code
  if (e instanceof TypeError || e instanceof RangeError) return 'invalid-argument'
  // Node-API refusing an argument of the wrong type (StringExpected, NumberExpected, …): a check
  // in JavaScript should have named it first; the code still says whose mistake it is.
  if (typeof e.code === 'string' && /^[A-Z][a-z]+Expected$/.test(e.code)) return 'invalid-argument'
  return undefined
}

/** `e` with `errorCode` set to `code` (for errors whose class does not say it: a RangeError of the library's own). */
function withCode(e, code) {
  Object.defineProperty(e, 'errorCode', { value: code, enumerable: true, writable: true, configurable: true })
  return e
}

/** An error for a call the object cannot take in its state (closed, busy, a stale result). */
const stateError = (message) => withCode(new Error(message), 'invalid-state')

/** `e` with its `errorCode` (unless it is the abort signal's reason, or has one already). */
function tag(e, signal) {
  if (!(e instanceof Error) || (signal && e === signal.reason) || e.errorCode !== undefined) return e
  const code = codeOf(e)
  return code ? withCode(e, code) : e
}

/** The abort signal among a call's arguments (in an options object), if any. */
function signalIn(args) {
  for (const a of args) if (a !== null && typeof a === 'object' && !Array.isArray(a) && a.signal !== null && typeof a.signal === 'object') return a.signal
  return undefined
}

const CODED = Symbol('context-condense.coded')

/** `fn` whose thrown errors and rejections carry their `errorCode` (`fn` itself when it does already). */
function coded(fn) {
  if (fn[CODED]) return fn
  const wrapped = function (...args) {
    let r
    try {
      r = fn.apply(this, args)
    } catch (e) {
      throw tag(e, signalIn(args))
    }
    if (r !== null && typeof r === 'object' && typeof r.then === 'function') {
      return r.then(undefined, (e) => {
        throw tag(e, signalIn(args))
      })
    }
    return r
  }
  Object.defineProperty(wrapped, 'name', { value: fn.name })
  wrapped[CODED] = true
  return wrapped
}

/** Every method and getter of `Class` made `coded` (its constructor tags its own errors with `tag`). */
function codeMethods(Class) {
  for (const name of Object.getOwnPropertyNames(Class.prototype)) {
    const d = Object.getOwnPropertyDescriptor(Class.prototype, name)
    if (name === 'constructor') continue
    if (typeof d.value === 'function') Object.defineProperty(Class.prototype, name, { ...d, value: coded(d.value) })
    else if (typeof d.get === 'function') Object.defineProperty(Class.prototype, name, { ...d, get: coded(d.get) })
  }
}

module.exports = { coded, codeMethods, tag, withCode, stateError }
