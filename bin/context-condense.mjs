#!/usr/bin/env node
// context-condense: the command line. `analyze` shows where a history's tokens are and what each
// provider and preset saves on it (each run, not guessed); `condense` runs one provider and writes
// the condensed history. Reads JSON files, standard input and Roo Code task folders; histories in
// Anthropic (Roo Code) or OpenAI chat format. Node built-ins only.
import { chmodSync, existsSync, lstatSync, readdirSync, readFileSync, readlinkSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, join, resolve } from 'node:path'
import { parseArgs } from 'node:util'

const require = createRequire(import.meta.url)
const lib = require('../lib/index.js')
const { createOpenAISummarizer } = require('../lib/openai-client.js')
const openaiFormat = require('../lib/openai-format.js')
const { describe } = require('../lib/values.js')
const htmlReport = require('../lib/report-html.js')
const { version } = require('../package.json')

/** Exit codes (documented in the usage text and the README). */
const EXIT = { ok: 0, engine: 1, usage: 2, input: 3, llm: 4, internal: 5, interrupted: 130 }

const PROVIDERS = ['lossless', 'truncation', 'smart', 'native']
const PRESETS = ['conservative', 'balanced', 'aggressive', 'speed', 'quality', 'cost']
const FORMATS = ['auto', 'anthropic', 'openai']
const ENCODINGS = ['o200k_base', 'cl100k_base']
/** Problems that make a history unreadable for the engine (the others it condenses around). */
const FATAL_PROBLEMS = new Set(['not_an_array', 'invalid_message', 'invalid_role', 'invalid_content', 'invalid_block', 'unsupported_value'])
const HISTORY_FILE = 'api_conversation_history.json'
const METADATA_FILE = 'task_metadata.json'

const USAGE = `context-condense ${version}: condense the conversation history of an LLM coding agent

Usage:
  context-condense analyze  <history> [options]                  where the tokens are, what each provider saves
  context-condense condense <history> --provider P [options]     condense; write the history, print the report
  context-condense report   <history> --html FILE [options]      an HTML page: the history before and after, pass by pass
  context-condense preset <name>                                 print a Smart preset's config (a start for --config)
  context-condense help [command]                                this text

<history> is a JSON file (an array of messages, or an object with a "messages" array), a Roo Code
task folder (the one holding ${HISTORY_FILE} and ${METADATA_FILE}), or - for
standard input. Messages in Anthropic/Roo Code format or OpenAI chat format (detected).

condense:
  -p, --provider P        lossless | truncation | smart | native (required)
      --preset X          Smart preset: ${PRESETS.join(' | ')}
  -c, --config FILE       the provider's config as JSON (with --preset, its keys replace the preset's)
  -o, --out FILE          write the condensed history to FILE (else it goes to stdout, the report to stderr)
      --force             overwrite FILE when it exists (through a symbolic link: its target is
                          written; the file keeps its permissions)
      --dry-run           condense and print the report only; write nothing
      --repair            repair tool pairing before condensing (as newer Roo Code does)

report (one self-contained page: each message a bar, what each pass did to it, its full text on click):
      --html FILE         write the report to FILE (required)
  -p, --provider P        as for condense; default: smart
      --preset X          as for condense; default for smart: balanced
  -c, --config FILE       as for condense
      --title TEXT        the page's title (default: the history's name)
      --force             overwrite FILE when it exists

analyze, condense, report:
      --format F          auto (default) | anthropic | openai; the output keeps the input's format
      --encoding E        o200k_base (default) | cl100k_base
      --json              machine-readable output on stdout (errors too)
  -q, --quiet             no progress or warnings on stderr
      --progress          progress lines on stderr even when it is not a terminal

summarizer (native, and Smart's summarize operations; without --llm-url they fall back as the
library does: Smart truncates instead, native cannot run):
      --llm-url URL       an OpenAI-compatible chat-completions endpoint: http://127.0.0.1:11434/v1
                          (Ollama), http://127.0.0.1:8080/v1 (llama.cpp), https://api.openai.com/v1
      --model NAME        the model to ask (most servers need it)
      --api-key-env VAR   the environment variable holding the API key
                          (default: CONTEXT_CONDENSE_API_KEY, else OPENAI_API_KEY; local servers need none)
      --stream            ask for streamed replies (server-sent events)
      --timeout SECONDS   per request (default 120)
      --retries N         retries after a failed request (default 2)
      --concurrency N     requests at once (default 4)

Exit codes:
  0  done
  1  the engine did not condense (its reason is printed; nothing was written)
  2  usage: an unknown command or option, a bad value, a bad --config, --out exists without --force
     or is a folder (report: no --html, or --html exists without --force or is a folder)
  3  the history cannot be read: no such file or folder, not JSON, not a list of messages
     (also: the output file cannot be written)
  4  the LLM endpoint failed (unreachable, HTTP error, timeout, unusable reply; nothing was written)
  5  internal error (a bug: please report it)
  130 interrupted (Ctrl-C; nothing was written)

Examples:
  context-condense analyze ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/<task id>
  context-condense condense history.json --provider smart --preset balanced --out condensed.json
  context-condense condense history.json -p native --llm-url http://127.0.0.1:11434/v1 --model qwen2.5:7b --dry-run
  cat openai-chat.json | context-condense condense - -p lossless --json > result.json
  context-condense report history.json --html report.html --provider smart --preset aggressive
`

