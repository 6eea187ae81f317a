// The report page: one self-contained HTML file (inline CSS and script, the data as JSON, no
// network). Writes the header, the passes' table, the legend (the filters), the search and the
// panel; the page's script builds the message grid from the data, only the rows in view. Escapes
// everything that comes from the history.
'use strict'

const { readFileSync } = require('node:fs')
const { join } = require('node:path')
const { CONTENT_TYPES, KINDS } = require('./messages.js')
const { buildReportData } = require('./data.js')
const { CSS } = require('./style.js')
const { createReplaySection, REPLAY_CSS } = require('./replay.js')

/** The page's script: browser files, each inlined from its first top-level function on (their
 * header comments and lint directives stay out), in one function that runs `clientScript`. */
const CLIENT_FILES = ['client.js', 'client-virtual.js', 'client-cells.js', 'client-panel.js']
const CLIENT_SCRIPT = `(function () {
'use strict'
${CLIENT_FILES.map((name) => {
  const source = readFileSync(join(__dirname, name), 'utf8')
  const at = source.search(/^function /m)
  if (at < 0) throw new Error(`lib/report/${name}: no top-level function to inline`)
  return source.slice(at).trim()
}).join('\n')}
clientScript()
})()`
if (/<\/script|<!--/i.test(CLIENT_SCRIPT)) throw new Error('lib/report/client*.js: the inlined script must not hold </script or <!--')

// ---------------------------------------------------------------------------------------------
// HTML

