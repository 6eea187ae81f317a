// The report page: one self-contained HTML file (inline CSS and script, the data as JSON, no
// network). Escapes everything that comes from the history.
'use strict'

const { readFileSync } = require('node:fs')
const { join } = require('node:path')
const { CONTENT_TYPES, KINDS } = require('./messages.js')
const { buildReportData } = require('./data.js')
const { CSS } = require('./style.js')

/** The page's script (client.js, a browser script) from its function on, inlined into every page. */
const CLIENT_SOURCE = readFileSync(join(__dirname, 'client.js'), 'utf8')
const CLIENT_SCRIPT = CLIENT_SOURCE.slice(CLIENT_SOURCE.indexOf('function clientScript()')).trim()

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
    .map((k) => `<span class="chip k-${k}" data-field="${k}" data-value="${kinds[k]}">${fmt(kinds[k])} ${KINDS[k]}</span>`)
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
  const th = (text, title, cls = 'num') => `<th class="${cls}"${title ? ` title="${escapeHtml(title)}"` : ''}>${escapeHtml(text)}</th>`
  return (
    `<table class="passes" id="passes"><thead><tr>${th('#')}${th('Pass', 'hover a name for its id', '')}${th('tokens before')}${th('after')}${th('saved')}${th('', 'what is left of the history, and what the pass removed', 'wfc')}` +
    `${th('msgs', 'messages the pass changed')}${th('what it did', "the engine's count of changes by action: content blocks, or messages replaced by a summary", '')}</tr></thead>` +
    `<tbody>${rows.join('')}</tbody><tfoot>${total}</tfoot></table>`
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

/**
 * The report as one HTML page. `before`: the messages that were condensed (Anthropic format);
 * `result`: what `condense(before, …)` resolved to. Options: `title`, `source` (where the history
 * came from), `preset`, `note`,
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
<script>(${CLIENT_SCRIPT})()</script>
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

module.exports = { escapeHtml, renderHtmlReport }