class CliError extends Error {
  constructor(exitCode, message, hint) {
    super(message)
    this.exitCode = exitCode
    this.hint = hint
  }
}

/** The engine declined (its `error`): exit 1, with what to do about it. */
function notCondensed(r) {
  let hint = 'nothing was written'
  if (/No summarize callback/.test(r.error))
    hint = 'native summarizes with a model: pass --llm-url URL (an OpenAI-compatible endpoint) and --model NAME; nothing was written'
  const err = new CliError(EXIT.engine, `not condensed: ${r.error}`, hint)
  err.result = r
  return err
}
const usageError = (message, hint = 'see context-condense --help') => new CliError(EXIT.usage, message, hint)
const inputError = (message, hint) => new CliError(EXIT.input, message, hint)

const fmt = (n) => (typeof n === 'number' && Number.isFinite(n) ? n.toLocaleString('en-US') : '—')
const pct = (n) => (typeof n === 'number' && Number.isFinite(n) ? `${n.toFixed(1)}%` : '—')

// ---------------------------------------------------------------------------------------------
// Output: stdout for results, stderr for progress, warnings and errors.

function writeOut(text) {
  process.stdout.write(text.endsWith('\n') ? text : `${text}\n`)
}

class Progress {
  constructor({ enabled, lines }) {
    this.enabled = enabled
    this.lines = lines // one line per step (not a terminal, or --progress)
    this.started = Date.now()
    this.current = ''
    this.shown = false
    this.timer = undefined
  }

  step(text) {
    this.current = text
    if (!this.enabled) return
    if (this.lines) {
      process.stderr.write(`context-condense: ${text}\n`)
      return
    }
    // On a terminal: one line rewritten in place, once the run has lasted half a second.
    if (Date.now() - this.started >= 500) this.render()
    else if (!this.timer) {
      this.timer = setTimeout(() => this.render(), 500 - (Date.now() - this.started))
      this.timer.unref()
    }
  }

  render() {
    if (!this.current) return
    const seconds = ((Date.now() - this.started) / 1000).toFixed(1)
    const line = `context-condense: ${this.current} (${seconds} s)`
    const width = process.stderr.columns || 100
    process.stderr.write(`\r\x1b[K${line.length >= width ? `${line.slice(0, width - 2)}…` : line}`)
    this.shown = true
  }

  clear() {
    clearTimeout(this.timer)
    this.timer = undefined
    this.current = ''
    if (this.shown && !this.lines) process.stderr.write('\r\x1b[K')
    this.shown = false
  }
}

function warn(state, text) {
  if (state.quiet) return
  state.progress.clear()
  process.stderr.write(`context-condense: warning: ${text}\n`)
}

// ---------------------------------------------------------------------------------------------
// Arguments

const COMMON_OPTIONS = {
  format: { type: 'string' },
  encoding: { type: 'string' },
  json: { type: 'boolean' },
  quiet: { type: 'boolean', short: 'q' },
  progress: { type: 'boolean' },
  'llm-url': { type: 'string' },
  model: { type: 'string' },
  'api-key-env': { type: 'string' },
  stream: { type: 'boolean' },
  timeout: { type: 'string' },
  retries: { type: 'string' },
  concurrency: { type: 'string' },
  help: { type: 'boolean', short: 'h' },
}
const CONDENSE_OPTIONS = {
  ...COMMON_OPTIONS,
  provider: { type: 'string', short: 'p' },
  preset: { type: 'string' },
  config: { type: 'string', short: 'c' },
  out: { type: 'string', short: 'o' },
  force: { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  repair: { type: 'boolean' },
}

function parse(command, args, options) {
  try {
    return parseArgs({ args, options, allowPositionals: true, strict: true })
  } catch (e) {
    const message = String(e.message).replace(
      /\. To specify a positional argument starting with a '-', place it at the end of the command after '--', as in '-- "?[^"]*"?$/,
      '',
    )
    throw usageError(`${command}: ${message}`, `see context-condense help ${command}`)
  }
}

function oneOf(name, value, allowed, fallback) {
  if (value === undefined) return fallback
  if (!allowed.includes(value)) throw usageError(`--${name}: unknown value "${value}"; expected ${allowed.join(', ')}`)
  return value
}

function wholeNumber(name, value, min) {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min) throw usageError(`--${name}: expected a whole number >= ${min}, got "${value}"`)
  return n
}

// ---------------------------------------------------------------------------------------------
// Input: a file, a Roo Code task folder, or standard input.

