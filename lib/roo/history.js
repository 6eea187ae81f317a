// Roo's non-destructive histories: which stored messages the model is sent, rewinding and cleaning up
// after removals, where each message of a result comes from, references moved by a summary, and
// writing a result back as tags. Works on copies; the caller's messages are never mutated.
'use strict'

const native = require('../internal/native.js')
const { pushInChunks } = require('../internal/intake.js')
const { applyChanges } = require('../internal/apply.js')
const { describe, isObject } = require('../internal/values.js')
const { checkKnownKeys } = require('../internal/checks.js')
const { finite, checkArray } = require('./host.js')

// ---------------------------------------------------------------------------------------------
// Non-destructive histories: what is visible, the projection, rewinding.

/** What each message's Roo tags do, from the engine (`model::tag_states`): these bits. */
const SENT = 1
const SUMMARY_HIDES = 2
const TRUNCATION_PARENT_LIVE = 4
const COPY_IN_PLACE = 8
const COPY_HIDES = 16

/** Per message, the engine's tag state, given each message's marks as numbers (six per message). */
function tagStates(messages) {
  const ids = new Map()
  const id = (v) => {
    if (typeof v !== 'string' || v === '') return 0
    let n = ids.get(v)
    if (n === undefined) {
      n = ids.size + 1
      ids.set(v, n)
    }
    return n
  }
  const marks = new Int32Array(messages.length * 6)
  messages.forEach((m, i) => {
    if (!isObject(m)) return
    const at = i * 6
    marks[at] = id(m.condenseId)
    marks[at + 1] = id(m.truncationId)
    marks[at + 2] = id(m.condenseParent)
    marks[at + 3] = id(m.truncationParent)
    marks[at + 4] = id(m.condensedBy)
    marks[at + 5] = (m.isSummary === true ? 1 : 0) | (m.isTruncationMarker === true ? 2 : 0)
  })
  return native.visibleMessages(marks)
}

/** For each message, whether the model is sent it. */
function visibility(messages) {
  const states = tagStates(messages)
  const out = new Array(states.length)
  for (let i = 0; i < states.length; i++) out[i] = (states[i] & SENT) !== 0
  return out
}

/**
 * From today's Roo's last summary on (it starts there, and its summary tags hide nothing after
 * it): whether each message is sent, truncation aside — all but a message its shortened copy
 * stands in for and a copy out of place.
 */
const afterSummary = (m, s) => !(s & COPY_HIDES) && !(isObject(m) && m.condensedBy && !(s & COPY_IN_PLACE))

/** The projection and, for each of its messages, its index in the stored history. */
function project(messages) {
  const visible = visibility(messages)
  const effective = []
  const index = []
  for (let i = 0; i < messages.length; i++) {
    if (visible[i]) {
      effective.push(messages[i])
      index.push(i)
    }
  }
  return { effective, index, visible }
}

/**
 * Today's Roo's projection, what a first step or the manager's policy works on: from the last
 * summary on (today's Roo starts there, and that summary's tags hide nothing after it; without
 * one, from the first message), the messages neither hidden by a shortened copy nor by a live
 * truncation, truncation markers left out. `{ effective, index, visible }` as `project` answers.
 */
function projectFromSummary(messages) {
  const states = tagStates(messages)
  let at = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].isSummary === true) {
      at = i
      break
    }
  }
  // From the last summary on, its tags hide nothing (today's Roo starts there); before it, the rule.
  const visible = messages.map((m, i) =>
    i >= Math.max(at, 0) ? afterSummary(m, states[i]) && !(states[i] & TRUNCATION_PARENT_LIVE) : (states[i] & SENT) !== 0,
  )
  const effective = []
  const index = []
  messages.forEach((m, i) => {
    if (i >= Math.max(at, 0) && visible[i] && !(m && m.isTruncationMarker)) {
      effective.push(m)
      index.push(i)
    }
  })
  return { effective, index, visible }
}

/**
 * After messages were removed from a non-destructive history (a rewind, a deletion): tags whose
 * summary, marker or copy is gone are cleared, so those messages are sent again, and shortened
 * copies whose message is gone are dropped. Untouched messages are the caller's own objects.
 */
function cleanupAfterTruncation(messages) {
  checkArray(messages, 'cleanupAfterTruncation')
  const states = tagStates(messages)
  const out = []
  messages.forEach((m, i) => {
    if (!isObject(m)) return void out.push(m)
    const s = states[i]
    if (m.condensedBy && !(s & COPY_IN_PLACE)) return // its message is gone
    const clearCondense = Boolean(m.condenseParent) && !(s & (SUMMARY_HIDES | COPY_HIDES))
    const clearTruncation = Boolean(m.truncationParent) && !(s & TRUNCATION_PARENT_LIVE)
    if (!clearCondense && !clearTruncation) return void out.push(m)
    const copy = { ...m }
    if (clearCondense) delete copy.condenseParent
    if (clearTruncation) delete copy.truncationParent
    out.push(copy)
  })
  return out
}

