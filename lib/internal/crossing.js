// Moving a history into the engine, and texts back out, exactly and at any size. It only
// converts and checks values; it never changes the caller's objects and never decides anything
// about condensing.
//
// Three things stand between a JavaScript history and the engine:
// - Node-API converts at most about a million JSON values in one call: histories go in chunks of
//   messages, and a chunk that holds too many values is split until it fits.
// - Some values have no JSON form (cycles, NaN, nesting past 128 levels, sparse arrays,
//   functions): they are found and named by path (`messages[3].content[1].input.x: ...`).
// - Node-API turns a lone UTF-16 surrogate into U+FFFD, so an edited string would come back
//   changed where nothing was edited. The engine holds such text escaped (src/escape.rs: U+FDD0
//   doubled, a lone surrogate U+D800+n as U+FDD0 U+E800+n) and does all of the escaping itself
//   (crates/binding/src/text.rs): a push reads again as UTF-16 any string that arrived holding U+FFFD, and
//   every text and JSON text coming back is already unescaped. The asynchronous intake also keeps
//   a long string out of its push: the push answers it, and it is sent here as UTF-16 in parts of
//   TEXT_PART units through the scheduler, so no call holds the event loop for a whole string.
//   (Such a message counts a few tokens more in the engine's counts: 4 per lone surrogate, 3 per
//   U+FDD0, in both encodings; nothing else sees the difference.)
'use strict'

/**
 * Bytes of a long text from the engine (summary requests, changed texts) taken per part (the
 * handles' `readPart`): a string this size is made in well under a millisecond, where one of the
 * whole text would hold the event loop for as long as copying a history takes.
 */
const PART_BYTES = 64 << 10

/** UTF-16 units of a string sent again per call (`textPart`): copied and escaped in about 0.1 ms. */
const TEXT_PART = 1 << 16

/** A value the engine sent as JSON text (its strings already in JavaScript's form), parsed. */
function fromEngine(json) {
  return JSON.parse(json)
}

/**
 * Sends `strings` (those a push left out) to `target` as UTF-16, a part per call (`textPart`),
 * each finished by `setText`. Answers a step that sends up to `size` parts and says whether all
 * are sent (run through the scheduler).
 */
function textSender(target, strings) {
  let j = 0
  let at = 0
  return (size) => {
    for (let n = 0; n < size && j < strings.length; n++) {
      const s = strings[j]
      target.textPart(s.slice(at, at + TEXT_PART), at === 0 ? s.length : undefined)
      at += TEXT_PART
      if (at >= s.length) {
        target.setText(j)
        j++
        at = 0
      }
    }
    return j >= strings.length
  }
}

// ---------------------------------------------------------------------------------------------
// Values a history cannot carry into the engine: nesting deeper than the JSON limit (128 levels,
// as serde_json and Node-API's conversion have it), cycles, numbers JSON has no form for (NaN,
// Infinity), empty slots and undefined in arrays, functions and symbols. A BigInt in a message
// crosses as a number (the message itself comes back untouched); in options it is refused, as a
// number the engine would read is not what the caller wrote. Found without recursion, so a
// hostile depth cannot overflow the stack here either.

const MAX_DEPTH = 128

function pathText(segments) {
  const seg = (s) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)
  const text = (xs) => xs.map(seg).join('').replace(/^\./, '')
  if (segments.length <= 10) return text(segments)
  const head = text(segments.slice(0, 6))
  return `${head}… (${segments.length - 6} levels deeper)`
}

/**
 * The first value under `root` the engine cannot take, as { path, message }, or null. With
 * `options` (a config or options value, not a history) a BigInt is one of them.
 */
function findUnsupported(root, rootPath, { options = false } = {}) {
  const stack = [[root, rootPath, new Set()]]
  while (stack.length > 0) {
    const [value, path, ancestors] = stack.pop()
    switch (typeof value) {
      case 'number':
        if (!Number.isFinite(value)) return { path, message: `${value} is not a JSON number` }
        continue
      case 'bigint':
        if (options) return { path, message: `a BigInt (${value}n) is not a JSON number: give a number` }
        continue
      case 'function':
      case 'symbol':
        return { path, message: `a ${typeof value} is not JSON` }
      case 'object':
        break
      default:
        continue
    }
    if (value === null) continue
    if (ancestors.has(value)) return { path, message: 'the value contains itself (a cycle)' }
    if (path.length - rootPath.length >= MAX_DEPTH) {
      return { path, message: `nested more than ${MAX_DEPTH} levels deep (the JSON limit)` }
    }
    const inner = new Set(ancestors).add(value)
    if (Array.isArray(value)) {
      for (let k = value.length - 1; k >= 0; k--) {
        if (!(k in value)) return { path: [...path, k], message: 'an empty slot in an array (a sparse array) is not JSON' }
        if (value[k] === undefined) return { path: [...path, k], message: 'undefined in an array is not JSON' }
        stack.push([value[k], [...path, k], inner])
      }
    } else {
      const entries = Object.entries(value)
      for (let k = entries.length - 1; k >= 0; k--) stack.push([entries[k][1], [...path, entries[k][0]], inner])
    }
  }
  return null
}

