// OpenAI chat-completions histories (`system` / `developer` / `user` / `assistant` with
// `tool_calls`, `tool` messages with `tool_call_id`), converted to the Anthropic form the engine
// condenses and back. The way back is exact: every converted message and block carries, under a
// Symbol key (never sent to the engine, but kept by the shallow copies the library makes of what
// it changes), the OpenAI message it came from. A message the engine left alone comes back as the
// caller's own object; a changed one is the original with its new content; a tool call whose input
// did not change keeps its original `arguments` string byte for byte. System and developer messages
// are kept aside and put back in place.
//
// Reference markers (`⟨ Reference: … message #n · sha256:… ⟩`) name a message by its position in
// the array they are in, so an OpenAI history and its Anthropic form number them differently
// (several `tool` messages are one user message there). The conversion rewrites them for the
// form it hands over, and the way back for the OpenAI history it returns, through the engine
// (`reference::renumber`, which finds each marker's bytes and seals it again): a condensed OpenAI
// history expands as it is, with `expandReferences(messages, { format: 'openai' })`.
'use strict'

const native = require('./native.js')
const { pushAll, pathText } = require('./crossing.js')
const { applyChanges } = require('./apply.js')
const { coded } = require('./errors.js')
const { describe, isObject } = require('./values.js')
const { holdsMarker } = require('./markers.js')

const ORIGIN = Symbol('context-condense.openai-origin')
const FORMATS = ['openai', 'anthropic', 'auto']
const ASIDE_ROLES = new Set(['system', 'developer'])
/** Content part types only OpenAI has. */
const OPENAI_PART_TYPES = new Set(['image_url', 'input_audio', 'file', 'refusal'])

const isText = (b) => isObject(b) && b.type === 'text' && typeof b.text === 'string'

/** "openai" when any message has a role, key or content part only OpenAI's format has, else "anthropic". */
function detectFormat(messages) {
  if (!Array.isArray(messages)) return 'anthropic'
  for (const m of messages) {
    if (!isObject(m)) continue
    if (ASIDE_ROLES.has(m.role) || m.role === 'tool' || m.role === 'function') return 'openai'
    if ('tool_calls' in m || 'tool_call_id' in m || 'function_call' in m || m.content === null) return 'openai'
    if (Array.isArray(m.content) && m.content.some((p) => isObject(p) && OPENAI_PART_TYPES.has(p.type))) return 'openai'
  }
  return 'anthropic'
}

// ---------------------------------------------------------------------------------------------
// Reference markers across the two numberings

/**
 * A condense result on a converted history, given back in the caller's format: its messages
 * restored (`restore`), or the caller's own (a copy of the array) with the error; the paths in the
 * error and the repairs named in the caller's history (`locate`). Shared by both conversions
 * (OpenAI chat, the AI SDK's messages).
 */
function finishConverted(result, caller, restore, locate) {
  if (!isObject(result) || (result.error === undefined && !Array.isArray(result.messages)))
    throw new TypeError(`finish: result: expected a condense result on the converted messages, got ${describe(result)}`)
  const out = { ...result }
  if (result.error) {
    out.messages = caller.slice()
    out.error = locate(result.error)
  } else {
    out.messages = restore(result.messages)
  }
  if (Array.isArray(result.repairs)) out.repairs = result.repairs.map((r) => ({ ...r, path: locate(r.path) }))
  return out
}

/**
 * `messages` with their references rewritten by the engine from one numbering to another
 * (`from[i]`, `to[i]`: message i's index in each, -1 outside it); messages without one are the
 * same objects. A history the engine cannot take is returned as it is (condense names the value).
 */
function renumbered(messages, from, to) {
  const history = new native.History()
  if (pushAll(history, messages)) return messages
  return applyChanges(messages, history.renumber(from, to).changes)
}

/** Whether two JSON values are equal (key order aside). */
function sameValue(a, b) {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null || Array.isArray(a) !== Array.isArray(b)) return false
  const ka = Object.keys(a)
  if (ka.length !== Object.keys(b).length) return false
  return ka.every((k) => Object.hasOwn(b, k) && sameValue(a[k], b[k]))
}

// ---------------------------------------------------------------------------------------------
// OpenAI -> Anthropic

