// Moving a history into the engine, and texts back out, exactly and at any size. It only
// converts and checks values; it never changes the caller's objects (an escaped message is a
// copy) and never decides anything about condensing.
//
// Three things stand between a JavaScript history and the engine:
// - Node-API converts at most about a million JSON values in one call: histories go in chunks of
//   messages, and a chunk that holds too many values is split until it fits.
// - Some values have no JSON form (cycles, NaN, nesting past 128 levels, sparse arrays,
//   functions): they are found and named by path (`messages[3].content[1].input.x: ...`).
// - Node-API turns a lone UTF-16 surrogate into U+FFFD, so an edited string would come back
//   changed where nothing was edited. The engine flags the messages that hold U+FFFD or the
//   escape character U+FDD0 (a Unicode noncharacter, reserved for such internal use); those of
//   them that really hold a lone surrogate or U+FDD0 are replaced in the engine by an escaped
//   copy: U+FDD0 becomes U+FDD0 U+FDD0, a lone surrogate U+D800+n becomes U+FDD0 U+E800+n. Every
//   text coming back is unescaped, so kept bytes come back exactly. (Such a message counts a
//   few tokens more in the engine's counts: 4 per lone surrogate, 3 per U+FDD0, in both encodings;
//   nothing else sees the difference.)
'use strict'

const ESC = '\uFDD0'
const NEEDS_ESCAPE = /\uFDD0|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/
const NEEDS_ESCAPE_ALL = new RegExp(NEEDS_ESCAPE.source, 'g')
const ESCAPED_ALL = /\uFDD0([\uFDD0\uE800-\uEFFF])/g

/** `s` in the engine's form: U+FDD0 doubled, lone surrogates as U+FDD0 + a private-use character. */
function escapeText(s) {
  if (!NEEDS_ESCAPE.test(s)) return s
  return s.replace(NEEDS_ESCAPE_ALL, (ch) => (ch === ESC ? ESC + ESC : ESC + String.fromCharCode(0xe800 + ch.charCodeAt(0) - 0xd800)))
}

/** A text from the engine back in JavaScript's form (the inverse of `escapeText`). */
function unescapeText(s) {
  if (typeof s !== 'string' || !s.includes(ESC)) return s
  return s.replace(ESCAPED_ALL, (_, c) => (c === ESC ? ESC : String.fromCharCode(0xd800 + c.charCodeAt(0) - 0xe800)))
}

/** Whether a string or key under `value` needs escaping. */
function needsEscaping(value) {
  if (typeof value === 'string') return NEEDS_ESCAPE.test(value)
  if (value === null || typeof value !== 'object') return false
  if (Array.isArray(value)) return value.some(needsEscaping)
  for (const [k, v] of Object.entries(value)) if (NEEDS_ESCAPE.test(k) || needsEscaping(v)) return true
  return false
}

/** `value` with every string and key mapped by `fn` (new objects only where something changed). */
function mapStrings(value, fn) {
  if (typeof value === 'string') return fn(value)
  if (value === null || typeof value !== 'object') return value
  if (Array.isArray(value)) {
    const out = value.map((v) => mapStrings(v, fn))
    return out.every((v, i) => v === value[i]) ? value : out
  }
  let changed = false
  const out = {}
  for (const [k, v] of Object.entries(value)) {
    const k2 = fn(k)
    const v2 = mapStrings(v, fn)
    if (k2 !== k || v2 !== v) changed = true
    // defineProperty: a key such as "__proto__" stays a key.
    Object.defineProperty(out, k2, { value: v2, enumerable: true, writable: true, configurable: true })
  }
  return changed ? out : value
}

const escapeValue = (value) => mapStrings(value, escapeText)
const unescapeValue = (value) => mapStrings(value, unescapeText)

/**
 * Bytes of a long text from the engine (summary requests, changed texts) taken per part (the
 * handles' `readPart`): a string this size is made in well under a millisecond, where one of the
 * whole text would hold the event loop for as long as copying a history takes.
 */
