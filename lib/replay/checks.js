// End-of-task checks: what a recorded history holds that the agent should still see at the end —
// what the user typed, the error lines of tool and command output, and the latest state of each file in the
// working set (files read, written or edited in the last turns) — and whether each is still in
// the final context, verbatim. Found in the recorded history by its own reading (tags and tool
// layouts of both Roo Code formats), independent of the engine's parser. Reads only.
'use strict'

const USER_TAGS = ['feedback', 'answer', 'user_message']
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
/** What a tool result quotes of a file or an edit (not output of its own): read contents, the
 * user's edits as a diff. */
const QUOTED = /<(content|user_edits|diff)>[\s\S]*?<\/\1>/g
const NUMBERED_LINE = /^\d+\s*\|/
/** The header Roo Code puts before a tool's result in the XML format (`[execute_command for 'npm test'] Result:`). */
const RESULT_HEADER = /^\[[\w-]+(?: for [^\]\n]*)?\] Result:/
/** Tools whose result is a file's contents: nothing in it is an error the agent met. */
const READ_HEADER = /^\[(?:read_file|fetch_instructions)\b/
/** Roo Code's wrapper of a tool that failed: the first line inside `<error>` says why. */
const TOOL_FAILED = /The tool execution failed with the following error:\s*<error>\s*\n?([^\n]+)/
/** A file's own error in a tool's result (`<file><path>a</path><error>File not found</error></file>`). */
const INLINE_ERROR = /<error>([^<\n]+)<\/error>/g
/** A command that reports it exited 0 did not fail: its output's lines are not errors met. */
const EXIT_OK = /\bExit code: 0\b/

/** The kinds of line that state an error, each anchored at the start of the (trimmed) line. */
const ERROR_LINE_KINDS = [
  // An exception with its message: `TypeError: x is not a function`, `Error: ENOENT ...`,
  // `java.lang.IllegalStateException: ...`, pytest's `E   AssertionError: ...`, `Caused by: ...`.
  /^(?:Uncaught |Caused by: |E\s+)?(?:[A-Za-z_$][\w$]*\.)*(?:[A-Z][\w$]*)?(?:Error|Exception)(?: \[[^\]]*\])?: \S/,
  // A panic: Go's `panic: ...`, Rust's `thread 'main' panicked at ...`; a fatal error as git and
  // other command-line tools print it (`fatal: not a git repository ...`).
  /^(?:panic: \S|thread '[^']*' panicked at |fatal: \S)/,
  // A compiler diagnostic without a place: `error[E0308]: ...`, `error TS2322: ...`, `error: ...`, `fatal error: ...`.
  /^(?:fatal )?error(?:\[[A-Z]*\d+\]| [A-Z]+\d+)?: \S/,
  // A compiler or linter diagnostic at a place: `src/a.ts:3:7 - error TS2322: ...`,
  // `a.c:1:2: error: ...`, `src/a.ts(3,7): error TS2322: ...`.
  /^(?:[A-Za-z]:)?[^\s:()]+(?::\d+(?::\d+)?|\(\d+(?:,\d+)?\)):?(?: -)?\s+(?:fatal )?error\b/,
  // A linter's diagnostic under its file's name (ESLint): `12:5  error  'x' is not defined  no-undef`.
  /^\d+:\d+\s+error\s+\S/,
  // The diagnostics Roo Code reports after an edit: `- [ts Error] 12 | const x ... : Type ...`.
  /^- \[[\w-]+ Error\] /,
  // A failing test: `FAIL src/a.test.ts > ...`, pytest's `FAILED ...`, Go's `--- FAIL: TestX`,
  // TAP's `not ok 3 ...`, a crossed-out test (`× ...`, `✗ ...`, `✘ ...`, `✕ ...`).
  /^(?:FAIL(?:ED)?\s+\S|--- FAIL: \S|not ok\b|[×✕✗✘]\s+\S)/,
]

/** Whether a line of tool output states an error (see `errorLines`). */
const statesError = (line) => ERROR_LINE_KINDS.some((re) => re.test(line))

