// The report's data: before and after, message by message, with what happened to each, the passes'
// totals and the per-content-type table. Plain JSON; the page embeds it.
'use strict'

const { CONTENT_TYPES, partsOf, preview, measure } = require('./messages.js')
const { sameContent, traceActions } = require('./align.js')

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

module.exports = { buildReportData }
