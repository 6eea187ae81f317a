// Reference markers seen from JavaScript: whether a history may hold one (a cheap scan, so the
// engine is asked only then), and a cut of a history (a sliding window) whose kept references are
// made to follow it by the engine's rule (`reference::follow_cut`): one whose bytes were cut away
// gets them back, one whose copy moved names its place now. Reads messages; never changes them.
'use strict'

const native = require('./native.js')
const { isObject } = require('./values.js')
const { pushAll } = require('./crossing.js')
const { applyChanges } = require('./apply.js')

/** How every reference marker begins (src/reference.rs `OPEN`). */
const MARKER_OPEN = '⟨ Reference: '

const holdsText = (t) => typeof t === 'string' && t.includes(MARKER_OPEN)
const partHolds = (p) =>
  isObject(p) && (holdsText(p.text) || (p.type === 'tool_result' && (holdsText(p.content) || (Array.isArray(p.content) && p.content.some(partHolds)))))

/** Whether a text of `messages` may hold a reference marker (only then is the engine asked). */
function holdsMarker(messages) {
  return messages.some((m) => isObject(m) && (holdsText(m.content) || (Array.isArray(m.content) && m.content.some(partHolds))))
}

/**
 * The messages of `messages` at the indexes `kept` (ascending), their references made to follow
 * the cut. Messages without a reference are the caller's own objects; a history the engine cannot
 * take is cut as it is.
 */
function cutFollowingReferences(messages, kept) {
  const out = kept.map((i) => messages[i])
  if (!holdsMarker(out)) return out
  const history = new native.History()
  if (pushAll(history, messages)) return out
  const followed = applyChanges(messages, history.followCut(kept).changes)
  return kept.map((i) => followed[i])
}

module.exports = { MARKER_OPEN, holdsMarker, cutFollowingReferences }
