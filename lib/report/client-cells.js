// The report page's message cells (a browser script, inlined by html.js with client.js): a message
// as its number, role, bar colored by content type, tokens and the badges of what happened to it.
// Builds elements with textContent only; the page's script places them.
/**
 * The cell builders. `state.scale` is the bar length ('sqrt': the square root of the tokens, so small
 * messages stay visible beside large ones; 'linear': the tokens); `mark(cell, side, index)` adds the
 * page's state classes (highlight, selected) to a cell it just built.
 */
// biome-ignore lint/correctness/noUnusedVariables: client.js, inlined beside it, calls it
function cellBuilder(data, state, mark) {
  const fmt = (n) => Number(n).toLocaleString('en-US')
  const plural = (n, one, many) => `${fmt(n)} ${n === 1 ? one : many}`
  const el = (tag, cls, text) => {
    const e = document.createElement(tag)
    if (cls) e.className = cls
    if (text !== undefined) e.textContent = text
    return e
  }

  /** Bar length in percent of the track: the largest message fills it. */
  function barWidth(tokens) {
    const f = state.scale === 'linear' ? (x) => x : Math.sqrt
    return Math.max(0, Math.min(100, (100 * f(tokens)) / f(data.maxTokens)))
  }

  function bar(side, item) {
    const b = el('button', 'bar')
    b.type = 'button'
    b.dataset.side = side
    b.dataset.index = String(item.index)
    b.dataset.tokens = String(item.tokens)
    b.style.width = `${barWidth(item.tokens).toFixed(3)}%`
    const label = `${side === 'before' ? 'Before' : 'After'} #${item.index}, ${item.role}, ${fmt(item.tokens)} tokens`
    b.setAttribute('aria-label', label)
    b.title = `${label}\n${item.preview}`
    for (const t of data.contentTypes) {
      const n = item.types[t.key]
      if (!(n > 0)) continue
      const seg = el('span', `seg t-${t.key}`)
      seg.style.flex = `${n} 1 0`
      seg.title = `${t.label}: ${fmt(n)} tokens`
      b.appendChild(seg)
    }
    return b
  }

  /** One badge per kind, pass and message referred to (×N when a pass did it N times). */
  function badges(actions) {
    const out = []
    const groups = new Map()
    for (const a of actions) {
      const key = `${a.kind}:${a.ref ?? ''}:${a.pass ?? ''}`
      if (!groups.has(key)) groups.set(key, [])
      groups.get(key).push(a)
    }
    for (const same of groups.values()) {
      const a = same[0]
      const title = `${a.passName}: ${same.map((x) => `${x.kind}${x.tokensSaved > 0 ? `, −${fmt(x.tokensSaved)} tokens` : ''}`).join('\n')}`
      const count = same.length > 1 ? ` ×${same.length}` : ''
      let badge
      if ((a.kind === 'deduplicated' || a.kind === 'omitted' || a.kind === 'superseded') && a.ref !== undefined) {
        const arrow = a.kind === 'superseded' ? `superseded by #${a.ref}` : a.kind === 'omitted' ? `omitted, copy of #${a.ref}` : `dedup → #${a.ref}`
        badge = el('a', `badge k-${a.kind} ref`, arrow + count)
        badge.href = `#b-${a.ref}`
        badge.dataset.ref = String(a.ref)
      } else badge = el('span', `badge k-${a.kind}`, a.kind + count)
      badge.title = title
      out.push(badge)
    }
    return out
  }

  function role(r, isSummary) {
    const e = el('span', `role r-${r}${isSummary ? ' summary' : ''}`, isSummary ? 'Σ' : r === 'assistant' ? 'A' : r === 'user' ? 'U' : '?')
    e.title = isSummary ? `${r} (summary)` : r
    return e
  }

  function cell(side, item, track, tok, badgeList) {
    const c = el('div', `cell ${side}`)
    c.id = `${side === 'before' ? 'b' : 'a'}-${item.index}`
    c.dataset.index = String(item.index)
    c.appendChild(el('span', 'idx', `#${item.index}`))
    c.appendChild(role(item.role, item.isSummary))
    c.appendChild(track)
    c.appendChild(tok)
    if (badgeList.length > 0) {
      const line = el('div', 'badges')
      for (const b of badgeList) line.appendChild(b)
      c.appendChild(line)
    }
    mark(c, side, item.index)
    return c
  }

  function beforeCell(i) {
    const b = data.before[i]
    const track = el('div', 'track')
    track.appendChild(bar('before', b))
    return cell('before', b, track, el('span', 'tok', fmt(b.tokens)), badges(b.actions))
  }

  /** What a message after stands for before: its own message's tokens, or the run a summary replaced. */
  function originalTokens(a) {
    if (a.from !== undefined) return data.before[a.from].tokens
    if (a.covers) {
      let n = 0
      for (let i = a.covers[0]; i <= a.covers[1]; i++) n += data.before[i].tokens
      return n
    }
    return 0
  }

  function afterCell(j) {
    const a = data.after[j]
    const orig = originalTokens(a)
    const track = el('div', 'track')
    if (orig > a.tokens) {
      const ghost = el('span', 'ghost')
      ghost.dataset.tokens = String(orig)
      ghost.style.width = `${barWidth(orig).toFixed(3)}%`
      track.appendChild(ghost)
    }
    track.appendChild(bar('after', a))
    const tok = el('span', 'tok', fmt(a.tokens))
    if (orig > 0 && orig !== a.tokens) tok.appendChild(el('span', 'delta', `${a.tokens < orig ? '−' : '+'}${fmt(Math.abs(orig - a.tokens))}`))
    let state = []
    if (a.same !== undefined) state = []
    else if (a.covers) {
      state = [el('span', 'badge k-summarized', `summary of #${a.covers[0]}–#${a.covers[1]} (${plural(a.covers[1] - a.covers[0] + 1, 'message', 'messages')})`)]
    } else if (a.inserted) state = [el('span', 'badge k-changed', 'added')]
    else if (a.from !== undefined) state = badges(data.before[a.from].actions.filter((x) => x.kind !== 'removed'))
    const c = cell('after', a, track, tok, state)
    if (a.from !== undefined) c.dataset.from = String(a.from)
    if (a.covers) {
      c.classList.add('spans')
      c.dataset.covers = `${a.covers[0]}-${a.covers[1]}`
    }
    return c
  }

  /** A row's side with no message: added by the condensation (before), removed (after). */
  function emptyCell(side, note) {
    const c = el('div', `cell ${side} empty`)
    c.appendChild(el('span', 'note', note))
    return c
  }

  return { beforeCell, afterCell, emptyCell, barWidth }
}