const PART_BYTES = 64 << 10

/** A value the engine sent as JSON text, parsed and back in JavaScript's form. */
function fromEngine(json) {
  const value = JSON.parse(json)
  return json.includes(ESC) ? unescapeValue(value) : value
}

// ---------------------------------------------------------------------------------------------
// Values a history cannot carry into the engine: nesting deeper than the JSON limit (128 levels,
// as serde_json and Node-API's conversion have it), cycles, numbers JSON has no form for (NaN,
// Infinity), empty slots and undefined in arrays, functions and symbols (a BigInt crosses as a
// number). Found without recursion, so a hostile depth cannot overflow the stack here either.

const MAX_DEPTH = 128

function pathText(segments) {
  const seg = (s) => (typeof s === 'number' ? `[${s}]` : /^[A-Za-z_$][\w$]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)
  const text = (xs) => xs.map(seg).join('').replace(/^\./, '')
  if (segments.length <= 10) return text(segments)
  const head = text(segments.slice(0, 6))
  return `${head}… (${segments.length - 6} levels deeper)`
}

/** The first value under `root` the engine cannot take, as { path, message }, or null. */
function findUnsupported(root, rootPath) {
  const stack = [[root, rootPath, new Set()]]
  while (stack.length > 0) {
    const [value, path, ancestors] = stack.pop()
    switch (typeof value) {
      case 'number':
        if (!Number.isFinite(value)) return { path, message: `${value} is not a JSON number` }
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

/** The problem in `messages` (from index `offset`) that stopped the crossing, named by path. */
function unsupportedProblem(messages, offset, fallback) {
  for (let i = 0; i < messages.length; i++) {
    if (messages[i] === undefined) return `messages[${offset + i}]: expected a message object, got undefined`
    const found = findUnsupported(messages[i], ['messages', offset + i])
    if (found) return `${pathText(found.path)}: ${found.message}`
  }
  return `messages[${offset}..${offset + messages.length}]: ${fallback}`
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
 * Pushes `chunk` (the messages from index `offset`) into `session`: split while it holds more
 * values than one conversion takes, flagged messages escaped. Answers the problem, named by path,
 * when a value cannot cross (the caller then rejects the session), or undefined.
 */
function pushChunk(session, chunk, offset) {
  let flagged
  try {
    flagged = session.push(chunk)
  } catch (e) {
    const why = e && e.message
    if (TOO_MANY_VALUES.test(why)) {
      if (chunk.length > 1) {
        const half = chunk.length >> 1
        return pushChunk(session, chunk.slice(0, half), offset) ?? pushChunk(session, chunk.slice(half), offset + half)
      }
      const found = findUnsupported(chunk[0], ['messages', offset])
      if (found) return `${pathText(found.path)}: ${found.message}`
      return `messages[${offset}]: holds more than a million JSON values, more than one message can carry into the engine`
    }
    return unsupportedProblem(chunk, offset, why)
  }
  for (const k of flagged) {
    if (needsEscaping(chunk[k])) session.set(offset + k, escapeValue(chunk[k]))
  }
  return undefined
}

/** Messages per chunk when pushing without yielding (the synchronous entry points). */
const SYNC_CHUNK = 4096

/** Pushes all of `messages` at once, in chunks; answers a problem as `pushChunk` does. */
function pushAll(session, messages) {
  for (let i = 0; i < messages.length; i += SYNC_CHUNK) {
    const problem = pushChunk(session, messages.slice(i, i + SYNC_CHUNK), i)
    if (problem) return problem
  }
  return undefined
}

module.exports = {
  escapeText,
  unescapeText,
  escapeValue,
  unescapeValue,
  fromEngine,
  PART_BYTES,
  pathText,
  findUnsupported,
  unsupportedProblem,
  inputTooDeep,
  pushChunk,
  pushAll,
}
