'use strict'
// The visual condensation report: one self-contained HTML file (inline CSS and JavaScript, the data
// as JSON in the page, no network, no external assets) showing a history before and after a
// condensation side by side. Each message is a bar sized by its tokens and colored by content type;
// each says what each pass did to it (kept, deduplicated with a link to the kept copy, superseded,
// truncated, suppressed, summarized), the passes' totals head the page, and a click on a bar shows
// the message's full text.
//
//   const { traceCondense, renderHtmlReport } = require('context-condense/lib/report-html.js')
//   const trace = await traceCondense(messages, { provider: 'smart', config: { preset: 'balanced' } })
//   fs.writeFileSync('report.html', renderHtmlReport(messages, trace.result, { stages: trace.stages }))
//
// What happened to a message is read from the result itself: messages nothing changed are the
// caller's own objects, changed ones carry the engine's ⟨ … ⟩ markers, summaries replace a run of
// messages. Which pass did it is exact when `stages` (the history after each pass, from
// `traceCondense`) are given, and inferred from the markers and the pass metrics otherwise.

const lib = require('./index.js')

/** Content types, in the order of `analyze().byContentType`, with their colors (Tableau 10). */
const CONTENT_TYPES = [
  ['userText', 'user text', '#4c78a8'],
  ['assistantText', 'assistant text', '#54a24b'],
  ['thinking', 'thinking', '#b279a2'],
  ['toolCalls', 'tool calls', '#f58518'],
  ['toolResults', 'tool results', '#72b7b2'],
  ['environmentDetails', 'environment details', '#9d755d'],
  ['images', 'images', '#eeca3b'],
  ['summaries', 'summaries', '#ff9da6'],
  ['other', 'other', '#bab0ac'],
]

/** What can happen to a message, with the label of its badge. */
const KINDS = {
  kept: 'kept',
  deduplicated: 'deduplicated',
  superseded: 'superseded',
  omitted: 'omitted',
  truncated: 'truncated',
  suppressed: 'suppressed',
  summarized: 'summarized',
  removed: 'removed',
  changed: 'changed',
}

/** The engine's markers (src/reference.rs, src/passes/shorten.rs, src/passes/content_ops.rs). */
const MARKER = /⟨ (Reference: |Superseded[ :]|Omitted: |Content suppressed: |… truncated: |Summary of the )[^⟩]*⟩/g
const MARKER_KIND = {
  'Reference: ': 'deduplicated',
  'Superseded ': 'superseded',
  'Superseded:': 'superseded',
  'Omitted: ': 'omitted',
  'Content suppressed: ': 'suppressed',
  '… truncated: ': 'truncated',
  'Summary of the ': 'summarized',
}