/**
 * The outputs of the tools in a user message, in order: each tool result's text (the native
 * format's `tool_result` blocks) and, in the XML format, the text after a `[tool] Result:` header
 * and the text blocks that follow it, up to the next header or a block that is not the tool's
 * (environment details, what the user typed). `tool` is the header (or ''), `failed` whether the
 * result is marked as an error.
 */
function toolOutputs(m) {
  const out = []
  if (!m || m.role !== 'user' || m.isSummary || !Array.isArray(m.content)) return out
  let current
  for (const b of m.content) {
    if (!b || typeof b !== 'object') continue
    if (b.type === 'tool_result') {
      current = undefined
      const texts =
        typeof b.content === 'string' ? [b.content] : Array.isArray(b.content) ? b.content.filter((c) => c && c.type === 'text').map((c) => c.text) : []
      out.push({ tool: '', text: texts.filter((t) => typeof t === 'string').join('\n'), failed: b.is_error === true })
    } else if (b.type === 'text' && typeof b.text === 'string') {
      const head = RESULT_HEADER.exec(b.text)
      if (head) {
        current = { tool: head[0], text: b.text.slice(head[0].length), failed: false }
        out.push(current)
      } else if (current && !b.text.startsWith('<environment_details>') && !USER_TAGS.some((t) => b.text.startsWith(`<${t}>`))) current.text += `\n${b.text}`
      else current = undefined
    }
  }
  return out
}

/**
 * Error lines the agent met: the lines of tool and command output that state an error — an
 * exception with its message, a panic, a compiler or linter diagnostic, a failing test — and the
 * message of a tool that failed; each occurrence, in the order the history shows them. Never lines
 * of file contents (read results, what a tool quotes of a file or an edit), never the output of a
 * command that reports exit code 0, never environment details or what the user typed (the task
 * statement among them): those are not tool output.
 */
function errorLines(history) {
  const found = []
  history.forEach((m, i) => {
    for (const { tool, text, failed } of toolOutputs(m)) {
      // Why the tool failed: the first line of Roo Code's `<error>` wrapper, a file's own
      // `<error>...</error>` in a read, else the first line of a result marked as an error.
      const messages = []
      const why = TOOL_FAILED.exec(text)
      if (why) messages.push(why[1].trim())
      for (const x of text.matchAll(INLINE_ERROR)) messages.push(x[1].trim())
      if (failed && messages.length === 0) messages.push((text.split('\n').find((l) => l.trim() !== '') ?? '').trim())
      // A long line (a message with a JSON dump) counts by its beginning, still verbatim.
      for (const message of messages) if (message !== '') found.push({ message: i, text: message.slice(0, MAX_ERROR_LINE) })
      if (READ_HEADER.test(tool) || text.startsWith('File: ') || EXIT_OK.test(text)) continue
      for (const raw of text.replace(FILE_CONTENT, '').replace(QUOTED, '').split('\n')) {
        const line = raw.trim()
        // A message already counted above is not counted again (compared whole, before its cut).
        if (line === '' || messages.includes(line) || NUMBERED_LINE.test(line)) continue
        if (statesError(line)) found.push({ message: i, text: line.slice(0, MAX_ERROR_LINE) })
      }
    }
  })
  return found
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

/** Non-overlapping occurrences of `needle` in `haystack`. */
function occurrences(haystack, needle) {
  let n = 0
  for (let at = haystack.indexOf(needle); at >= 0; at = haystack.indexOf(needle, at + needle.length)) n++
  return n
}

/** Each item kept when its text is in the final context verbatim. `eachOccurrence`: an item whose
 * text occurs k times among the items needs k occurrences (the latest items count as kept first). */
function score(items, haystack, eachOccurrence = false) {
  const left = new Map()
  const missing = []
  for (let k = items.length - 1; k >= 0; k--) {
    const x = items[k]
    if (!left.has(x.text)) left.set(x.text, eachOccurrence ? occurrences(haystack, x.text) : haystack.includes(x.text) ? Infinity : 0)
    const n = left.get(x.text)
    if (n > 0) left.set(x.text, n - 1)
    else missing.unshift(x)
  }
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
  return { typed: score(expected.typed, haystack), errors: score(expected.errors, haystack, true), workingSet: score(expected.workingSet, haystack) }
}

module.exports = { expectations, runChecks, typedTexts, errorLines, statesError, fileStates, messageTexts }
