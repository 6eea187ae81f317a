// Vercel AI SDK histories (`ModelMessage[]` of the `ai` package: system, user, assistant and tool
// messages with text, image, file, reasoning, tool-call and tool-result parts), converted to the
// Anthropic form the engine condenses and back, and a `prepareStep` for the SDK's agent loops that
// condenses a run's messages with the manager's policy.
//
// The way back is exact: every converted message and block carries, under a Symbol key (never sent
// to the engine, but kept by the shallow copies the library makes of what it changes), the SDK
// message or part it came from. A message the engine left alone comes back as the caller's own
// object (unknown fields and `providerOptions` included); a changed one is the original with its
// new content, each part the original with its new text, input or output. System messages are set
// aside and put back in place; a tool message is one user message of tool_result blocks. A tool
// output the SDK holds as JSON (`json`, `error-json`) is its JSON text in the engine; when
// condensing changes that text it comes back as a `text` (`error-text`) output, noted in its
// `providerOptions.contextCondense.output`, and becomes JSON again when expanding restores a text
// that parses. Parts the engine has no form for (files, provider-executed tool calls and results,
// tool approvals, media inside a tool output) cross as opaque blocks and come back as they were.
//
// It never imports the `ai` package: a host that wants summaries from a model passes its own
// `generateText` (or its own `summarize` callback). It never mutates the caller's messages.
'use strict'

const lib = require('./functions.js')
const { CondensationManager } = require('./manager.js')
const { coded, tag } = require('./internal/errors.js')
const { describe, isObject, wholeNumber } = require('./internal/values.js')
const { checkSignal } = require('./internal/abort.js')
const native = require('./internal/native.js')
const { PROVIDER } = require('./internal/registry.js')
const { holdsMarker } = require('./internal/markers.js')
const { renumbered, sameValue, notJson, finishConverted } = require('./internal/openai-format.js')
const { checkMessagesArray, checkOptionsObject, optionalFunction, optionalString } = require('./internal/checks.js')

const { CacheModel } = require('./internal/prompt-cache.js')

const ORIGIN = Symbol('context-condense.ai-sdk-origin')
/** A conversion's engine-to-SDK message indexes (internal: prepareStep places cache breakpoints by them). */
const INDEX = Symbol('context-condense.ai-sdk-index')
/** Anthropic's cache breakpoint, as its provider reads it from providerOptions. */
const EPHEMERAL = Object.freeze({ type: 'ephemeral' })
/** The providerOptions namespace that notes a JSON tool output the condensing turned into text. */
const NOTE = 'contextCondense'
/** What a tool output's type becomes when its JSON text was condensed into text that is no JSON. */
const AS_TEXT = { json: 'text', 'error-json': 'error-text' }
const OUTPUT_TYPES = ['text', 'json', 'error-text', 'error-json', 'execution-denied', 'content']
const ROLES = ['system', 'user', 'assistant', 'tool']
const quoted = (list) => list.map((t) => `"${t}"`).join(', ')

// ---------------------------------------------------------------------------------------------
// Reading the caller's values

/** `object[key]`; a getter that throws becomes a TypeError naming the place. */
function read(object, key, at, fn) {
  try {
    return object[key]
  } catch (e) {
    throw new TypeError(`${fn}: ${at}.${key}: reading it threw (${e instanceof Error ? e.message : String(e)})`)
  }
}

/** A path as `pathText` writes it, from a text prefix and further keys. */
const under = (at, key) => (typeof key === 'number' ? `${at}[${key}]` : `${at}.${key}`)

/** The base64 text of bytes (a Uint8Array, a Buffer, an ArrayBuffer). */
function base64Of(data) {
  if (data instanceof ArrayBuffer) return Buffer.from(new Uint8Array(data)).toString('base64')
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength).toString('base64')
}

/**
 * An image or file's data (`DataContent | URL`) as an Anthropic `source`, so the engine counts it
 * as it counts an image: a data URL or base64 text as base64, an http(s) URL as a URL.
 */
