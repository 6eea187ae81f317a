// The report page's virtual list (a browser script, inlined by html.js with client.js): of a list of
// rows only those in view, plus a margin, exist in the DOM. Each row is measured when it is first
// shown; the rows not yet shown count with the mean height of the measured rows of their shape, so
// the list is as tall as all its rows. Rows above the view that turn out taller or shorter move the
// page by as much, so what is in view stays in place.
/**
 * `host`: the element the rows go in (positioned, its height set here). Options:
 * - `row(v)`: builds the element of row v;
 * - `shape(v)`: a small number grouping rows of one height (estimates per shape), `guess[shape]` the
 *   height of a shape before any row of it is measured;
 * - `spans(from, to)`: the elements over several rows ([{ key, start, end }]) that rows from..to
 *   touch, built by `span(key)` and sized to their rows;
 * - `scroller()`: the element that scrolls the list, or null for the window;
 * - `head()`: the height of what sticks above the rows (kept clear when scrolling to a row);
 * - `margin`: pixels rendered beyond the view on each side.
 */
// biome-ignore lint/correctness/noUnusedVariables: client.js, inlined beside it, calls it
function virtualRows(host, opt) {
  const margin = opt.margin ?? 600
  let count = 0
  let heights = new Float64Array(0)
  let measured = new Uint8Array(0)
  let offsets = new Float64Array(1)
  let shapes = new Uint8Array(0)
  const sums = new Float64Array(opt.guess.length)
  const counts = new Float64Array(opt.guess.length)
  const shown = new Map() // row -> element
  const spans = new Map() // key -> { el, start, end }

  const estimate = (shape) => (counts[shape] > 0 ? sums[shape] / counts[shape] : opt.guess[shape])

  function layout() {
    offsets = new Float64Array(count + 1)
    let y = 0
    for (let v = 0; v < count; v++) {
      offsets[v] = y
      y += heights[v]
    }
    offsets[count] = y
    host.style.height = `${Math.ceil(y)}px`
    for (const [v, el] of shown) el.style.top = `${offsets[v]}px`
    for (const s of spans.values()) {
      s.el.style.top = `${offsets[s.start]}px`
      s.el.style.height = `${offsets[s.end + 1] - offsets[s.start]}px`
    }
  }

  /** The row at height y of the list (clamped to the rows there are). */
  function rowAt(y) {
    let lo = 0
    let hi = count - 1
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1
      if (offsets[mid] <= y) lo = mid
      else hi = mid - 1
    }
    return lo
  }

  /** Where the list is: its top relative to the top of the view, and the view's height. */
  function viewport() {
    const s = opt.scroller()
    const hostTop = host.getBoundingClientRect().top
    if (s) return { top: hostTop - s.getBoundingClientRect().top, height: s.clientHeight }
    return { top: hostTop, height: window.innerHeight }
  }

  function scrollBy(dy) {
    const s = opt.scroller()
    if (s) s.scrollTop += dy
    else window.scrollBy(0, dy)
  }

  /** Whether the view is at the end of what scrolls (within a pixel). */
  function scrolledToEnd() {
    const s = opt.scroller()
    if (s) return s.scrollTop + s.clientHeight >= s.scrollHeight - 1
    const d = document.documentElement
    return window.scrollY + window.innerHeight >= d.scrollHeight - 1
  }

  function scrollToEnd() {
    const s = opt.scroller()
    if (s) s.scrollTop = s.scrollHeight
    else window.scrollTo(0, document.documentElement.scrollHeight)
  }

  function clear() {
    for (const el of shown.values()) el.remove()
    for (const s of spans.values()) s.el.remove()
    shown.clear()
    spans.clear()
  }

  /** Shows the rows in view (and the margin), drops the others, measures the new ones. */
  function update() {
    if (count === 0) return
    for (let pass = 0; pass < 4; pass++) {
      const { top, height } = viewport()
      const from = rowAt(-top - margin)
      const to = rowAt(-top + height + margin)
      for (const [v, el] of shown) {
        if (v < from || v > to) {
          el.remove()
          shown.delete(v)
        }
      }
      const added = []
      for (let v = from; v <= to; v++) {
        if (shown.has(v)) continue
        const el = opt.row(v)
        el.style.top = `${offsets[v]}px`
        host.appendChild(el)
        shown.set(v, el)
        added.push(v)
      }
      const wanted = opt.spans(from, to)
      const keys = new Set(wanted.map((s) => s.key))
      for (const [key, s] of spans) {
        if (!keys.has(key)) {
          s.el.remove()
          spans.delete(key)
        }
      }
      for (const s of wanted) {
        if (spans.has(s.key)) continue
        const el = opt.span(s.key)
        host.appendChild(el)
        spans.set(s.key, { el, start: s.start, end: s.end })
      }
      // Measure (one layout for all the new rows), then keep the row at the top of the view in
      // place — or, when the view was at the end of the list, the end.
      const atEnd = scrolledToEnd()
      const anchor = rowAt(-top)
      const anchorTop = offsets[anchor]
      let changed = false
      for (const v of added) {
        const h = shown.get(v).getBoundingClientRect().height
        if (!measured[v]) {
          measured[v] = 1
          sums[shapes[v]] += h
          counts[shapes[v]]++
        }
        if (h !== heights[v]) {
          heights[v] = h
          changed = true
        }
      }
      if (changed) {
        for (let v = 0; v < count; v++) if (!measured[v]) heights[v] = estimate(shapes[v])
      }
      layout()
      if (!changed) break
      if (atEnd) scrollToEnd()
      else if (top < 0 && offsets[anchor] !== anchorTop) scrollBy(offsets[anchor] - anchorTop)
    }
  }

  /** A new list of `n` rows (the old rows' elements go). */
  function reset(n) {
    clear()
    count = n
    heights = new Float64Array(n)
    measured = new Uint8Array(n)
    shapes = new Uint8Array(n)
    for (let v = 0; v < n; v++) {
      shapes[v] = opt.shape(v)
      heights[v] = estimate(shapes[v])
    }
    layout()
    update()
  }

  /** After the rows' width changed: measures the rows shown again, estimates the others anew. */
  function remeasure() {
    sums.fill(0)
    counts.fill(0)
    measured.fill(0)
    for (const [v, el] of shown) {
      heights[v] = el.getBoundingClientRect().height
      measured[v] = 1
      sums[shapes[v]] += heights[v]
      counts[shapes[v]]++
    }
    for (let v = 0; v < count; v++) if (!measured[v]) heights[v] = estimate(shapes[v])
    layout()
    update()
  }

  /**
   * Scrolls row v into view ('center', 'start' below the sticky head, or 'nearest': only as far as
   * needed, and 8 px more), rendering it; the rows it passes are measured on the way, so it repeats until the row
   * stays where it was put. Returns the row's element.
   */
  function scrollToRow(v, block = 'center') {
    if (v < 0 || v >= count) return null
    for (let tries = 0; tries < 5; tries++) {
      const { top, height } = viewport()
      const head = opt.head()
      const y = offsets[v] + top // the row's top relative to the view
      const h = heights[v]
      let dy = 0
      if (block === 'center') dy = y + h / 2 - (head + height) / 2
      else if (block === 'start') dy = y - head
      else if (y < head) dy = y - head - 8
      else if (y + h > height) dy = Math.min(y - head, y + h - height + 8)
      if (Math.abs(dy) < 1) break
      scrollBy(dy)
      update()
    }
    update()
    return shown.get(v) ?? null
  }

  /** The first row whose bottom is below the top of the view (under the sticky head). */
  function firstVisible() {
    if (count === 0) return -1
    return rowAt(-viewport().top + opt.head())
  }

  /** Whether the top of the list is scrolled above the view. */
  const scrolledInto = () => viewport().top < 0

  return { reset, update, remeasure, scrollToRow, firstVisible, scrolledInto, element: (v) => shown.get(v) ?? null, rendered: () => shown }
}