const ESCAPES = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
function escapeHtml(value) {
  return String(value ?? '').replace(/[&<>"']/g, (c) => ESCAPES[c])
}

/** JSON safe inside a <script> element: no `<` (so no `</script>` or `<!--`), no line separators. */
const JSON_ESCAPES = { '<': '\\u003c', '>': '\\u003e', '&': '\\u0026', '\u2028': '\\u2028', '\u2029': '\\u2029' }
function scriptJson(value) {
  return JSON.stringify(value).replace(/[<>&\u2028\u2029]/g, (c) => JSON_ESCAPES[c])
}

const fmt = (n) => (typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '—')
const pct = (n) => (typeof n === 'number' && Number.isFinite(n) ? `${n.toFixed(1)}%` : '—')
const plural = (n, one, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`
const { replaySectionHtml } = createReplaySection({ escapeHtml, fmt, pct })

/** A pass's changes by action: each chip counts changes (content blocks, or messages replaced by a summary). */
function actionsSummary(kinds) {
  const order = ['deduplicated', 'superseded', 'omitted', 'truncated', 'suppressed', 'summarized', 'removed', 'changed']
  return order
    .filter((k) => kinds[k] > 0)
    .map(
      (k) =>
        `<span class="chip k-${k}" data-field="${k}" data-value="${kinds[k]}" title="${escapeHtml(`${plural(kinds[k], 'change')}: ${KINDS[k]}`)}">${fmt(kinds[k])} ${KINDS[k]}</span>`,
    )
    .join(' ')
}

/** A pass's tokens as a bar of the history's size: what is left, then what the pass removed. */
function waterfall(before, after, total) {
  if (!(total > 0)) return ''
  const left = (100 * Math.min(before, after)) / total
  const cut = (100 * Math.max(0, before - after)) / total
  return `<div class="wf" title="${escapeHtml(`${fmt(before)} → ${fmt(after)} tokens`)}"><span class="wf-left" style="width:${left.toFixed(2)}%"></span><span class="wf-cut" style="width:${cut.toFixed(2)}%"></span></div>`
}

function passesHtml(data) {
  const t = data.totals
  const num = (field, value, text = fmt(value)) => `<td class="num" data-field="${field}" data-value="${value ?? ''}">${text}</td>`
  const saved = (n) => (n > 0 ? `−${fmt(n)}` : fmt(n))
  // The row of what changed after the passes is not numbered, and the messages no pass changed
  // are counted in it (else in a row of their own, below the passes).
  const after = data.passes.find((p) => p.afterPasses)
  const outside = data.unattributed
  const rows = data.passes.map((p, n) => {
    if (p.afterPasses) {
      return (
        `<tr data-pass="${escapeHtml(p.id)}" class="after-passes unattributed"><td></td>` +
        `<td class="pcell"><span class="pname" title="not a pass: the references kept honest once the passes are done">${escapeHtml(p.name)}</span></td>` +
        num('tokensBefore', p.tokensBefore) +
        num('tokensAfter', p.tokensAfter) +
        num('tokensSaved', p.tokensSaved, saved(p.tokensSaved)) +
        `<td class="wfc">${waterfall(p.tokensBefore, p.tokensAfter, t.tokensBefore)}</td>` +
        num('messagesChanged', outside ? outside.messagesChanged : 0) +
        `<td class="acts">${actionsSummary(outside ? outside.actions : {})}</td></tr>`
      )
    }
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
      `<td class="acts">${actionsSummary(p.actions)}</td></tr>`
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
  } else if (data.unattributed && !after) {
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
  const th = (text, title, cls = 'num') => `<th class="${cls}"${title ? ` title="${escapeHtml(title)}"` : ''}>${escapeHtml(text)}</th>`
  return (
    `<table class="passes" id="passes"><thead><tr>${th('#')}${th('Pass', 'hover a name for its id', '')}${th('tokens before')}${th('after')}${th('saved')}${th('', 'what is left of the history, and what the pass removed', 'wfc')}` +
    `${th('msgs', 'messages the pass changed')}${th('changes it made', "the engine's count of changes by action: content blocks, or messages replaced by a summary (the legend below counts messages)", '')}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody><tfoot>${total}</tfoot></table>`
  )
}

const KIND_HELP = {
  kept: 'nothing happened to it (no badge)',
  deduplicated: 'repeated content replaced by a reference to the copy kept',
  superseded: 'an older state replaced by a note naming the newer one',
  omitted: 'a copy left out, naming the one kept',
  truncated: 'shortened',
  suppressed: 'content replaced by a note',
  summarized: 'replaced by a summary',
  removed: 'left out of the history',
  changed: 'changed otherwise, or added by the condensation',
}

/** The legend, whose entries are the filters: content types and what happened (the page's script
 * counts the rows of each and toggles them). */
function legendHtml(data) {
  const used = new Set()
  for (const m of [...data.before, ...data.after]) for (const k of Object.keys(m.types)) used.add(k)
  const types = CONTENT_TYPES.filter(([key]) => used.has(key) || key !== 'other')
    .map(
      ([key, label]) =>
        `<button type="button" class="f lg${used.has(key) ? '' : ' unused'}" data-type="${key}" aria-pressed="false"><i class="sw t-${key}"></i>${escapeHtml(label)}<span class="n"></span></button>`,
    )
    .join('')
  const kinds = Object.keys(KINDS)
    .map(
      (k) =>
        `<button type="button" class="f" data-kind="${k}" aria-pressed="false" title="${escapeHtml(`${KIND_HELP[k]}; the number counts messages`)}"><span class="badge k-${k}">${escapeHtml(KINDS[k])}</span><span class="n"></span></button>`,
    )
    .join('')
  return (
    `<div class="legend" id="legend"><div role="group" aria-label="Show content types" id="filter-types"><b>Content</b>${types}</div>` +
    `<div role="group" aria-label="Show what happened" id="filter-kinds"><b>What happened</b> <span class="unit">(messages)</span>${kinds}<span class="lg"><i class="sw ghost-sw"></i>tokens removed</span></div>` +
    `<div class="fnote"><span>Each number counts messages (the passes' table above counts changes: a message can have several). Click to show only those rows (types or kinds: any of them; both: each).</span><span id="shown-count" class="count" aria-live="polite"></span><button type="button" class="link" id="filter-clear" hidden>show all</button></div></div>`
  )
}

/** The search box, the jump to a message and the column heads: sticky above the messages. */
function finderHtml(data, sumBefore, sumAfter) {
  const t = data.totals
  return `<div class="mhead" id="mhead">
<div class="finder" role="search">
<input type="search" id="search" placeholder="Search the messages' text  ( / )" aria-label="Search the messages' text" autocomplete="off" spellcheck="false">
<button type="button" id="search-prev" title="Previous match (Shift+Enter)" aria-label="Previous match">↑</button><button type="button" id="search-next" title="Next match (Enter)" aria-label="Next match">↓</button>
<span id="search-count" class="count" aria-live="polite"></span>
<label class="only"><input type="checkbox" id="search-only"> only matches</label>
<span class="jump"><label for="jump">Go to #</label><input type="text" id="jump" inputmode="numeric" placeholder="123" autocomplete="off" title="A message before, by its number (Enter)"></span>
<span id="jump-status" class="count" aria-live="polite"></span>
</div>
<div class="colheads"><div class="colhead">Before <span>${plural(t.messagesBefore, 'message')} · ${fmt(sumBefore)} tokens</span></div><div class="colhead">After <span>${plural(t.messagesAfter, 'message')} · ${fmt(sumAfter)} tokens</span></div></div>
</div>`
}

/** A page's head: no network (the CSP denies it), no referrer, the styles inline, and the page's
 * own inline script allowed only when it has one. */
function pageHead(title, css, withScript) {
  const csp = `default-src 'none'; style-src 'unsafe-inline';${withScript ? " script-src 'unsafe-inline';" : ''} img-src data:`
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="${csp}">
<meta name="referrer" content="no-referrer">
<link rel="icon" href="data:,">
<title>${escapeHtml(title)}</title>
<style>${css}</style>
</head>`
}

/**
 * The report as one HTML page. `before`: the messages that were condensed (Anthropic format);
 * `result`: what `condense(before, …)` resolved to. Options: `title`, `source` (where the history
 * came from), `preset`, `note`,
 * `generatedAt` (an ISO date shown in the header), `replay` (results of `replay()` on the same task:
 * a section on what the whole task cost under each policy).
 */
function renderHtmlReport(before, result, options = {}) {
  const replay = replaySectionHtml(options.replay)
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
  return `${pageHead(data.title, `${CSS}${replay ? REPLAY_CSS : ''}`, true)}
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
<section class="passes-wrap" aria-label="Passes">${passesHtml(data)}${restorable ? `<div class="pnote">${escapeHtml(restorable)}</div>` : ''}</section>
${replay}
${legendHtml(data)}
<div class="toolbar"><span>Click a bar for the message's full text; click a badge's #N for the copy it refers to; ↑ ↓ move through the messages.</span><span class="seg-toggle" role="group" aria-label="Bar length"><span class="lbl">bar length</span><button type="button" data-scale="sqrt" aria-pressed="true">√ tokens</button><button type="button" data-scale="linear" aria-pressed="false">tokens</button></span></div>
<main class="messages" id="messages" data-before="${data.before.length}" data-after="${data.after.length}">
${finderHtml(data, sumBefore, sumAfter)}
<div class="rows" id="rows"></div>
</main>
</div>
<aside class="panel collapsed" id="panel" aria-label="Message text">
<button type="button" class="pbar" id="panel-toggle" aria-expanded="false" aria-controls="panel-body">Message text <span>show ▴</span></button>
<div id="panel-body" aria-live="polite">
<h2>Message text</h2>
<p class="hint">Click a bar to see a message's full text, what each pass did to it, and its other side.</p>
<h3>Per content type</h3>
${legendTotals(data)}
</div>
</aside>
</div>
<script type="application/json" id="report-data">${scriptJson(data)}</script>
<script>${CLIENT_SCRIPT}</script>
</body>
</html>
`
}

/**
 * A page of replays alone: what a whole task cost under each policy (`results`: one `replay()`
 * result or several, on the same task). Options: `title`, `source`, `generatedAt`.
 */
function renderReplayReport(results, options = {}) {
  const section = replaySectionHtml(results, 'renderReplayReport: results')
  if (!section) throw new TypeError('renderReplayReport: results: expected a result of replay() or a non-empty array of them')
  const title = options.title ?? 'Replay report'
  const sub = [
    options.source ? `<code>${escapeHtml(options.source)}</code>` : null,
    options.generatedAt ? `generated ${escapeHtml(options.generatedAt)}` : null,
  ].filter(Boolean)
  return `${pageHead(title, `${CSS}${REPLAY_CSS}`, false)}
<body>
<div class="content">
<header><div class="titles"><h1>${escapeHtml(title)}</h1>${sub.length ? `<div class="sub">${sub.join(' · ')}</div>` : ''}</div></header>
${section}
</div>
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

module.exports = { escapeHtml, renderHtmlReport, renderReplayReport }