/** Keys of an OpenAI message that are not carried onto its Anthropic form (they become blocks). */
const NOT_CARRIED = new Set(['role', 'content', 'tool_calls'])

function extrasOf(m) {
  const extras = {}
  for (const key of Object.keys(m)) if (!NOT_CARRIED.has(key)) extras[key] = m[key]
  return extras
}

function mark(target, origin) {
  origin.created = target
  target[ORIGIN] = origin
  return target
}

/** An image_url part as an Anthropic image block (so it counts as Roo Code counts images). */
function imageBlock(part, message, index) {
  const raw = isObject(part.image_url) ? part.image_url.url : part.image_url
  const url = typeof raw === 'string' ? raw : ''
  const data = /^data:([^;,]*)(?:;[^,;]*)*;base64,/.exec(url)
  const source = data ? { type: 'base64', media_type: data[1] || 'image/png', data: url.slice(data[0].length) } : { type: 'url', url }
  return mark({ type: 'image', source }, { kind: 'part', message, part: index })
}

function partsToBlocks(parts, message) {
  return parts.map((p, k) => (isObject(p) && p.type === 'image_url' ? imageBlock(p, message, k) : p))
}

function toolUseBlock(call, message, index) {
  const fn = isObject(call) && isObject(call.function) ? call.function : {}
  const args = fn.arguments
  let input
  let how = 'json'
  if (typeof args === 'string') {
    try {
      const parsed = JSON.parse(args)
      if (isObject(parsed)) input = parsed
    } catch {
      // Not JSON (a model's malformed call): kept as a string input.
    }
    if (input === undefined) {
      input = { arguments: args }
      how = 'raw'
    }
  } else if (isObject(args)) {
    input = args
    how = 'object'
  } else {
    input = {}
    how = 'missing'
  }
  const id = isObject(call) && call.id !== undefined && call.id !== null ? String(call.id) : ''
  const block = { type: 'tool_use', id, name: typeof fn.name === 'string' ? fn.name : '', input }
  return mark(block, { kind: 'call', message, call: index, how, input })
}

function toolResultBlock(m, message) {
  const id = m.tool_call_id === undefined || m.tool_call_id === null ? '' : String(m.tool_call_id)
  // A missing or null content is an empty result; anything else goes on for the engine to judge.
  const content = m.content === undefined || m.content === null ? '' : m.content
  return mark({ type: 'tool_result', tool_use_id: id, content }, { kind: 'result', message })
}

/**
 * Converts an OpenAI chat history to the Anthropic form the engine takes.
 * Returns the converted messages, `restore(condensed)` (the way back), `locate(path)` (a place in
 * the converted history named in the OpenAI one) and `finish(result)` (a whole condense result).
 */
function toAnthropic(messages) {
  if (!Array.isArray(messages)) throw new TypeError(`toAnthropic: messages: expected an array of messages, got ${describe(messages)}`)
  let { out, aside, places } = convert(messages)
  // What is converted: the caller's messages, or copies whose reference markers name the
  // converted history's messages (the way back names the OpenAI history's again).
  let source = messages
  if (holdsMarker(messages)) {
    const into = new Array(messages.length).fill(-1)
    places.forEach((p, k) => {
      for (const i of p.kind === 'tools' ? p.indexes : [p.index]) into[i] = k
    })
    source = renumbered(
      messages,
      messages.map((_, i) => i),
      into,
    )
    if (source.some((m, i) => m !== messages[i])) ({ out, aside, places } = convert(source))
  }

  return wayBack(messages, source, aside, places, out)
}

