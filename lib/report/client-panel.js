// The report page's side panel (a browser script, inlined by html.js with client.js): what each pass
// did to a message (from the engine's record, with links to the messages it refers to), its full
// text with the search's matches marked, and its other side. textContent only.
/**
 * The panel: `panel` the element it fills, `scroller` the one that scrolls it.
 * `hooks.select(side, index)` marks the message shown; `hooks.query()` is the search's
 * text (its matches are marked); `hooks.counterpart(side, index)` the message's other side.
 */
// biome-ignore lint/correctness/noUnusedVariables: client.js, inlined beside it, calls it
function messagePanel(data, panel, scroller, hooks) {
  const CONTENT_LABEL = {
    messageText: 'message text',
    toolParameters: 'tool parameters',
    toolResults: 'tool results',
    environmentDetails: 'environment details',
  }
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
  let hit = null // the search's text as a case-insensitive pattern

  /** Text, with the search's matches in <mark class="hit">. */
  function appendText(parent, text) {
    if (!hit || text.length === 0) {
      if (text.length > 0) parent.appendChild(document.createTextNode(text))
      return
    }
    let at = 0
    hit.lastIndex = 0
    for (const m of text.matchAll(hit)) {
      if (m[0].length === 0) break
      if (m.index > at) parent.appendChild(document.createTextNode(text.slice(at, m.index)))
      parent.appendChild(el('mark', 'hit', m[0]))
      at = m.index + m[0].length
    }
    if (at < text.length) parent.appendChild(document.createTextNode(text.slice(at)))
  }

  const itemOf = (side, index) => (side === 'before' ? data.before[index] : data.after[index])
  const partsOf = (item, side) => (side === 'after' && item.same !== undefined ? data.before[item.same].parts : item.parts || [])

  function typesOf(item) {
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
  }

  function whatHappened(side, item) {
    const beforeItem = side === 'before' ? item : item.from !== undefined ? data.before[item.from] : null
    panel.appendChild(el('h3', null, 'What the passes did'))
    if (side === 'after' && item.covers) {
      const p = el('p')
      p.appendChild(document.createTextNode('A summary replacing messages '))
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
        li.appendChild(el('span', `badge k-${a.kind}`, a.kind))
        if (a.kind === 'summarized' && a.whole) li.appendChild(document.createTextNode(' into a summary'))
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
  }

  /** Shows a message: `side` 'before' or 'after', `index` its number on that side. */
  function show(side, index) {
    const item = itemOf(side, index)
    if (!item) return false
    const q = hooks.query()
    hit = q ? new RegExp(q.replace(/[.*+?^${}()|[\]\\]/g, '\\$&'), 'giu') : null
    hooks.select(side, index)
    panel.replaceChildren()
    panel.dataset.side = side
    panel.dataset.index = String(index)
    panel.appendChild(el('h2', null, `${side === 'before' ? 'Before' : 'After'} #${index} · ${item.role}${item.isSummary ? ' · summary' : ''}`))
    panel.appendChild(el('div', 'meta', `${fmt(item.tokens)} tokens`))
    const other = hooks.counterpart(side, index)
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
    typesOf(item)
    whatHappened(side, item)
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
      appendText(pre, part.text)
      box.appendChild(pre)
      text.appendChild(box)
    }
    panel.appendChild(text)
    scroller.scrollTop = 0
    const first = hit && panel.querySelector('mark.hit')
    if (first) scroller.scrollTop += first.getBoundingClientRect().top - scroller.getBoundingClientRect().top - scroller.clientHeight / 3
    return true
  }

  return { show }
}
