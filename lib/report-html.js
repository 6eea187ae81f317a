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
const { renderHtmlReport, escapeHtml } = require('./report/html.js')
const { buildReportData } = require('./report/data.js')
const { traceCondense, memoizeSummarize } = require('./report/trace.js')
const { alignHistories } = require('./report/align.js')
const { CONTENT_TYPES } = require('./report/messages.js')

module.exports = { renderHtmlReport, buildReportData, traceCondense, alignHistories, memoizeSummarize, escapeHtml, CONTENT_TYPES }
