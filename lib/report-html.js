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
//   const result = await condense(messages, { ...options, provenance: true }) // any provider and config
//   fs.writeFileSync('report.html', renderHtmlReport(messages, result))
//
// What happened to each message, and which pass did it, is the engine's own record
// (`result.provenance`: one act per change, and where each message of the result came from).
//
// This file is the entry (context-condense/report-html): it checks the arguments as the types
// declare them, naming the place of what is wrong, and its errors carry `errorCode`; the page is
// made in lib/report/.
const html = require('./report/html.js')
const data = require('./report/data.js')
const { CONTENT_TYPES } = require('./report/messages.js')
const { checkEncoding, checkMessageObjects, checkMessagesArray, checkObject, checkOptionsObject, optionalString } = require('./internal/checks.js')
const { coded } = require('./internal/errors.js')

const REPORT_OPTIONS = ['title', 'source', 'preset', 'note', 'generatedAt', 'encoding', 'replay']
const REPLAY_PAGE_OPTIONS = ['title', 'source', 'generatedAt']

/** The options object, when each of its values is of the declared kind (strings, the encoding). */
function checkTexts(options, fn, known) {
  const o = checkOptionsObject(options, fn, known)
  for (const k of known) if (k !== 'encoding' && k !== 'replay') optionalString(o[k], `${fn}: options.${k}`)
  if (known.includes('encoding')) checkEncoding(o.encoding, `${fn}: options.encoding`)
  return o
}

/** A report's arguments: the messages before (each a message object), condense's result, the options. */
function checkReport(fn, before, result, options) {
  checkMessagesArray(before, fn, 'before')
  checkMessageObjects(before, fn, (i) => `before[${i}]`)
  checkObject(result, `${fn}: result`, 'what condense() resolved to')
  const o = checkTexts(options, fn, REPORT_OPTIONS)
  if (o.replay !== undefined && !Array.isArray(o.replay)) checkObject(o.replay, `${fn}: options.replay`, 'a result of replay() or an array of them')
}

function renderHtmlReportUncoded(before, result, options) {
  checkReport('renderHtmlReport', before, result, options)
  return html.renderHtmlReport(before, result, options)
}

function buildReportDataUncoded(before, result, options) {
  checkReport('buildReportData', before, result, options)
  return data.buildReportData(before, result, options)
}

function renderReplayReportUncoded(results, options) {
  checkTexts(options, 'renderReplayReport', REPLAY_PAGE_OPTIONS)
  return html.renderReplayReport(results, options)
}

const renderHtmlReport = coded(renderHtmlReportUncoded)
const buildReportData = coded(buildReportDataUncoded)
const renderReplayReport = coded(renderReplayReportUncoded)
const escapeHtml = coded(html.escapeHtml)

module.exports = { renderHtmlReport, renderReplayReport, buildReportData, escapeHtml, CONTENT_TYPES }
