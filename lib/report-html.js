'use strict'
// The visual condensation report: one self-contained HTML file (inline CSS and JavaScript, the data
// as JSON in the page, no network, no external assets) showing a history before and after a
// condensation side by side. Each message is a bar sized by its tokens and colored by content type;
// each says what each pass did to it (kept, deduplicated with a link to the kept copy, superseded,
// truncated, suppressed, summarized), the passes' totals head the page, and a click on a bar shows
// the message's full text. With the results of `replay()` on the same task, a section shows what the
// whole task cost under each policy (`renderReplayReport` makes a page of that section alone).
//
//   const { condense } = require('context-condense')
//   const { renderHtmlReport } = require('context-condense/report-html')
//   const result = await condense(messages, { provider: 'smart', config: { preset: 'balanced' }, provenance: true })
//   fs.writeFileSync('report.html', renderHtmlReport(messages, result))
//
// What happened to each message, and which pass did it, is the engine's own record
// (`result.provenance`: one act per change, and where each message of the result came from).
const { renderHtmlReport, renderReplayReport, escapeHtml } = require('./report/html.js')
const { buildReportData } = require('./report/data.js')
const { CONTENT_TYPES } = require('./report/messages.js')

module.exports = { renderHtmlReport, renderReplayReport, buildReportData, escapeHtml, CONTENT_TYPES }
