// The report's data: before and after, message by message, with what happened to each, the passes'
// totals and the per-content-type table. Plain JSON; the page embeds it.
'use strict'

const { CONTENT_TYPES, partsOf, preview, measure } = require('./messages.js')
const { DEFAULT_ENCODING } = require('../internal/registry.js')

/** The engine's actions, in the order of its metrics. */
const ACTIONS = Object.freeze(['deduplicated', 'superseded', 'omitted', 'suppressed', 'truncated', 'summarized'])

/** Messages with at least one action `keep` accepts. */
const beforeMessages = (actions, keep) => actions.filter((list) => list.some(keep)).length

/**
 * Per message of `before`, what each pass did to it, read from the engine's provenance (one
 * entry per act), and per message of the result where it came from.
 */
function actionsOf(before, result, passes) {
  const actions = before.map(() => [])
  const provenance = result.provenance ?? { acts: [], origins: result.messages.map((_, j) => ({ from: j, changed: false })) }
  const into = before.map(() => undefined)
  const after = provenance.origins.map((o, j) => {
    if (o.from !== undefined) return { kind: o.changed ? 'changed' : 'same', from: o.from }
    if (o.covers) for (let i = o.covers[0]; i <= o.covers[1]; i++) into[i] = j
    return o.covers ? { kind: 'summary', covers: o.covers } : { kind: 'inserted' }
  })
  for (const act of provenance.acts) {
    const list = actions[act.message]
    if (!list) continue
    const pass = passes[act.pass]
    const a = {
      kind: act.action,
      pass: pass ? pass.id : null,
      passName: pass ? pass.name : 'the condensation',
      content: act.content,
      tokensSaved: act.tokensSaved,
    }
    if (act.refersTo !== undefined) a.ref = act.refersTo
    if (act.content === 'message') Object.assign(a, { whole: true, ...(into[act.message] !== undefined ? { into: into[act.message] } : {}) })
    list.push(a)
  }
  const kept = before.map(() => false)
  provenance.origins.forEach((o) => {
    if (o.from === undefined) return
    kept[o.from] = true
    if (o.changed && actions[o.from].length === 0) actions[o.from].push({ kind: 'changed', pass: null, passName: 'after the passes' })
  })
  before.forEach((_, i) => {
    if (!kept[i] && actions[i].length === 0) actions[i].push({ kind: 'removed', pass: null, passName: 'the condensation', whole: true })
  })
  return { actions, origins: after }
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
  const provenance = result.provenance
  if (!result.error && (!provenance || !Array.isArray(provenance.acts) || !Array.isArray(provenance.origins))) {
    throw new TypeError('renderHtmlReport: result.provenance is missing: condense with { provenance: true }')
  }
  if (provenance && provenance.origins.length !== result.messages.length) {
    throw new TypeError('renderHtmlReport: result.provenance does not describe result.messages')
  }
  const metrics = result.metrics
  const encoding = metrics.encoding || options.encoding || DEFAULT_ENCODING
  const passes = (metrics.passes || []).map((p) => ({ ...p }))
  const { actions, origins } = actionsOf(before, result, passes)

  const beforeData = before.map((m, i) => {
    const parts = partsOf(m)
    return { index: i, role: m.role, ...measure(m, encoding), parts, preview: preview(parts), ...(m.isSummary ? { isSummary: true } : {}), actions: actions[i] }
  })
  const afterData = result.messages.map((m, j) => {
    const origin = origins[j]
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

  // Per pass: its changes by action, as the engine counted them (the same acts as the badges).
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
    messagesChanged: p.messagesChanged,
    actions: Object.fromEntries(ACTIONS.filter((k) => p[k] > 0).map((k) => [k, p[k]])),
    // Not a pass: what changed the context after the passes ended (the references kept honest).
    ...(p.afterPasses ? { afterPasses: true } : {}),
  }))
  // Changes no pass made: references renumbered after a summary moved what they point at.
  // Messages changed and, by action, the acts (a message removed whole, changed after the passes).
  const unattributedMessages = beforeMessages(actions, (a) => a.pass === null)
  const unattributedKinds = {}
  for (const list of actions) for (const a of list) if (a.pass === null) unattributedKinds[a.kind] = (unattributedKinds[a.kind] ?? 0) + 1
  const unattributed = unattributedMessages > 0 ? { messagesChanged: unattributedMessages, actions: unattributedKinds } : undefined

  // Every change by action: the sum of the passes' rows; `kept` counts the messages nothing happened to.
  const kindCounts = {}
  for (const list of actions) for (const a of list) kindCounts[a.kind] = (kindCounts[a.kind] ?? 0) + 1
  const kept = actions.filter((list) => list.length === 0).length
  if (kept > 0) kindCounts.kept = kept

  return {
    title: options.title ?? 'Condensation report',
    source: options.source,
    provider: metrics.provider,
    preset: options.preset,
    encoding,
    generatedAt: options.generatedAt,
    note: options.note,
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
    passes: passRows,
    ...(unattributed ? { unattributed } : {}),
    kinds: kindCounts,
    contentTypes: CONTENT_TYPES.map(([key, label, color]) => ({ key, label, color })),
    before: beforeData,
    after: afterData,
    rows,
    maxTokens: Math.max(1, ...beforeData.map((b) => b.tokens), ...afterData.map((a) => a.tokens)),
  }
}

module.exports = { buildReportData, ACTIONS }