/** The Lossless operation behind a reference or superseded marker. */
function losslessOperation(marker) {
  if (/^⟨ (Reference|Omitted): (lines \d+-\d+ of|content of) '/.test(marker)) return 'deduplicateFileReads'
  if (/^⟨ (Reference|Omitted): same /.test(marker)) return 'consolidateToolResults'
  if (/^⟨ Superseded: .* ran again /.test(marker)) return 'consolidateToolResults'
  if (/^⟨ Superseded/.test(marker)) return 'removeObsoleteState'
  return undefined
}
const OPERATION_NAMES = {
  deduplicateFileReads: 'repeated file reads',
  consolidateToolResults: 'identical tool results',
  removeObsoleteState: 'superseded state',
}

// ---------------------------------------------------------------------------------------------
// Reading messages

/** Every string a message's content holds (image data and signatures left out). */
function contentStrings(content, out = []) {
  if (typeof content === 'string') out.push(content)
  else if (Array.isArray(content)) for (const c of content) contentStrings(c, out)
  else if (content && typeof content === 'object') {
    for (const [k, v] of Object.entries(content)) {
      if (k === 'data' || k === 'signature' || k === 'type' || k === 'id' || k === 'tool_use_id' || k === 'cache_control') continue
      contentStrings(v, out)
    }
  }
  return out
}

function markersOf(message) {
  if (!message) return []
  const out = []
  for (const s of contentStrings(message.content)) {
    for (const m of s.matchAll(MARKER)) {
      const text = m[0]
      const ref = /message #(\d+)/.exec(text)
      out.push({ kind: MARKER_KIND[m[1]], text, ref: ref ? Number(ref[1]) : undefined })
    }
  }
  return out
}

function imageNote(block) {
  const src = block.source && typeof block.source === 'object' ? block.source : {}
  const size = typeof src.data === 'string' ? `, ${src.data.length.toLocaleString('en-US')} characters of base64` : ''
  return `[image${src.media_type ? `: ${src.media_type}` : ''}${size}]`
}

function toolResultText(content) {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return content === undefined ? '' : JSON.stringify(content, null, 2)
  return content
    .map((c) => (c && c.type === 'text' && typeof c.text === 'string' ? c.text : c && c.type === 'image' ? imageNote(c) : JSON.stringify(c)))
    .join('\n')
}

/** A message's content as labelled text parts, for the full-text panel. */
function partsOf(message) {
  const { content } = message
  if (typeof content === 'string') return [{ label: message.isSummary ? 'summary' : 'text', text: content }]
  if (!Array.isArray(content)) return [{ label: 'content', text: JSON.stringify(content, null, 2) ?? '' }]
  return content.map((b) => {
    if (!b || typeof b !== 'object') return { label: 'content', text: JSON.stringify(b) ?? '' }
    switch (b.type) {
      case 'text':
        return { label: /^\s*<environment_details>/.test(b.text) ? 'environment details' : message.isSummary ? 'summary' : 'text', text: String(b.text ?? '') }
      case 'thinking':
        return { label: 'thinking', text: String(b.thinking ?? '') }
      case 'redacted_thinking':
        return { label: 'redacted thinking', text: '[redacted]' }
      case 'tool_use':
        return { label: `tool call: ${b.name}`, text: JSON.stringify(b.input, null, 2) ?? '' }
      case 'tool_result':
        return { label: `tool result${b.is_error ? ' (error)' : ''}`, text: toolResultText(b.content) }
      case 'image':
        return { label: 'image', text: imageNote(b) }
      default:
        return { label: String(b.type ?? 'block'), text: JSON.stringify(b, null, 2) }
    }
  })
}

function preview(parts) {
  const first = parts.find((p) => p.label === 'text' || p.label === 'summary') ?? parts[0]
  const text = first ? first.text.replace(/\s+/g, ' ').trim() : ''
  return text.length > 140 ? `${text.slice(0, 139)}…` : text
}

/** Tokens of one message and their split by content type (the engine's own classification). */
function measure(message, encoding) {
  try {
    const a = lib.analyze([message], { encoding })
    const types = {}
    let sum = 0
    for (const [key] of CONTENT_TYPES) {
      const n = a.byContentType[key] ?? 0
      if (n > 0) types[key] = n
      sum += n
    }
    if (a.totalTokens > sum) types.other = a.totalTokens - sum
    return { tokens: a.totalTokens, types }
  } catch {
    const tokens = lib.countTokens(JSON.stringify(message.content ?? ''), { encoding })
    return { tokens, types: { other: tokens } }
  }
}

// ---------------------------------------------------------------------------------------------
// Aligning a condensed history with the one it came from

/**
 * Where each message of `after` came from in `before`: the same object, a changed copy (matched
 * by role and timestamp, else by place), a summary of a run of messages, or a message the
 * condensation added. Returns, per `after` message, `{ kind: 'same'|'changed'|'summary'|'inserted',
 * from?, covers?: [first, last] }`, and per `before` message its `after` index (or undefined when
 * removed), with `summarizedInto` for the messages a summary replaced.
 */
function alignHistories(before, after) {
  const index = new Map()
  before.forEach((m, i) => {
    if (m && typeof m === 'object' && !index.has(m)) index.set(m, i)
  })
  const map = after.map(() => undefined)
  // 1. Identity, increasing.
  let last = -1
  after.forEach((m, j) => {
    const i = index.get(m)
    if (i !== undefined && i > last) {
      map[j] = { kind: 'same', from: i }
      last = i
    }
  })
  // 2. Within each gap between identical messages: changed copies by role and timestamp, then by place.
  const anchors = [{ j: -1, i: -1 }]
  map.forEach((x, j) => x && anchors.push({ j, i: x.from }))
  anchors.push({ j: after.length, i: before.length })
  for (let k = 0; k + 1 < anchors.length; k++) {
    const lo = anchors[k]
    const hi = anchors[k + 1]
    const gapAfter = []
    for (let j = lo.j + 1; j < hi.j; j++) gapAfter.push(j)
    if (gapAfter.length === 0) continue
    // By timestamp.
    let cursor = lo.i
    const byTs = new Map()
    for (const j of gapAfter) {
      const a = after[j]
      if (!a || typeof a !== 'object' || a.ts === undefined) continue
      for (let i = cursor + 1; i < hi.i; i++) {
        const b = before[i]
        if (b && b.ts === a.ts && b.role === a.role && Boolean(b.isSummary) === Boolean(a.isSummary)) {
          byTs.set(j, i)
          cursor = i
          break
        }
      }
    }
    // The rest, between timestamp matches: by place; summaries take what is left in between.
    const bounds = [{ j: lo.j, i: lo.i }, ...[...byTs].map(([j, i]) => ({ j, i })), { j: hi.j, i: hi.i }]
    for (const [j, i] of byTs) map[j] = { kind: 'changed', from: i }
    for (let t = 0; t + 1 < bounds.length; t++) {
      const a0 = bounds[t]
      const a1 = bounds[t + 1]
      const js = []
      for (let j = a0.j + 1; j < a1.j; j++) js.push(j)
      let i0 = a0.i + 1
      let i1 = a1.i - 1
      const summaries = js.filter((j) => after[j] && after[j].isSummary)
      if (summaries.length === 0) {
        for (const j of js) {
          if (i0 <= i1) map[j] = { kind: 'changed', from: i0++ }
          else map[j] = { kind: 'inserted' }
        }
        continue
      }
      // Messages before the first summary pair from the front, after the last from the back.
      const first = js.indexOf(summaries[0])
      const lastS = js.indexOf(summaries[summaries.length - 1])
      for (const j of js.slice(0, first)) map[j] = i0 <= i1 ? { kind: 'changed', from: i0++ } : { kind: 'inserted' }
      for (const j of js.slice(lastS + 1).reverse()) map[j] = i0 <= i1 ? { kind: 'changed', from: i1-- } : { kind: 'inserted' }
      // Between summaries: the earlier summaries take nothing they can be told apart by; the last takes the run.
      for (const j of js.slice(first, lastS + 1)) {
        if (after[j] && after[j].isSummary) {
          if (j === summaries[summaries.length - 1] && i0 <= i1) {
            map[j] = { kind: 'summary', covers: [i0, i1] }
            i0 = i1 + 1
          } else map[j] = { kind: 'summary', covers: null }
        } else map[j] = i0 <= i1 ? { kind: 'changed', from: i0++ } : { kind: 'inserted' }
      }
    }
  }
  const beforeToAfter = before.map(() => undefined)
  const summarizedInto = before.map(() => undefined)
  map.forEach((x, j) => {
    if (x.kind === 'same' || x.kind === 'changed') beforeToAfter[x.from] = j
    if (x.kind === 'summary' && x.covers) for (let i = x.covers[0]; i <= x.covers[1]; i++) summarizedInto[i] = j
  })
  return { after: map, beforeToAfter, summarizedInto }
}

// ---------------------------------------------------------------------------------------------
// What each pass did

/** New markers of `next` that `prev` did not have (as a multiset). */
function newMarkers(prev, next) {
  const had = new Map()
  for (const m of markersOf(prev)) had.set(m.text, (had.get(m.text) ?? 0) + 1)
  const out = []
  for (const m of markersOf(next)) {
    const n = had.get(m.text) ?? 0
    if (n > 0) had.set(m.text, n - 1)
    else out.push(m)
  }
  return out
}

function sameContent(a, b) {
  if (a === b) return true
  try {
    return JSON.stringify(a.content) === JSON.stringify(b.content)
  } catch {
    return false
  }
}

/** The pass that most likely made a change of this kind, when the history after each pass is unknown. */
function guessPass(kind, passes) {
  if (passes.length === 0) return undefined
  if (passes.length === 1) return passes[0]
  if (kind === 'deduplicated' || kind === 'superseded') return passes.find((p) => p.id === 'lossless-prelude') ?? passes[0]
  const field = { truncated: 'truncated', suppressed: 'suppressed', summarized: 'summarized' }[kind]
  const candidates = passes.filter((p) => p.id !== 'lossless-prelude' && (field ? p[field] > 0 : p.tokensAfter < p.tokensBefore))
  return candidates.length === 1 ? candidates[0] : undefined
}

/**
 * Per message of `before`: the actions of each stage. `stages` is the history after each pass,
 * in order (`{ id, name, messages }`); the last is the result.
 */
function traceActions(before, stages, passes, exact) {
  const actions = before.map(() => [])
  const state = before.map((m) => ({ message: m, summarized: false, removed: false }))
  const alignments = []
  for (const stage of stages) {
    const al = alignHistories(before, stage.messages)
    alignments.push(al)
    before.forEach((_, i) => {
      const prev = state[i]
      if (prev.removed || prev.summarized) return
      const add = (kind, extra = {}) => {
        const pass = stage.id !== undefined ? passes.find((p) => p.id === stage.id) : guessPass(kind, passes)
        const action = { kind, pass: pass ? pass.id : null, passName: pass ? pass.name : exact ? stage.name : 'one of the passes', ...extra }
        actions[i].push(action)
      }
      const j = al.beforeToAfter[i]
      if (j === undefined) {
        const s = al.summarizedInto[i]
        if (s !== undefined) {
          state[i] = { message: undefined, summarized: true, removed: false }
          add('summarized', { into: s, whole: true })
        } else {
          state[i] = { message: undefined, summarized: false, removed: true }
          add('removed')
        }
        return
      }
      const next = stage.messages[j]
      if (next === prev.message || sameContent(prev.message, next)) {
        state[i] = { ...prev, message: next }
        return
      }
      const found = newMarkers(prev.message, next)
      if (found.length === 0) add('changed')
      for (const m of found) {
        const op = m.kind === 'deduplicated' || m.kind === 'superseded' ? losslessOperation(m.text) : undefined
        add(m.kind, { marker: m.text, ...(m.ref !== undefined ? { ref: m.ref } : {}), ...(op ? { operation: op, operationName: OPERATION_NAMES[op] } : {}) })
      }
      state[i] = { ...prev, message: next }
    })
  }
  return { actions, final: alignments[alignments.length - 1] }
}

// ---------------------------------------------------------------------------------------------
// Tracing: the history after each pass

/** A summarize callback that answers a request it has seen with its first answer. */
function memoizeSummarize(summarize) {
  if (typeof summarize !== 'function' || summarize.memoized) return summarize
  const cache = new Map()
  const memo = (request, context) => {
    memo.calls++
    let key
    try {
      key = JSON.stringify(request)
    } catch {
      return summarize(request, context)
    }
    if (!cache.has(key)) {
      const reply = Promise.resolve().then(() => summarize(request, context))
      cache.set(key, reply)
      reply.catch(() => {
        // A retry asks again (the library retries with the same request).
        cache.delete(key)
        memo.failures++
      })
    }
    return cache.get(key)
  }
  memo.memoized = true
  memo.calls = 0
  memo.failures = 0
  return memo
}

/**
 * Condenses `messages` and records the history after each pass, so the report can say exactly
 * which pass did what. For Smart, each pass's state comes from running the passes up to it (the
 * engine is deterministic; a summarize callback is asked each request once: its answers are
 * reused); for the other providers their single pass is the result. `condense` (default: the
 * library's) runs each condensation. Resolves to `{ result, stages, traced, note? }`; `traced` is
 * false (and `stages` null) when the stages could not be told apart: the report then infers.
 */
async function traceCondense(messages, options, { condense = lib.condense } = {}) {
  const opts = { ...options }
  if (typeof opts.summarize === 'function') opts.summarize = memoizeSummarize(opts.summarize)
  const result = await condense(messages, opts)
  const passes = (result.metrics && result.metrics.passes) || []
  if (result.error) return { result, stages: null, traced: false, note: 'the engine did not condense' }
  if (opts.summarize && opts.summarize.failures > 0)
    return { result, stages: null, traced: false, note: 'pass attribution inferred (a summary request failed)' }
  if (opts.format === 'openai' || opts.format === 'auto') return { result, stages: null, traced: false, note: 'OpenAI-format histories are not traced' }
  if (opts.provider !== 'smart' || passes.length <= 1) {
    const id = passes.length === 1 ? passes[0].id : undefined
    const name = passes.length === 1 ? passes[0].name : String(opts.provider)
    return { result, stages: [{ id, name, messages: result.messages }], traced: true }
  }
  try {
    const config = opts.config && typeof opts.config === 'object' ? opts.config : {}
    const configured = Array.isArray(config.passes) ? config.passes : config.preset ? lib.smartPreset(config.preset).passes : []
    const stages = []
    for (const [n, pass] of passes.entries()) {
      const count = pass.id === 'lossless-prelude' ? 0 : configured.findIndex((p) => p.id === pass.id) + 1
      if (pass.id !== 'lossless-prelude' && count === 0) throw new Error(`pass ${pass.id} is not in the config`)
      let stageMessages
      if (n === passes.length - 1) stageMessages = result.messages
      else {
        const r = await condense(messages, { ...opts, config: { ...config, passes: configured.slice(0, count) } })
        const ids = r.metrics.passes.map((p) => p.id)
        const want = passes.slice(0, n + 1).map((p) => p.id)
        const last = r.metrics.passes[r.metrics.passes.length - 1]
        if (r.error || ids.join('\n') !== want.join('\n') || !last || last.tokensAfter !== pass.tokensAfter)
          throw new Error(`the run up to pass ${pass.id} differs from the full run`)
        stageMessages = r.messages
      }
      stages.push({ id: pass.id, name: pass.name, messages: stageMessages })
    }
    return { result, stages, traced: true }
  } catch (e) {
    if (opts.signal && opts.signal.aborted) throw e
    return { result, stages: null, traced: false, note: `pass attribution inferred (${e && e.message ? e.message : e})` }
  }
}

// ---------------------------------------------------------------------------------------------
// The data of the page

/**
 * Everything the page shows, as plain data: per message its tokens, content types, text and
 * actions; the passes' totals; the rows of the side-by-side view.
 */
function buildReportData(before, result, options = {}) {
  if (!Array.isArray(before)) throw new TypeError('renderHtmlReport: before must be the array of messages that was condensed')
  if (!result || !Array.isArray(result.messages) || !result.metrics) throw new TypeError('renderHtmlReport: result must be what condense() resolved to')
  const metrics = result.metrics
  const encoding = metrics.encoding || options.encoding || 'o200k_base'
  const passes = (metrics.passes || []).map((p) => ({ ...p }))
  const exact = Array.isArray(options.stages) && options.stages.length > 0
  const stages = exact ? options.stages : [{ id: undefined, name: 'condensation', messages: result.messages }]
  if (exact && stages[stages.length - 1].messages !== result.messages) {
    const last = stages[stages.length - 1].messages
    if (last.length !== result.messages.length || last.some((m, j) => !sameContent(m, result.messages[j]))) {
      throw new TypeError('renderHtmlReport: the last of options.stages must be the result')
    }
  }
  const { actions, final } = traceActions(before, stages, passes, exact)

  const beforeData = before.map((m, i) => {
    const parts = partsOf(m)
    return { index: i, role: m.role, ...measure(m, encoding), parts, preview: preview(parts), ...(m.isSummary ? { isSummary: true } : {}), actions: actions[i] }
  })
  const afterData = result.messages.map((m, j) => {
    const origin = final.after[j]
    if (origin.kind === 'same') {
      const b = beforeData[origin.from]
      return {
        index: j,
        role: m.role,
        tokens: b.tokens,
        types: b.types,
        same: origin.from,
        from: origin.from,
        preview: b.preview,
        ...(m.isSummary ? { isSummary: true } : {}),
      }
    }
    const parts = partsOf(m)
    return {
      index: j,
      role: m.role,
      ...measure(m, encoding),
      parts,
      preview: preview(parts),
      ...(origin.from !== undefined ? { from: origin.from } : {}),
      ...(origin.kind === 'summary' ? { covers: origin.covers } : {}),
      ...(origin.kind === 'inserted' ? { inserted: true } : {}),
      ...(m.isSummary ? { isSummary: true } : {}),
    }
  })

  // Rows of the side-by-side view: one per message before (a summary spans the rows of the messages
  // it replaced), plus a row for each message the condensation added, after the one before it.
  const rows = []
  const afterAt = new Map() // before index -> the after message that starts at its row
  for (const a of afterData) {
    if (a.from !== undefined) afterAt.set(a.from, a.index)
    else if (a.covers) afterAt.set(a.covers[0], a.index)
  }
  let covered = 0
  beforeData.forEach((_b, i) => {
    const j = afterAt.get(i)
    if (j !== undefined) {
      const a = afterData[j]
      const span = a.covers ? a.covers[1] - a.covers[0] + 1 : 1
      rows.push({ before: i, after: j, span })
      covered = span - 1
    } else if (covered > 0) {
      rows.push({ before: i, after: null, covered: true })
      covered--
    } else rows.push({ before: i, after: null })
  })
  for (const a of afterData) {
    if (a.from !== undefined || a.covers) continue
    // After the row of the message before it (or its summary's last row), else first.
    let at = 0
    for (let k = a.index - 1; k >= 0; k--) {
      const r = rows.findIndex((row) => row.after === k)
      if (r >= 0) {
        at = r + (rows[r].span ?? 1)
        break
      }
    }
    rows.splice(at, 0, { before: null, after: a.index, span: 1 })
  }

  // Per pass: what its actions were (by kind) and how many messages it changed.
  const byPass = new Map()
  for (const b of beforeData) {
    const seen = new Set()
    for (const a of b.actions) {
      const key = a.pass ?? ''
      if (!byPass.has(key)) byPass.set(key, { kinds: {}, messages: 0 })
      const entry = byPass.get(key)
      entry.kinds[a.kind] = (entry.kinds[a.kind] ?? 0) + 1
      if (!seen.has(key)) entry.messages++
      seen.add(key)
    }
  }
  const passRows = passes.map((p) => ({
    id: p.id,
    name: p.name,
    tokensBefore: p.tokensBefore,
    tokensAfter: p.tokensAfter,
    tokensSaved: p.tokensBefore - p.tokensAfter,
    suppressed: p.suppressed,
    truncated: p.truncated,
    summarized: p.summarized,
    summarizeFallbacks: p.summarizeFallbacks,
    callbackCalls: p.callbackCalls,
    cost: p.cost,
    ...(p.skipped ? { skipped: p.skipped } : {}),
    ...(p.errors && p.errors.length ? { errors: p.errors } : {}),
    messagesChanged: byPass.has(p.id) ? byPass.get(p.id).messages : 0,
    actions: byPass.has(p.id) ? byPass.get(p.id).kinds : {},
  }))
  const unattributed = byPass.get('')

  const kindCounts = {}
  for (const b of beforeData) {
    const kinds = b.actions.length === 0 ? ['kept'] : [...new Set(b.actions.map((a) => a.kind))]
    for (const k of kinds) kindCounts[k] = (kindCounts[k] ?? 0) + 1
  }

  return {
    title: options.title ?? 'Condensation report',
    source: options.source,
    provider: metrics.provider,
    preset: options.preset,
    encoding,
    generatedAt: options.generatedAt,
    note:
      options.note ??
      (exact
        ? undefined
        : passes.length > 1
          ? 'Which pass changed a message is inferred from its markers and the pass totals (the history after each pass was not traced).'
          : undefined),
    error: result.error,
    totals: {
      tokensBefore: metrics.tokensBefore,
      tokensAfter: metrics.tokensAfter,
      tokensSaved: metrics.tokensSaved,
      reductionPercent: metrics.reductionPercent,
      reversibleTokensSaved: metrics.reversibleTokensSaved,
      supersededTokensSaved: metrics.supersededTokensSaved,
      messagesBefore: before.length,
      messagesAfter: result.messages.length,
      messagesChanged: metrics.messagesChanged,
      messagesRemoved: metrics.messagesRemoved,
      /** Messages before that anything happened to (changed, summarized, removed). */
      messagesAffected: beforeData.filter((b) => b.actions.length > 0).length,
      callbackCalls: metrics.callbackCalls,
      cost: metrics.cost,
      durationMs: metrics.durationMs,
    },
    operations: (metrics.operations || []).map((o) => ({
      id: o.id,
      name: o.name,
      count: o.count,
      tokensSaved: o.tokensSaved,
      reversibleTokensSaved: o.reversibleTokensSaved,
      supersededTokensSaved: o.supersededTokensSaved,
    })),
    passes: passRows,
    ...(unattributed ? { unattributed: { messagesChanged: unattributed.messages, actions: unattributed.kinds } } : {}),
    kinds: kindCounts,
    contentTypes: CONTENT_TYPES.map(([key, label, color]) => ({ key, label, color })),
    before: beforeData,
    after: afterData,
    rows,
    maxTokens: Math.max(1, ...beforeData.map((b) => b.tokens), ...afterData.map((a) => a.tokens)),
  }
}

// ---------------------------------------------------------------------------------------------
// HTML

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
function escapeHtml(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c])
}

