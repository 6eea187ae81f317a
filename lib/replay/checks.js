// End-of-task checks: what a recorded history holds that the agent should still see at the end —
// what the user typed, error lines from tool results, and the latest state of each file in the
// working set (files read, written or edited in the last turns) — and whether each is still in
// the final context, verbatim. Found in the recorded history by its own reading (tags and tool
// layouts of both Roo Code formats), independent of the engine's parser. Reads only.
'use strict'

const USER_TAGS = ['feedback', 'answer', 'user_message']
const ERROR_LINE = /\b(error|errors|exception|failed|failure|traceback|fatal)\b/i
const MAX_ERROR_LINE = 400

/** Every string a message shows the model (text, tool inputs' values, tool results), in order. */
function messageTexts(m, out = []) {
  if (!m || typeof m !== 'object') return out
  const walkValue = (v) => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) v.forEach(walkValue)
    else if (v && typeof v === 'object') Object.values(v).forEach(walkValue)
  }
  if (typeof m.content === 'string') out.push(m.content)
  else if (Array.isArray(m.content)) {
    for (const b of m.content) {
      if (!b || typeof b !== 'object') continue
      if (b.type === 'text' && typeof b.text === 'string') out.push(b.text)
      else if (b.type === 'tool_use') walkValue(b.input)
      else if (b.type === 'tool_result') {
        if (typeof b.content === 'string') out.push(b.content)
        else if (Array.isArray(b.content)) for (const c of b.content) if (c && c.type === 'text' && typeof c.text === 'string') out.push(c.text)
      }
    }
  }
  return out
}

/** User text blocks and tool results, with whether the result was an error. */
function userParts(m) {
  const out = []
  if (!m || m.role !== 'user' || m.isSummary) return out
  if (typeof m.content === 'string') out.push({ text: m.content, isError: false })
  else if (Array.isArray(m.content)) {
    for (const b of m.content) {
      if (!b || typeof b !== 'object') continue
      if (b.type === 'text' && typeof b.text === 'string') out.push({ text: b.text, isError: false })
      else if (b.type === 'tool_result') {
        const texts =
          typeof b.content === 'string' ? [b.content] : Array.isArray(b.content) ? b.content.filter((c) => c && c.type === 'text').map((c) => c.text) : []
        for (const t of texts) if (typeof t === 'string') out.push({ text: t, isError: b.is_error === true })
      }
    }
  }
  return out
}

/** What the user typed: the first message's `<task>`, and `<feedback>`, `<answer>`, `<user_message>`
 * at the head of a text or tool result (further in, such tags are a tool's output). */
