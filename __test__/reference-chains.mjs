// Chains of condensing runs and the promise references keep across them: every reference marker
// in any output is either expanded by `expandReferences` to exactly the bytes it stood for, or
// is an explicit "Omitted" note. Shared by the chain tests (__test__/reference-chains.test.ts,
// __test__/slow/reference-chains.slow.ts) and the count (scripts/reference-chains.mjs). Checks
// each marker on its own, independently of the engine's parser: the bytes a marker expands to
// must be a part of the text its message held in the history the chain started from or in a
// history an earlier run of the chain returned (a marker stands for the bytes of the run's input,
// which may hold an earlier run's "Superseded" note), its message found there by its `ts`, or a
// tool message's `tool_call_id`. Reads its arguments, never changes them.
import { condense, countTokens, expandReferences } from '../lib/index.js'
import { fromAnthropic } from '../lib/openai-format.js'

const OPEN = '⟨ Reference: '
/** A well-formed marker, as the engine writes it: one line, a message number, a 12-digit seal. */
const MARKER = /⟨ Reference: [^\n]*? message #(\d+) · sha256:[0-9a-f]{12} ⟩/g

/** Every text of a message, in either format: string content, text parts and blocks, tool results. */
export function textsOf(m) {
  if (m === null || typeof m !== 'object') return []
  if (typeof m.content === 'string') return [m.content]
  if (!Array.isArray(m.content)) return []
  const out = []
  for (const b of m.content) {
    if (b === null || typeof b !== 'object') continue
    if (b.type === 'text' && typeof b.text === 'string') out.push(b.text)
    if (b.type === 'tool_result') {
      if (typeof b.content === 'string') out.push(b.content)
      else if (Array.isArray(b.content)) for (const p of b.content) if (p && p.type === 'text' && typeof p.text === 'string') out.push(p.text)
    }
  }
  return out
}

/** Where each message of `original` is found again: by `ts`, by a tool message's `tool_call_id`,
 * and by a tool_result's `tool_use_id`. */
function originIndex(original) {
  const byKey = new Map()
  for (const m of original) {
    if (m === null || typeof m !== 'object') continue
    if (m.ts !== undefined) byKey.set(`ts:${m.ts}`, m)
    if (m.role === 'tool' && m.tool_call_id !== undefined) byKey.set(`call:${m.tool_call_id}`, m)
    if (Array.isArray(m.content))
      for (const b of m.content) if (b && b.type === 'tool_result') byKey.set(`call:${b.tool_use_id}`, { role: 'user', content: [b] })
  }
  return byKey
}

/** The original texts a message of an output came from (all of them when it is not found). */
function originTexts(byKey, m, original) {
  const keys = []
  if (m.role === 'tool') keys.push(`call:${m.tool_call_id}`)
  if (m.ts !== undefined) keys.push(`ts:${m.ts}`)
  const texts = keys.flatMap((k) => (byKey.has(k) ? textsOf(byKey.get(k)) : []))
  return texts.length > 0 ? texts : original.flatMap(textsOf)
}

/** A stand-in for a message a probe does not look at. */
const filler = (m) => ({ role: m && m.role === 'assistant' ? 'assistant' : 'user', content: '' })

/**
 * Checks every marker of `output` (a history in `format`) against `histories`: the history the
 * chain started from and those its earlier runs returned (one history alone may be given). Answers the counts and, for each marker that breaks the promise, what it is:
 * `malformed` (an opening with no well-formed marker: a cut one), `unexpandable` (expandReferences
 * leaves it), `wrong` (it expands to bytes its message never held).
 */