/** JSON safe inside a <script> element: no `<` (so no `</script>` or `<!--`), no line separators. */
function scriptJson(value) {
  return JSON.stringify(value)
    .replace(/</g, '\\u003c')
    .replace(/>/g, '\\u003e')
    .replace(/&/g, '\\u0026')
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029')
}

const fmt = (n) => (typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '—')
const pct = (n) => (typeof n === 'number' && Number.isFinite(n) ? `${n.toFixed(1)}%` : '—')
const plural = (n, one, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`

/** Bar length: the square root of the tokens by default (small messages stay visible beside large
 * ones); the page switches to tokens. */
const barWidth = (tokens, maxTokens) => Math.max(0, Math.min(100, (100 * Math.sqrt(tokens)) / Math.sqrt(maxTokens)))

function barHtml(side, item, maxTokens) {
  const width = barWidth(item.tokens, maxTokens)
  const segments = CONTENT_TYPES.filter(([key]) => item.types[key] > 0)
    .map(
      ([key, label]) =>
        `<span class="seg t-${key}" style="flex:${item.types[key]} 1 0" title="${escapeHtml(`${label}: ${fmt(item.types[key])} tokens`)}"></span>`,
    )
    .join('')
  const label = `${side === 'before' ? 'Before' : 'After'} #${item.index}, ${item.role}, ${fmt(item.tokens)} tokens`
  return `<button type="button" class="bar" data-side="${side}" data-index="${item.index}" data-tokens="${item.tokens}" style="width:${width.toFixed(3)}%" aria-label="${escapeHtml(label)}" title="${escapeHtml(`${label}\n${item.preview}`)}">${segments}</button>`
}

