// The report page's script, run in the browser (inlined by html.js as `(function …)()`): opens a
// message's full text, filters, keyboard. Uses only the page's own data; fetches nothing.
/** The page's script: the full-text panel, links to kept copies, the bar scale. Uses textContent only. */
// biome-ignore lint/correctness/noUnusedVariables: the page that inlines this file calls it
function clientScript() {
  const data = JSON.parse(document.getElementById('report-data').textContent)
  const KIND_LABEL = {
    kept: 'kept',
    deduplicated: 'deduplicated',
    superseded: 'superseded',
    omitted: 'omitted',
    truncated: 'truncated',
    suppressed: 'suppressed',
    summarized: 'summarized',
    removed: 'removed',
    changed: 'changed',
  }
  const CONTENT_LABEL = {
    messageText: 'message text',
    toolParameters: 'tool parameters',
    toolResults: 'tool results',
    environmentDetails: 'environment details',
  }
  const panel = document.getElementById('panel')
  const fmt = (n) => Number(n).toLocaleString('en-US')
  const el = (tag, cls, text) => {
    const e = document.createElement(tag)
    if (cls) e.className = cls
    if (text !== undefined) e.textContent = text
    return e
  }
  const refLink = (n, text) => {
    const a = el('a', 'ref', text)
    a.href = `#b-${n}`
    a.dataset.ref = String(n)
    return a
  }
  /** Text with the engine's markers highlighted and their "message #N" linked. */
  const markerRe = /⟨ (?:Reference: |Superseded[ :]|Omitted: |Content suppressed: |… truncated: |Summary of the )[^⟩]*⟩/g
  function richText(parent, text) {
    let at = 0
    for (const m of text.matchAll(markerRe)) {
      if (m.index > at) parent.appendChild(document.createTextNode(text.slice(at, m.index)))
      const mark = el('mark', 'marker')
      let inner = 0
      for (const r of m[0].matchAll(/message #(\d+)/g)) {
        if (r.index > inner) mark.appendChild(document.createTextNode(m[0].slice(inner, r.index)))
        if (Number(r[1]) < data.before.length) mark.appendChild(refLink(Number(r[1]), r[0]))
        else mark.appendChild(document.createTextNode(r[0]))
        inner = r.index + r[0].length
      }
      mark.appendChild(document.createTextNode(m[0].slice(inner)))
      parent.appendChild(mark)
      at = m.index + m[0].length
    }
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)))
  }
  const itemOf = (side, index) => (side === 'before' ? data.before[index] : data.after[index])
  const partsOf = (item, side) => (side === 'after' && item.same !== undefined ? data.before[item.same].parts : item.parts)
  /** The other side's version of a message, when there is one. */
  function counterpart(side, index) {
    if (side === 'before') {
      const a = data.after.find((x) => x.from === index || (x.covers && x.covers[0] <= index && index <= x.covers[1]))
      return a ? ['after', a.index] : null
    }
    const a = data.after[index]
    if (a.from !== undefined) return ['before', a.from]
    if (a.covers) return ['before', a.covers[0]]
    return null
  }
  let current = null
  function select(side, index) {
    document.querySelectorAll('.bar.selected').forEach((b) => b.classList.remove('selected'))
    document.querySelectorAll('.cell.selected').forEach((c) => c.classList.remove('selected'))
    const bar = document.querySelector(`.bar[data-side="${side}"][data-index="${index}"]`)
    if (bar) {
      bar.classList.add('selected')
      bar.closest('.cell').classList.add('selected')
    }
  }
  function show(side, index) {
    const item = itemOf(side, index)
    if (!item) return
    current = [side, index]
    select(side, index)
    panel.replaceChildren()
    panel.dataset.side = side
    panel.dataset.index = String(index)
    const head = el('h2', null, `${side === 'before' ? 'Before' : 'After'} #${index} · ${item.role}${item.isSummary ? ' · summary' : ''}`)
    panel.appendChild(head)
    panel.appendChild(el('div', 'meta', `${fmt(item.tokens)} tokens`))
    const other = counterpart(side, index)
    const sw = el('div', 'seg-toggle p-switch')
    for (const s of ['before', 'after']) {
      const b = el('button', null, s === 'before' ? 'Before' : 'After')
      b.type = 'button'
      b.setAttribute('aria-pressed', String(s === side))
      const target = s === side ? [side, index] : other && other[0] === s ? other : null
      if (target) b.addEventListener('click', () => show(target[0], target[1]))
      else b.disabled = true
      sw.appendChild(b)
    }
    panel.appendChild(sw)
    const bar = el('div', 'p-types')
    const list = el('div', 'p-typelist')
    for (const t of data.contentTypes) {
      const n = item.types[t.key]
      if (!n) continue
      const seg = el('span', `seg t-${t.key}`)
      seg.style.flex = `${n} 1 0`
      bar.appendChild(seg)
      const li = el('span', 'lg')
      li.appendChild(el('i', `sw t-${t.key}`))
      li.appendChild(document.createTextNode(`${t.label} ${fmt(n)}`))
      list.appendChild(li)
    }
    panel.appendChild(bar)
    panel.appendChild(list)
    // What happened.
    const beforeItem = side === 'before' ? item : item.from !== undefined ? data.before[item.from] : null
    panel.appendChild(el('h3', null, 'What the passes did'))
    if (side === 'after' && item.covers) {
      const p = el('p')
      p.appendChild(document.createTextNode(`A summary replacing messages `))
      p.appendChild(refLink(item.covers[0], `#${item.covers[0]}`))
      p.appendChild(document.createTextNode(' to '))
      p.appendChild(refLink(item.covers[1], `#${item.covers[1]}`))
      p.appendChild(document.createTextNode(` (${fmt(item.covers[1] - item.covers[0] + 1)} messages).`))
      panel.appendChild(p)
    } else if (side === 'after' && item.inserted) {
      panel.appendChild(el('p', null, 'Added by the condensation.'))
    } else if (beforeItem && beforeItem.actions.length > 0) {
      const ol = el('ol', 'p-actions')
      for (const a of beforeItem.actions) {
        const li = el('li')
        li.appendChild(el('b', null, a.passName))
        li.appendChild(document.createTextNode(': '))
        li.appendChild(el('span', `badge k-${a.kind}`, KIND_LABEL[a.kind] || a.kind))
        if (a.kind === 'summarized' && a.whole) {
          li.appendChild(document.createTextNode(' into a summary'))
        }
        if (a.ref !== undefined) {
          li.appendChild(document.createTextNode(a.kind === 'superseded' ? ' by ' : ' → kept copy '))
          li.appendChild(refLink(a.ref, `#${a.ref}`))
        }
        if (a.content && a.content !== 'message') li.appendChild(document.createTextNode(` · ${CONTENT_LABEL[a.content] || a.content}`))
        if (a.tokensSaved > 0) li.appendChild(document.createTextNode(`, −${fmt(a.tokensSaved)} tokens`))
        ol.appendChild(li)
      }
      panel.appendChild(ol)
    } else panel.appendChild(el('p', null, 'Kept as it was.'))
    if (other) {
      const o = itemOf(other[0], other[1])
      const p = el('p', 'meta')
      const a = el('a', null, `${other[0] === 'before' ? 'Before' : 'After'} #${other[1]}`)
      a.href = '#'
      a.addEventListener('click', (e) => {
        e.preventDefault()
        show(other[0], other[1])
      })
      p.appendChild(document.createTextNode('Other side: '))
      p.appendChild(a)
      p.appendChild(document.createTextNode(`, ${fmt(o.tokens)} tokens`))
      panel.appendChild(p)
    }
    // The full text.
    panel.appendChild(el('h3', null, 'Full text'))
    const text = el('div', 'p-text')
    text.id = 'panel-text'
    for (const part of partsOf(item, side)) {
      const box = el('div', 'part')
      const label = el('div', 'part-label')
      label.appendChild(el('span', null, part.label))
      label.appendChild(el('span', null, `${fmt(part.text.length)} chars`))
      box.appendChild(label)
      const pre = el('pre')
      richText(pre, part.text)
      box.appendChild(pre)
      text.appendChild(box)
    }
    panel.appendChild(text)
    panel.scrollTop = 0
  }
  function goTo(index) {
    const cell = document.getElementById(`b-${index}`)
    if (!cell) return
    document.querySelectorAll('.cell.highlight').forEach((c) => c.classList.remove('highlight'))
    cell.classList.add('highlight')
    const other = counterpart('before', index)
    if (other) {
      const a = document.getElementById(`a-${other[1]}`)
      if (a) a.classList.add('highlight')
    }
    cell.scrollIntoView({ block: 'center' })
    show('before', index)
    if (history.replaceState) history.replaceState(null, '', `#b-${index}`)
  }
  document.addEventListener('click', (e) => {
    const target = e.target instanceof Element ? e.target : null
    if (!target) return
    const ref = target.closest('a[data-ref]')
    if (ref) {
      e.preventDefault()
      goTo(Number(ref.dataset.ref))
      return
    }
    const bar = target.closest('.bar')
    if (bar) show(bar.dataset.side, Number(bar.dataset.index))
  })
  // Bar length: tokens, or their square root (small messages stay visible beside large ones).
  function scale(mode) {
    const f = mode === 'sqrt' ? Math.sqrt : (x) => x
    const max = f(data.maxTokens)
    document.querySelectorAll('.bar[data-tokens], .ghost[data-tokens]').forEach((b) => {
      b.style.width = `${((100 * f(Number(b.dataset.tokens))) / max).toFixed(3)}%`
    })
    document.querySelectorAll('[data-scale]').forEach((b) => b.setAttribute('aria-pressed', String(b.dataset.scale === mode)))
  }
  document.querySelectorAll('[data-scale]').forEach((b) => b.addEventListener('click', () => scale(b.dataset.scale)))
  document.addEventListener('keydown', (e) => {
    if (!current || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') || e.target instanceof HTMLInputElement) return
    const [side, index] = current
    const list = side === 'before' ? data.before : data.after
    const next = index + (e.key === 'ArrowDown' ? 1 : -1)
    if (next < 0 || next >= list.length) return
    e.preventDefault()
    show(side, next)
    const bar = document.querySelector(`.bar[data-side="${side}"][data-index="${next}"]`)
    if (bar) bar.scrollIntoView({ block: 'nearest' })
  })
  const hash = /^#b-(\d+)$/.exec(location.hash)
  if (hash) goTo(Number(hash[1]))
  document.documentElement.dataset.ready = 'true'
}
