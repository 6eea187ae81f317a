#!/usr/bin/env node
// context-condense: the command line. `analyze` shows where a history's tokens are and what each
// provider and preset saves on it (each run, not guessed); `condense` runs one provider and writes
// the condensed history. Reads JSON files, standard input and Roo Code task folders; histories in
// Anthropic (Roo Code) or OpenAI chat format. `replay` replays a task request by request and prices
// it with a prompt-cache model. Node built-ins only.
import { createRequire } from 'node:module'

// The engine first, before any module that needs it: an install without a binary for this
// platform gets the library's own message (what is missing and the ways out), not a stack.
try {
  createRequire(import.meta.url)('../lib/internal/native.js')
} catch (e) {
  if (e?.code !== 'CONTEXT_CONDENSE_NO_BINARY') throw e
  process.stderr.write(`${e.message}\n`)
  process.exit(1)
}
const { lib, EXIT, COMMANDS, PRESETS, USAGE, CliError, usageError, writeOut, Progress, parse, oneOf, commandHelp, version } = await import('./cli/common.mjs')
const { cmdAnalyze } = await import('./cli/analyze.mjs')
const { cmdCondense } = await import('./cli/condense.mjs')
const { cmdReport } = await import('./cli/report.mjs')
const { cmdReplay } = await import('./cli/replay.mjs')

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
    // No command is a usage error like any other: the usage goes to stderr and the exit code is 2.
    if (command === undefined) throw usageError(`expected a command\n\n${USAGE.trimEnd()}`, '')
    if (command === '--help' || command === '-h') out = { text: USAGE }
    else if (command === 'help') {
      if (rest[0] !== undefined && !COMMANDS.includes(rest[0]))
        throw usageError(`help: unknown command "${rest[0]}"; expected ${COMMANDS.slice(0, -1).join(', ')} or ${COMMANDS.at(-1)}`)
      out = { text: rest[0] === undefined ? USAGE : commandHelp(rest[0]) }
    } else if (command === '--version' || command === '-v') out = { raw: `${version}\n` }
    else if (command === 'analyze') out = await cmdAnalyze(rest, state)
    else if (command === 'condense') out = await cmdCondense(rest, state)
    else if (command === 'report') out = await cmdReport(rest, state)
    else if (command === 'replay') out = await cmdReplay(rest, state)
    else if (command === 'preset') out = cmdPreset(rest, state)
    else if (command.startsWith('-'))
      throw usageError(`expected a command before ${command}`, 'context-condense analyze|condense|preset …; see context-condense --help')
    else throw usageError(`unknown command "${command}"; expected analyze, condense, report, replay or preset`)
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