function badgesHtml(actions) {
  if (actions.length === 0) return ''
  const out = []
  const shown = new Set()
  for (const a of actions) {
    const key = `${a.kind}:${a.ref ?? ''}:${a.pass ?? ''}`
    if (shown.has(key)) continue
    shown.add(key)
    const same = actions.filter((x) => `${x.kind}:${x.ref ?? ''}:${x.pass ?? ''}` === key)
    const title = `${a.passName}: ${same.map((x) => x.marker ?? KINDS[x.kind]).join('\n')}`
    const count = same.length > 1 ? ` ×${same.length}` : ''
    if ((a.kind === 'deduplicated' || a.kind === 'omitted' || a.kind === 'superseded') && a.ref !== undefined) {
      const arrow = a.kind === 'superseded' ? `superseded by #${a.ref}` : a.kind === 'omitted' ? `omitted, copy of #${a.ref}` : `dedup → #${a.ref}`
      out.push(`<a class="badge k-${a.kind} ref" href="#b-${a.ref}" data-ref="${a.ref}" title="${escapeHtml(title)}">${escapeHtml(arrow + count)}</a>`)
    } else {
      out.push(`<span class="badge k-${a.kind}" title="${escapeHtml(title)}">${escapeHtml(KINDS[a.kind] + count)}</span>`)
    }
  }
  return out.join('')
}

function roleHtml(role, isSummary) {
  const r = role === 'assistant' ? 'A' : role === 'user' ? 'U' : '?'
  return `<span class="role r-${escapeHtml(role)}${isSummary ? ' summary' : ''}" title="${escapeHtml(isSummary ? `${role} (summary)` : role)}">${isSummary ? 'Σ' : r}</span>`
}

const badgeLine = (html) => (html ? `<div class="badges">${html}</div>` : '')

function cellsHtml(data) {
  const out = []
  data.rows.forEach((row, r) => {
    const gridRow = r + 2
    if (row.before !== null) {
      const b = data.before[row.before]
      out.push(
        `<div class="cell before" id="b-${b.index}" data-index="${b.index}" style="grid-row:${gridRow}">` +
          `<span class="idx">#${b.index}</span>${roleHtml(b.role, b.isSummary)}<div class="track">${barHtml('before', b, data.maxTokens)}</div>` +
          `<span class="tok">${fmt(b.tokens)}</span>${badgeLine(badgesHtml(b.actions))}</div>`,
      )
    } else {
      out.push(`<div class="cell before empty" style="grid-row:${gridRow}"><span class="note">added by the condensation</span></div>`)
    }
    if (row.after !== null) {
      const a = data.after[row.after]
      const orig =
        a.from !== undefined ? data.before[a.from].tokens : a.covers ? data.before.slice(a.covers[0], a.covers[1] + 1).reduce((n, x) => n + x.tokens, 0) : 0
      const ghost = orig > a.tokens ? `<span class="ghost" data-tokens="${orig}" style="width:${barWidth(orig, data.maxTokens).toFixed(3)}%"></span>` : ''
      const delta = orig > 0 && orig !== a.tokens ? `<span class="delta">${a.tokens < orig ? '−' : '+'}${fmt(Math.abs(orig - a.tokens))}</span>` : ''
      let state
      if (a.same !== undefined) state = ''
      else if (a.covers)
        state = `<span class="badge k-summarized">summary of #${a.covers[0]}–#${a.covers[1]} (${plural(a.covers[1] - a.covers[0] + 1, 'message')})</span>`
      else if (a.inserted) state = '<span class="badge k-changed">added</span>'
      else state = badgesHtml(data.before[a.from].actions.filter((x) => x.kind !== 'removed'))
      out.push(
        `<div class="cell after${a.covers ? ' spans' : ''}" id="a-${a.index}" data-index="${a.index}"${a.from !== undefined ? ` data-from="${a.from}"` : ''}${a.covers ? ` data-covers="${a.covers[0]}-${a.covers[1]}"` : ''} style="grid-row:${gridRow} / span ${row.span}">` +
          `<span class="idx">#${a.index}</span>${roleHtml(a.role, a.isSummary)}<div class="track">${ghost}${barHtml('after', a, data.maxTokens)}</div>` +
          `<span class="tok">${fmt(a.tokens)}${delta}</span>${badgeLine(state)}</div>`,
      )
    } else if (!row.covered) {
      out.push(`<div class="cell after empty" style="grid-row:${gridRow}"><span class="note">removed</span></div>`)
    }
  })
  return out.join('\n')
}