/**
 * The one check of an options or config value on its way to the engine (the engine reads it as
 * JSON, and Node-API's conversion would fail on such a value without naming where): a value JSON
 * has no form for (NaN, ±Infinity, a BigInt, a cycle, a hole, undefined in an array, a function)
 * throws a TypeError naming it by path: `<at>: options.pricing.inputPrice: NaN is not a JSON
 * number`. `rootPath` is the value's own path (`['options']`). Answers `value`.
 */
function checkCrossable(value, at, rootPath) {
  const found = findUnsupported(value, rootPath, { options: true })
  if (found) throw new TypeError(`${at}: ${pathText(found.path)}: ${found.message}`)
  return value
}

/** The problem in `messages` (from index `offset`) that stopped the crossing, named by path (the array named `name`). */
function unsupportedProblem(messages, offset, fallback, name = 'messages') {
  for (let i = 0; i < messages.length; i++) {
    if (messages[i] === undefined) return `${name}[${offset + i}]: expected a message object, got undefined`
    const found = findUnsupported(messages[i], [name, offset + i])
    if (found) return `${pathText(found.path)}: ${found.message}`
  }
  return `${name}[${offset}..${offset + messages.length}]: ${fallback}`
}

/** Whether a tool input is nested deeper than a message may be (the input sits 3 levels down). */
function inputTooDeep(input, json) {
  // Each level adds an opening bracket: a short JSON text cannot be that deep.
  if (json.length < 2 * (MAX_DEPTH - 3)) return false
  const stack = [[input, 3]]
  while (stack.length > 0) {
    const [v, depth] = stack.pop()
    if (v === null || typeof v !== 'object') continue
    if (depth >= MAX_DEPTH) return true
    for (const x of Array.isArray(v) ? v : Object.values(v)) stack.push([x, depth + 1])
  }
  return false
}

// ---------------------------------------------------------------------------------------------
// Pushing.

const TOO_MANY_VALUES = /maximum JSON value count/

/**
 * Pushes `chunk` (the messages from index `offset`) into `target` (a native History, or a held
 * conversation's intake): split while it holds more values than one conversion takes. Given
 * `later`, strings longer than TEXT_PART are left out of the push and sent by the step handed to
 * `later` (which must run to its end before anything else is pushed). Answers the problem, named by path, when a value cannot cross (the caller then
 * rejects the target), or undefined.
 */
function pushChunk(target, chunk, offset, later) {
  let strings
  try {
    strings = target.push(chunk, later ? TEXT_PART : undefined)
  } catch (e) {
    const why = e && e.message
    if (TOO_MANY_VALUES.test(why)) {
      if (chunk.length > 1) {
        const half = chunk.length >> 1
        return pushChunk(target, chunk.slice(0, half), offset) ?? pushChunk(target, chunk.slice(half), offset + half)
      }
      const found = findUnsupported(chunk[0], ['messages', offset])
      if (found) return `${pathText(found.path)}: ${found.message}`
      return `messages[${offset}]: holds more than a million JSON values, more than one message can carry into the engine`
    }
    return unsupportedProblem(chunk, offset, why)
  }
  if (strings.length > 0) later(textSender(target, strings))
  return undefined
}

/** Messages per chunk when pushing without yielding (the synchronous entry points). */
const SYNC_CHUNK = 4096

/** Pushes all of `messages` at once, in chunks; answers a problem as `pushChunk` does. */
function pushAll(target, messages) {
  for (let i = 0; i < messages.length; i += SYNC_CHUNK) {
    const problem = pushChunk(target, messages.slice(i, i + SYNC_CHUNK), i)
    if (problem) return problem
  }
  return undefined
}

module.exports = {
  fromEngine,
  PART_BYTES,
  TEXT_PART,
  pathText,
  findUnsupported,
  checkCrossable,
  unsupportedProblem,
  inputTooDeep,
  pushChunk,
  pushAll,
}
