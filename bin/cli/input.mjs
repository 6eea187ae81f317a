// Reading a history: a JSON file, a Roo Code task folder or standard input, in either format, checked
// before use with the line and column of a JSON error. Reads files only.
import { constants as bufferConstants } from 'node:buffer'
import { closeSync, existsSync, fstatSync, openSync, readFileSync, statSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import { lib, openaiFormat, FATAL_PROBLEMS, HISTORY_FILE, METADATA_FILE, CliError, usageError, inputError, fmt, warn, describe } from './common.mjs'

// ---------------------------------------------------------------------------------------------
// Input: a file, a Roo Code task folder, or standard input.

/**
 * The most bytes of JSON the CLI reads as one text: the longest string Node.js makes
 * (536,870,888 characters on 64-bit systems), which UTF-8 text of that many bytes never exceeds.
 * A longer file is refused before it is read.
 */
const MAX_TEXT_BYTES = bufferConstants.MAX_STRING_LENGTH

/** The error for a text past `limit` bytes: its size, the limit, and why there is one. */
function tooLarge(name, bytes, limit) {
  const about = limit >= 2 ** 20 ? ` (about ${Math.round(limit / 2 ** 20)} MB)` : ''
  return inputError(
    `${name} is too large: ${bytes === undefined ? 'more than' : `${fmt(bytes)} bytes, more than`} the ${fmt(limit)} bytes${about} the CLI reads as one JSON text (the longest string Node.js can hold)`,
    'split the history into smaller files, or condense it with the library in parts',
  )
}

/** Whether `e` is V8 refusing to make a string that long (a file grown since its size was read). */
const isStringTooLong = (e) => e && e.code === 'ERR_STRING_TOO_LONG'

/**
 * A file's text (UTF-8), refused with `tooLarge` when it has more than `limit` bytes (checked on
 * the open file, before reading). Other failures (no such file, permissions) are thrown as they
 * come, for the caller to word.
 */
function readTextFile(file, name = file, limit = MAX_TEXT_BYTES) {
  const fd = openSync(file, 'r')
  try {
    const size = fstatSync(fd).size
    if (size > limit) throw tooLarge(name, size, limit)
    return readFileSync(fd, 'utf8')
  } catch (e) {
    if (isStringTooLong(e)) throw tooLarge(name, undefined, limit)
    throw e
  } finally {
    closeSync(fd)
  }
}

/**
 * All of a stream's text (standard input), refused with `tooLarge` once more than `limit` bytes
 * have come (a regular file given as standard input is refused by its size before reading).
 */
async function readStdin(stream = process.stdin, limit = MAX_TEXT_BYTES) {
  const name = 'standard input'
  if (typeof stream.fd === 'number') {
    let st
    try {
      st = fstatSync(stream.fd)
    } catch {
      // Not a descriptor that can be inspected: counted as it is read.
    }
    if (st && st.isFile() && st.size > limit) throw tooLarge(name, st.size, limit)
  }
  const chunks = []
  let bytes = 0
  for await (const chunk of stream) {
    bytes += chunk.length
    if (bytes > limit) throw tooLarge(name, undefined, limit)
    chunks.push(chunk)
  }
  try {
    return Buffer.concat(chunks).toString('utf8')
  } catch (e) {
    if (isStringTooLong(e)) throw tooLarge(name, bytes, limit)
    throw e
  }
}

/** The place of a character offset in a text, as "line L, column C". */
function lineColumn(text, offset) {
  const before = text.slice(0, offset)
  const line = before.split('\n').length
  return `line ${line}, column ${offset - before.lastIndexOf('\n')}`
}

class NotJson {
  constructor(message) {
    this.message = message
  }
}

/** The parsed value, or a NotJson saying where the text stops being JSON. */
function parseJson(text, name) {
  try {
    return JSON.parse(text)
  } catch (e) {
    const at = /position (\d+)/.exec(e.message)
    const where = at ? ` (${lineColumn(text, Number(at[1]))})` : ''
    const reason = text.trim() === '' ? 'it is empty' : `${e.message.replace(/ in JSON at position \d+.*$/, '')}${where}`
    return new NotJson(`${name} is not JSON: ${reason}`)
  }
}

function readTaskMetadata(file, state) {
  if (!existsSync(file)) return undefined
  try {
    const meta = JSON.parse(readTextFile(file))
    const files = Array.isArray(meta && meta.files_in_context) ? meta.files_in_context : []
    const states = {}
    for (const f of files) {
      const s = f && typeof f.record_state === 'string' ? f.record_state : 'unknown'
      states[s] = (states[s] ?? 0) + 1
    }
    const paths = new Set(files.map((f) => f && f.path).filter((p) => typeof p === 'string'))
    return { file, filesInContext: paths.size, records: files.length, states }
  } catch (e) {
    warn(state, `${file} could not be read (${e.message}); going on without it`)
    return undefined
  }
}

async function readHistory(arg, state) {
  let text
  let source
  if (arg === '-') {
    if (process.stdin.isTTY)
      throw usageError('no history on standard input', 'pipe one in (cat history.json | context-condense analyze -) or pass a file or a task folder')
    state.progress.step('reading standard input')
    text = await readStdin()
    source = { kind: 'stdin', path: '-', file: '-' }
  } else {
    let stat
    try {
      stat = statSync(arg)
    } catch (e) {
      throw inputError(
        `cannot read ${arg}: ${e.code === 'ENOENT' ? 'no such file or folder' : e.message}`,
        `check the path; a Roo Code task folder holds ${HISTORY_FILE}`,
      )
    }
    let file = arg
    source = { kind: 'file', path: arg, file: resolve(arg) }
    if (stat.isDirectory()) {
      file = join(arg, HISTORY_FILE)
      if (!existsSync(file)) {
        throw inputError(`${arg} is a folder without ${HISTORY_FILE}`, `pass a Roo Code task folder (…/tasks/<task id>) or the history file itself`)
      }
      source = { kind: 'task-folder', path: arg, file: resolve(file), taskId: basename(resolve(arg)) }
    }
    state.progress.step(`reading ${file}`)
    try {
      text = readTextFile(file, source.file)
    } catch (e) {
      if (e instanceof CliError) throw e
      throw inputError(`cannot read ${file}: ${e.code === 'EACCES' ? 'permission denied' : e.message}`, 'check the file and its permissions')
    }
    if (basename(file) === HISTORY_FILE) {
      const metadata = readTaskMetadata(join(dirname(file), METADATA_FILE), state)
      if (metadata) source.taskMetadata = metadata
    }
  }
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  const name = source.kind === 'stdin' ? 'standard input' : source.file
  state.progress.step(`parsing ${fmt(text.length)} characters of JSON`)
  const value = parseJson(text, name)
  if (value instanceof NotJson) throw inputError(value.message, `pass the JSON history itself (Roo Code keeps it in ${HISTORY_FILE})`)
  let messages = value
  let wrapper
  if (value !== null && typeof value === 'object' && !Array.isArray(value) && Array.isArray(value.messages)) {
    wrapper = value
    messages = value.messages
  }
  if (!Array.isArray(messages)) {
    throw inputError(`${name} holds ${describe(value)}, not a history`, 'expected a JSON array of messages, or an object with a "messages" array')
  }
  if (messages.length > 0 && messages.every((m) => m && typeof m === 'object' && !('role' in m) && (m.type === 'say' || m.type === 'ask'))) {
    throw inputError(
      `${name} looks like Roo Code's ui_messages.json, not the conversation sent to the model`,
      `pass ${HISTORY_FILE} (or the task folder) instead`,
    )
  }
  // Written back the way it came: the same indentation, the same final newline.
  const indent = /^[[{]\s*?\n([ \t]+)\S/.exec(text)
  return { messages, wrapper, source, indent: indent ? indent[1] : undefined, finalNewline: text.endsWith('\n') }
}

/** The history's format, and its problems: fatal ones throw, the others come back as warnings. */
function checkHistory(input, requested) {
  const format = requested === 'auto' ? openaiFormat.detectFormat(input.messages) : requested
  let converted
  let problems
  if (format === 'openai') {
    converted = openaiFormat.toAnthropic(input.messages)
    problems = lib.validateConversation(converted.messages).map((p) => ({ ...p, path: converted.locate(p.path) }))
  } else {
    problems = lib.validateConversation(input.messages)
  }
  const fatal = problems.filter((p) => FATAL_PROBLEMS.has(p.code))
  if (fatal.length > 0) {
    const name = input.source.kind === 'stdin' ? 'standard input' : input.source.file
    const list = fatal
      .slice(0, 5)
      .map((p) => `  ${p.path}: ${p.message}`)
      .join('\n')
    const more = fatal.length > 5 ? `\n  … and ${fatal.length - 5} more` : ''
    const other = format === 'openai' ? 'anthropic' : 'openai'
    throw inputError(
      `${name} is not a history the engine can read (${format} format${requested === 'auto' ? ', detected' : ''}):\n${list}${more}`,
      `fix these messages${requested === 'auto' || requested === format ? `, or pass --format ${other} if the format is wrong` : ''}`,
    )
  }
  return { format, converted, warnings: problems }
}

function describeInput(input, format) {
  const out = { path: input.source.path, kind: input.source.kind, file: input.source.file, format, messages: input.messages.length }
  if (input.source.taskId) out.taskId = input.source.taskId
  if (input.source.taskMetadata) out.taskMetadata = input.source.taskMetadata
  return out
}

export { NotJson, parseJson, readTextFile, readStdin, readHistory, checkHistory, describeInput, MAX_TEXT_BYTES }
