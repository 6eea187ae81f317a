// Where each message of a condensed history came from in the one it was condensed from, and what
// each pass did to it (exact with the traced stages, inferred from markers and pass totals without).
'use strict'

const { losslessOperation, OPERATION_NAMES, markersOf } = require('./messages.js')

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

module.exports = { alignHistories, sameContent, traceActions }