/**
 * Rewinds a non-destructive history: drops the stored messages from `at` on (an index, or the
 * first message whose ts is at or after a timestamp, as Roo rewinds) and restores what only the
 * dropped summaries, markers and copies were hiding. A shortened copy goes with its message.
 */
function rewindConversation(messages, at) {
  checkArray(messages, 'rewindConversation')
  let cut
  if (typeof at === 'number') cut = at
  else if (isObject(at)) {
    // One of the two, given as a number: `{ index }` or `{ ts }`.
    checkKnownKeys(at, ['index', 'ts'], 'rewindConversation: at')
    const given = ['index', 'ts'].filter((k) => k in at)
    if (given.length !== 1) throw new TypeError(`rewindConversation: at: expected { index } or { ts }, got ${given.length === 0 ? 'neither' : 'both'}`)
    const [k] = given
    if (typeof at[k] !== 'number' || Number.isNaN(at[k])) throw new TypeError(`rewindConversation: at.${k}: expected a number, got ${describe(at[k])}`)
    if (k === 'index') cut = at.index
    else {
      cut = messages.findIndex((m) => m && typeof m.ts === 'number' && m.ts >= at.ts)
      if (cut < 0) cut = messages.length
    }
  } else throw new TypeError(`rewindConversation: at: expected an index or { index } or { ts }, got ${describe(at)}`)
  if (!Number.isInteger(cut)) throw new TypeError(`rewindConversation: at: expected a whole index, got ${describe(cut)}`)
  cut = Math.max(0, Math.min(messages.length, cut))
  while (
    cut > 0 &&
    cut < messages.length &&
    messages[cut] &&
    messages[cut].condensedBy &&
    messages[cut - 1] &&
    messages[cut - 1].condenseParent === messages[cut].condensedBy
  )
    cut--
  return cleanupAfterTruncation(messages.slice(0, cut))
}

// ---------------------------------------------------------------------------------------------
// Where each message of a result comes from: `{ from, to, kind }` over the input, kind "same"
// (the caller's object), "changed" (a shortened copy of input[from]) or "summary" (a new summary
// standing for input[from..to)).

/**
 * Origins of a provider's output from the engine's record (`result.provenance.origins`): a kept
 * message is "same" when it is still the input's object (the first message may have been put
 * back by the caller), a summary stands for the run it covers. Null when a written message covers
 * no run (several summaries in one gap: not a shape this entry takes on).
 */
function originsOf(engineOrigins, input, output) {
  const origins = engineOrigins.map((o, i) => {
    if (o.from !== undefined) return { from: o.from, to: o.from + 1, kind: output[i] === input[o.from] ? 'same' : 'changed' }
    return o.covers ? { from: o.covers[0], to: o.covers[1] + 1, kind: 'summary' } : null
  })
  return origins.includes(null) ? null : origins
}

/** Origins over the first input of a second step's output (`b` over the first step's output). */
function compose(a, b) {
  return b.map((o) => {
    const first = a[o.from]
    const last = a[o.to - 1]
    const kind = o.kind !== 'same' ? o.kind : o.to - o.from === 1 ? first.kind : 'summary'
    return { from: first.from, to: last.to, kind }
  })
}

// ---------------------------------------------------------------------------------------------
// References left by the lossless operations name positions; a summary after them moves or
// removes what they point at. The engine finds and rewrites them (`reference::follow_summary`).

/**
 * After a summary replaced `input[1..keepStart)` (the layout [input[0], summary, ...input[keepStart..]]),
 * the references in the messages a first step changed point at positions of `input`: those into
 * the summarized part are expanded back (the bytes are gone otherwise), the others renumbered.
 */
async function fixReferences(input, output, keepStart, changedAt, signal) {
  const only = input.map((_m, j) => (j === 0 || j >= keepStart) && changedAt(j))
  if (!only.includes(true)) return output // no message the first step changed is kept
  // The history crosses in slices (the event loop stays free); its values crossed the first step.
  const history = new native.History()
  const problem = await pushInChunks(history, input, signal)
  if (problem) throw new TypeError(`summarizeConversation: ${problem}`)
  const fixed = applyChanges(input, history.followSummary(keepStart, only).changes)
  return output.map((m, i) => {
    if (i === 1) return m
    const j = i === 0 ? 0 : keepStart + i - 2
    return fixed[j] !== input[j] ? fixed[j] : m
  })
}

