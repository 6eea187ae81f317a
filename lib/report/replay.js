// The replay section of the report: what a whole task cost under each policy replayed (billed
// input, cache hits, summaries, what the end-of-task checks found kept), and per policy a chart of
// every request's cost over the task, split into cache reads, cache writes and uncached input,
// with the context's size and a mark where each condensing happened. Static HTML and inline SVG
// (the page's script is not needed); everything that comes from the history is escaped. Reads
// replay results (lib/replay), never changes them.
'use strict'

const native = require('../internal/native.js')

/** Requests drawn one bar each up to this many; beyond, consecutive requests share a bar. */
const MAX_BARS = 1200
const CHART_W = 1000
const CHART_H = 150
const PAD_TOP = 10

function createReplaySection({ escapeHtml, fmt, pct }) {
  const dollars = (n) => (typeof n === 'number' && Number.isFinite(n) ? `$${n < 10 ? n.toFixed(4) : n.toFixed(2)}` : '—')
  const kept = (c) => (c && c.total > 0 ? `${fmt(c.kept)} / ${fmt(c.total)}` : '—')
  const keptTitle = (c) =>
    c && c.missing && c.missing.length > 0
      ? ` title="${escapeHtml(
          `not kept: ${c.missing
            .slice(0, 5)
            .map((m) => `#${m.message}${m.path ? ` ${m.path}` : ''}: ${String(m.text).split('\n')[0].slice(0, 80)}`)
            .join('; ')}${c.missing.length > 5 ? ` … (${c.missing.length} in all)` : ''}`,
        )}"`
      : ''

  /** One policy's requests as bars of cost (cache read, write, uncached), `per` requests a bar. */
  function barsOf(r) {
    const rows = r.perRequest
    const n = rows.length
    const p = r.settings.pricing
    const per = Math.ceil(n / MAX_BARS)
    const bars = []
    for (let i = 0; i < n; i += per) {
      const group = rows.slice(i, i + per)
      const sum = (f) => group.reduce((s, q) => s + f(q), 0)
      bars.push({
        first: group[0].turn,
        last: group[group.length - 1].turn,
        // Each part priced by the engine's price table, as the replay priced the requests.
        read: native.usageCost({ cacheReadTokens: sum((q) => q.cachedRead) }, p),
        write: native.usageCost({ cacheWriteTokens: sum((q) => q.cacheWrite) }, p),
        fresh: native.usageCost({ inputTokens: sum((q) => q.uncached) }, p),
        cost: sum((q) => q.cost),
        tokens: Math.max(...group.map((q) => q.tokens)),
      })
    }
    return { bars, per, n }
  }

  /** One policy's requests as bars of cost (on the scale `maxCost` shared by every chart) and the
   * context as a line. */
  function chart(r, { bars, per, n }, maxCost) {
    if (n === 0) return '<p class="pnote">No requests: the history has no assistant turn.</p>'
    const maxTokens = Math.max(r.settings.contextWindow, ...bars.map((b) => b.tokens))
    const w = CHART_W / bars.length
    const h = CHART_H - PAD_TOP
    const rects = bars.map((b, k) => {
      const x = (k * w).toFixed(2)
      const bw = Math.max(w - (w > 3 ? 1 : 0), 0.5).toFixed(2)
      const turns = b.first === b.last ? `request ${b.first + 1}` : `requests ${b.first + 1}–${b.last + 1}`
      const title = `${turns}: ${dollars(b.cost)} · cache read ${dollars(b.read)}, write ${dollars(b.write)}, uncached ${dollars(b.fresh)} · ${fmt(b.tokens)} tokens`
      let top = CHART_H
      const seg = (v, cls) => {
        if (!(v > 0)) return ''
        const hh = (v / maxCost) * h
        top -= hh
        return `<rect class="${cls}" x="${x}" y="${top.toFixed(2)}" width="${bw}" height="${hh.toFixed(2)}"/>`
      }
      return `<g><title>${escapeHtml(title)}</title>${seg(b.read, 'rp-read')}${seg(b.write, 'rp-write')}${seg(b.fresh, 'rp-fresh')}</g>`
    })
    const line = bars.map((b, k) => `${(k * w + w / 2).toFixed(1)},${(CHART_H - (b.tokens / maxTokens) * h).toFixed(1)}`).join(' ')
    const allowed = r.settings.allowedTokens
    const allowedY = (CHART_H - (allowed / maxTokens) * h).toFixed(1)
    const marks = r.condensings.map((c) => {
      const x = ((Math.floor(c.turn / per) + 0.5) * w).toFixed(1)
      const title = `before request ${c.turn + 1}: ${c.provider} (${c.role}), ${fmt(c.tokensBefore)} → ${fmt(c.tokensAfter)} tokens, first changed message #${c.firstChanged}`
      return `<g class="rp-mark"><title>${escapeHtml(title)}</title><line x1="${x}" x2="${x}" y1="0" y2="${CHART_H}"/><circle cx="${x}" cy="4" r="3.5"/></g>`
    })
    const label = `Cost of each of ${fmt(n)} requests (scale: ${dollars(maxCost)}${per > 1 ? `, ${per} requests a bar` : ''}), the context's size (line, window ${fmt(maxTokens)} tokens) and the ${plural(r.condensings.length, 'condensing')}`
    return (
      `<svg class="rp-chart" viewBox="0 0 ${CHART_W} ${CHART_H}" preserveAspectRatio="none" role="img" aria-label="${escapeHtml(label)}">` +
      `${rects.join('')}<line class="rp-allowed" x1="0" x2="${CHART_W}" y1="${allowedY}" y2="${allowedY}"><title>allowed size: ${escapeHtml(fmt(allowed))} tokens</title></line>` +
      `<polyline class="rp-context" points="${line}"/>${marks.join('')}</svg>` +
      `<div class="rp-axis"><span>request 1</span><span>${escapeHtml(label)}</span><span>request ${fmt(n)}</span></div>`
    )
  }

  function plural(n, one) {
    return `${fmt(n)} ${n === 1 ? one : `${one}s`}`
  }

  /**
   * The section: a table comparing the policies (the cheapest marked, and each one's cost against
   * Roo Code's default when it was replayed too), then each policy's chart.
   */
  function replaySectionHtml(results, where = 'renderHtmlReport: options.replay') {
    const list = (Array.isArray(results) ? results : [results]).filter(Boolean)
    if (list.length === 0) return ''
    for (const [i, r] of list.entries()) {
      if (!r || !Array.isArray(r.perRequest) || !Array.isArray(r.condensings) || !r.settings || !r.checks)
        throw new TypeError(`${where}${Array.isArray(results) ? `[${i}]` : ''}: expected a result of replay() (perRequest, condensings, settings, checks)`)
    }
    const base = list.find((r) => r.policy === 'roo-default')
    const cheapest = list.reduce((a, b) => (b.billedCost < a.billedCost ? b : a))
    const s = list[0].settings
    const rows = list.map((r) => {
      const vs = base && r !== base && base.billedCost > 0 ? ` <span class="rp-x">${(r.billedCost / base.billedCost).toFixed(2)}x</span>` : ''
      return (
        `<tr data-policy="${escapeHtml(r.policy)}"${r === cheapest && list.length > 1 ? ' class="rp-best"' : ''}>` +
        `<td class="pcell"><span class="pname" title="${escapeHtml(r.description)}">${escapeHtml(r.policy)}</span>${r === cheapest && list.length > 1 ? ' <span class="rp-tag">cheapest</span>' : ''}</td>` +
        `<td class="num" data-field="billedCost" data-value="${r.billedCost}">${dollars(r.billedCost)}${vs}</td>` +
        `<td class="num" data-field="cacheHitRate" data-value="${r.cacheHitRate}">${pct(100 * r.cacheHitRate)}</td>` +
        `<td class="num">${fmt(r.requests)}</td>` +
        `<td class="num" data-field="summaries" data-value="${r.summaries}">${fmt(r.summaries)}</td>` +
        `<td class="num">${fmt(r.condensings.length)}</td>` +
        `<td class="num">${fmt(r.peakContext)}</td>` +
        `<td class="num">${fmt(r.requestsOverLimit)}</td>` +
        `<td class="num" data-field="requestsOverWindow" data-value="${r.requestsOverWindow}">${fmt(r.requestsOverWindow)}</td>` +
        `<td class="num"${keptTitle(r.checks.typed)}>${kept(r.checks.typed)}</td>` +
        `<td class="num"${keptTitle(r.checks.errors)}>${kept(r.checks.errors)}</td>` +
        `<td class="num"${keptTitle(r.checks.workingSet)}>${kept(r.checks.workingSet)}</td></tr>`
      )
    })
    const th = (text, title, cls = 'num') => `<th class="${cls}"${title ? ` title="${escapeHtml(title)}"` : ''}>${escapeHtml(text)}</th>`
    const head =
      th('policy', 'hover a name for what it does', '') +
      th('billed', 'the requests priced with the cache model, plus the summary calls’ input and output priced as sent; against Roo Code’s default') +
      th('cache hits', 'prompt tokens read from the cache, of all prompt tokens') +
      th('requests') +
      th('summaries', 'calls to the summarizer') +
      th('condensings') +
      th('peak context', 'the largest prompt, in tokens') +
      th('over limit', 'requests the policy left past the allowed size') +
      th('over window', 'requests the policy left larger than the window (prompt and reserved answer): the API refuses them') +
      th('typed text kept', 'what the user typed, kept verbatim in the final context') +
      th('error lines kept') +
      th('working set kept', 'the latest state of the files touched in the last requests')
    const settings = `window ${fmt(s.contextWindow)} tokens, condensing at ${fmt(s.threshold)}% (allowed ${fmt(s.allowedTokens)}), system prompt ${fmt(s.systemTokens)} tokens, ${escapeHtml(s.cache)} prompt cache, summaries by ${escapeHtml(s.summarizer)}`
    const drawn = list.map(barsOf)
    const maxCost = Math.max(1e-12, ...drawn.flatMap((d) => d.bars.map((b) => b.read + b.write + b.fresh)))
    const charts = list
      .map(
        (r, i) =>
          `<figure class="rp-fig" data-policy="${escapeHtml(r.policy)}"><figcaption><b>${escapeHtml(r.policy)}</b> · ${dollars(r.billedCost)} billed · ${fmt(r.summaries)} ${r.summaries === 1 ? 'summary' : 'summaries'}</figcaption>${chart(r, drawn[i], maxCost)}</figure>`,
      )
      .join('')
    return (
      `<section class="replay" id="replay" aria-label="Replay"><h2>The whole task, replayed</h2>` +
      `<div class="pnote">${settings}. Each request is the history up to an assistant turn; a condensing changes what later requests send, and the cache is read only up to the first message changed.</div>` +
      `<table class="passes rp-table"><thead><tr>${head}</tr></thead><tbody>${rows.join('')}</tbody></table>` +
      `<div class="rp-legend"><span><i class="sw rp-read"></i>cache read</span><span><i class="sw rp-write"></i>cache write</span><span><i class="sw rp-fresh"></i>uncached</span><span><i class="sw rp-ctx"></i>context size</span><span><i class="sw rp-allow"></i>allowed size</span><span><i class="sw rp-cond"></i>condensing</span></div>` +
      `${charts}</section>`
    )
  }

  return { replaySectionHtml }
}