function sourceOf(data, mediaType, at, fn) {
  const media = typeof mediaType === 'string' && mediaType !== '' ? mediaType : 'application/octet-stream'
  if (typeof data === 'string') {
    const dataUrl = /^data:([^;,]*)(?:;[^,;]*)*;base64,/.exec(data)
    if (dataUrl) return { type: 'base64', media_type: dataUrl[1] || media, data: data.slice(dataUrl[0].length) }
    if (/^[a-z][a-z0-9+.-]*:\/\//i.test(data)) return { type: 'url', url: data }
    return { type: 'base64', media_type: media, data }
  }
  if (data instanceof URL) return { type: 'url', url: data.href }
  if (ArrayBuffer.isView(data) || data instanceof ArrayBuffer) return { type: 'base64', media_type: media, data: base64Of(data) }
  throw new TypeError(`${fn}: ${at}: expected base64 text, a URL, a Uint8Array or an ArrayBuffer, got ${describe(data)}`)
}

// ---------------------------------------------------------------------------------------------
// The conversion, both ways

/**
 * One conversion context: SDK messages to engine messages and back, each message converted once
 * (a message given again, or a result handed back before, is the same engine object: a held
 * conversation sees it unchanged). `fn` names the entry in errors.
 */
class Form {
  constructor(fn) {
    this.fn = fn
    this.toEngine = new WeakMap()
    this.toSdk = new WeakMap()
  }

  mark(block, origin) {
    origin.created = block
    block[ORIGIN] = origin
    return block
  }

  /** One SDK message (not a system one) as the engine's; one of another shape is refused, naming its place `at`. */
  message(m, at) {
    const fn = this.fn
    if (!isObject(m)) throw new TypeError(`${fn}: ${at}: expected a message object ({ role, content }), got ${describe(m)}`)
    const known = this.toEngine.get(m)
    if (known) return known
    const role = read(m, 'role', at, fn)
    const content = read(m, 'content', at, fn)
    if (!ROLES.includes(role)) throw new TypeError(`${fn}: ${at}.role: expected one of ${quoted(ROLES)}, got ${describe(role)}`)
    const text = typeof content === 'string'
    if (!(text || Array.isArray(content)) || (role === 'tool' && text))
      throw new TypeError(
        `${fn}: ${at}.content: expected ${role === 'tool' ? 'an array of tool results' : 'a string or an array of parts'}, got ${describe(content)}`,
      )
    const parts = (as) => (text ? content : content.map((p, k) => this.part(p, under(`${at}.content`, k), as)))
    const out = { role: role === 'tool' ? 'user' : role, content: parts(role) }
    this.mark(out, { kind: 'message', message: m })
    this.toEngine.set(m, out)
    this.toSdk.set(out, m)
    return out
  }

  /** One content part as an engine block. `as`: the role of the message it is in. */
  part(p, at, as) {
    const fn = this.fn
    if (!isObject(p)) throw new TypeError(`${fn}: ${at}: expected a content part ({ type, … }), got ${describe(p)}`)
    const type = read(p, 'type', at, fn)
    const get = (key) => read(p, key, at, fn)
    const origin = (kind, extra) => ({ kind, part: p, ...extra })
    switch (type) {
      case 'text':
        return this.mark({ type: 'text', text: get('text') }, origin('text'))
      case 'reasoning':
        return this.mark({ type: 'thinking', thinking: get('text') }, origin('reasoning'))
      case 'image':
        return this.mark({ type: 'image', source: sourceOf(get('image'), get('mediaType'), `${at}.image`, fn) }, origin('opaque'))
      case 'tool-call': {
        if (get('providerExecuted') === true) break
        const input = get('input')
        const wrapped = !isObject(input)
        // The engine holds a tool input as an object: any other value is held under `input`.
        const block = { type: 'tool_use', id: get('toolCallId'), name: get('toolName'), input: wrapped ? { input } : input }
        return this.mark(block, origin('call', { wrapped }))
      }
      case 'tool-result': {
        // A provider-executed tool's result sits in the assistant message: no tool_result there.
        if (as !== 'tool') break
        const output = get('output')
        const { content, isError, text } = this.output(output, `${at}.output`)
        const block = { type: 'tool_result', tool_use_id: get('toolCallId'), content }
        if (isError) block.is_error = true
        return this.mark(block, origin('result', { text }))
      }
    }
    // Files, provider-executed calls and results, approvals and types a later SDK adds: opaque.
    return this.mark({ type: `ai-sdk-${typeof type === 'string' ? type : 'part'}` }, origin('opaque'))
  }

  /** A tool result's output as tool_result content; `text`: the JSON text of a JSON output. */
  output(output, at) {
    const fn = this.fn
    if (!isObject(output)) throw new TypeError(`${fn}: ${at}: expected a tool output ({ type, value }), got ${describe(output)}`)
    const type = read(output, 'type', at, fn)
    const value = () => read(output, 'value', at, fn)
    switch (type) {
      case 'text':
      case 'error-text':
        return { content: value(), isError: type === 'error-text' }
      case 'json':
      case 'error-json': {
        const v = value()
        const problem = v === undefined ? 'value: expected a JSON value, got undefined' : notJson(v, ['value'])
        if (problem) throw new TypeError(`${fn}: ${at}.${problem}`)
        const text = JSON.stringify(v)
        return { content: text, isError: type === 'error-json', text }
      }
      case 'execution-denied': {
        const reason = read(output, 'reason', at, fn)
        return { content: typeof reason === 'string' ? reason : '', isError: true }
      }
      case 'content': {
        const parts = value()
        if (!Array.isArray(parts)) throw new TypeError(`${fn}: ${at}.value: expected an array of content parts, got ${describe(parts)}`)
        return { content: parts.map((p, k) => this.outputPart(p, under(`${at}.value`, k))), isError: false }
      }
      default:
        throw new TypeError(`${fn}: ${at}.type: expected one of ${quoted(OUTPUT_TYPES)}, got ${describe(type)}`)
    }
  }

  /** A part of a `content` tool output: text as a text block, an image as an image block, the rest opaque. */
  outputPart(p, at) {
    if (!isObject(p)) throw new TypeError(`${this.fn}: ${at}: expected a content part, got ${describe(p)}`)
    const get = (key) => read(p, key, at, this.fn)
    const type = get('type')
    if (type === 'text') return this.mark({ type: 'text', text: get('text') }, { kind: 'text', part: p })
    const media = get('mediaType')
    if ((type === 'image-data' || (type === 'media' && typeof media === 'string' && media.startsWith('image/'))) && typeof get('data') === 'string')
      return this.mark({ type: 'image', source: { type: 'base64', media_type: media, data: get('data') } }, { kind: 'opaque', part: p })
    if (type === 'image-url' && typeof get('url') === 'string')
      return this.mark({ type: 'image', source: { type: 'url', url: get('url') } }, { kind: 'opaque', part: p })
    return this.mark({ type: `ai-sdk-${typeof type === 'string' ? type : 'part'}` }, { kind: 'opaque', part: p })
  }

  // -------------------------------------------------------------------------------------------
  // Back

  /** An engine message (the caller's converted, changed, or written by the engine) as an SDK one. */
  back(am, names) {
    if (!isObject(am)) return [am]
    const known = this.toSdk.get(am)
    if (known) return [known]
    const o = am[ORIGIN]
    if (!o) return written(am, names)
    const original = o.message
    const content = Array.isArray(am.content) ? am.content.flatMap((b) => this.backPart(b, names)) : am.content
    const out = { ...original, content }
    this.toEngine.set(out, am)
    this.toSdk.set(am, out)
    return [out]
  }

  /** A block as the part it was, changed as the engine changed it (a block it wrote: converted). */
  backPart(b, names) {
    const o = isObject(b) ? b[ORIGIN] : undefined
    if (!o) return writtenPart(b, names)
    if (b === o.created) return [o.part]
    switch (o.kind) {
      case 'text':
        return [{ ...o.part, text: b.text }]
      case 'reasoning':
        return [{ ...o.part, text: b.thinking }]
      case 'call': {
        const input = o.wrapped && isObject(b.input) && 'input' in b.input ? b.input.input : b.input
        return [{ ...o.part, toolCallId: b.id, toolName: b.name, input }]
      }
      case 'result':
        return [{ ...o.part, toolCallId: b.tool_use_id, output: this.backOutput(o, b.content) }]
      default:
        return [o.part]
    }
  }

  /** A tool output whose content the engine changed (or a reference expanded). */
  backOutput(o, content) {
    const before = o.part.output
    const type = before.type
    if (typeof content !== 'string') {
      if (type === 'content' && Array.isArray(content)) return { ...before, value: content.flatMap((b) => this.backOutputPart(b)) }
      // Content the engine made an array of where the SDK holds text: its texts joined.
      const text = Array.isArray(content) ? content.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('') : ''
      content = text
    }
    switch (type) {
      case 'text':
      case 'error-text': {
        const note = noteOf(before)
        if (note) {
          // A JSON output condensed into text earlier: JSON again once its text parses.
          const value = parsed(content)
          if (value !== undefined) return withoutNote({ ...before, type: note, value })
        }
        return { ...before, value: content }
      }
      case 'json':
      case 'error-json': {
        if (content === o.text) return before
        const value = parsed(content)
        if (value !== undefined) return { ...before, value }
        const { value: _json, ...rest } = before
        return { ...rest, type: AS_TEXT[type], value: content, providerOptions: { ...(before.providerOptions ?? {}), [NOTE]: { output: type } } }
      }
      case 'execution-denied':
        return content === '' && before.reason === undefined ? before : { ...before, reason: content }
      default:
        return { ...before, value: [{ type: 'text', text: content }] }
    }
  }

  backOutputPart(b) {
    const o = isObject(b) ? b[ORIGIN] : undefined
    if (o && b === o.created) return [o.part]
    if (o && o.kind === 'text') return [{ ...o.part, text: b.text }]
    if (o) return [o.part]
    if (isObject(b) && typeof b.text === 'string') return [{ type: 'text', text: b.text }]
    return []
  }
}

/** The note a text output carries when it was a JSON one (its type then), else undefined. */
function noteOf(output) {
  const note = isObject(output.providerOptions) ? output.providerOptions[NOTE] : undefined
  return isObject(note) && (note.output === 'json' || note.output === 'error-json') ? note.output : undefined
}

function withoutNote(output) {
  const { [NOTE]: _note, ...rest } = output.providerOptions
  const out = { ...output }
  if (Object.keys(rest).length > 0) out.providerOptions = rest
  else delete out.providerOptions
  return out
}

/** The JSON value a text holds, or undefined when it holds none. */
function parsed(text) {
  if (typeof text !== 'string') return undefined
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/**
 * A message the engine wrote (a summary), or one of an Anthropic history, as SDK messages: a user
 * message's tool_result blocks become a tool message (before the rest of it). `names`: tool names
 * by call id, learnt from the tool_use blocks seen before.
 */
function written(am, names) {
  const { role, content } = am
  if (!Array.isArray(content)) return [{ role, content: typeof content === 'string' ? content : '' }]
  if (role === 'assistant') return [{ role, content: content.flatMap((b) => writtenPart(b, names)) }]
  const results = []
  const rest = []
  for (const b of content) {
    if (isObject(b) && b.type === 'tool_result') results.push(...writtenPart(b, names))
    else rest.push(...writtenPart(b, names))
  }
  const out = []
  if (results.length > 0) out.push({ role: 'tool', content: results })
  if (rest.length > 0 || results.length === 0) out.push({ role, content: rest })
  return out
}

function textOf(content) {
  if (typeof content === 'string') return content
  return Array.isArray(content) ? content.map((b) => (isObject(b) && typeof b.text === 'string' ? b.text : '')).join('') : ''
}

/** A block the engine wrote (or of an Anthropic history) as SDK parts (none for a block the SDK has no form for). */
function writtenPart(b, names) {
  if (!isObject(b)) return []
  switch (b.type) {
    case 'text':
      return [{ type: 'text', text: b.text }]
    case 'thinking':
      return [{ type: 'reasoning', text: b.thinking }]
    case 'image': {
      const s = isObject(b.source) ? b.source : {}
      if (s.type === 'url') return [{ type: 'image', image: String(s.url) }]
      return [{ type: 'image', image: String(s.data ?? ''), mediaType: s.media_type }]
    }
    case 'tool_use':
      names.set(b.id, b.name)
      return [{ type: 'tool-call', toolCallId: b.id, toolName: b.name, input: b.input }]
    case 'tool_result': {
      const output = Array.isArray(b.content)
        ? { type: 'content', value: b.content.flatMap((p) => (isObject(p) && p.type === 'text' ? [{ type: 'text', text: p.text }] : [])) }
        : { type: b.is_error ? 'error-text' : 'text', value: textOf(b.content) }
      return [{ type: 'tool-result', toolCallId: b.tool_use_id, toolName: names.get(b.tool_use_id) ?? '', output }]
    }
    default:
      return []
  }
}

// ---------------------------------------------------------------------------------------------
// A history converted

/** The place an engine path names (`messages[3].content[1].tool_use_id`), in the SDK history's terms. */
const PATH_KEYS = { tool_use_id: 'toolCallId', id: 'toolCallId', name: 'toolName', thinking: 'text', source: 'image', content: 'output' }

/**
 * `messages` converted with `form`: `{ messages, system, restore, locate, finish }` (see
 * lib/ai-sdk.d.ts, `AiSdkConversion`).
 */
function convert(form, messages) {
  const fn = form.fn
  const out = []
  /** Per engine message, the index of the SDK message it came from. */
  const index = []
  /** Indexes of the system messages set aside. */
  const aside = []
  for (let i = 0; i < messages.length; i++) {
    const m = messages[i]
    // A message converted before (a run's earlier steps) is taken as it is, read no further.
    const known = isObject(m) ? form.toEngine.get(m) : undefined
    if (known) {
      out.push(known)
      index.push(i)
      continue
    }
    if (isObject(m) && read(m, 'role', `messages[${i}]`, fn) === 'system') {
      const content = read(m, 'content', `messages[${i}]`, fn)
      if (typeof content !== 'string')
        throw new TypeError(`${fn}: messages[${i}].content: expected a string (a system message's content), got ${describe(content)}`)
      aside.push(i)
      continue
    }
    out.push(form.message(m, `messages[${i}]`))
    index.push(i)
  }
  /** SDK index of each caller message, for placing the system messages back (made when there are some). */
  let placed
  const place = () => {
    if (!placed) {
      placed = new Map()
      messages.forEach((m, i) => placed.set(m, i))
    }
    return placed
  }
  // A reference marker names a message by its place in its own array: with system messages set
  // aside the two numberings differ, so the engine's copies name the engine's places.
  const renumber = aside.length > 0 && holdsMarker(out)
  const engine = renumber
    ? renumbered(
        out,
        index,
        out.map((_, k) => k),
      )
    : out

  function restore(condensed) {
    if (!Array.isArray(condensed)) throw new TypeError(`restore: condensed: expected an array of messages, got ${describe(condensed)}`)
    // First where each condensed message lands among the system messages put back.
    const lay = (list) => {
      const result = []
      const from = []
      let next = 0
      const names = new Map()
      const asideBefore = (at) => {
        while (next < aside.length && aside[next] < at) {
          result.push(messages[aside[next++]])
          from.push(-1)
        }
      }
      list.forEach((am, c) => {
        if (aside.length > 0) {
          const o = isObject(am) ? am[ORIGIN] : undefined
          const own = o ? place().get(o.message) : undefined
          if (own !== undefined) asideBefore(own)
        }
        for (const m of form.back(am, names)) {
          result.push(m)
          from.push(c)
        }
      })
      asideBefore(Number.POSITIVE_INFINITY)
      return { result, from }
    }
    const first = lay(condensed)
    if (aside.length === 0 || !holdsMarker(condensed)) return first.result
    const where = new Array(condensed.length).fill(-1)
    first.from.forEach((c, i) => {
      if (c >= 0 && where[c] < 0) where[c] = i
    })
    const again = lay(
      renumbered(
        condensed,
        condensed.map((_, c) => c),
        where,
      ),
    ).result
    // A message that reads as the caller's own again is the caller's own object.
    return again.map((m) => {
      const o = isObject(m) ? form.toEngine.get(m) : undefined
      const own = o && o[ORIGIN] ? o[ORIGIN].message : undefined
      return own && own !== m && sameValue(m, own) ? own : m
    })
  }

  function locate(text) {
    if (typeof text !== 'string') throw new TypeError(`locate: text: expected a string, got ${describe(text)}`)
    return text.replace(/messages\[(\d+)\]((?:\.content\[\d+\])?)(?:\.(tool_use_id|id|name|thinking|source|content)\b)?/g, (all, k, block, key) => {
      const i = index[Number(k)]
      if (i === undefined) return all
      return `messages[${i}]${block}${key ? `.${block ? (PATH_KEYS[key] ?? key) : key}` : ''}`
    })
  }

  function finish(result) {
    return finishConverted(result, messages, restore, locate)
  }

  return {
    messages: engine,
    system: aside.map((i) => messages[i]),
    restore: coded(restore),
    locate: coded(locate),
    finish: coded(finish),
    [INDEX]: index,
  }
}

/** An error thrown by the library on the converted messages, its paths named in the SDK history. */
function located(e, conversion) {
  if (e instanceof Error && typeof e.message === 'string' && e.message.includes('messages[')) {
    try {
      e.message = conversion.locate(e.message)
    } catch {
      // A frozen error keeps its text.
    }
  }
  return e
}

// ---------------------------------------------------------------------------------------------
// Public functions

/** Converts SDK messages to the Anthropic form the engine condenses (see `AiSdkConversion`). */
function toEngine(messages) {
  checkMessagesArray(messages, 'toEngine')
  return convert(new Form('toEngine'), messages)
}

/** An Anthropic (Roo Code) history as SDK messages: tool_result blocks become tool messages. */
function fromEngine(messages) {
  checkMessagesArray(messages, 'fromEngine')
  const names = new Map()
  return messages.flatMap((m) => (isObject(m) ? written(m, names) : [m]))
}

async function condenseUncoded(messages, options) {
  checkMessagesArray(messages, 'condense')
  if (isObject(options) && 'format' in options) throw new TypeError('condense: options.format: context-condense/ai-sdk reads AI SDK messages; leave format out')
  const conversion = convert(new Form('condense'), messages)
  let result
  try {
    result = await lib.condense(conversion.messages, options)
  } catch (e) {
    throw located(e, conversion)
  }
  return conversion.finish(result)
}

function expandReferencesUncoded(messages) {
  checkMessagesArray(messages, 'expandReferences')
  const conversion = convert(new Form('expandReferences'), messages)
  let expanded
  try {
    expanded = lib.expandReferences(conversion.messages)
  } catch (e) {
    throw located(e, conversion)
  }
  return conversion.restore(expanded)
}

// ---------------------------------------------------------------------------------------------
// prepareStep

const PREPARE_OPTIONS = [
  'contextWindow',
  'maxTokens',
  'threshold',
  'provider',
  'config',
  'policy',
  'fallback',
  'summarize',
  'summarizeModel',
  'generateText',
  'summarizeOptions',
  'onCondense',
  'signal',
  'systemPrompt',
  'anthropicCacheControl',
]

let runs = 0

/**
 * A `prepareStep` for `generateText` / `streamText` that condenses the step's messages when they
 * pass the threshold, with the manager's policy, holding the run's history in the engine between
 * steps. One per run (a run's steps share what it holds); `close()` lets it go.
 */
function createPrepareStep(options) {
  const fn = 'createPrepareStep'
  const opts = checkOptionsObject(options, fn, PREPARE_OPTIONS)
  if (options === undefined) throw new TypeError(`${fn}: options: expected an object with contextWindow, got undefined`)
  const {
    contextWindow,
    maxTokens,
    threshold,
    provider = PROVIDER.smart,
    config,
    policy,
    fallback,
    summarizeModel,
    generateText,
    summarizeOptions,
    onCondense,
    signal,
    systemPrompt,
    anthropicCacheControl = false,
  } = opts
  if (typeof contextWindow !== 'number' || !Number.isSafeInteger(contextWindow) || contextWindow <= 0)
    throw new RangeError(`${fn}: options.contextWindow: expected a whole number of tokens above 0, got ${describe(contextWindow)}`)
  if (maxTokens !== undefined) wholeNumber(maxTokens, `${fn}: options.maxTokens`, 0)
  const providers = native.providerCatalogue().providers.map((p) => p.id)
  if (!providers.includes(provider)) throw new TypeError(`${fn}: options.provider: expected one of ${quoted(providers)}, got ${describe(provider)}`)
  optionalString(systemPrompt, `${fn}: options.systemPrompt`)
  if (typeof anthropicCacheControl !== 'boolean')
    throw new TypeError(`${fn}: options.anthropicCacheControl: expected true or false, got ${describe(anthropicCacheControl)}`)
  checkSignal(signal, `${fn}: options.signal`)
  optionalFunction(opts.summarize, `${fn}: options.summarize`, 'an async function answering a summary')
  optionalFunction(generateText, `${fn}: options.generateText`, "the AI SDK's generateText")
  optionalFunction(onCondense, `${fn}: options.onCondense`, 'a function')
  if (summarizeModel !== undefined && generateText === undefined)
    throw new TypeError(`${fn}: options.generateText: expected the AI SDK's generateText, to call options.summarizeModel with`)
  if (summarizeModel !== undefined && opts.summarize !== undefined)
    throw new TypeError(`${fn}: options.summarize: give either summarize or summarizeModel, not both`)
  const summarize = opts.summarize ?? (summarizeModel !== undefined ? modelSummarizer(generateText, summarizeModel) : undefined)
  const managerConfig = { provider, providers: config === undefined ? {} : { [provider]: config } }
  if (threshold !== undefined) managerConfig.threshold = threshold
  if (fallback !== undefined) managerConfig.fallback = fallback
  const manager = new CondensationManager({ config: managerConfig, policy, summarize, summarizeOptions, conversations: 1 })
  // The manager's cache-aware policies price each request with the system prompt, which the SDK
  // does not hand prepareStep: asked for here, where the host can be told which option it is.
  if (manager.policy.name !== 'default' && systemPrompt === undefined)
    throw new TypeError(
      `${fn}: options.systemPrompt: the ${manager.policy.name} policy prices each request with the run's system prompt; give it (prepareStep is not given it)`,
    )
  const taskId = `ai-sdk-run-${++runs}`
  const form = new Form('prepareStep')
  /** The SDK messages of the last step as given, and as condensed (what the model got). */
  let seen = []
  let sent
  let turn = Promise.resolve()
  let closed = false
  const steps = []

  async function step(input) {
    if (closed) throw new TypeError('prepareStep: the helper was closed; make one per run with createPrepareStep')
    if (!isObject(input)) throw new TypeError(`prepareStep: options: expected the SDK's step options ({ messages, stepNumber, … }), got ${describe(input)}`)
    const messages = read(input, 'messages', 'options', 'prepareStep')
    checkMessagesArray(messages, 'prepareStep', 'options.messages')
    const stepNumber = wholeNumber(read(input, 'stepNumber', 'options', 'prepareStep'), 'prepareStep: options.stepNumber', 0)
    // What the run added since the last step is appended to what the model got then; a history
    // that does not begin with the last one is taken as a new start.
    const continues = sent !== undefined && seen.length <= messages.length && seen.every((m, i) => m === messages[i])
    const history = continues ? sent.concat(messages.slice(seen.length)) : messages
    const conversion = convert(form, history)
    let r
    try {
      const context = { contextWindow, taskId }
      if (maxTokens !== undefined) context.maxTokens = maxTokens
      if (signal !== undefined) context.signal = signal
      if (systemPrompt !== undefined) context.systemPrompt = systemPrompt
      r = await manager.condenseIfNeeded(conversion.messages, context)
    } catch (e) {
      throw located(e, conversion)
    }
    const out = r.condensed ? conversion.restore(r.messages) : history
    const record = {
      stepNumber,
      condensed: r.condensed,
      provider: r.provider,
      messagesIn: messages.length,
      messagesOut: out.length,
      prevContextTokens: r.prevContextTokens,
      newContextTokens: r.newContextTokens,
      summary: r.summary,
      cost: r.cost,
      report: r.report,
      skipped: r.skipped,
      error: r.error === undefined ? undefined : conversion.locate(r.error),
    }
    steps.push(record)
    seen = messages.slice()
    sent = out
    if (onCondense && r.condensed) onCondense({ ...record, messages: out })
    if (anthropicCacheControl) return withBreakpoints(form, out, systemPrompt)
    // Nothing condensed in this run yet: the SDK's own messages stand.
    return out === messages ? undefined : { messages: out }
  }

  const prepareStep = (input) => {
    // Steps of one run take turns (a host calling it twice at once gets them in order).
    const result = turn.then(() => step(input))
    turn = result.catch(() => {})
    return result.catch((e) => {
      throw tag(e)
    })
  }
  Object.defineProperties(prepareStep, {
    steps: { get: () => steps.slice(), enumerable: true },
    last: { get: () => steps[steps.length - 1], enumerable: true },
    close: {
      value: async () => {
        closed = true
        await turn
        await manager.closeConversations(taskId)
      },
    },
  })
  return prepareStep
}

/** `providerOptions` with Anthropic's cache breakpoint added. */
function withEphemeral(providerOptions) {
  const given = isObject(providerOptions) ? providerOptions : {}
  return { ...given, anthropic: { ...(isObject(given.anthropic) ? given.anthropic : {}), cacheControl: EPHEMERAL } }
}

/**
 * What a step hands the SDK with Anthropic's cache breakpoints where the cache-aware policy's
 * model puts them (src/cache_model.rs `breakpoints`, through lib/internal/prompt-cache.js: the system prompt and the last
 * two user messages of the engine's form, a tool message being one): copies of those messages with
 * `providerOptions.anthropic.cacheControl`, and the system prompt as a system message with it when
 * the host gave it. The run keeps the messages without them (what it holds stays the same objects).
 */
function withBreakpoints(form, messages, systemPrompt) {
  const conversion = convert(form, messages)
  const marked = messages.slice()
  for (const b of CacheModel.breakpoints(conversion.messages)) {
    if (b === 0) continue
    const i = conversion[INDEX][b - 1]
    marked[i] = { ...messages[i], providerOptions: withEphemeral(messages[i].providerOptions) }
  }
  const out = { messages: marked }
  if (systemPrompt !== undefined) out.system = { role: 'system', content: systemPrompt, providerOptions: { anthropic: { cacheControl: EPHEMERAL } } }
  return out
}

/** A summarize callback that asks `model` through the host's `generateText`. */
function modelSummarizer(generateText, model) {
  return async (request, { signal }) => {
    const r = await generateText({
      model,
      system: request.systemPrompt,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      maxOutputTokens: request.maxTokens,
      abortSignal: signal,
    })
    const usage = isObject(r.usage) ? r.usage : {}
    return {
      text: String(r.text ?? ''),
      ...(Number.isFinite(usage.inputTokens) ? { inputTokens: usage.inputTokens } : {}),
      ...(Number.isFinite(usage.outputTokens) ? { outputTokens: usage.outputTokens } : {}),
    }
  }
}

// The public functions throw with `errorCode` set (lib/errors.js), as the library's other entries
// do. Each is written out: Node's ESM import of this file finds named exports only in such forms.
const toEngineCoded = coded(toEngine)
const fromEngineCoded = coded(fromEngine)
const condense = coded(condenseUncoded)
const expandReferences = coded(expandReferencesUncoded)
const createPrepareStepCoded = coded(createPrepareStep)
module.exports = {
  toEngine: toEngineCoded,
  fromEngine: fromEngineCoded,
  condense,
  expandReferences,
  createPrepareStep: createPrepareStepCoded,
}
