// What every command shares: exit codes, the usage text, errors with their hint, output and progress
// on the terminal, and argument parsing. Writes to stdout/stderr only.
import { createRequire } from 'node:module'
import { parseArgs } from 'node:util'

const require = createRequire(import.meta.url)
const lib = require('../../lib/index.js')
const { createOpenAISummarizer } = require('../../lib/openai-client.js')
const openaiFormat = require('../../lib/openai-format.js')
const { describe, MAX_TIMER_MS } = require('../../lib/internal/values.js')
const { MAX_RETRIES } = require('../../lib/internal/summarize.js')
const htmlReport = require('../../lib/report-html.js')
const native = require('../../lib/internal/native.js')
const { version } = require('../../package.json')

/** Exit codes (documented in the usage text and docs/cli.md). */
const EXIT = { ok: 0, engine: 1, usage: 2, input: 3, llm: 4, internal: 5, interrupted: 130 }

/** The engine's registry: the built-in providers, the Smart presets, the encodings (lib/internal/registry.js). */
const { PROVIDER, PROVIDER_IDS: PROVIDERS, PRESETS, DEFAULT_PRESET, GENERAL_PRESETS, ENCODINGS, DEFAULT_ENCODING } = require('../../lib/internal/registry.js')
const FORMATS = ['auto', 'anthropic', 'openai']
/** Problems that make a history unreadable for the engine (the others it condenses around). */
const FATAL_PROBLEMS = new Set(['not_an_array', 'invalid_message', 'invalid_role', 'invalid_content', 'invalid_block', 'unsupported_value'])
const HISTORY_FILE = 'api_conversation_history.json'
const METADATA_FILE = 'task_metadata.json'

// The usage text in parts: each command's line, section and examples, and the parts several share.
// `context-condense --help` prints them all; `help <command>` and `<command> --help` print the
// parts of that command.
const COMMANDS = ['analyze', 'condense', 'report', 'replay', 'preset']
/** A cache model's write and read prices as factors of its input price, from the engine's price table. */
const factor = (cache, key, ttl) => {
  const p = native.resolvePricing(undefined, cache, 'the usage text', ttl)
  return `${Number((p[key] / p.inputPrice).toFixed(2))}x`
}
const TITLE = `context-condense ${version}: condense the conversation history of an LLM coding agent`
const LINES = {
  analyze: `  context-condense analyze  <history> [options]                  where the tokens are, what each provider saves`,
  condense: `  context-condense condense <history> --provider P [options]     condense; write the history, print the report`,
  report: `  context-condense report   <history> --html FILE [options]      an HTML page: the history before and after, pass by pass`,
  replay: `  context-condense replay   <history> [options]                  replay the task request by request: what it costs
                                                                 with prompt caching under a condensing policy`,
  preset: `  context-condense preset <name>                                 print a Smart preset's config (a start for --config)`,
}
const HELP_LINE = `  context-condense help [command]                                this text, or that command's part of it`
const HISTORY = `<history> is a JSON file (an array of messages, or an object with a "messages" array), a Roo Code
task folder (the one holding ${HISTORY_FILE} and ${METADATA_FILE}), or - for
standard input. Messages in Anthropic/Roo Code format or OpenAI chat format (detected).`
const SECTIONS = {
  condense: `condense:
  -p, --provider P        ${PROVIDERS.join(' | ')} (required)
      --preset X          Smart preset: ${PRESETS.join(' | ')}
  -c, --config FILE       the provider's config as JSON (with --preset, its keys replace the preset's)
  -o, --out FILE          write the condensed history to FILE (else it goes to stdout, the report to stderr)
      --force             overwrite FILE when it exists (through a symbolic link: its target is
                          written; the file keeps its permissions)
      --dry-run           condense and print the report only; write nothing
      --repair            repair tool pairing before condensing (as newer Roo Code does)`,
  report: `report (one self-contained page: each message a bar, what each pass did to it, its full text on click):
      --html FILE         write the report to FILE (required)
  -p, --provider P        as for condense; default: ${PROVIDER.smart}
      --preset X          as for condense; default for ${PROVIDER.smart}: ${DEFAULT_PRESET}
  -c, --config FILE       as for condense
      --title TEXT        the page's title (default: the history's name)
      --force             overwrite FILE when it exists`,
  replay: `replay (one API request per assistant turn; each priced with the prompt-cache model):
      --policy P          roo-default (default) | lossless-then-summary | lossless-every-turn |
                          smart-<preset> | cache-aware | all (compares them and names the cheapest by billed
                          cost: the requests' input and the summary calls' input and output)
      --context-window N  the model's window in tokens (default 200000)
      --threshold PCT     condense at this % of the window, 5..100 (default 100: at the allowed size)
      --max-tokens N      reserved for the answer (default 8192)
      --system-tokens N   the system prompt's size in tokens (default 10000)
      --summary-tokens N  the stand-in summarizer's summary size (default 2000; --llm-url: a real model)
      --expected-turns N  the task's length in requests, for cache-aware (default: as many as elapsed)
      --cache C           anthropic (default: breakpoints, write ${factor('anthropic', 'cacheWritesPrice')}, read ${factor('anthropic', 'cacheReadsPrice')}) | openai (prefix, read ${factor('openai', 'cacheReadsPrice')})
      --lookback-blocks N anthropic: find a cache entry only within N content blocks before a breakpoint
      --cache-ttl T       how long a cache entry lives: 5m (default) | 1h (anthropic: writes at ${factor('anthropic', 'cacheWritesPrice', '1h')} the input price)
      --html FILE         also write a page charting each request's cost and where each condensing happened
      --force             overwrite FILE when it exists`,
}
const SHARED = `analyze, condense, report, replay:
      --format F          auto (default) | anthropic | openai; the output keeps the input's format
      --encoding E        ${ENCODINGS.map((e) => (e === DEFAULT_ENCODING ? `${e} (default)` : e)).join(' | ')}
      --json              machine-readable output on stdout (errors too)
  -q, --quiet             no progress or warnings on stderr
      --progress          progress lines on stderr even when it is not a terminal`