/** The conversion of `messages` (toAnthropic's, before any marker is renumbered). */
function convert(messages) {
  const out = []
  /** Indexes of the system/developer messages kept aside. */
  const aside = []
  /** Per converted message: how to name its places in OpenAI terms. */
  const places = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    if (!isObject(m)) {
      // Not a message: passed on as it is, for the engine to name.
      places.push({ kind: 'other', index: i })
      out.push(m)
      continue
    }
    if (ASIDE_ROLES.has(m.role)) {
      aside.push(i)
      continue
    }
    if (m.role === 'tool') {
      // A run of tool messages: one user message of tool_result blocks.
      const indexes = []
      const blocks = []
      for (; i < messages.length && isObject(messages[i]) && messages[i].role === 'tool'; i++) {
        indexes.push(i)
        blocks.push(toolResultBlock(messages[i], i))
      }
      i--
      places.push({ kind: 'tools', indexes })
      out.push(mark({ role: 'user', content: blocks }, { kind: 'tools', indexes }))
      continue
    }
    const extras = extrasOf(m)
    if (m.role === 'assistant') {
      const calls = Array.isArray(m.tool_calls) ? m.tool_calls : []
      let content
      const blockPlaces = []
      const invalid = m.content !== undefined && m.content !== null && typeof m.content !== 'string' && !Array.isArray(m.content)
      if (calls.length === 0 || invalid) {
        // null (a reply with only a refusal, audio or a legacy function_call) is empty content.
        content = m.content === null || m.content === undefined ? [] : m.content
        if (Array.isArray(m.content)) m.content.forEach((_, k) => blockPlaces.push(`content[${k}]`))
      } else {
        content = []
        if (typeof m.content === 'string' && m.content !== '') {
          content.push({ type: 'text', text: m.content })
          blockPlaces.push('content')
        } else if (Array.isArray(m.content)) {
          content.push(...m.content)
          m.content.forEach((_, k) => blockPlaces.push(`content[${k}]`))
        }
        calls.forEach((call, k) => {
          content.push(toolUseBlock(call, i, k))
          blockPlaces.push(`tool_calls[${k}]`)
        })
      }
      places.push({ kind: 'assistant', index: i, blocks: blockPlaces })
      out.push(mark({ role: 'assistant', content, ...extras }, { kind: 'message', index: i }))
      continue
    }
    if (m.role === 'user' || m.role === 'function') {
      // A legacy `function` message is carried as user text, and comes back with its role.
      // Content of another type goes on as it is, for the engine to name.
      const content = Array.isArray(m.content) ? partsToBlocks(m.content, i) : m.content === null && m.role === 'function' ? '' : m.content
      places.push({ kind: 'user', index: i })
      out.push(mark({ role: 'user', content, ...extras }, { kind: 'message', index: i }))
      continue
    }
    // An unknown or missing role: passed on for the engine to name.
    places.push({ kind: 'other', index: i })
    out.push(mark({ ...m }, { kind: 'message', index: i }))
  }
  return { out, aside, places }
}

/**
 * The way back from `out`, the conversion of `messages`: the caller's history (`caller`), or a
 * copy of it whose reference markers were renumbered for the conversion.
 */