function actionsSummary(kinds) {
  const order = ['deduplicated', 'superseded', 'omitted', 'truncated', 'suppressed', 'summarized', 'removed', 'changed']
  return order
    .filter((k) => kinds[k] > 0)
    .map((k) => `<span class="chip k-${k}">${fmt(kinds[k])} ${KINDS[k]}</span>`)
    .join(' ')
}

/** A pass's tokens as a bar of the history's size: what is left, then what the pass removed. */
function waterfall(before, after, total) {
  if (!(total > 0)) return ''
  const left = (100 * Math.min(before, after)) / total
  const cut = (100 * Math.max(0, before - after)) / total
  return `<div class="wf" title="${escapeHtml(`${fmt(before)} → ${fmt(after)} tokens`)}"><span class="wf-left" style="width:${left.toFixed(2)}%"></span><span class="wf-cut" style="width:${cut.toFixed(2)}%"></span></div>`
}

/** The engine's own counts of a pass (content blocks, or messages for whole-history summaries). */
function blockCounts(p) {
  const fields = ['suppressed', 'truncated', 'summarized']
  const shown = fields.filter((f) => p[f] > 0)
  const parts = fields.map((f) => `<span data-field="${f}" data-value="${p[f]}"${p[f] > 0 ? '' : ' hidden'}>${fmt(p[f])} ${f}</span>`)
  // Separators between the shown counts only.
  const html = parts.map((h, k) => (k > 0 && p[fields[k]] > 0 && shown.indexOf(fields[k]) > 0 ? ` · ${h}` : h)).join('')
  return `<div class="pnote blocks"${shown.length ? '' : ' hidden'} title="the engine's counts: content blocks (messages, for a summary of the conversation)">engine: ${html}</div>`
}

function passesHtml(data) {
  const t = data.totals
  const num = (field, value, text = fmt(value)) => `<td class="num" data-field="${field}" data-value="${value ?? ''}">${text}</td>`
  const saved = (n) => (n > 0 ? `−${fmt(n)}` : fmt(n))
  const rows = data.passes.map((p, n) => {
    const notes = []
    if (p.skipped) notes.push(`skipped: ${p.skipped}`)
    if (p.summarizeFallbacks > 0) notes.push(`${plural(p.summarizeFallbacks, 'summary', 'summaries')} truncated instead`)
    if (p.callbackCalls > 0) notes.push(plural(p.callbackCalls, 'model call'))
    if (p.errors) notes.push(...p.errors)
    return (
      `<tr data-pass="${escapeHtml(p.id)}"${p.skipped ? ' class="skipped"' : ''}><td class="num n">${n + 1}</td>` +
      `<td class="pcell"><span class="pname" title="${escapeHtml(p.id)}">${escapeHtml(p.name)}</span>${notes.length ? `<div class="pnote">${escapeHtml(notes.join('; '))}</div>` : ''}</td>` +
      num('tokensBefore', p.tokensBefore) +
      num('tokensAfter', p.tokensAfter) +
      num('tokensSaved', p.tokensSaved, saved(p.tokensSaved)) +
      `<td class="wfc">${waterfall(p.tokensBefore, p.tokensAfter, t.tokensBefore)}</td>` +
      num('messagesChanged', p.messagesChanged) +
      `<td class="acts">${actionsSummary(p.actions)}${blockCounts(p)}</td></tr>`
    )
  })
  if (data.passes.length === 0) {
    rows.push(
      `<tr data-pass="${escapeHtml(data.provider)}"><td class="num n">1</td><td class="pcell"><span class="pname">${escapeHtml(data.provider)}</span></td>` +
        num('tokensBefore', t.tokensBefore) +
        num('tokensAfter', t.tokensAfter) +
        num('tokensSaved', t.tokensSaved, saved(t.tokensSaved)) +
        `<td class="wfc">${waterfall(t.tokensBefore, t.tokensAfter, t.tokensBefore)}</td>` +
        num('messagesChanged', t.messagesChanged) +
        `<td class="acts">${actionsSummary((data.unattributed && data.unattributed.actions) || {})}</td></tr>`,
    )
  } else if (data.unattributed) {
    rows.push(
      `<tr class="unattributed"><td></td><td class="pcell" colspan="5"><span class="pname">not attributed to one pass</span></td><td class="num">${fmt(data.unattributed.messagesChanged)}</td><td class="acts">${actionsSummary(data.unattributed.actions)}</td></tr>`,
    )
  }
  const total =
    `<tr class="total" data-total><td></td><td class="pcell">Total <span class="red" data-field="reductionPercent" data-value="${t.reductionPercent}">−${pct(t.reductionPercent)}</span></td>` +
    num('tokensBefore', t.tokensBefore) +
    num('tokensAfter', t.tokensAfter) +
    num('tokensSaved', t.tokensSaved, saved(t.tokensSaved)) +
    `<td class="wfc">${waterfall(t.tokensBefore, t.tokensAfter, t.tokensBefore)}</td>` +
    num('messagesAffected', t.messagesAffected) +
    `<td class="acts">${actionsSummary(data.kinds)}</td></tr>`
  let ops = ''
  if (data.operations.length > 0) {
    ops =
      `<table class="passes ops" id="operations"><thead><tr><th>Lossless operation</th><th class="num">edits</th><th class="num">tokens saved</th><th class="num">restorable</th><th class="num">superseded</th></tr></thead><tbody>` +
      data.operations
        .map(
          (o) =>
            `<tr data-operation="${escapeHtml(o.id)}"><td><span title="${escapeHtml(o.id)}">${escapeHtml(o.name)}</span></td>${num('count', o.count)}${num('tokensSaved', o.tokensSaved)}<td class="num">${fmt(o.reversibleTokensSaved)}</td><td class="num">${fmt(o.supersededTokensSaved)}</td></tr>`,
        )
        .join('') +
      '</tbody></table>'
  }
  const th = (text, title, cls = 'num') => `<th class="${cls}"${title ? ` title="${escapeHtml(title)}"` : ''}>${escapeHtml(text)}</th>`
  return (
    `<table class="passes" id="passes"><thead><tr>${th('#')}${th('Pass', 'hover a name for its id', '')}${th('tokens before')}${th('after')}${th('saved')}${th('', 'what is left of the history, and what the pass removed', 'wfc')}` +
    `${th('msgs', 'messages the pass changed')}${th('what it did to messages', "per message, from its markers; below, the engine's counts of content blocks", '')}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody><tfoot>${total}</tfoot></table>${ops}`
  )
}

function legendHtml(data) {
  const used = new Set()
  for (const m of [...data.before, ...data.after]) for (const k of Object.keys(m.types)) used.add(k)
  const types = CONTENT_TYPES.filter(([key]) => used.has(key) || key !== 'other')
    .map(([key, label]) => `<span class="lg${used.has(key) ? '' : ' unused'}"><i class="sw t-${key}"></i>${escapeHtml(label)}</span>`)
    .join('')
  const kinds = ['kept', 'deduplicated', 'superseded', 'omitted', 'truncated', 'suppressed', 'summarized', 'removed']
    .map((k) => `<span class="badge k-${k}">${k === 'kept' ? 'kept: no badge' : KINDS[k]}</span>`)
    .join('')
  return `<div class="legend" id="legend"><div><b>Content</b>${types}</div><div><b>What happened</b>${kinds}<span class="lg"><i class="sw ghost-sw"></i>tokens removed</span></div></div>`
}