function typedTexts(history) {
  const out = []
  history.forEach((m, i) => {
    for (const { text } of userParts(m)) {
      const tags = i === 0 ? ['task', ...USER_TAGS] : USER_TAGS
      for (const tag of tags) {
        const re = new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`, 'g')
        for (const match of text.matchAll(re)) if (i === 0 || match.index < 400) out.push({ message: i, text: match[0] })
      }
    }
  })
  return out
}

const FILE_CONTENT = /<file>[\s\S]*?<\/file>/g
const NUMBERED_LINE = /^\d+\s*\|/

/** Error lines of tool results: every line of a result marked as an error, and lines naming an
 * error or failure in what tools reported (command output, tool errors). Not file contents (a
 * file's source mentioning `error` is not an error the agent met), not environment details. Each
 * distinct line once, at its last occurrence. */
function errorLines(history) {
  const found = new Map()
  history.forEach((m, i) => {
    for (const { text, isError } of userParts(m)) {
      if (text.startsWith('<environment_details>')) continue
      if (!isError && text.startsWith('File: ')) continue
      for (const raw of text.replace(FILE_CONTENT, '').split('\n')) {
        const line = raw.trim()
        if (line.length < 12 || line.length > MAX_ERROR_LINE || NUMBERED_LINE.test(line)) continue
        if (isError || ERROR_LINE.test(line)) found.set(line, i)
      }
    }
  })
  return [...found].map(([text, message]) => ({ message, text }))
}

const XML_READ = /<file><path>([^<\n]+)<\/path>\s*<content[^>]*>\n?([\s\S]*?)<\/content>/g
const NATIVE_READ = /(?:^|\n)File: ([^\n]+)\n(?:Lines [^\n]*:\n)?([\s\S]*?)(?=\nFile: |$)/g
const XML_WRITE =
  /<(write_to_file|apply_diff|insert_content|search_and_replace)>\s*<path>([^<\n]+)<\/path>\s*<(content|diff|operations)>\n?([\s\S]*?)\n?<\/\3>/g
const WRITES = { write_to_file: 'content', apply_diff: 'diff', insert_content: 'content', search_and_replace: 'replace' }

/** Each file's states in the order the history shows them: reads' contents, writes' contents and
 * edits' diffs, with the message they are in. */
function fileStates(history) {
  const out = []
  const add = (message, path, text, kind) => {
    if (typeof path !== 'string' || typeof text !== 'string' || text.trim().length < 20) return
    out.push({ message, path: path.trim(), text, kind })
  }
  history.forEach((m, i) => {
    if (!m || typeof m !== 'object') return
    if (m.role === 'user') {
      for (const { text } of userParts(m)) {
        for (const x of text.matchAll(XML_READ)) add(i, x[1], x[2], 'read')
        if (text.startsWith('File: ') || text.includes('\nFile: '))
          for (const x of text.matchAll(NATIVE_READ)) if (!x[2].startsWith('Error:')) add(i, x[1], x[2], 'read')
      }
    } else if (m.role === 'assistant' && Array.isArray(m.content)) {
      for (const b of m.content) {
        if (!b || typeof b !== 'object') continue
        if (b.type === 'text' && typeof b.text === 'string') for (const x of b.text.matchAll(XML_WRITE)) add(i, x[2], x[4], x[1])
        if (b.type === 'tool_use' && b.input && typeof b.input === 'object' && WRITES[b.name]) add(i, b.input.path, b.input[WRITES[b.name]], b.name)
      }
    }
  })
  return out
}

/**
 * What should be in context at the end of the task: typed texts, error lines, and the latest state
 * of each file touched in the last `workingSetTurns` requests.
 * @param {object[]} history the recorded history
 * @param {Array<{ at: number }>} turns its requests (`at`: the index of the reply each produced)
 */
function expectations(history, turns, workingSetTurns) {
  const from = turns.length > workingSetTurns ? turns[turns.length - workingSetTurns - 1].at : 0
  const sentBefore = turns.length > 0 ? turns[turns.length - 1].at : 0
  const latest = new Map()
  for (const s of fileStates(history)) if (s.message < sentBefore) latest.set(s.path, s)
  const workingSet = [...latest.values()].filter((s) => s.message >= from)
  const sent = (x) => x.message < sentBefore
  return { typed: typedTexts(history).filter(sent), errors: errorLines(history).filter(sent), workingSet }
}

function score(items, haystack) {
  const missing = items.filter((x) => !haystack.includes(x.text))
  return {
    total: items.length,
    kept: items.length - missing.length,
    missing: missing.map((x) => ({ message: x.message, ...(x.path ? { path: x.path } : {}), text: x.text.slice(0, 200) })),
  }
}

/** Whether each expectation is still in the final context (verbatim). */
function runChecks(expected, finalMessages) {
  const texts = []
  for (const m of finalMessages) messageTexts(m, texts)
  const haystack = texts.join('\n\u0000\n')
  return { typed: score(expected.typed, haystack), errors: score(expected.errors, haystack), workingSet: score(expected.workingSet, haystack) }
}

module.exports = { expectations, runChecks, typedTexts, errorLines, fileStates, messageTexts }