const SUMMARIZER = `summarizer (${PROVIDER.native}, and Smart's summarize operations; without --llm-url they fall back as the
library does: Smart truncates instead, ${PROVIDER.native} cannot run):
      --llm-url URL       an OpenAI-compatible chat-completions endpoint: http://127.0.0.1:11434/v1
                          (Ollama), http://127.0.0.1:8080/v1 (llama.cpp), https://api.openai.com/v1
      --model NAME        the model to ask (most servers need it)
      --api-key-env VAR   the environment variable holding the API key
                          (default: CONTEXT_CONDENSE_API_KEY, else OPENAI_API_KEY; local servers need none)
      --stream            ask for streamed replies (server-sent events)
      --timeout SECONDS   per request (default 120, at most 2147483.647: about 24.8 days)
      --retries N         retries after a failed request (default 2, at most 10; the wait between
                          attempts doubles from 0.5 s, at most 60 s)
      --concurrency N     requests at once (default 4)`
const EXIT_CODES = `Exit codes:
  0  done
  1  the engine did not condense (its reason is printed; nothing was written)
  2  usage: no command, an unknown command or option, a bad value, a bad --config, --out exists
     without --force or is a folder (report: no --html, or --html exists without --force or is a folder)
  3  the history cannot be read: no such file or folder, not JSON, not a list of messages, larger
     than the longest text Node.js holds (about 512 MB)
     (also: the output file cannot be written)
  4  the LLM endpoint failed (unreachable, HTTP error, timeout, unusable reply; nothing was written)
  5  internal error (a bug: please report it)
  130 interrupted (Ctrl-C; nothing was written)`
const EXAMPLES = [
  `  context-condense analyze ~/.config/Code/User/globalStorage/rooveterinaryinc.roo-cline/tasks/<task id>`,
  `  context-condense condense history.json --provider ${PROVIDER.smart} --preset ${DEFAULT_PRESET} --out condensed.json`,
  `  context-condense condense history.json -p ${PROVIDER.native} --llm-url http://127.0.0.1:11434/v1 --model qwen2.5:7b --dry-run`,
  `  cat openai-chat.json | context-condense condense - -p lossless --json > result.json`,
  `  context-condense report history.json --html report.html --provider ${PROVIDER.smart} --preset ${GENERAL_PRESETS[GENERAL_PRESETS.length - 1]}`,
  `  context-condense replay history.json --policy all --context-window 64000`,
]

/** The usage text: every command, or (`command` given) that command's line, options, exit codes and examples. */
function usageText(command) {
  const commands = command === undefined ? COMMANDS : [command]
  const takesHistory = commands.some((c) => c !== 'preset')
  const examples = EXAMPLES.filter((e) => commands.some((c) => e.includes(`context-condense ${c} `)))
  return (
    [
      TITLE,
      `Usage:\n${commands.map((c) => LINES[c]).join('\n')}${command === undefined ? `\n${HELP_LINE}` : ''}`,
      ...(takesHistory ? [HISTORY] : []),
      ...commands.filter((c) => SECTIONS[c]).map((c) => SECTIONS[c]),
      ...(takesHistory ? [SHARED, SUMMARIZER] : []),
      EXIT_CODES,
      ...(examples.length ? [`Examples:\n${examples.join('\n')}`] : []),
    ].join('\n\n') + '\n'
  )
}

const USAGE = usageText()

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
  if (r.errorCode === 'no-summarizer')
    hint = `${PROVIDER.native} summarizes with a model: pass --llm-url URL (an OpenAI-compatible endpoint) and --model NAME; nothing was written`
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

function wholeNumber(name, value, min, max = Number.MAX_SAFE_INTEGER) {
  if (value === undefined) return undefined
  const n = Number(value)
  if (!/^\d+$/.test(value.trim()) || !Number.isSafeInteger(n) || n < min || n > max) {
    const range = max === Number.MAX_SAFE_INTEGER ? `>= ${min}` : `from ${min} to ${max}`
    throw usageError(`--${name}: expected a whole number ${range}, got "${value}"`)
  }
  return n
}

/** One command's help: its part of the usage text (its options, the shared ones, the exit codes, its examples). */
function commandHelp(command) {
  if (!COMMANDS.includes(command)) throw new TypeError(`commandHelp: unknown command "${command}"`)
  return usageText(command)
}

export {
  require,
  lib,
  openaiFormat,
  htmlReport,
  EXIT,
  COMMANDS,
  PROVIDER,
  PROVIDERS,
  PRESETS,
  DEFAULT_PRESET,
  DEFAULT_ENCODING,
  FORMATS,
  ENCODINGS,
  FATAL_PROBLEMS,
  HISTORY_FILE,
  METADATA_FILE,
  USAGE,
  CliError,
  notCondensed,
  usageError,
  inputError,
  fmt,
  pct,
  writeOut,
  Progress,
  warn,
  COMMON_OPTIONS,
  CONDENSE_OPTIONS,
  parse,
  oneOf,
  wholeNumber,
  MAX_TIMER_MS,
  MAX_RETRIES,
  commandHelp,
  createOpenAISummarizer,
  describe,
  version,
}