async function readStdin() {
  const chunks = []
  for await (const chunk of process.stdin) chunks.push(chunk)
  return Buffer.concat(chunks).toString('utf8')
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
    const meta = JSON.parse(readFileSync(file, 'utf8'))
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
      text = readFileSync(file, 'utf8')
    } catch (e) {
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

// ---------------------------------------------------------------------------------------------
// The summarizer: the OpenAI-compatible client, counted for progress and for exit code 4.

function makeSummarizer(values, state) {
  const url = values['llm-url']
  const given = ['model', 'api-key-env', 'stream', 'timeout', 'retries', 'concurrency'].filter((k) => values[k] !== undefined)
  if (url === undefined) {
    if (given.length > 0) throw usageError(`--${given[0]} needs --llm-url`, 'pass --llm-url URL (an OpenAI-compatible endpoint), or drop it')
    return undefined
  }
  let timeoutSeconds = 120
  if (values.timeout !== undefined) {
    timeoutSeconds = Number(values.timeout)
    if (!Number.isFinite(timeoutSeconds) || timeoutSeconds <= 0 || values.timeout.trim() === '')
      throw usageError(`--timeout: expected a number of seconds > 0, got "${values.timeout}"`)
  }
  const retries = wholeNumber('retries', values.retries, 0) ?? 2
  const concurrency = wholeNumber('concurrency', values.concurrency, 1) ?? 4
  let keyVar = values['api-key-env']
  let apiKey
  if (keyVar !== undefined) {
    apiKey = process.env[keyVar]
    if (apiKey === undefined || apiKey === '')
      throw usageError(
        `--api-key-env ${keyVar}: that environment variable is not set`,
        `export ${keyVar}=<your key>, or drop --api-key-env for a server that needs no key`,
      )
  } else {
    keyVar = ['CONTEXT_CONDENSE_API_KEY', 'OPENAI_API_KEY'].find((k) => process.env[k]) ?? null
    apiKey = keyVar ? process.env[keyVar] : undefined
  }
  const timeoutMs = Math.round(timeoutSeconds * 1000)
  let client
  try {
    client = createOpenAISummarizer({ url, model: values.model, apiKey, stream: Boolean(values.stream), timeoutMs })
  } catch (e) {
    throw usageError(`--llm-url: ${e.message.replace(/^createOpenAISummarizer: (url|model): /, '')}`)
  }
  const stats = {
    endpoint: client.endpoint,
    model: values.model ?? null,
    apiKeyFrom: keyVar,
    requests: 0,
    answered: 0,
    failedAttempts: 0,
    running: 0,
    inputTokens: 0,
    outputTokens: 0,
  }
  /** Per request (the library retries with the same object): its last failure, or null once answered. */
  const outcome = new Map()
  const show = () => {
    const failed = stats.failedAttempts > 0 ? `, ${stats.failedAttempts} failed attempts` : ''
    state.progress.step(`summarizing with ${stats.model ?? client.endpoint}: ${stats.answered} answered, ${stats.running} running${failed}`)
  }
  const summarize = async (request, context) => {
    if (!outcome.has(request)) stats.requests++
    stats.running++
    show()
    try {
      const reply = await client(request, context)
      outcome.set(request, null)
      stats.answered++
      stats.inputTokens += reply.inputTokens ?? 0
      stats.outputTokens += reply.outputTokens ?? 0
      return reply
    } catch (e) {
      outcome.set(request, e)
      stats.failedAttempts++
      throw e
    } finally {
      stats.running--
      show()
    }
  }
  return {
    summarize,
    stats,
    // The client's own timeout answers first; the library's is a backstop.
    summarizeOptions: { timeoutMs: timeoutMs + 2000, retries, concurrency },
    /** Requests whose last attempt failed, since `reset`. */
    failures: () => [...outcome.values()].filter((e) => e),
    reset: () => outcome.clear(),
  }
}

function llmFailure(llm, what, failures = llm.failures()) {
  const first = failures[0]
  const reason = first instanceof Error ? first.message : String(first)
  const key = llm.stats.apiKeyFrom
    ? `the key is read from $${llm.stats.apiKeyFrom}`
    : 'no API key was found (set CONTEXT_CONDENSE_API_KEY or OPENAI_API_KEY, or pass --api-key-env VAR)'
  return new CliError(
    EXIT.llm,
    `the LLM endpoint failed${failures.length > 1 ? ` (${failures.length} requests)` : ''}${what ? ` ${what}` : ''}: ${reason}`,
    `check --llm-url (${llm.stats.endpoint}), --model and that the server is up (${key}); --timeout raises the time allowed; without --llm-url, summaries fall back as the library does`,
  )
}

// ---------------------------------------------------------------------------------------------
// Running the library

function interruptible() {
  const controller = new AbortController()
  let count = 0
  const onSignal = () => {
    count++
    if (count > 1) process.exit(EXIT.interrupted)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return controller.signal
}

async function run(messages, options) {
  try {
    return await lib.condense(messages, options)
  } catch (e) {
    if (options.signal && options.signal.aborted) throw new CliError(EXIT.interrupted, 'interrupted; nothing was written')
    if (e instanceof TypeError || (e && e.code === 'InvalidArg')) {
      const message = String(e.message).replace(/^invalid options: /, '')
      let hint
      if (/options\.config/.test(message)) {
        hint =
          options.provider === 'smart'
            ? 'fix --config (context-condense preset <name> prints a Smart config to start from)'
            : `fix --config: it holds the ${options.provider} provider's config (its JSON Schema: require('context-condense').configSchema('${options.provider}'))`
      }
      throw usageError(message.replace(/options\.config/g, 'config'), hint)
    }
    throw e
  }
}

function readConfig(values) {
  let config = {}
  if (values.config !== undefined) {
    let text
    try {
      text = readFileSync(values.config, 'utf8')
    } catch (e) {
      throw usageError(`--config ${values.config}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`, 'pass a JSON file holding the provider config')
    }
    const parsed = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, values.config)
    if (parsed instanceof NotJson) throw usageError(`--config: ${parsed.message}`, 'the config file must be JSON')
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw usageError(`--config ${values.config}: expected a JSON object, got ${describe(parsed)}`)
    config = parsed
  }
  return config
}

function libraryOptions(values, format, llm, signal) {
  const options = { format, signal }
  if (values.encoding !== undefined) options.encoding = values.encoding
  if (llm) {
    options.summarize = llm.summarize
    options.summarizeOptions = llm.summarizeOptions
  }
  return options
}

// ---------------------------------------------------------------------------------------------
// analyze

const CONTENT_TYPES = [
  ['userText', 'user text'],
  ['assistantText', 'assistant text'],
  ['thinking', 'thinking'],
  ['toolCalls', 'tool calls'],
  ['toolResults', 'tool results'],
  ['environmentDetails', 'environment details'],
  ['images', 'images'],
  ['summaries', 'summaries'],
]
const OPERATIONS = {
  deduplicateFileReads: 'repeated file reads',
  consolidateToolResults: 'identical tool results',
  removeObsoleteState: 'superseded state',
}

/** A text table: numbers right-aligned, the first column and a "notes" column left-aligned. */
function table(header, rows, indent = '  ') {
  const all = [header, ...rows]
  const widths = header.map((_, c) => Math.max(...all.map((r) => String(r[c] ?? '').length)))
  const left = (c) => c === 0 || header[c] === 'notes'
  return all
    .map(
      (r) =>
        indent +
        r
          .map((cell, c) => (left(c) ? String(cell ?? '').padEnd(widths[c]) : String(cell ?? '').padStart(widths[c])))
          .join('  ')
          .trimEnd(),
    )
    .join('\n')
}

const plural = (n, one, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`

function providerRow(spec, r) {
  const passes = r.metrics.passes ?? []
  const row = {
    provider: spec.provider,
    ...(spec.preset ? { preset: spec.preset } : {}),
    tokensBefore: r.prevContextTokens,
    tokensAfter: r.newContextTokens,
    tokensSaved: r.prevContextTokens - r.newContextTokens,
    reductionPercent: r.metrics.reductionPercent,
    reversibleTokensSaved: r.metrics.reversibleTokensSaved,
    supersededTokensSaved: r.metrics.supersededTokensSaved,
    messagesChanged: r.metrics.messagesChanged,
    messagesRemoved: r.metrics.messagesRemoved,
    llmCalls: r.metrics.callbackCalls,
    summarizeFallbacks: passes.reduce((n, p) => n + (p.summarizeFallbacks ?? 0), 0),
    cost: r.cost,
  }
  if (r.error) row.error = r.error
  return row
}

async function cmdAnalyze(args, state) {
  const { values, positionals } = parse('analyze', args, COMMON_OPTIONS)
  if (values.help) return { text: commandHelp('analyze') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`analyze: expected one history (a file, a Roo Code task folder, or -), got ${positionals.length}`)
  const requested = oneOf('format', values.format, FORMATS, 'auto')
  const encoding = oneOf('encoding', values.encoding, ENCODINGS, 'o200k_base')
  const llm = makeSummarizer(values, state)
  const input = await readHistory(positionals[0], state)
  const { format, converted, warnings } = checkHistory(input, requested)
  if (warnings.length > 0) warn(state, problemsWarning(warnings))
  const signal = interruptible()

  state.progress.step(`analyzing ${fmt(input.messages.length)} messages`)
  const analysis = lib.analyze(input.messages, { format, encoding })
  const specs = [
    { provider: 'lossless' },
    { provider: 'truncation' },
    ...PRESETS.map((preset) => ({ provider: 'smart', preset, config: { preset } })),
    { provider: 'native' },
  ]
  const providers = []
  const failures = []
  for (const [i, spec] of specs.entries()) {
    const label = spec.preset ? `${spec.provider} ${spec.preset}` : spec.provider
    state.progress.step(`running ${label} (${i + 1} of ${specs.length})`)
    const options = { ...libraryOptions(values, format, llm, signal), provider: spec.provider }
    if (spec.config) options.config = spec.config
    if (llm) llm.reset()
    const r = await run(input.messages, options)
    const row = providerRow(spec, r)
    if (llm && llm.failures().length > 0) {
      row.llmFailures = llm.failures().map((e) => (e instanceof Error ? e.message : String(e)))
      failures.push(...llm.failures())
    }
    if (spec.provider === 'native' && !llm) {
      // Not run without a model; the manager's estimate (a stand-in model writing summaries of
      // the usual size) says what it would roughly save.
      state.progress.step('estimating native with a stand-in model')
      const manager = new lib.CondensationManager({ config: { provider: 'native' } })
      const anthropic = converted ? converted.messages : input.messages
      const est = await manager.estimateReduction(anthropic, { provider: 'native', summarize: async () => '' })
      row.estimate = {
        tokensAfter: est.tokensAfter,
        tokensSaved: est.tokensSaved,
        reductionPercent: est.reductionPercent,
        llmCalls: est.llmCalls,
        exact: est.exact,
      }
    }
    providers.push(row)
  }
  state.progress.clear()
  const lossless = providers[0]
  const result = {
    command: 'analyze',
    input: describeInput(input, format),
    encoding,
    analysis,
    providers,
    warnings,
    ...(llm ? { llm: llm.stats } : {}),
  }
  if (failures.length > 0) {
    // The figures are printed (the runs fell back), then the endpoint's failure is the exit code.
    state.pendingError = llmFailure(llm, 'during the runs (their rows show what ran instead)', failures)
  }
  if (values.json) return { json: result }
  return { text: analyzeText(result, lossless, llm) }
}

function problemsWarning(problems) {
  const list = problems
    .slice(0, 3)
    .map((p) => `${p.path}: ${p.message}`)
    .join('; ')
  const more = problems.length > 3 ? `; … ${problems.length - 3} more` : ''
  const pairing = problems.some((p) => /tool/.test(p.code)) ? ' (--repair fixes tool pairing)' : ''
  return `${problems.length} problem${problems.length === 1 ? '' : 's'} the provider APIs would reject, condensed around${pairing}: ${list}${more}`
}

function analyzeText(result, lossless, llm) {
  const { input, analysis, providers } = result
  const kind = { 'task-folder': 'Roo Code task folder', file: 'file', stdin: 'standard input' }[input.kind]
  const total = analysis.totalTokens
  const share = (n) => (total > 0 ? pct((100 * n) / total) : '—')
  const out = []
  out.push(
    `History: ${input.kind === 'stdin' ? '-' : input.path} (${kind}, ${fmt(input.messages)} messages, ${input.format === 'openai' ? 'OpenAI' : 'Anthropic'} format)`,
  )
  out.push(`Total: ${fmt(total)} tokens (${result.encoding})${input.format === 'openai' ? '; system and developer messages are not counted' : ''}`)
  out.push('')
  out.push('Where the tokens are')
  const types = CONTENT_TYPES.filter(([k]) => analysis.byContentType[k] > 0).map(([k, label]) => [
    label,
    fmt(analysis.byContentType[k]),
    share(analysis.byContentType[k]),
  ])
  out.push(types.length > 0 ? table(['content type', 'tokens', 'share'], types) : '  (nothing)')
  if (analysis.byTool.length > 0) {
    out.push('')
    out.push('By tool (results)')
    out.push(
      table(
        ['tool', 'results', 'tokens', 'errors'],
        analysis.byTool.map((t) => [t.tool, fmt(t.results), fmt(t.resultTokens), fmt(t.errors)]),
      ),
    )
  }
  if (analysis.byFile.length > 0) {
    out.push('')
    const shown = analysis.byFile.slice(0, 10)
    out.push(
      `By file (reads)${analysis.byFile.length > shown.length ? `: the ${shown.length} largest of ${analysis.byFile.length} (all of them with --json)` : ''}`,
    )
    out.push(
      table(
        ['file', 'reads', 'tokens'],
        shown.map((f) => [f.path, fmt(f.reads), fmt(f.tokens)]),
      ),
    )
  }
  out.push('')
  out.push('Duplicates and superseded state (what Lossless finds, run on this history)')
  out.push(
    table(
      ['found', 'edits', 'tokens'],
      analysis.lossless.map((o) => [`${OPERATIONS[o.operation] ?? o.operation} (${o.operation})`, fmt(o.edits), fmt(o.tokens)]),
    ),
  )
  out.push(
    `  total: ${fmt(analysis.losslessTokensSaved)} tokens (${share(analysis.losslessTokensSaved)}); ${fmt(lossless.reversibleTokensSaved)} restorable by expandReferences, ${fmt(lossless.supersededTokensSaved)} superseded`,
  )
  out.push('')
  out.push(
    `What each provider saves (each run on this history${llm ? `; summaries by ${llm.stats.model ?? llm.stats.endpoint}` : '; no model: summaries fall back as the library does'})`,
  )
  const rows = providers.map((p) => {
    const name = p.preset ? `smart ${p.preset}` : p.provider
    if (p.error) {
      let note = `not run: ${p.error}`
      if (p.provider === 'native' && !llm) {
        note = 'not run: needs a model (--llm-url)'
        if (p.estimate && !p.estimate.error) note += `; a stand-in model estimates -${pct(p.estimate.reductionPercent)} (${fmt(p.estimate.tokensAfter)} tokens)`
      }
      return [name, '—', '—', '—', note]
    }
    const notes = []
    if (p.llmCalls > 0) notes.push(plural(p.llmCalls, 'model call'))
    if (p.summarizeFallbacks > 0) notes.push(`${plural(p.summarizeFallbacks, 'summary', 'summaries')} truncated instead${llm ? '' : ' (no --llm-url)'}`)
    if (p.llmFailures) notes.push(`the endpoint failed: ${p.llmFailures[0]}`)
    if (p.messagesRemoved > 0) notes.push(`${plural(p.messagesRemoved, 'message')} summarized`)
    return [name, fmt(p.tokensAfter), fmt(p.tokensSaved), `-${pct(p.reductionPercent)}`, notes.join('; ')]
  })
  out.push(table(['provider', 'after', 'saved', 'reduction', 'notes'], rows))
  if (input.taskMetadata) {
    const m = input.taskMetadata
    const states = Object.entries(m.states)
      .map(([s, n]) => `${fmt(n)} ${s}`)
      .join(', ')
    out.push('')
    out.push(
      `Roo Code task metadata (${METADATA_FILE}): ${plural(m.filesInContext, 'file')} in context (${plural(m.records, 'record')}${states ? `: ${states}` : ''})`,
    )
  }
  return out.join('\n')
}

// ---------------------------------------------------------------------------------------------
// condense

function serialize(input, messages) {
  const value = input.wrapper ? { ...input.wrapper, messages } : messages
  return JSON.stringify(value, null, input.indent) + (input.finalNewline ? '\n' : '')
}

// Writing --out / --html. A symbolic link at the path is written through: the link stays, its
// target gets the new content (as any editor that saves through a link does). An existing file
// keeps its permission bits. The content goes to a temporary file beside the target, named
// `.<name>.context-condense-<pid>.tmp`, then is renamed over it, so the target is never half
// written; a temporary left by a process that died mid-write (kill -9) is removed by the next write
// to the same target.

const TMP_INFIX = '.context-condense-'

/** Whether `flag`'s path may be written: not a folder (through links), not existing unless --force. */
function checkOutPath(flag, file, force) {
  let link
  try {
    link = lstatSync(file)
  } catch {
    return // Nothing there yet (a missing folder is reported when writing).
  }
  let isFolder = link.isDirectory()
  if (link.isSymbolicLink()) {
    try {
      isFolder = statSync(file).isDirectory()
    } catch {
      // A link to nothing yet: its target is created when writing.
    }
  }
  if (isFolder)
    throw usageError(
      `--${flag} ${file} is a folder, not a file`,
      `pass the path of a file to write, such as ${join(file, flag === 'html' ? 'report.html' : 'condensed.json')}`,
    )
  if (!force) throw usageError(`--${flag} ${file} exists`, 'pass --force to overwrite it, or choose another file')
}

/** The file a path names once symbolic links are followed (the last one may point at nothing yet). */
function linkTarget(file) {
  let path = resolve(file)
  for (let hops = 0; hops < 40; hops++) {
    let st
    try {
      st = lstatSync(path)
    } catch {
      return path
    }
    if (!st.isSymbolicLink()) return path
    path = resolve(dirname(path), readlinkSync(path))
  }
  const e = new Error('too many levels of symbolic links')
  e.code = 'ELOOP'
  throw e
}

function isAlive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e.code === 'EPERM' // Alive, owned by someone else.
  }
}

/** Removes temporaries for `target` left by processes that no longer run. */
function removeStaleTemporaries(target) {
  const prefix = `.${basename(target)}${TMP_INFIX}`
  let names
  try {
    names = readdirSync(dirname(target))
  } catch {
    return
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    const pid = Number(name.slice(prefix.length, -'.tmp'.length))
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue
    try {
      unlinkSync(join(dirname(target), name))
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

const WRITE_ERRORS = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'no such folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder, not a file',
  ELOOP: 'too many levels of symbolic links',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
}

function writeAtomically(file, text) {
  let tmp
  try {
    const target = linkTarget(file)
    removeStaleTemporaries(target)
    let mode
    try {
      const st = statSync(target)
      if (st.isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' })
      mode = st.mode & 0o7777
    } catch (e) {
      if (e.code !== 'ENOENT') throw e
    }
    tmp = join(dirname(target), `.${basename(target)}${TMP_INFIX}${process.pid}.tmp`)
    writeFileSync(tmp, text, { mode: mode ?? 0o666 })
    // The mode given at creation is narrowed by the umask; an existing file's bits are kept exactly.
    if (mode !== undefined) chmodSync(tmp, mode)
    renameSync(tmp, target)
  } catch (e) {
    if (tmp !== undefined) {
      try {
        unlinkSync(tmp)
      } catch {
        // Nothing was left behind.
      }
    }
    throw inputError(`cannot write ${file}: ${WRITE_ERRORS[e.code] ?? e.message}`, 'choose another --out')
  }
}

async function cmdCondense(args, state) {
  const { values, positionals } = parse('condense', args, CONDENSE_OPTIONS)
  if (values.help) return { text: commandHelp('condense') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`condense: expected one history (a file, a Roo Code task folder, or -), got ${positionals.length}`)
  if (values.provider === undefined)
    throw usageError('condense: --provider is required', `pass --provider ${PROVIDERS.join('|')} (context-condense analyze shows what each saves)`)
  const provider = oneOf('provider', values.provider, PROVIDERS)
  if (values.preset !== undefined && provider !== 'smart') throw usageError(`--preset applies to --provider smart, not ${provider}`)
  const preset = oneOf('preset', values.preset, PRESETS)
  const requested = oneOf('format', values.format, FORMATS, 'auto')
  oneOf('encoding', values.encoding, ENCODINGS)
  const dryRun = Boolean(values['dry-run'])
  if (dryRun && values.out !== undefined) throw usageError('--dry-run writes nothing; drop --out or --dry-run')
  if (values.out !== undefined) checkOutPath('out', values.out, values.force)
  const config = readConfig(values)
  if (preset) config.preset = preset
  if (provider === 'smart' && config.preset === undefined && config.passes === undefined) {
    throw usageError(
      '--provider smart needs --preset or a --config with "passes"',
      `pass --preset ${PRESETS.join('|')} (context-condense preset <name> prints one to edit)`,
    )
  }
  const llm = makeSummarizer(values, state)
  const input = await readHistory(positionals[0], state)
  const { format, warnings } = checkHistory(input, requested)
  if (warnings.length > 0 && !values.repair) warn(state, problemsWarning(warnings))
  const signal = interruptible()

  state.progress.step(`condensing ${fmt(input.messages.length)} messages with ${provider}${preset ? ` ${preset}` : ''}`)
  const options = { ...libraryOptions(values, format, llm, signal), provider }
  if (Object.keys(config).length > 0) options.config = config
  if (values.repair) options.repair = true
  const r = await run(input.messages, options)
  state.progress.clear()
  if (llm && llm.failures().length > 0) throw llmFailure(llm, '')
  if (r.error) throw notCondensed(r)
  let written
  if (!dryRun && values.out !== undefined) {
    state.progress.step(`writing ${values.out}`)
    const text = serialize(input, r.messages)
    writeAtomically(values.out, text)
    written = { file: values.out, bytes: Buffer.byteLength(text), messages: r.messages.length }
    state.progress.clear()
  }
  const summary = {
    command: 'condense',
    input: describeInput(input, format),
    provider,
    ...(preset ? { preset } : {}),
    format,
    dryRun,
    ...(written ? { out: written } : {}),
    prevContextTokens: r.prevContextTokens,
    newContextTokens: r.newContextTokens,
    tokensSaved: r.prevContextTokens - r.newContextTokens,
    summary: r.summary,
    cost: r.cost,
    metrics: r.metrics,
    report: r.report,
    ...(r.repairs ? { repairs: r.repairs } : {}),
    warnings,
    ...(llm ? { llm: llm.stats } : {}),
  }
  const extra = []
  if (r.repairs && r.repairs.length > 0)
    extra.push(
      `Repaired first: ${r.repairs.length} (${r.repairs
        .slice(0, 3)
        .map((x) => `${x.path}: ${x.action}`)
        .join('; ')}${r.repairs.length > 3 ? '; …' : ''})`,
    )
  if (llm)
    extra.push(
      `Model: ${plural(llm.stats.answered, 'answer')} from ${llm.stats.endpoint}${llm.stats.model ? ` (${llm.stats.model})` : ''}, ${fmt(llm.stats.inputTokens)} input and ${fmt(llm.stats.outputTokens)} output tokens`,
    )
  if (written) extra.push(`Written: ${written.file} (${fmt(written.messages)} messages, ${format === 'openai' ? 'OpenAI' : 'Anthropic'} format)`)
  const report = [r.report, ...extra].join('\n')
  if (values.json) {
    if (!dryRun && values.out === undefined) summary.messages = input.wrapper ? { ...input.wrapper, messages: r.messages } : r.messages
    return { json: summary }
  }
  if (!dryRun && values.out === undefined) {
    // The history on stdout (for a pipe), the report on stderr.
    if (!state.quiet) process.stderr.write(`${report}\n`)
    return { raw: serialize(input, r.messages) }
  }
  return { text: dryRun ? `${report}\n(dry run: nothing was written)` : report }
}

// ---------------------------------------------------------------------------------------------
// report: the HTML page of one condensation (lib/report-html.js), pass by pass

const REPORT_OPTIONS = {
  ...COMMON_OPTIONS,
  provider: { type: 'string', short: 'p' },
  preset: { type: 'string' },
  config: { type: 'string', short: 'c' },
  html: { type: 'string' },
  title: { type: 'string' },
  force: { type: 'boolean' },
}
/** Smart's preset when neither --preset nor a --config with passes says one. */
const REPORT_PRESET = 'balanced'

async function cmdReport(args, state) {
  const { values, positionals } = parse('report', args, REPORT_OPTIONS)
  if (values.help) return { text: commandHelp('report') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`report: expected one history (a file, a Roo Code task folder, or -), got ${positionals.length}`)
  if (values.html === undefined || values.html.trim() === '')
    throw usageError('report: --html FILE is required', 'pass --html report.html: the file to write the page to')
  const provider = oneOf('provider', values.provider, PROVIDERS, 'smart')
  if (values.preset !== undefined && provider !== 'smart') throw usageError(`--preset applies to --provider smart, not ${provider}`)
  const preset = oneOf('preset', values.preset, PRESETS)
  const requested = oneOf('format', values.format, FORMATS, 'auto')
  oneOf('encoding', values.encoding, ENCODINGS)
  checkOutPath('html', values.html, values.force)
  const config = readConfig(values)
  if (preset) config.preset = preset
  if (provider === 'smart' && config.preset === undefined && config.passes === undefined) config.preset = REPORT_PRESET
  const shownPreset = provider === 'smart' && config.passes === undefined ? config.preset : undefined
  const llm = makeSummarizer(values, state)
  const input = await readHistory(positionals[0], state)
  const { format, converted, warnings } = checkHistory(input, requested)
  if (warnings.length > 0) warn(state, problemsWarning(warnings))
  const signal = interruptible()

  // OpenAI-format histories are shown as the engine reads them (Anthropic's format).
  const messages = converted ? converted.messages : input.messages
  state.progress.step(`condensing ${fmt(messages.length)} messages with ${provider}${shownPreset ? ` ${shownPreset}` : ''}, pass by pass`)
  const options = { ...libraryOptions(values, 'anthropic', llm, signal), provider }
  if (Object.keys(config).length > 0) options.config = config
  const trace = await htmlReport.traceCondense(messages, options, { condense: run })
  const r = trace.result
  state.progress.clear()
  if (llm && llm.failures().length > 0) throw llmFailure(llm, '')
  if (r.error) throw notCondensed(r)
  state.progress.step(`writing ${values.html}`)
  const source = input.source.kind === 'stdin' ? 'standard input' : input.source.kind === 'task-folder' ? input.source.path : input.source.file
  const name = input.source.taskId ?? (input.source.kind === 'stdin' ? 'standard input' : basename(input.source.file))
  const page = htmlReport.renderHtmlReport(messages, r, {
    title: values.title ?? `Condensation report: ${name}`,
    source: `${source}${format === 'openai' ? ' (OpenAI format, shown as Anthropic messages; system messages set aside)' : ''}`,
    preset: shownPreset,
    stages: trace.stages ?? undefined,
    generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z'),
  })
  try {
    writeAtomically(values.html, page)
  } catch (e) {
    if (e instanceof CliError) e.hint = 'choose another --html'
    throw e
  }
  state.progress.clear()
  const written = { file: values.html, bytes: Buffer.byteLength(page) }
  if (values.json) {
    return {
      json: {
        command: 'report',
        input: describeInput(input, format),
        provider,
        ...(shownPreset ? { preset: shownPreset } : {}),
        out: written,
        passesTraced: trace.traced,
        prevContextTokens: r.prevContextTokens,
        newContextTokens: r.newContextTokens,
        tokensSaved: r.prevContextTokens - r.newContextTokens,
        metrics: r.metrics,
        warnings,
        ...(llm ? { llm: llm.stats } : {}),
      },
    }
  }
  const t = r.metrics
  return {
    text: [
      `Report: ${written.file} (${fmt(written.bytes)} bytes, self-contained: open it in a browser)`,
      ` - ${provider}${shownPreset ? ` ${shownPreset}` : ''}: ${fmt(t.tokensBefore)} → ${fmt(t.tokensAfter)} tokens (-${pct(t.reductionPercent)}), ${plural(messages.length, 'message')} → ${fmt(r.messages.length)}`,
      ...(t.passes.length > 1 && !trace.traced ? [` - which pass changed a message is inferred (${trace.note})`] : []),
    ].join('\n'),
  }
}

// ---------------------------------------------------------------------------------------------
// preset, help

function cmdPreset(args, state) {
  const { values, positionals } = parse('preset', args, { help: { type: 'boolean', short: 'h' }, json: { type: 'boolean' } })
  if (values.help) return { text: commandHelp('preset') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`preset: expected one preset name (${PRESETS.join(', ')})`)
  const name = oneOf('preset', positionals[0], PRESETS)
  return { raw: `${JSON.stringify(lib.smartPreset(name), null, 2)}\n` }
}

/** The usage text (one text for every command: the options are shared, the exit codes too). */
function commandHelp() {
  return USAGE
}

// ---------------------------------------------------------------------------------------------

async function main(argv) {
  const state = {
    json: argv.includes('--json'),
    quiet: argv.includes('--quiet') || argv.includes('-q'),
    progress: new Progress({ enabled: false, lines: true }),
    setFlags(values) {
      this.json = Boolean(values.json)
      this.quiet = Boolean(values.quiet)
      const tty = Boolean(process.stderr.isTTY)
      this.progress = new Progress({ enabled: !this.quiet && (Boolean(values.progress) || tty), lines: Boolean(values.progress) || !tty })
    },
  }
  let exitCode = EXIT.ok
  try {
    const [command, ...rest] = argv
    let out
    if (command === undefined || command === '--help' || command === '-h') out = { text: USAGE }
    else if (command === 'help') {
      if (rest[0] !== undefined && !['analyze', 'condense', 'report', 'preset'].includes(rest[0]))
        throw usageError(`help: unknown command "${rest[0]}"; expected analyze, condense, report or preset`)
      out = { text: USAGE }
    } else if (command === '--version' || command === '-v') out = { raw: `${version}\n` }
    else if (command === 'analyze') out = await cmdAnalyze(rest, state)
    else if (command === 'condense') out = await cmdCondense(rest, state)
    else if (command === 'report') out = await cmdReport(rest, state)
    else if (command === 'preset') out = cmdPreset(rest, state)
    else if (command.startsWith('-'))
      throw usageError(`expected a command before ${command}`, 'context-condense analyze|condense|preset …; see context-condense --help')
    else throw usageError(`unknown command "${command}"; expected analyze, condense, report or preset`)
    state.progress.clear()
    if (out.json) {
      const status = state.pendingError ? { ok: false, exitCode: state.pendingError.exitCode, error: state.pendingError.message } : { ok: true, exitCode: 0 }
      writeOut(JSON.stringify({ ...status, ...out.json }, null, 2))
    } else if (out.text !== undefined) writeOut(out.text)
    else if (out.raw !== undefined) process.stdout.write(out.raw)
    if (state.pendingError) throw state.pendingError
  } catch (e) {
    state.progress.clear()
    const error = e instanceof CliError ? e : new CliError(EXIT.internal, `internal error (please report it): ${e && e.stack ? e.stack : e}`)
    exitCode = error.exitCode
    process.stderr.write(`context-condense: ${error.message}\n${error.hint ? `  ${error.hint}\n` : ''}`)
    if (state.json && error !== state.pendingError) {
      const body = { ok: false, exitCode, error: error.message, ...(error.hint ? { hint: error.hint } : {}) }
      if (error.result)
        Object.assign(body, { prevContextTokens: error.result.prevContextTokens, newContextTokens: error.result.newContextTokens, report: error.result.report })
      writeOut(JSON.stringify(body, null, 2))
    }
  }
  return exitCode
}

process.stdout.on('error', (e) => {
  if (e.code === 'EPIPE') process.exit(EXIT.ok)
  throw e
})

const code = await main(process.argv.slice(2))
// Exit once the output is flushed (a pipe may still hold it); keep-alive sockets must not hold the process.
process.stdout.write('', () => process.stderr.write('', () => process.exit(code)))