const CSS = `
:root{--bg:#f5f6f8;--card:#fff;--fg:#1f2430;--muted:#6b7280;--line:#e4e7ec;--accent:#2563eb;--hl:#fff4c2}
*{box-sizing:border-box}
html,body{margin:0}
body{font:13px/1.45 system-ui,-apple-system,"Segoe UI",Roboto,"Helvetica Neue",Arial,sans-serif;color:var(--fg);background:var(--bg)}
code,pre,.mono{font-family:ui-monospace,SFMono-Regular,Menlo,Consolas,"Liberation Mono",monospace}
.layout{display:grid;grid-template-columns:minmax(0,1fr) 430px;min-height:100vh}
.content{padding:18px 22px 40px;min-width:0}
header{display:flex;flex-wrap:wrap;justify-content:space-between;align-items:flex-start;gap:8px 16px;margin-bottom:12px}
header .titles{flex:1 1 260px;min-width:0}
header h1{font-size:20px;margin:0 0 2px}
header .sub{color:var(--muted)}
header .sub code{background:#eceff3;padding:0 4px;border-radius:3px}
.kpis{display:flex;gap:8px;flex-wrap:wrap}
.kpi{background:var(--card);border:1px solid var(--line);border-radius:8px;padding:6px 11px;min-width:112px}
.kpi .v{font-size:18px;font-weight:650;font-variant-numeric:tabular-nums}
.kpi .l{color:var(--muted);font-size:12px}
.kpi.good .v{color:#15803d}
.banner{border-radius:8px;padding:8px 12px;margin-bottom:12px;border:1px solid}
.banner.error{background:#fef2f2;border-color:#fecaca;color:#991b1b}
.banner.note{background:#eff6ff;border-color:#bfdbfe;color:#1e3a8a}
table.passes{border-collapse:collapse;width:100%;background:var(--card);border:1px solid var(--line);border-radius:8px;overflow:hidden;margin-bottom:12px;font-variant-numeric:tabular-nums}
table.passes th,table.passes td{padding:4px 7px;border-bottom:1px solid var(--line);text-align:left;vertical-align:top}
table.passes th{background:#f0f2f5;font-weight:600;font-size:12px;color:#404756;white-space:nowrap}
table.passes .num{text-align:right;white-space:nowrap}
table.passes code{color:var(--muted);font-size:11px}
table.passes tr.skipped td{color:var(--muted)}
table.passes tfoot td{font-weight:650;background:#f8f9fb;border-bottom:0}
table.passes .pcell{min-width:170px}
table.passes .pname{font-weight:560}
table.passes .red{color:#15803d;margin-left:6px}
table.passes td.n{color:var(--muted);width:22px}
table.passes .acts{min-width:240px}
table.passes.ops{width:auto;min-width:50%}
.wfc{width:96px}
.wf{display:flex;width:90px;height:10px;margin-top:4px;background:#f1f3f6;border-radius:2px;overflow:hidden}
.wf-left{background:#64748b}
.wf-cut{border:1px dashed #9aa3b2;border-left:0;background:repeating-linear-gradient(135deg,#eef0f4 0 3px,#fff 3px 6px)}
.pnote{color:var(--muted);font-size:11.5px;margin-top:2px}
.chip{display:inline-block;font-size:11px;padding:0 6px;border-radius:9px;margin:1px 2px 1px 0;border:1px solid transparent}
.legend{display:flex;flex-wrap:wrap;gap:6px 22px;align-items:center;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:8px 12px;margin-bottom:12px}
.legend>div{display:flex;flex-wrap:wrap;gap:4px 10px;align-items:center}
.legend b{margin-right:4px;font-size:12px}
.lg{display:inline-flex;align-items:center;gap:5px;font-size:12px}
.lg.unused{opacity:.45}
.sw{display:inline-block;width:12px;height:12px;border-radius:3px}
.ghost-sw{border:1px dashed #9aa3b2;background:repeating-linear-gradient(135deg,#eef0f4 0 3px,#fff 3px 6px)}
.toolbar{display:flex;justify-content:space-between;align-items:center;margin:4px 0 6px;color:var(--muted);font-size:12px}
.seg-toggle button{font:inherit;border:1px solid var(--line);background:var(--card);padding:2px 9px;cursor:pointer;color:var(--fg)}
.seg-toggle button:first-of-type{border-radius:6px 0 0 6px}.seg-toggle button:last-of-type{border-radius:0 6px 6px 0;border-left:0}
.seg-toggle .lbl{margin-right:6px}
.seg-toggle button[aria-pressed=true]{background:#1f2430;color:#fff;border-color:#1f2430}
.messages{display:grid;grid-template-columns:minmax(0,1fr) minmax(0,1fr);column-gap:14px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:0 10px 6px}
.colhead{position:sticky;top:0;z-index:3;background:var(--card);padding:8px 4px 6px;border-bottom:2px solid var(--line);font-weight:650;display:flex;justify-content:space-between}
.colhead span{color:var(--muted);font-weight:500}
.cell{display:grid;grid-template-columns:34px 18px minmax(0,1fr) 74px;grid-template-rows:auto auto;align-items:center;column-gap:6px;padding:4px 4px;border-bottom:1px solid #f0f1f4;min-height:30px;scroll-margin:80px}
.cell.empty{display:flex;align-items:center}
.cell .note{color:#b0b6c2;font-style:italic;font-size:12px}
.cell.spans{align-content:start;background:linear-gradient(90deg,#fff0f3,#fff 70%);border-left:3px solid #ff9da6}
.cell.highlight{background:var(--hl);box-shadow:inset 3px 0 0 #f59e0b}
.cell.selected{background:#eef4ff}
.idx{color:var(--muted);font-size:11.5px;text-align:right;font-variant-numeric:tabular-nums}
.role{display:inline-flex;justify-content:center;align-items:center;width:17px;height:17px;border-radius:50%;font-size:10px;font-weight:700;color:#fff;background:#64748b}
.role.r-user{background:#4c78a8}.role.r-assistant{background:#54a24b}.role.summary{background:#e76f86}
.track{position:relative;height:16px;min-width:0}
.bar{position:relative;z-index:1;display:flex;height:16px;min-width:3px;max-width:100%;padding:0;margin:0;border:0;border-radius:3px;overflow:hidden;cursor:pointer;background:#d5d9e0}
.bar:hover{filter:brightness(1.08);box-shadow:0 0 0 2px #c7d2fe}
.bar:focus-visible,.bar.selected{outline:2px solid var(--accent);outline-offset:1px}
.seg{display:block;height:100%;min-width:0}
.ghost{position:absolute;left:0;top:0;height:16px;border:1px dashed #9aa3b2;border-radius:3px;background:repeating-linear-gradient(135deg,#eef0f4 0 3px,#fff 3px 6px)}
.tok{text-align:right;font-variant-numeric:tabular-nums;font-size:12px;white-space:nowrap}
.delta{display:block;color:#15803d;font-size:11px;line-height:1.1}
.badges{grid-column:3/5;display:flex;flex-wrap:wrap;gap:3px;margin-top:2px}
.badge{display:inline-block;font-size:10.5px;line-height:16px;padding:0 6px;border-radius:8px;white-space:nowrap;text-decoration:none;border:1px solid transparent}
a.badge:hover{text-decoration:underline}
.k-kept{background:#f1f3f6;color:#6b7280}
.k-deduplicated{background:#dbeafe;color:#1e40af;border-color:#bfdbfe}
.k-superseded{background:#e2e8f0;color:#334155}
.k-omitted{background:#e0f2fe;color:#075985}
.k-truncated{background:#fef3c7;color:#92400e}
.k-suppressed{background:#e5e7eb;color:#374151}
.k-summarized{background:#fce7f3;color:#9d174d}
.k-removed{background:#fee2e2;color:#991b1b}
.k-changed{background:#ede9fe;color:#5b21b6}
${CONTENT_TYPES.map(([key, , color]) => `.t-${key}{background:${color}}`).join('\n')}
aside.panel{position:sticky;top:0;height:100vh;overflow:auto;background:var(--card);border-left:1px solid var(--line);padding:16px 18px 30px}
.panel h2{font-size:15px;margin:0 0 4px}
.panel .hint{color:var(--muted)}
.panel .meta{color:var(--muted);margin-bottom:8px}
.panel h3{font-size:12px;text-transform:uppercase;letter-spacing:.04em;color:var(--muted);margin:14px 0 6px}
.p-switch{display:inline-flex;margin:4px 0 8px}
.p-types{display:flex;height:10px;border-radius:3px;overflow:hidden;margin:6px 0 4px;background:#eceff3}
.p-typelist{display:flex;flex-wrap:wrap;gap:2px 10px;font-size:12px;color:#404756}
.p-actions{margin:0;padding-left:18px}
.p-actions li{margin-bottom:4px}
.p-actions .m{display:block;color:var(--muted);font-size:11.5px;word-break:break-word}
.part{margin-bottom:10px;border:1px solid var(--line);border-radius:6px;overflow:hidden}
.part-label{background:#f3f4f7;font-size:11.5px;padding:3px 8px;color:#404756;display:flex;justify-content:space-between}
.part pre{margin:0;padding:8px;white-space:pre-wrap;word-break:break-word;font-size:11.5px;line-height:1.45;max-height:none}
mark.marker{background:#fff1b8;color:#5c3d00;border-radius:3px;padding:0 2px}
mark.marker a{color:#1e40af}
a{color:var(--accent)}
`