const REPLAY_CSS = `
section.replay{margin-bottom:14px}
section.replay h2{font-size:15px;margin:6px 0 4px}
section.replay .pnote{color:var(--muted);margin-bottom:6px}
table.rp-table tr.rp-best td{background:#f0fdf4}
.rp-tag{font-size:11px;color:#15803d;border:1px solid #bbf7d0;border-radius:4px;padding:0 4px}
.rp-x{color:var(--muted);font-size:11px}
.rp-legend{display:flex;flex-wrap:wrap;gap:4px 14px;color:var(--muted);margin:2px 0 6px}
.rp-legend .sw{display:inline-block;width:10px;height:10px;border-radius:2px;margin-right:4px;vertical-align:-1px}
.rp-fig{margin:0 0 10px;background:var(--card);border:1px solid var(--line);border-radius:8px;padding:6px 8px}
.rp-fig figcaption{font-size:12px;margin-bottom:4px}
.rp-chart{width:100%;height:150px;display:block}
.rp-axis{display:flex;justify-content:space-between;gap:8px;color:var(--muted);font-size:11px}
.rp-read,i.rp-read{fill:#93c5fd;background:#93c5fd}
.rp-write,i.rp-write{fill:#f59e0b;background:#f59e0b}
.rp-fresh,i.rp-fresh{fill:#ef4444;background:#ef4444}
i.rp-ctx{background:#1f2430;height:2px!important}
i.rp-allow{background:#a3a3a3;height:2px!important}
i.rp-cond{background:#7c3aed;border-radius:50%!important}
.rp-context{fill:none;stroke:#1f2430;stroke-width:1.2;vector-effect:non-scaling-stroke}
.rp-allowed{stroke:#a3a3a3;stroke-dasharray:4 3;vector-effect:non-scaling-stroke}
.rp-mark line{stroke:#7c3aed;stroke-width:1;vector-effect:non-scaling-stroke}
.rp-mark circle{fill:#7c3aed}
`

module.exports = { createReplaySection, REPLAY_CSS }