function wayBack(caller, messages, aside, places, out) {
  function restore(condensed) {
    if (!Array.isArray(condensed)) throw new TypeError(`restore: condensed: expected an array of messages, got ${describe(condensed)}`)
    const { result, from, origin } = restoreLaid(condensed)
    if (messages === caller && !holdsMarker(result)) return result
    // The markers name messages of `condensed`: renumbered for the OpenAI history returned; a
    // message that reads as the caller's own again is the caller's own object.
    const final = renumbered(
      result,
      from,
      result.map((_, i) => i),
    )
    return final.map((m, i) => {
      const k = origin[i]
      return k >= 0 && messages[k] !== caller[k] && sameValue(m, caller[k]) ? caller[k] : m
    })
  }

  /**
   * The converted (or condensed) messages as OpenAI ones, with, per message returned, the index
   * in `condensed` it came from (`from`, -1 for a message set aside) and the index in `messages`
   * (`origin`, -1 for one the engine wrote).
   */
  function restoreLaid(condensed) {
    const result = []
    const from = []
    const origin = []
    const push = (m, c, k) => {
      result.push(m)
      from.push(c)
      origin.push(k)
    }
    let nextAside = 0
    const asideBefore = (index) => {
      while (nextAside < aside.length && aside[nextAside] < index) {
        const k = aside[nextAside++]
        push(messages[k], -1, k)
      }
    }
    condensed.forEach((am, c) => {
      const o = isObject(am) ? am[ORIGIN] : undefined
      if (!o) {
        // Written by the engine (a summary) or by a repair: converted, with only OpenAI's keys.
        for (const m of convertFromAnthropic(am, false)) push(m, c, -1)
        return
      }
      if (o.kind === 'tools') {
        asideBefore(o.indexes[0])
        if (am === o.created) for (const j of o.indexes) push(messages[j], c, j)
        else for (const [m, k] of restoreTools(am)) push(m, c, k)
        return
      }
      asideBefore(o.index)
      const original = messages[o.index]
      if (am === o.created) push(original, c, o.index)
      else if (original.role === 'assistant') push(restoreAssistant(original, am), c, o.index)
      else push({ ...original, content: restoreContent(am.content) }, c, o.index)
    })
    asideBefore(Infinity)
    return { result, from, origin }
  }

  function restoreCall(b) {
    const o = b[ORIGIN]
    if (!o || o.kind !== 'call')
      return { id: String(b.id ?? ''), type: 'function', function: { name: String(b.name ?? ''), arguments: JSON.stringify(b.input ?? {}) } }
    const original = messages[o.message].tool_calls[o.call]
    const same = b === o.created || (b.id === o.created.id && b.name === o.created.name && (b.input === o.input || sameJson(b.input, o.input)))
    if (same) return original
    let args
    if (o.how === 'raw' && isObject(b.input) && typeof b.input.arguments === 'string') args = b.input.arguments
    else if (o.how === 'object') args = b.input
    else args = JSON.stringify(b.input ?? {})
    const fn = isObject(original) && isObject(original.function) ? original.function : {}
    return { ...(isObject(original) ? original : {}), id: b.id, function: { ...fn, name: b.name, arguments: args } }
  }

  function restoreAssistant(original, am) {
    if (!Array.isArray(am.content)) return { ...original, content: am.content }
    const calls = []
    const parts = []
    for (const b of am.content) {
      if (isObject(b) && b.type === 'tool_use') calls.push(restoreCall(b))
      else parts.push(restorePart(b))
    }
    const out = { ...original }
    if (!Array.isArray(original.content)) {
      // It was a string (or null, or absent): text comes back as a string.
      if (parts.length > 0) out.content = parts.every(isText) ? parts.map((p) => p.text).join('') : parts
    } else {
      out.content = parts
    }
    if (calls.length > 0 || 'tool_calls' in original) out.tool_calls = calls
    return out
  }

  /** A user message of tool results as `tool` messages, each with the index of its original (-1: none). */
  function restoreTools(am) {
    const out = []
    const rest = []
    for (const b of Array.isArray(am.content) ? am.content : []) {
      const o = isObject(b) ? b[ORIGIN] : undefined
      if (isObject(b) && b.type === 'tool_result') {
        if (o && o.kind === 'result' && b === o.created) {
          out.push([messages[o.message], o.message])
        } else if (o && o.kind === 'result') {
          const msg = { ...messages[o.message], content: b.content }
          if (b.tool_use_id !== o.created.tool_use_id) msg.tool_call_id = b.tool_use_id
          out.push([msg, o.message])
        } else {
          out.push([{ role: 'tool', tool_call_id: b.tool_use_id, content: toolContent(b.content) }, -1])
        }
      } else {
        rest.push(restorePart(b))
      }
    }
    // Text a repair made of a result answering no call: after the tool messages.
    if (rest.length > 0) out.push([{ role: 'user', content: rest }, -1])
    return out
  }

  function restorePart(b) {
    const o = isObject(b) ? b[ORIGIN] : undefined
    if (o && o.kind === 'part') return b === o.created ? messages[o.message].content[o.part] : imagePart(b)
    return blockToPart(b)
  }

  function restoreContent(content) {
    return Array.isArray(content) ? content.map(restorePart) : content
  }

  /** A place in the converted history (`messages[3].content[1]` and what follows), named in the OpenAI one. */
  function locate(prefix, rest = '') {
    const m = /^messages\[(\d+)\](?:\.content\[(\d+)\])?$/.exec(prefix)
    const place = m && places[Number(m[1])]
    if (!place) return prefix + rest
    const k = m[2] === undefined ? undefined : Number(m[2])
    switch (place.kind) {
      case 'tools':
        if (k === undefined) return `messages[${place.indexes[0]}]${rest}`
        return `messages[${place.indexes[k] ?? place.indexes[0]}]${rest === '.tool_use_id' ? '.tool_call_id' : rest}`
      case 'assistant': {
        if (k === undefined) return `messages[${place.index}]${rest}`
        const block = place.blocks[k]
        if (block === undefined) return `messages[${place.index}]`
        if (block === 'content') return `messages[${place.index}].content`
        if (block.startsWith('content')) return `messages[${place.index}].${block}${rest}`
        const inCall = { '.input': '.function.arguments', '.name': '.function.name' }
        return `messages[${place.index}].${block}${inCall[rest] ?? rest}`
      }
      default:
        return `messages[${place.index}]${k === undefined ? '' : `.content[${k}]`}${rest}`
    }
  }

  /** Every `messages[n]…` path in a text, named in the OpenAI history. */
  function locateAll(text) {
    if (typeof text !== 'string') throw new TypeError(`locate: text: expected a string, got ${describe(text)}`)
    return text.replace(/(messages\[\d+\](?:\.content\[\d+\])?)(\.(?:input|tool_use_id|id|name)\b)?/g, (_, prefix, rest) => locate(prefix, rest ?? ''))
  }

  /** A condense result on the converted history, as the OpenAI history's. */
  function finish(result) {
    return { ...finishConverted(result, caller, restore, locateAll), format: 'openai' }
  }

  // Its functions throw with `errorCode` set, as the entry's own do.
  return { messages: out, restore: coded(restore), locate: coded(locateAll), finish: coded(finish), system: aside.map((i) => caller[i]) }
}

