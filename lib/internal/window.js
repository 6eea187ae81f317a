// Roo Code's sliding window: which messages it removes, one rule applied two ways. The destructive
// form (`cutWindow` here: the messages go, the references kept follow the cut; `slidingWindow`, the
// manager's last resort and the Roo entries' truncation) and the non-destructive one (the Roo
// entries' later eras, lib/roo/manage.js: the messages are tagged `truncationParent` behind a
// marker) both take the cut from `windowCut`; `cutToTail` is the manager's last cut when the half
// cut removes nothing. Reads messages; never changes them.
'use strict'

const { cutFollowingReferences } = require('./markers.js')

/**
 * Roo's sliding window over `count` messages: the first is kept and the `remove` oldest after it
 * go, `fracToRemove` of the others rounded down to an even number. `keptFrom` is where the kept
 * messages after the first begin, as Roo's `slice(remove + 1)` reads it for any number: 0 for a
 * fraction that is not a number, counted from the end for a negative one, `count` at most. A
 * fraction from 0 to 1 removes positions 1 to `remove` and keeps the first and those from
 * `keptFrom` on; outside it, each form applies the numbers as its Roo era does.
 */
function windowCut(count, fracToRemove) {
  const raw = Math.floor((count - 1) * fracToRemove)
  const remove = raw - (raw % 2)
  const start = remove + 1
  const keptFrom = Number.isNaN(start) ? 0 : start < 0 ? Math.max(count + start, 0) : Math.min(start, count)
  return { remove, keptFrom }
}

/**
 * The destructive sliding window: the first message and those from `windowCut`'s `keptFrom` on,
 * with Roo's own arithmetic for any number (a fraction that is not a number keeps the first
 * message twice, as Roo's does). The references kept follow the cut (lib/internal/markers.js).
 */
function cutWindow(messages, fracToRemove = 0.5) {
  if (messages.length === 0) return []
  const { keptFrom } = windowCut(messages.length, fracToRemove)
  // From 0 Roo keeps the first message twice: no cut to follow.
  if (keptFrom === 0) return [messages[0], ...messages]
  const kept = [0]
  for (let i = keptFrom; i < messages.length; i++) kept.push(i)
  return cutFollowingReferences(messages, kept)
}

/** A user message answering tool calls: a kept part must not begin with it when its calls would go. */
const answersCalls = (m) =>
  m !== null && typeof m === 'object' && m.role === 'user' && Array.isArray(m.content) && m.content.some((b) => b && b.type === 'tool_result')

/**
 * The manager's last cut when the half cut removes nothing: the first message and the last `keep`
 * (moved back over results whose calls would otherwise go), the references kept following the cut.
 */
function cutToTail(messages, keep) {
  const n = messages.length
  if (n <= keep + 1) return messages
  let start = Math.max(1, n - keep)
  while (start > 1 && answersCalls(messages[start])) start--
  const kept = [0]
  for (let i = start; i < n; i++) kept.push(i)
  return kept.length === n ? messages : cutFollowingReferences(messages, kept)
}

module.exports = { windowCut, cutWindow, cutToTail }