export function checkMarkers(histories, output, format = 'anthropic') {
  const earlier = Array.isArray(histories[0]) ? histories : [histories]
  const indexes = earlier.map(originIndex)
  const opts = format === 'openai' ? { format: 'openai' } : undefined
  const result = { markers: 0, expanded: 0, omitted: 0, bad: [] }
  output.forEach((m, q) => {
    for (const text of textsOf(m)) {
      result.omitted += text.split('⟨ Omitted: ').length - 1
      if (!text.includes(OPEN)) continue
      const opens = text.split(OPEN).length - 1
      const found = [...text.matchAll(MARKER)]
      result.markers += opens
      for (let k = found.length; k < opens; k++)
        result.bad.push({ message: q, kind: 'malformed', marker: text.slice(text.indexOf(OPEN), text.indexOf(OPEN) + 160) })
      for (const f of found) {
        const marker = f[0]
        const target = Number(f[1])
        // The marker alone in its message (after the message's own texts when it names its own
        // message), the message it names as it is, everything else blanked.
        const probe = output.map((x, i) => (i === target ? x : filler(x)))
        const own = target === q ? textsOf(m).map((text) => ({ type: 'text', text })) : []
        probe[q] = { role: m.role === 'assistant' ? 'assistant' : 'user', content: [...own, { type: 'text', text: marker }] }
        let bytes
        try {
          const expanded = (opts ? expandReferences(probe, opts) : expandReferences(probe))[q].content
          bytes = expanded[expanded.length - 1].text
        } catch (e) {
          bytes = marker
          result.bad.push({ message: q, kind: 'unexpandable', marker, error: String(e && e.message) })
          continue
        }
        if (bytes === marker) {
          result.bad.push({ message: q, kind: 'unexpandable', marker })
        } else if (!earlier.some((h, k) => originTexts(indexes[k], m, h).some((t) => t.includes(bytes)))) {
          result.bad.push({ message: q, kind: 'wrong', marker, bytes: bytes.slice(0, 120) })
        } else {
          result.expanded++
        }
      }
    }
  })
  return result
}

/** A deterministic stand-in summarizer: a short text naming what it summarized. */
export async function fakeSummarize(req) {
  const n = Array.isArray(req.messages) ? req.messages.length : 0
  return { text: `Summary of ${n} messages: the task went on; nothing failed.`, cost: 0 }
}

/** One run's options, by name: `lossless-first`, `lossless-latest`, `truncation`, `smart-<preset>`. */
export function runOptions(name) {
  if (name === 'lossless-first') return { provider: 'lossless' }
  if (name === 'lossless-latest') return { provider: 'lossless', config: { keep: 'latest' } }
  if (name === 'truncation') return { provider: 'truncation' }
  if (name === 'native') return { provider: 'native', summarize: fakeSummarize }
  if (name.startsWith('smart-')) return { provider: 'smart', config: { preset: name.slice('smart-'.length) }, summarize: fakeSummarize }
  throw new Error(`runOptions: unknown run ${name}`)
}

/**
 * Runs `steps` (run names, or `{ name, prevContextTokens }`: the caller's count given as that
 * multiple of the history's tokens) one after the other from
 * `anthropic` (a history in Anthropic's format; converted first for `format: 'openai'`), checking
 * the markers after each. `onRun(step, input, result, check, snapshot)` sees each run (`snapshot`:
 * a deep copy of its input taken before it). Answers the history
 * the chain started from and the checks.
 */
export async function runChain(anthropic, steps, format = 'anthropic', onRun = undefined) {
  const original = format === 'openai' ? fromAnthropic(anthropic) : anthropic
  let current = original
  const histories = [original]
  const checks = []
  for (const step of steps) {
    const s = typeof step === 'string' ? { name: step } : step
    const options = { ...runOptions(s.name) }
    if (format === 'openai') options.format = 'openai'
    if (s.prevContextTokens)
      options.prevContextTokens = Math.round(countTokens(current, format === 'openai' ? { format: 'openai' } : undefined) * s.prevContextTokens)
    const snapshot = onRun ? structuredClone(current) : undefined
    const result = await condense(current, options)
    const check = checkMarkers(histories, result.messages, format)
    checks.push(check)
    if (onRun) await onRun(s, current, result, check, snapshot)
    current = result.messages
    histories.push(current)
  }
  return { original, final: current, checks }
}