/** The page's script: the full-text panel, links to kept copies, the bar scale. Uses textContent only. */
function clientScript() {
  const data = JSON.parse(document.getElementById('report-data').textContent)
  const KIND_LABEL = {
    kept: 'kept',
    deduplicated: 'deduplicated',
    superseded: 'superseded',
    omitted: 'omitted',
    truncated: 'truncated',
    suppressed: 'suppressed',
    summarized: 'summarized',
    removed: 'removed',
    changed: 'changed',
  }
  const panel = document.getElementById('panel')
  const fmt = (n) => Number(n).toLocaleString('en-US')
  const el = (tag, cls, text) => {
    const e = document.createElement(tag)
    if (cls) e.className = cls
    if (text !== undefined) e.textContent = text
    return e
  }
  const refLink = (n, text) => {
    const a = el('a', 'ref', text)
    a.href = `#b-${n}`
    a.dataset.ref = String(n)
    return a
  }
  /** Text with the engine's markers highlighted and their "message #N" linked. */
  const markerRe = /⟨ (?:Reference: |Superseded[ :]|Omitted: |Content suppressed: |… truncated: |Summary of the )[^⟩]*⟩/g
  function richText(parent, text) {
    let at = 0
    for (const m of text.matchAll(markerRe)) {
      if (m.index > at) parent.appendChild(document.createTextNode(text.slice(at, m.index)))
      const mark = el('mark', 'marker')
      let inner = 0
      for (const r of m[0].matchAll(/message #(\d+)/g)) {
        if (r.index > inner) mark.appendChild(document.createTextNode(m[0].slice(inner, r.index)))
        if (Number(r[1]) < data.before.length) mark.appendChild(refLink(Number(r[1]), r[0]))
        else mark.appendChild(document.createTextNode(r[0]))
        inner = r.index + r[0].length
      }
      mark.appendChild(document.createTextNode(m[0].slice(inner)))
      parent.appendChild(mark)
      at = m.index + m[0].length
    }
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)))
  }
  const itemOf = (side, index) => (side === 'before' ? data.before[index] : data.after[index])
  const partsOf = (item, side) => (side === 'after' && item.same !== undefined ? data.before[item.same].parts : item.parts)
  /** The other side's version of a message, when there is one. */
  function counterpart(side, index) {
    if (side === 'before') {
      const a = data.after.find((x) => x.from === index || (x.covers && x.covers[0] <= index && index <= x.covers[1]))
      return a ? ['after', a.index] : null
    }
    const a = data.after[index]
    if (a.from !== undefined) return ['before', a.from]
    if (a.covers) return ['before', a.covers[0]]
    return null
  }
  let current = null
  function select(side, index) {
    document.querySelectorAll('.bar.selected').forEach((b) => b.classList.remove('selected'))
    document.querySelectorAll('.cell.selected').forEach((c) => c.classList.remove('selected'))
    const bar = document.querySelector(`.bar[data-side="${side}"][data-index="${index}"]`)
    if (bar) {
      bar.classList.add('selected')
      bar.closest('.cell').classList.add('selected')
    }
  }
  function show(side, index) {
    const item = itemOf(side, index)
    if (!item) return
    current = [side, index]
    select(side, index)
    panel.replaceChildren()
    panel.dataset.side = side
    panel.dataset.index = String(index)
    const head = el('h2', null, `${side === 'before' ? 'Before' : 'After'} #${index} · ${item.role}${item.isSummary ? ' · summary' : ''}`)
    panel.appendChild(head)
    panel.appendChild(el('div', 'meta', `${fmt(item.tokens)} tokens`))
    const other = counterpart(side, index)
    const sw = el('div', 'seg-toggle p-switch')
    for (const s of ['before', 'after']) {
      const b = el('button', null, s === 'before' ? 'Before' : 'After')
      b.type = 'button'
      b.setAttribute('aria-pressed', String(s === side))
      const target = s === side ? [side, index] : other && other[0] === s ? other : null
      if (target) b.addEventListener('click', () => show(target[0], target[1]))
      else b.disabled = true
      sw.appendChild(b)
    }
    panel.appendChild(sw)
    const bar = el('div', 'p-types')
    const list = el('div', 'p-typelist')
    for (const t of data.contentTypes) {
      const n = item.types[t.key]
      if (!n) continue
      const seg = el('span', `seg t-${t.key}`)
      seg.style.flex = `${n} 1 0`
      bar.appendChild(seg)
      const li = el('span', 'lg')
      li.appendChild(el('i', `sw t-${t.key}`))
      li.appendChild(document.createTextNode(`${t.label} ${fmt(n)}`))
      list.appendChild(li)
    }
    panel.appendChild(bar)
    panel.appendChild(list)
    // What happened.
    const beforeItem = side === 'before' ? item : item.from !== undefined ? data.before[item.from] : null
    panel.appendChild(el('h3', null, 'What the passes did'))
    if (side === 'after' && item.covers) {
      const p = el('p')
      p.appendChild(document.createTextNode(`A summary replacing messages `))
      p.appendChild(refLink(item.covers[0], `#${item.covers[0]}`))
      p.appendChild(document.createTextNode(' to '))
      p.appendChild(refLink(item.covers[1], `#${item.covers[1]}`))
      p.appendChild(document.createTextNode(` (${fmt(item.covers[1] - item.covers[0] + 1)} messages).`))
      panel.appendChild(p)
    } else if (side === 'after' && item.inserted) {
      panel.appendChild(el('p', null, 'Added by the condensation.'))
    } else if (beforeItem && beforeItem.actions.length > 0) {
      const ol = el('ol', 'p-actions')
      for (const a of beforeItem.actions) {
        const li = el('li')
        li.appendChild(el('b', null, a.passName))
        li.appendChild(document.createTextNode(a.operationName ? ` (${a.operationName}): ` : ': '))
        li.appendChild(el('span', `badge k-${a.kind}`, KIND_LABEL[a.kind] || a.kind))
        if (a.kind === 'summarized' && a.whole) {
          li.appendChild(document.createTextNode(' into a summary'))
        }
        if (a.ref !== undefined) {
          li.appendChild(document.createTextNode(a.kind === 'superseded' ? ' by ' : ' → kept copy '))
          li.appendChild(refLink(a.ref, `#${a.ref}`))
        }
        if (a.marker) {
          const m = el('span', 'm')
          richText(m, a.marker)
          li.appendChild(m)
        }
        ol.appendChild(li)
      }
      panel.appendChild(ol)
    } else panel.appendChild(el('p', null, 'Kept as it was.'))
    if (other) {
      const o = itemOf(other[0], other[1])
      const p = el('p', 'meta')
      const a = el('a', null, `${other[0] === 'before' ? 'Before' : 'After'} #${other[1]}`)
      a.href = '#'
      a.addEventListener('click', (e) => {
        e.preventDefault()
        show(other[0], other[1])
      })
      p.appendChild(document.createTextNode('Other side: '))
      p.appendChild(a)
      p.appendChild(document.createTextNode(`, ${fmt(o.tokens)} tokens`))
      panel.appendChild(p)
    }
    // The full text.
    panel.appendChild(el('h3', null, 'Full text'))
    const text = el('div', 'p-text')
    text.id = 'panel-text'
    for (const part of partsOf(item, side)) {
      const box = el('div', 'part')
      const label = el('div', 'part-label')
      label.appendChild(el('span', null, part.label))
      label.appendChild(el('span', null, `${fmt(part.text.length)} chars`))
      box.appendChild(label)
      const pre = el('pre')
      richText(pre, part.text)
      box.appendChild(pre)
      text.appendChild(box)
    }
    panel.appendChild(text)
    panel.scrollTop = 0
  }
  function goTo(index) {
    const cell = document.getElementById(`b-${index}`)
    if (!cell) return
    document.querySelectorAll('.cell.highlight').forEach((c) => c.classList.remove('highlight'))
    cell.classList.add('highlight')
    const other = counterpart('before', index)
    if (other) {
      const a = document.getElementById(`a-${other[1]}`)
      if (a) a.classList.add('highlight')
    }
    cell.scrollIntoView({ block: 'center' })
    show('before', index)
    if (history.replaceState) history.replaceState(null, '', `#b-${index}`)
  }
  document.addEventListener('click', (e) => {
    const target = e.target instanceof Element ? e.target : null
    if (!target) return
    const ref = target.closest('a[data-ref]')
    if (ref) {
      e.preventDefault()
      goTo(Number(ref.dataset.ref))
      return
    }
    const bar = target.closest('.bar')
    if (bar) show(bar.dataset.side, Number(bar.dataset.index))
  })
  // Bar length: tokens, or their square root (small messages stay visible beside large ones).
  function scale(mode) {
    const f = mode === 'sqrt' ? Math.sqrt : (x) => x
    const max = f(data.maxTokens)
    document.querySelectorAll('.bar[data-tokens], .ghost[data-tokens]').forEach((b) => {
      b.style.width = `${((100 * f(Number(b.dataset.tokens))) / max).toFixed(3)}%`
    })
    document.querySelectorAll('[data-scale]').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.scale === mode)))
  }
  document.querySelectorAll('[data-scale]').forEach((b) => b.addEventListener('click', () => scale(b.dataset.scale)))
  document.addEventListener('keydown', (e) => {
    if (!current || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') || e.target instanceof HTMLInputElement) return
    const [side, index] = current
    const list = side === 'before' ? data.before : data.after
    const next = index + (e.key === 'ArrowDown' ? 1 : -1)
    if (next < 0 || next >= list.length) return
    e.preventDefault()
    show(side, next)
    const bar = document.querySelector(`.bar[data-side="${side}"][data-index="${next}"]`)
    if (bar) bar.scrollIntoView({ block: 'nearest' })
  })
  const hash = /^#b-(\d+)$/.exec(location.hash)
  if (hash) goTo(Number(hash[1]))
  document.documentElement.dataset.ready = 'true'
}