// ---------------------------------------------------------------------------------------------
// Anthropic -> OpenAI (messages the engine wrote, and whole Anthropic histories)

/**
 * What stops `value` (at `path`, a list of keys and indexes) being written as JSON as it is: a
 * BigInt or a cycle (JSON.stringify throws), NaN or an infinity (it would write null), a
 * property whose getter throws. The first found, as "<path>: <why>", or null.
 */
function notJson(value, path) {
  const stack = [[value, path, new Set()]]
  while (stack.length > 0) {
    const [v, at, ancestors] = stack.pop()
    if (typeof v === 'bigint') return `${pathText(at)}: a BigInt is not JSON (JSON.stringify cannot write it; give a number or a string)`
    if (typeof v === 'number' && !Number.isFinite(v)) return `${pathText(at)}: ${v} is not a JSON number (JSON.stringify would write null)`
    if (v === null || typeof v !== 'object') continue
    // A value with toJSON (a Date) is written as what that answers.
    if (typeof v.toJSON === 'function') continue
    if (ancestors.has(v)) return `${pathText(at)}: the value contains itself (a cycle)`
    const inner = new Set(ancestors).add(v)
    const keys = Array.isArray(v) ? [...v.keys()] : Object.keys(v)
    for (let k = keys.length - 1; k >= 0; k--) {
      let x
      try {
        x = v[keys[k]]
      } catch (e) {
        return `${pathText([...at, keys[k]])}: reading it threw (${e instanceof Error ? e.message : String(e)})`
      }
      stack.push([x, [...at, keys[k]], inner])
    }
  }
  return null
}

/** A tool input as the JSON text of OpenAI's `arguments`; a value JSON cannot hold throws a TypeError naming `path`. */
function argumentsText(input, path) {
  const problem = notJson(input, path)
  if (problem) throw new TypeError(`fromAnthropic: ${problem}`)
  return JSON.stringify(input)
}

/** Whether two tool inputs write the same JSON (false when either cannot be written). */
function sameJson(a, b) {
  try {
    return JSON.stringify(a) === JSON.stringify(b)
  } catch {
    return false
  }
}

function imagePart(block) {
  const s = isObject(block.source) ? block.source : {}
  const url = s.type === 'base64' || typeof s.data === 'string' ? `data:${s.media_type || 'image/png'};base64,${s.data ?? ''}` : String(s.url ?? '')
  return { type: 'image_url', image_url: { url } }
}

/** A content block as an OpenAI content part: text stays as it is, images become image_url. */
function blockToPart(b) {
  if (isObject(b) && b.type === 'image') return imagePart(b)
  return b
}

/** A tool_result's content as a tool message's: a string, or text parts. */
function toolContent(content) {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return ''
  return content.map(blockToPart)
}

/**
 * One Anthropic message as OpenAI messages (a user message with tool_results becomes tool
 * messages, then the rest). `at`: its index, for the path an error names.
 */
