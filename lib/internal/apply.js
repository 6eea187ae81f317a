// The engine's changes applied with structural sharing: messages it did not change are the caller's
// own objects, changed ones new objects, built in slices. Never mutates the caller's messages.
'use strict'

const scheduler = require('./scheduler.js')
const { PART_BYTES } = require('./crossing.js')

// ---------------------------------------------------------------------------------------------
// Changes from the engine, applied with structural sharing.

/**
 * Applies packed changes (see PackedChanges in crates/binding/src/codec.rs: four codes per change, the new texts
 * concatenated) to `out`, a copy of `messages`, `size` changes per call of the returned step
 * (true when all are applied): changed messages become shallow copies with new blocks, the others
 * stay the caller's own objects. With `readPart`, the texts are not in `packed.text` but read from
 * the engine a part at a time (each part holds whole texts), as the changes reach them.
 */
function changeApplier(messages, packed, out, readPart) {
  const { codes, ends } = packed
  let text = packed.text
  let base = 0 // where `text` starts in the whole, in UTF-16 units
  let start = 0
  let c = 0
  return (size) => {
    const stop = Math.min(ends.length, c + size)
    for (; c < stop; c++) {
      const i = codes[4 * c]
      const block = codes[4 * c + 1] - 1
      const part = codes[4 * c + 2] - 1
      const field = codes[4 * c + 3] === 0 ? 'text' : 'content'
      while (readPart && ends[c] - base > text.length) {
        const next = readPart(PART_BYTES)
        if (next === null || next === undefined) throw new Error(`the engine's changed texts ended before change ${c} of ${ends.length}`)
        text = text.slice(start - base) + next
        base = start
      }
      const value = text.slice(start - base, ends[c] - base)
      start = ends[c]
      const original = messages[i]
      const m = out[i] === original ? { ...original } : out[i]
      if (block < 0) {
        m.content = value
      } else {
        if (m.content === original.content) m.content = m.content.slice()
        const b = m.content[block] === original.content[block] ? { ...original.content[block] } : m.content[block]
        if (part >= 0) {
          if (b.content === original.content[block].content) b.content = b.content.slice()
          b.content[part] = { ...b.content[part], text: value }
        } else {
          b[field] = value
        }
        m.content[block] = b
      }
      out[i] = m
    }
    return c >= ends.length
  }
}

/** Applies packed changes at once and returns a new array (changed messages are new objects). */
function applyChanges(messages, packed) {
  const out = messages.slice()
  changeApplier(messages, packed, out)(Infinity)
  return out
}

/**
 * The engine's answer applied through the scheduler: the copy of the array, the text changes, the
 * new tool inputs, then the message layout, each in slices.
 */
async function buildMessages(messages, changes, summary, signal, readPart) {
  const out = await copyMessages(messages, signal)
  await scheduler.run(changeApplier(messages, changes, out, readPart), signal, 64)
  const inputs = summary.inputs
  let n = 0
  await scheduler.run(
    (size) => {
      const stop = Math.min(inputs.length, n + size)
      for (; n < stop; n++) {
        const [i, block, input] = inputs[n]
        const m = out[i] === messages[i] ? { ...messages[i] } : out[i]
        if (m.content === messages[i].content) m.content = m.content.slice()
        m.content[block] = { ...m.content[block], input }
        out[i] = m
      }
      return n >= inputs.length
    },
    signal,
    64,
  )
  const layout = summary.layout
  if (!layout) return out
  const laid = []
  let j = 0
  await scheduler.run(
    (size) => {
      const stop = Math.min(layout.length, j + size)
      for (; j < stop; j++) {
        const item = layout[j]
        laid.push(typeof item === 'number' ? out[item] : item.message)
      }
      return j >= layout.length
    },
    signal,
    1024,
  )
  return laid
}

/** A copy of the caller's array (the messages themselves shared), through the scheduler. */
async function copyMessages(messages, signal) {
  const out = []
  let k = 0
  await scheduler.run(
    (size) => {
      const stop = Math.min(messages.length, k + size)
      for (; k < stop; k++) out.push(messages[k])
      return k >= messages.length
    },
    signal,
    1024,
  )
  return out
}

module.exports = { applyChanges, buildMessages, copyMessages }