// ---------------------------------------------------------------------------------------------
// Results written into a non-destructive history.

const TAGS = ['condenseParent', 'truncationParent', 'condensedBy']

/**
 * The stored history after a condensation of its projection: messages a summary stands for get
 * `condenseParent` (unless something still hides them), the summary goes right after them; a
 * shortened message gets `condenseParent` and its copy (`condensedBy`) right after it. The first
 * message is never changed. Nothing is removed.
 */
function writeNonDestructive(stored, index, visible, effective, output, origins, id) {
  const n = stored.length
  const tagged = new Array(n).fill(false)
  const before = new Map()
  const after = new Map()
  const add = (map, at, m) => (map.has(at) ? map.get(at).push(m) : map.set(at, [m]))
  for (let i = 0; i < output.length; i++) {
    const o = origins[i]
    if (o.kind === 'same' || o.from === 0) continue
    if (o.kind === 'summary') {
      const start = index[o.from - 1] + 1
      const end = o.to < effective.length ? index[o.to] : n
      for (let si = start; si < end; si++) {
        // Already hidden by an earlier summary or copy: that one stays in charge of it.
        if (!(stored[si].condenseParent && !visible[si])) tagged[si] = true
      }
      add(before, end, output[i])
    } else {
      const si = index[o.from]
      tagged[si] = true
      const copy = { ...output[i] }
      for (const t of TAGS) delete copy[t]
      copy.condensedBy = id
      add(after, si, copy)
    }
  }
  const out = []
  for (let si = 0; si <= n; si++) {
    if (before.has(si)) out.push(...before.get(si))
    if (si === n) break
    out.push(tagged[si] ? { ...stored[si], condenseParent: id } : stored[si])
    if (after.has(si)) out.push(...after.get(si))
  }
  return out
}

/** Roo's summary message; non-destructive ones carry their id and a ts just before the kept part. */
function summaryMessage(content, firstKept, condenseId) {
  const m = { role: 'assistant', content }
  const ts = firstKept ? firstKept.ts : undefined
  if (ts !== undefined) m.ts = condenseId !== undefined && finite(ts) ? ts - 1 : ts
  m.isSummary = true
  if (condenseId !== undefined) m.condenseId = condenseId
  return m
}

/**
 * What the model is sent. Today (and after a fresh-start summary, a user one): from the last
 * summary on, without tool_results whose tool_use is gone and without what a marker
 * hides. Otherwise: the stored history without the messages a summary, a shortened copy or a
 * sliding-window marker stands in for. The caller's objects, never copied unless a block is dropped.
 */
function effectiveHistory(messages, era) {
  checkArray(messages, 'getEffectiveApiHistory')
  let at = -1
  for (let i = messages.length - 1; i >= 0; i--) {
    if (messages[i] && messages[i].isSummary === true) {
      at = i
      break
    }
  }
  // Today's Roo starts from its last summary, whatever its role; before, only a fresh-start (user)
  // summary is read that way.
  if (at >= 0 && (era.freshStart || messages[at].role === 'user')) {
    // A shortened copy (this package's first step) stands in for its message here too.
    const states = tagStates(messages)
    const from = messages
      .slice(at)
      .filter((m, k) => (afterSummary(m, states[at + k]) && !(states[at + k] & TRUNCATION_PARENT_LIVE)) || (m && m.truncationParent))
    const uses = new Set()
    for (const m of from) {
      if (m && m.role === 'assistant' && Array.isArray(m.content)) for (const b of m.content) if (b && b.type === 'tool_use' && b.id) uses.add(b.id)
    }
    // Truncation markers count from the summary on: the tags' states over that part alone.
    const inRange = tagStates(from)
    const out = []
    for (const [k, m] of from.entries()) {
      if (inRange[k] & TRUNCATION_PARENT_LIVE) continue
      if (m && m.role === 'user' && Array.isArray(m.content)) {
        const kept = m.content.filter((b) => !(b && b.type === 'tool_result') || uses.has(b.tool_use_id))
        if (kept.length === 0) continue
        out.push(kept.length === m.content.length ? m : { ...m, content: kept })
      } else out.push(m)
    }
    return out
  }
  const visible = visibility(messages)
  return messages.filter((_, i) => visible[i])
}

module.exports = {
  visibility,
  tagStates,
  afterSummary,
  SENT,
  TRUNCATION_PARENT_LIVE,
  project,
  projectFromSummary,
  cleanupAfterTruncation,
  rewindConversation,
  originsOf,
  compose,
  fixReferences,
  writeNonDestructive,
  summaryMessage,
  effectiveHistory,
}