function convertFromAnthropic(m, keepExtras, at = 0) {
  if (!isObject(m)) return [m]
  const { role, content, ...extras } = m
  const carried = keepExtras ? extras : {}
  if (typeof content === 'string' || !Array.isArray(content)) return [{ role, content: content ?? '', ...carried }]
  if (role === 'assistant') {
    const parts = []
    const calls = []
    for (const [k, b] of content.entries()) {
      if (!isObject(b)) continue
      if (b.type === 'tool_use') {
        const args = argumentsText(b.input ?? {}, ['messages', at, 'content', k, 'input'])
        calls.push({ id: String(b.id ?? ''), type: 'function', function: { name: String(b.name ?? ''), arguments: args } })
      } else if (b.type === 'text' || b.type === 'refusal') parts.push(b)
      // thinking, redacted_thinking and other blocks have no place in OpenAI's format.
    }
    if (calls.length === 0) return [{ role, content: parts, ...carried }]
    return [{ role, content: parts.length > 0 ? parts : null, tool_calls: calls, ...carried }]
  }
  const out = []
  const parts = []
  for (const b of content) {
    if (isObject(b) && b.type === 'tool_result') out.push({ role: 'tool', tool_call_id: String(b.tool_use_id ?? ''), content: toolContent(b.content) })
    else parts.push(blockToPart(b))
  }
  if (parts.length > 0 || out.length === 0) out.push({ role, content: parts, ...carried })
  return out
}

/**
 * An Anthropic (Roo Code) history as OpenAI chat messages: text blocks become text parts, images
 * image_url parts, tool_use blocks `tool_calls`, tool_result blocks `tool` messages (before the
 * rest of their user message). Message keys beside `role` and `content` are kept (on the user
 * message a tool_result-only message leaves none to carry them). Thinking blocks, `is_error` and
 * other keys of blocks have no place in OpenAI's format and are dropped.
 */
function fromAnthropic(messages) {
  if (!Array.isArray(messages)) throw new TypeError(`fromAnthropic: messages: expected an array of messages, got ${describe(messages)}`)
  const out = []
  messages.forEach((m, i) => out.push(...convertFromAnthropic(m, true, i)))
  return out
}

/**
 * `options.format` checked and resolved for `messages` ("auto": detected): "openai", "anthropic",
 * or undefined when the options name none. A value that is none of the three throws, naming `fn`.
 */
function readFormat(messages, options, fn) {
  if (!isObject(options) || options.format === undefined) return undefined
  const { format } = options
  if (!FORMATS.includes(format)) {
    throw new TypeError(`${fn}: options.format: expected "openai", "anthropic" or "auto", got ${describe(format)}`)
  }
  return format === 'auto' ? detectFormat(messages) : format
}

/**
 * For lib/index.js: `options.format` resolved. Null when the call names no format (the library
 * then reads Anthropic's); else the messages and options (without `format`) to call with, and
 * `finish` for a condense result.
 */
function route(messages, options, fn) {
  if (!isObject(options) || options.format === undefined) return null
  const { format: _format, ...rest } = options
  const resolved = readFormat(messages, options, fn)
  if (resolved === 'anthropic' || !Array.isArray(messages)) {
    return { messages, options: rest, format: 'anthropic', finish: (result) => ({ ...result, format: 'anthropic' }) }
  }
  const converted = toAnthropic(messages)
  return { messages: converted.messages, options: rest, format: 'openai', finish: converted.finish }
}

// The public functions throw with `errorCode` set (lib/internal/errors.js), as the library's other entries
// do. Each is written out: Node's ESM import of this file finds named exports only in such forms.
const detectFormatCoded = coded(detectFormat)
const toAnthropicCoded = coded(toAnthropic)
const fromAnthropicCoded = coded(fromAnthropic)
// `renumbered`, `sameValue`, `notJson` and `finishConverted` are shared with lib/ai-sdk/format.js (the other format converted
// to the engine's), not part of the public types.
module.exports = {
  detectFormat: detectFormatCoded,
  toAnthropic: toAnthropicCoded,
  fromAnthropic: fromAnthropicCoded,
  route,
  readFormat,
  renumbered,
  sameValue,
  notJson,
  finishConverted,
}
