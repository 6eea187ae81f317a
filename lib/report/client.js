// The report page's script, run in the browser (html.js inlines it with client-virtual.js,
// client-cells.js and client-panel.js into one function): builds the before | after grid from the
// page's data, only the rows in view; search, filters, jump to a message, the full-text panel,
// keyboard. Uses only the page's own data; fetches nothing.
/** The page's script. */
// biome-ignore lint/correctness/noUnusedVariables: the page that inlines this file calls it
function clientScript() {
  const data = JSON.parse(document.getElementById('report-data').textContent)
  const $ = (id) => document.getElementById(id)
  const fmt = (n) => Number(n).toLocaleString('en-US')
  const host = $('rows')
  const content = document.querySelector('.content')
  const head = $('mhead')

  // ---- The rows: what each holds, for the filters and the search.
  const rows = data.rows
  const rowOfBefore = new Int32Array(data.before.length).fill(-1)
  const rowOfAfter = new Int32Array(data.after.length).fill(-1)
  /** Per row inside a summary's run: the row the summary starts at (else -1). */
  const spanStart = new Int32Array(rows.length).fill(-1)
  let open = -1
  rows.forEach((row, r) => {
    if (row.before !== null) rowOfBefore[row.before] = r
    if (row.after !== null) rowOfAfter[row.after] = r
    if (row.after !== null && row.span > 1) open = spanStart[r] = r
    else if (row.covered && open >= 0) spanStart[r] = open
  })
  /** What happened to a row's message before (kept: nothing); a row the condensation added: changed. */
  const rowKinds = rows.map((row) => {
    if (row.before === null) return ['changed']
    const acts = data.before[row.before].actions
    return acts.length === 0 ? ['kept'] : [...new Set(acts.map((a) => a.kind))]
  })
  /** The content types of a row: its message before's and its message after's. */
  const rowTypes = rows.map((row) => {
    const set = new Set()
    for (const m of [row.before !== null ? data.before[row.before] : null, row.after !== null ? data.after[row.after] : null]) {
      if (m) for (const [k, n] of Object.entries(m.types)) if (n > 0) set.add(k)
    }
    return [...set]
  })
  const partsText = (parts) => (parts || []).map((p) => p.text).join('\n')
  const texts = new Array(rows.length)
  /** A row's text in lower case: its message before's, and its message after's when that changed. */
  function rowText(r) {
    if (texts[r] === undefined) {
      const row = rows[r]
      const b = row.before !== null ? partsText(data.before[row.before].parts) : ''
      const a = row.after !== null && data.after[row.after].same === undefined ? partsText(data.after[row.after].parts) : ''
      texts[r] = [b.toLowerCase(), a.toLowerCase()]
    }
    return texts[r]
  }

  // ---- What the page shows: the filters, the search, the highlighted and selected messages.
  const kindsOn = new Set()
  const typesOn = new Set()
  let query = ''
  let onlyMatches = false
  let view = [] // the rows shown, in order
  let viewOf = new Int32Array(rows.length) // per row: its place in `view`, or -1
  let groups = [] // summaries over several rows shown: { row, start, end } (places in `view`)
  let groupOf = new Int32Array(0) // per place in `view`: its group, or -1
  let matches = [] // places in `view` whose text holds the query
  let matchAt = -1
  let isMatch = new Uint8Array(rows.length)
  let highlight = { before: -1, after: -1 }
  let current = null // [side, index] in the panel
  const state = { scale: 'sqrt' }

  const rowMatches = (r) => {
    const [b, a] = rowText(r)
    return b.includes(query) || a.includes(query)
  }
  const shows = (r) =>
    (kindsOn.size === 0 || rowKinds[r].some((k) => kindsOn.has(k))) &&
    (typesOn.size === 0 || rowTypes[r].some((t) => typesOn.has(t))) &&
    (!onlyMatches || !query || isMatch[r] === 1)

  function counterpart(side, index) {
    if (side === 'before') {
      const r = rowOfBefore[index]
      const s = spanStart[r] >= 0 ? spanStart[r] : r
      return rows[s].after !== null ? ['after', rows[s].after] : null
    }
    const a = data.after[index]
    if (a.from !== undefined) return ['before', a.from]
    if (a.covers) return ['before', a.covers[0]]
    return null
  }

  function markCell(cell, side, index) {
    const hl = side === 'before' ? highlight.before === index : highlight.after === index
    const sel = current !== null && current[0] === side && current[1] === index
    cell.classList.toggle('highlight', hl)
    cell.classList.toggle('selected', sel)
    const bar = cell.querySelector('.bar')
    if (bar) bar.classList.toggle('selected', sel)
  }
  function markRow(div, r) {
    div.classList.toggle('hit', query !== '' && isMatch[r] === 1)
    div.classList.toggle('hit-current', matchAt >= 0 && view[matches[matchAt]] === r)
  }
  /** The state classes of the rows and cells shown, again. */
  function refresh() {
    for (const c of host.querySelectorAll('.cell[data-index]')) markCell(c, c.classList.contains('before') ? 'before' : 'after', Number(c.dataset.index))
    for (const div of host.querySelectorAll('.row')) markRow(div, Number(div.dataset.row))
  }

  const cells = cellBuilder(data, state, markCell)
  function buildRow(v) {
    const r = view[v]
    const row = rows[r]
    const div = document.createElement('div')
    div.className = 'row'
    div.dataset.row = String(r)
    div.appendChild(row.before !== null ? cells.beforeCell(row.before) : cells.emptyCell('before', 'added by the condensation'))
    const g = groupOf[v]
    if (g >= 0 && groups[g].end > groups[g].start) {
      const gap = document.createElement('div')
      gap.className = 'cell after covered'
      div.appendChild(gap)
    } else if (g >= 0) div.appendChild(cells.afterCell(rows[groups[g].row].after))
    else if (row.after !== null) div.appendChild(cells.afterCell(row.after))
    else div.appendChild(cells.emptyCell('after', 'removed'))
    markRow(div, r)
    return div
  }
  /** A summary shown beside more than one row: one cell over them. */
  function buildSpan(g) {
    const c = cells.afterCell(rows[groups[g].row].after)
    c.classList.add('over')
    return c
  }
  /** Rows sized alike: with badges or not, with a second line of tokens (the change) or not. */
  function shape(v) {
    const row = rows[view[v]]
    const b = row.before !== null ? data.before[row.before] : null
    const a = row.after !== null ? data.after[row.after] : null
    const badges = (b && b.actions.length > 0) || (a && (a.inserted || a.covers)) ? 1 : 0
    return badges + (a && a.same === undefined ? 2 : 0)
  }
  let scroller = null
  const list = virtualRows(host, {
    row: buildRow,
    span: buildSpan,
    spans(from, to) {
      const out = []
      for (let v = from; v <= to; v++) {
        const g = groupOf[v]
        if (g >= 0 && groups[g].end > groups[g].start && (out.length === 0 || out[out.length - 1].key !== g)) out.push({ key: g, ...groups[g] })
      }
      return out
    },
    shape,
    guess: [31, 51, 39, 59],
    scroller: () => scroller,
    head: () => head.offsetHeight,
  })

  // ---- Filters and search: which rows are shown, and which of them match.
  function computeMatches() {
    isMatch = new Uint8Array(rows.length)
    if (query) for (let r = 0; r < rows.length; r++) isMatch[r] = rowMatches(r) ? 1 : 0
  }
  function rebuild() {
    const anchor = list.scrolledInto() && view.length > 0 ? view[list.firstVisible()] : -1
    view = []
    viewOf = new Int32Array(rows.length).fill(-1)
    for (let r = 0; r < rows.length; r++) {
      if (shows(r)) {
        viewOf[r] = view.length
        view.push(r)
      }
    }
    groups = []
    groupOf = new Int32Array(view.length).fill(-1)
    view.forEach((r, v) => {
      const s = spanStart[r]
      if (s < 0) return
      const last = groups[groups.length - 1]
      if (last && last.row === s && last.end === v - 1) last.end = v
      else groups.push({ row: s, start: v, end: v })
      groupOf[v] = groups.length - 1
    })
    matches = []
    if (query) view.forEach((r, v) => isMatch[r] && matches.push(v))
    matchAt = -1
    list.reset(view.length)
    if (anchor >= 0) {
      let v = 0
      while (v < view.length && view[v] < anchor) v++
      if (v < view.length) list.scrollToRow(v, 'start')
    }
    const filtered = kindsOn.size > 0 || typesOn.size > 0 || (onlyMatches && query)
    $('shown-count').textContent = `${fmt(view.length)} of ${fmt(rows.length)} rows shown`
    $('filter-clear').hidden = !filtered
    $('legend').classList.toggle('filtering', kindsOn.size > 0 || typesOn.size > 0)
    $('messages').classList.toggle('none', view.length === 0)
    searchCount()
  }
  function searchCount() {
    $('search-count').textContent = !query
      ? ''
      : matches.length === 0
        ? 'no match'
        : matchAt >= 0
          ? `${fmt(matchAt + 1)} of ${fmt(matches.length)}`
          : `${fmt(matches.length)} ${matches.length === 1 ? 'match' : 'matches'}`
  }
  function setQuery(text) {
    const q = text.trim().toLowerCase()
    if (q === query) return
    query = q
    computeMatches()
    if (onlyMatches) rebuild()
    else {
      matches = []
      if (query) view.forEach((r, v) => isMatch[r] && matches.push(v))
      matchAt = -1
      searchCount()
      refresh()
    }
  }
  /** To the next (or previous) match: scrolled to, and open in the panel with the matches marked. */
  function step(dir) {
    if (matches.length === 0) return
    if (matchAt < 0) {
      const top = list.firstVisible()
      let k = matches.findIndex((v) => v >= top)
      if (k < 0) k = 0
      matchAt = dir > 0 ? k : (k - 1 + matches.length) % matches.length
    } else matchAt = (matchAt + dir + matches.length) % matches.length
    const r = view[matches[matchAt]]
    list.scrollToRow(matches[matchAt], 'center')
    searchCount()
    const row = rows[r]
    const [b] = rowText(r)
    if (row.before !== null && b.includes(query)) panel.show('before', row.before)
    else if (row.after !== null) panel.show('after', row.after)
    else refresh()
  }
  function clearFilters() {
    kindsOn.clear()
    typesOn.clear()
    onlyMatches = false
    $('search-only').checked = false
    for (const b of document.querySelectorAll('#legend button.f')) b.setAttribute('aria-pressed', 'false')
    rebuild()
  }

  // ---- The panel, and going to a message.
  const aside = $('panel')
  const toggle = $('panel-toggle')
  /** Below the content (a narrow page), the panel folds to one line until a message is opened. */
  function fold(folded) {
    aside.classList.toggle('collapsed', folded)
    toggle.setAttribute('aria-expanded', String(!folded))
    toggle.lastElementChild.textContent = folded ? 'show ▴' : 'hide ▾'
  }
  toggle.addEventListener('click', () => fold(!aside.classList.contains('collapsed')))
  const panel = messagePanel(data, $('panel-body'), aside, {
    query: () => query,
    counterpart,
    select(side, index) {
      current = [side, index]
      fold(false)
      refresh()
    },
  })
  /** Shows a message's row (clearing the filters if they hide it); returns its place in the view. */
  function reveal(r, block) {
    if (viewOf[r] < 0) {
      clearFilters()
      $('jump-status').textContent = 'filters cleared to show it'
    }
    list.scrollToRow(viewOf[r], block)
    return viewOf[r]
  }
  function goTo(index) {
    if (!(Number.isInteger(index) && index >= 0 && index < data.before.length)) {
      $('jump-status').textContent = `no message #${index} (there are #0 to #${data.before.length - 1})`
      return false
    }
    $('jump-status').textContent = ''
    const other = counterpart('before', index)
    highlight = { before: index, after: other ? other[1] : -1 }
    reveal(rowOfBefore[index], 'center')
    panel.show('before', index)
    if (history.replaceState) history.replaceState(null, '', `#b-${index}`)
    return true
  }
  /** The message beside the one in the panel, on its side, among the rows shown. */
  function move(dir) {
    const [side, index] = current
    const of = side === 'before' ? rowOfBefore : rowOfAfter
    for (let k = index + dir; k >= 0 && k < of.length; k += dir) {
      const r = of[k]
      if (r < 0 || viewOf[r] < 0) continue
      const g = groupOf[viewOf[r]]
      list.scrollToRow(g >= 0 && side === 'after' ? groups[g].start : viewOf[r], 'nearest')
      panel.show(side, k)
      const focused = document.activeElement instanceof Element && document.activeElement.classList.contains('bar')
      const bar = host.querySelector(`.bar[data-side="${side}"][data-index="${k}"]`)
      if (focused && bar) bar.focus({ preventScroll: true })
      return
    }
  }

  // ---- Events.
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
    if (bar) panel.show(bar.dataset.side, Number(bar.dataset.index))
  })
  for (const b of document.querySelectorAll('#legend button.f')) {
    const kind = b.dataset.kind
    const type = b.dataset.type
    const n = rows.reduce((sum, _row, r) => sum + ((kind ? rowKinds[r].includes(kind) : rowTypes[r].includes(type)) ? 1 : 0), 0)
    b.querySelector('.n').textContent = fmt(n)
    b.disabled = n === 0
    b.addEventListener('click', () => {
      const set = kind ? kindsOn : typesOn
      const key = kind || type
      if (set.has(key)) set.delete(key)
      else set.add(key)
      b.setAttribute('aria-pressed', String(set.has(key)))
      rebuild()
    })
  }
  $('filter-clear').addEventListener('click', clearFilters)
  const search = $('search')
  let typing = 0
  search.addEventListener('input', () => {
    clearTimeout(typing)
    typing = setTimeout(() => setQuery(search.value), 150)
  })
  /** The query as typed so far (not waiting for the pause in typing). */
  const flush = () => {
    clearTimeout(typing)
    setQuery(search.value)
  }
  search.addEventListener('keydown', (e) => {
    if (e.key === 'Enter') {
      e.preventDefault()
      flush()
      step(e.shiftKey ? -1 : 1)
    } else if (e.key === 'Escape' && search.value) {
      search.value = ''
      flush()
    }
  })
  $('search-next').addEventListener('click', () => {
    flush()
    step(1)
  })
  $('search-prev').addEventListener('click', () => {
    flush()
    step(-1)
  })
  $('search-only').addEventListener('change', (e) => {
    flush()
    onlyMatches = e.target.checked
    rebuild()
  })
  $('jump').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return
    e.preventDefault()
    const m = /^\s*#?\s*(\d+)\s*$/.exec(e.target.value)
    if (m) goTo(Number(m[1]))
    else $('jump-status').textContent = 'a message number: 123 or #123'
  })
  // Bar length: tokens, or their square root (small messages stay visible beside large ones).
  function scale(mode) {
    state.scale = mode
    for (const b of host.querySelectorAll('.bar[data-tokens], .ghost[data-tokens]')) b.style.width = `${cells.barWidth(Number(b.dataset.tokens)).toFixed(3)}%`
    for (const b of document.querySelectorAll('[data-scale]')) b.setAttribute('aria-pressed', String(b.dataset.scale === mode))
  }
  for (const b of document.querySelectorAll('[data-scale]')) b.addEventListener('click', () => scale(b.dataset.scale))
  document.addEventListener('keydown', (e) => {
    const typingIn = e.target instanceof HTMLInputElement || e.target instanceof HTMLTextAreaElement
    if (e.key === '/' && !typingIn && !e.ctrlKey && !e.metaKey && !e.altKey) {
      e.preventDefault()
      search.focus()
      search.select()
      return
    }
    if (!current || (e.key !== 'ArrowDown' && e.key !== 'ArrowUp') || typingIn) return
    e.preventDefault()
    move(e.key === 'ArrowDown' ? 1 : -1)
  })
  // The list scrolls with the window, or with the content column when the page is too narrow for
  // the panel beside it (the panel then sits below, and the content scrolls on its own).
  let frame = 0
  const onScroll = () => {
    if (!frame)
      frame = requestAnimationFrame(() => {
        frame = 0
        list.update()
      })
  }
  let width = host.clientWidth
  function onResize() {
    scroller = getComputedStyle(content).overflowY === 'auto' ? content : null
    // A summary's number, bar and badge stay in view below the sticky head while its rows scroll.
    host.style.setProperty('--head', `${head.offsetHeight}px`)
    if (host.clientWidth !== width) {
      width = host.clientWidth
      list.remeasure()
    } else list.update()
  }
  window.addEventListener('scroll', onScroll, { passive: true })
  content.addEventListener('scroll', onScroll, { passive: true })
  // The content column changes size with the window, and with the panel below it folding.
  new ResizeObserver(onResize).observe(content)
  window.addEventListener('hashchange', () => {
    const hash = /^#b-(\d+)$/.exec(location.hash)
    if (hash) goTo(Number(hash[1]))
  })

  scroller = getComputedStyle(content).overflowY === 'auto' ? content : null
  rebuild()
  const ready = () => {
    document.documentElement.dataset.ready = 'true'
  }
  const hash = /^#b-(\d+)$/.exec(location.hash)
  if (hash && goTo(Number(hash[1]))) {
    // The browser scrolls to the element the address names until the page has loaded: center it again after.
    const at = rowOfBefore[Number(hash[1])]
    window.addEventListener(
      'load',
      () =>
        requestAnimationFrame(() => {
          if (viewOf[at] >= 0) list.scrollToRow(viewOf[at], 'center')
          ready()
        }),
      { once: true },
    )
  } else ready()
}