/**
 * The report as one HTML page. `before`: the messages that were condensed (Anthropic format);
 * `result`: what `condense(before, …)` resolved to. Options: `title`, `source` (where the history
 * came from), `preset`, `stages` (from `traceCondense`: exact pass attribution), `note`,
 * `generatedAt` (an ISO date shown in the header).
 */
function renderHtmlReport(before, result, options = {}) {
  const data = buildReportData(before, result, options)
  const t = data.totals
  const provider = `${data.provider}${data.preset ? ` ${data.preset}` : ''}`
  const sub = [
    data.source ? `<code>${escapeHtml(data.source)}</code>` : null,
    `provider <b>${escapeHtml(provider)}</b>`,
    `encoding ${escapeHtml(data.encoding)}`,
    t.callbackCalls > 0 ? `${plural(t.callbackCalls, 'model call')}${t.cost > 0 ? `, $${t.cost.toFixed(4)}` : ''}` : null,
    data.generatedAt ? `generated ${escapeHtml(data.generatedAt)}` : null,
  ].filter(Boolean)
  const kpis = [
    ['tokens-before', fmt(t.tokensBefore), `tokens before · ${plural(t.messagesBefore, 'message')}`, ''],
    ['tokens-after', fmt(t.tokensAfter), `tokens after · ${plural(t.messagesAfter, 'message')}`, ''],
    ['tokens-saved', `−${fmt(t.tokensSaved)}`, `saved (−${pct(t.reductionPercent)})`, 'good'],
    ['messages-affected', fmt(t.messagesAffected), `of ${fmt(t.messagesBefore)} messages changed${t.messagesRemoved > 0 ? ' or summarized' : ''}`, ''],
  ]
  const restorable = t.reversibleTokensSaved > 0 ? `${fmt(t.reversibleTokensSaved)} tokens restorable by expandReferences` : null
  const sumBefore = data.before.reduce((n, b) => n + b.tokens, 0)
  const sumAfter = data.after.reduce((n, a) => n + a.tokens, 0)
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; img-src data:">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(data.title)}</title>
<style>${CSS}</style>
</head>
<body>
<div class="layout">
<div class="content">
<header>
<div class="titles"><h1>${escapeHtml(data.title)}</h1>
<div class="sub">${sub.join(' · ')}</div></div>
<div class="kpis">${kpis.map(([id, v, l, cls]) => `<div class="kpi ${cls}" id="kpi-${id}"><div class="v">${escapeHtml(v)}</div><div class="l">${escapeHtml(l)}</div></div>`).join('')}</div>
</header>
${data.error ? `<div class="banner error" role="alert">Not condensed: ${escapeHtml(data.error)}</div>` : ''}
${data.note ? `<div class="banner note">${escapeHtml(data.note)}</div>` : ''}
<section aria-label="Passes">${passesHtml(data)}${restorable ? `<div class="pnote">${escapeHtml(restorable)}</div>` : ''}</section>
${legendHtml(data)}
<div class="toolbar"><span>Click a bar for the message's full text; click a badge's #N for the copy it refers to.</span><span class="seg-toggle" role="group" aria-label="Bar length"><span class="lbl">bar length</span><button type="button" data-scale="sqrt" aria-pressed="true">√ tokens</button><button type="button" data-scale="linear" aria-pressed="false">tokens</button></span></div>
<main class="messages" id="messages" data-before="${data.before.length}" data-after="${data.after.length}">
<div class="colhead" style="grid-column:1;grid-row:1">Before <span>${plural(t.messagesBefore, 'message')} · ${fmt(sumBefore)} tokens</span></div>
<div class="colhead" style="grid-column:2;grid-row:1">After <span>${plural(t.messagesAfter, 'message')} · ${fmt(sumAfter)} tokens</span></div>
${cellsHtml(data)}
</main>
</div>
<aside class="panel" id="panel" aria-live="polite">
<h2>Message text</h2>
<p class="hint">Click a bar to see a message's full text, what each pass did to it, and its other side.</p>
<h3>Per content type</h3>
${legendTotals(data)}
</aside>
</div>
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>(${clientScript.toString()})()</script>
</body>
</html>
`
}

function legendTotals(data) {
  const sum = (list) => {
    const out = {}
    for (const m of list) for (const [k, v] of Object.entries(m.types)) out[k] = (out[k] ?? 0) + v
    return out
  }
  const b = sum(data.before)
  const a = sum(data.after)
  const rows = CONTENT_TYPES.filter(([key]) => b[key] || a[key])
    .map(
      ([key, label]) =>
        `<tr><td><i class="sw t-${key}"></i> ${escapeHtml(label)}</td><td class="num">${fmt(b[key] ?? 0)}</td><td class="num">${fmt(a[key] ?? 0)}</td></tr>`,
    )
    .join('')
  return `<table class="passes" id="types"><thead><tr><th>type</th><th class="num">before</th><th class="num">after</th></tr></thead><tbody>${rows}</tbody></table>`
}

module.exports = { renderHtmlReport, buildReportData, traceCondense, alignHistories, memoizeSummarize, escapeHtml, CONTENT_TYPES }
