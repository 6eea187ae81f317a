// The command line (bin/context-condense.mjs), spawned as a user runs it: the same figures as the
// library on the seven real histories (analyze and condense, --json), what it writes and where,
// task folders, standard input, OpenAI-format histories, every exit code with its message, the
// summarizer against a mock OpenAI-compatible server (whole and streamed replies, failures,
// timeouts), progress, and Ctrl-C.
import { spawn } from 'node:child_process'
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  symlinkSync,
  watch,
  writeFileSync,
} from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach, describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { analyze, CondensationManager, condense, smartPreset, type CondenseOptions, type CondenseResult } from '../lib/index.js'
import { fromAnthropic } from '../lib/openai-format.js'
import { FIXTURE_DIR, FIXTURES, loadFixture, itReal } from './helpers.js'
import { completion, sseEvents, startMockLLM, type MockReply, type MockServer } from './mock-llm-server.js'

const ROOT = join(__dirname, '..')
const CLI = join(ROOT, 'bin', 'context-condense.mjs')
const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
const tmp = mkdtempSync(join(tmpdir(), 'context-condense-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs the CLI (asynchronously: the mock server answers from this process meanwhile). */
function cli(
  args: string[],
  opts: { input?: string; env?: Record<string, string | undefined>; onSpawn?: (child: ReturnType<typeof spawn>) => void } = {},
): Promise<Run> {
  return new Promise((resolve, reject) => {
    const env: Record<string, string | undefined> = { ...process.env, CONTEXT_CONDENSE_API_KEY: undefined, OPENAI_API_KEY: undefined, ...opts.env }
    for (const k of Object.keys(env)) if (env[k] === undefined) delete env[k]
    const child = spawn(process.execPath, [CLI, ...args], { cwd: tmp, env: env as NodeJS.ProcessEnv, stdio: ['pipe', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.setEncoding('utf8').on('data', (d) => (stdout += d))
    child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d))
    child.on('error', reject)
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }))
    child.stdin.end(opts.input ?? '')
    opts.onSpawn?.(child)
  })
}

const fixtureFolder = (name: string) => join(FIXTURE_DIR, name)
const fixtureFile = (name: string) => join(FIXTURE_DIR, name, 'api_conversation_history.json')
const out = (name: string) => join(tmp, name)

/** Metrics without timings (they differ from run to run). */
function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes)
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'durationMs')
        .map(([k, v]) => [k, withoutTimes(v)]),
    )
  return value
}
const withoutTime = (report: string) => report.replace(/\n - Time: .*$/m, '')

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})
async function serve(handler: (index: number) => MockReply | Promise<MockReply>) {
  server = await startMockLLM((_req, i) => handler(i))
  return server
}

describe('help and version', () => {
  it('--help prints the usage with the commands, options and exit codes; exit 0', async () => {
    const r = await cli(['--help'])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    for (const line of [
      'context-condense analyze  <history> [options]',
      'context-condense condense <history> --provider P [options]',
      '-p, --provider P        lossless | truncation | smart | native (required)',
      '--llm-url URL',
      '--dry-run',
      'Exit codes:',
      '  2  usage: an unknown command or option, a bad value, a bad --config, --out exists without --force\n     or is a folder',
      '  4  the LLM endpoint failed (unreachable, HTTP error, timeout, unusable reply; nothing was written)',
    ]) {
      expect(r.stdout).toContain(line)
    }
    const none = await cli([])
    expect(none.stdout).toBe(r.stdout)
    expect((await cli(['condense', '--help'])).stdout).toBe(r.stdout)
  })

  it('--version prints the package version', async () => {
    const r = await cli(['--version'])
    expect(r.code).toBe(0)
    expect(r.stdout).toBe(`${pkg.version}\n`)
  })

  it('the package names it as its bin and ships it', () => {
    expect(pkg.bin).toEqual({ 'context-condense': 'bin/context-condense.mjs' })
    expect(pkg.files).toContain('bin/')
    expect(readFileSync(CLI, 'utf8').startsWith('#!/usr/bin/env node\n')).toBe(true)
  })
})

describe('the same figures as the library on the seven real histories', () => {
  const condenseRuns: Array<[string[], CondenseOptions]> = [
    [['--provider', 'lossless'], { provider: 'lossless' }],
    [['--provider', 'truncation'], { provider: 'truncation' }],
    [['--provider', 'smart', '--preset', 'balanced'], { provider: 'smart', config: { preset: 'balanced' } }],
    [['--provider', 'smart', '--preset', 'aggressive'], { provider: 'smart', config: { preset: 'aggressive' } }],
    [['--provider', 'smart', '--preset', 'conservative'], { provider: 'smart', config: { preset: 'conservative' } }],
    [['-p', 'smart', '--preset', 'quality'], { provider: 'smart', config: { preset: 'quality' } }],
    [['-p', 'smart', '--preset', 'cost'], { provider: 'smart', config: { preset: 'cost' } }],
  ]

  FIXTURES.forEach((name, k) => {
    itReal(`analyze ${name} (task folder) --json`, async () => {
      const r = await cli(['analyze', fixtureFolder(name), '--json'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const json = JSON.parse(r.stdout)
      const messages = loadFixture(name)
      expect(json.ok).toBe(true)
      expect(json.input).toMatchObject({ kind: 'task-folder', format: 'anthropic', messages: messages.length, taskId: name, file: fixtureFile(name) })
      expect(json.analysis).toEqual(analyze(messages))
      // Roo's task_metadata.json, read beside the history.
      const meta = JSON.parse(readFileSync(join(fixtureFolder(name), 'task_metadata.json'), 'utf8'))
      expect(json.input.taskMetadata.records).toBe(meta.files_in_context.length)
      expect(json.input.taskMetadata.filesInContext).toBe(new Set(meta.files_in_context.map((f: { path: string }) => f.path)).size)
      // Every provider and preset, run by the library here: the same figures.
      const specs: Array<{ provider: string; preset?: string }> = [
        { provider: 'lossless' },
        { provider: 'truncation' },
        ...['conservative', 'balanced', 'aggressive', 'speed', 'quality', 'cost'].map((preset) => ({ provider: 'smart', preset })),
        { provider: 'native' },
      ]
      expect(json.providers.map((p: { provider: string; preset?: string }) => ({ provider: p.provider, ...(p.preset ? { preset: p.preset } : {}) }))).toEqual(
        specs,
      )
      for (const [i, spec] of specs.entries()) {
        const lib = await condense(messages, { provider: spec.provider, ...(spec.preset ? { config: { preset: spec.preset } } : {}) } as CondenseOptions)
        const row = json.providers[i]
        expect(row.tokensBefore).toBe(lib.prevContextTokens)
        expect(row.tokensAfter).toBe(lib.newContextTokens)
        expect(row.tokensSaved).toBe(lib.prevContextTokens - lib.newContextTokens)
        expect(row.reductionPercent).toBe(lib.metrics.reductionPercent)
        expect(row.messagesChanged).toBe(lib.metrics.messagesChanged)
        expect(row.reversibleTokensSaved).toBe(lib.metrics.reversibleTokensSaved)
        expect(row.supersededTokensSaved).toBe(lib.metrics.supersededTokensSaved)
        expect(row.summarizeFallbacks).toBe(lib.metrics.passes.reduce((n, p) => n + p.summarizeFallbacks, 0))
        expect(row.error).toBe(lib.error)
      }
      // Lossless's row is what analyze says Lossless removes.
      expect(json.providers[0].tokensSaved).toBe(json.analysis.losslessTokensSaved)
      // Native without a model: not run; the manager's stand-in estimate beside it.
      const estimate = await new CondensationManager({ config: { provider: 'native' } }).estimateReduction(messages, {
        provider: 'native',
        summarize: async () => '',
      })
      expect(json.providers[8].error).toBe("No summarize callback was given: the native provider summarizes with the host's model")
      expect(json.providers[8].estimate).toEqual({
        tokensAfter: estimate.tokensAfter,
        tokensSaved: estimate.tokensSaved,
        reductionPercent: estimate.reductionPercent,
        llmCalls: estimate.llmCalls,
        exact: false,
      })
    })

    const [args, options] = condenseRuns[k]
    itReal(`condense ${name} ${args.join(' ')} --json`, async () => {
      const r = await cli(['condense', fixtureFile(name), ...args, '--json'])
      expect(r.stderr).toBe('')
      expect(r.code).toBe(0)
      const json = JSON.parse(r.stdout)
      const lib = await condense(loadFixture(name), options)
      expect(json.messages).toEqual(lib.messages)
      expect(json.prevContextTokens).toBe(lib.prevContextTokens)
      expect(json.newContextTokens).toBe(lib.newContextTokens)
      expect(json.tokensSaved).toBe(lib.prevContextTokens - lib.newContextTokens)
      expect(withoutTimes(json.metrics)).toEqual(withoutTimes(lib.metrics))
      expect(withoutTime(json.report)).toBe(withoutTime(lib.report))
      expect(json).toMatchObject({ ok: true, exitCode: 0, command: 'condense', provider: options.provider, format: 'anthropic', dryRun: false })
    })
  })
})

describe('condense: what it writes, and where', () => {
  const name = 'synthetic-4-mixed-ops'

  itReal('--out writes the condensed history (indented like the input) and prints the report; --force to overwrite', async () => {
    const file = out('balanced.json')
    const r = await cli(['condense', fixtureFolder(name), '--provider', 'smart', '--preset', 'balanced', '--out', file])
    expect(r.code).toBe(0)
    expect(r.stderr).toBe('')
    const lib = await condense(loadFixture(name), { provider: 'smart', config: { preset: 'balanced' } })
    expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify(lib.messages, null, '\t')}\n`)
    expect(withoutTime(r.stdout)).toBe(`${withoutTime(lib.report)}\nWritten: ${file} (40 messages, Anthropic format)\n`)
    const again = await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', file])
    expect(again.code).toBe(2)
    expect(again.stderr).toBe(`context-condense: --out ${file} exists\n  pass --force to overwrite it, or choose another file\n`)
    const forced = await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', file, '--force'])
    expect(forced.code).toBe(0)
    const lossless = await condense(loadFixture(name), { provider: 'lossless' })
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(lossless.messages)
  })

  itReal('--dry-run prints only the report and writes nothing', async () => {
    const r = await cli(['condense', fixtureFile(name), '-p', 'truncation', '--dry-run'])
    expect(r.code).toBe(0)
    const lib = await condense(loadFixture(name), { provider: 'truncation' })
    expect(withoutTime(r.stdout)).toBe(`${withoutTime(lib.report)}\n(dry run: nothing was written)\n`)
    const json = JSON.parse((await cli(['condense', fixtureFile(name), '-p', 'truncation', '--dry-run', '--json'])).stdout)
    expect(json.dryRun).toBe(true)
    expect('messages' in json).toBe(false)
    expect(json.newContextTokens).toBe(lib.newContextTokens)
  })

  itReal('--force through a symbolic link writes its target and keeps the link; a file keeps its mode (0600 stays 0600)', async () => {
    const lossless = await condense(loadFixture(name), { provider: 'lossless' })
    const dir = out('linked')
    mkdirSync(dir)
    const target = join(dir, 'target.json')
    writeFileSync(target, 'old')
    chmodSync(target, 0o600)
    const link = join(dir, 'link.json')
    symlinkSync('target.json', link)
    const r = await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', link, '--force'])
    expect(r.code).toBe(0)
    expect(lstatSync(link).isSymbolicLink()).toBe(true)
    expect(readlinkSync(link)).toBe('target.json')
    expect(JSON.parse(readFileSync(target, 'utf8'))).toEqual(lossless.messages)
    expect(statSync(target).mode & 0o777).toBe(0o600)
    // A plain file, written over: same mode, and no temporary left beside it.
    const plain = join(dir, 'plain.json')
    writeFileSync(plain, 'old')
    chmodSync(plain, 0o640)
    expect((await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', plain, '--force'])).code).toBe(0)
    expect(statSync(plain).mode & 0o777).toBe(0o640)
    expect(JSON.parse(readFileSync(plain, 'utf8'))).toEqual(lossless.messages)
    // A link to a file not there yet: --force is asked for (the path exists), then the target is created.
    const dangling = join(dir, 'dangling.json')
    symlinkSync('created.json', dangling)
    expect((await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', dangling])).code).toBe(2)
    expect((await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', dangling, '--force'])).code).toBe(0)
    expect(lstatSync(dangling).isSymbolicLink()).toBe(true)
    expect(JSON.parse(readFileSync(join(dir, 'created.json'), 'utf8'))).toEqual(lossless.messages)
    expect(readdirSync(dir).sort()).toEqual(['created.json', 'dangling.json', 'link.json', 'plain.json', 'target.json'])
  })

  itReal('a temporary left by a killed write (a process no longer running) is removed by the next write; a live one is not', async () => {
    const dir = out('stale')
    mkdirSync(dir)
    const file = join(dir, 'h.json')
    // A pid that no longer runs: a child that has exited.
    const dead = await new Promise<number>((resolve) => {
      const child = spawn(process.execPath, ['-e', ''])
      child.on('exit', () => resolve(child.pid as number))
    })
    const stale = join(dir, `.h.json.context-condense-${dead}.tmp`)
    const live = join(dir, `.h.json.context-condense-${process.pid}.tmp`)
    const other = join(dir, `.other.json.context-condense-${dead}.tmp`)
    for (const f of [stale, live, other]) writeFileSync(f, 'half written')
    const r = await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', file])
    expect(r.code).toBe(0)
    expect(existsSync(stale)).toBe(false)
    expect(existsSync(live)).toBe(true) // its writer may still be writing
    expect(existsSync(other)).toBe(true) // another file's
    expect(readdirSync(dir).sort()).toEqual([`.h.json.context-condense-${process.pid}.tmp`, `.other.json.context-condense-${dead}.tmp`, 'h.json'])
  })

  it('a kill -9 in the middle of writing leaves only a recognisable temporary, removed by the next write', async () => {
    const dir = out('killed')
    mkdirSync(dir)
    const file = join(dir, 'big.json')
    const big = out('big-input.json')
    const one = generateHistory({ seed: 3, format: 'xml', targetTokens: 3_000_000 })
    writeFileSync(big, JSON.stringify([...one, ...one, ...one]))
    // Killed as soon as its temporary appears (a write of about 36 MB: long enough to be seen; the
    // folder is watched, and polled as well).
    const killed = await cli(['condense', big, '-p', 'truncation', '-o', file], {
      onSpawn: (child) => {
        const check = () => {
          if (readdirSync(dir).some((n) => n.endsWith('.tmp'))) {
            stop()
            child.kill('SIGKILL')
          }
        }
        const watcher = watch(dir, check)
        const poll = setInterval(check, 1)
        const stop = () => {
          clearInterval(poll)
          watcher.close()
        }
        child.on('exit', stop)
      },
    })
    const left = readdirSync(dir)
    expect(killed.signal).toBe('SIGKILL')
    expect(left).toHaveLength(1)
    expect(left[0]).toMatch(/^\.big\.json\.context-condense-\d+\.tmp$/)
    const again = await cli(['condense', big, '-p', 'truncation', '-o', file, '--force'])
    expect(again.code).toBe(0)
    expect(readdirSync(dir)).toEqual(['big.json'])
  }, 60_000)

  itReal('--out or --html naming a folder says so (exit 2), with or without --force; nothing is written', async () => {
    const dir = out('a-folder')
    mkdirSync(dir)
    for (const force of [[], ['--force']]) {
      const r = await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', dir, ...force])
      expect(r.code).toBe(2)
      expect(r.stderr).toBe(
        `context-condense: --out ${dir} is a folder, not a file\n  pass the path of a file to write, such as ${join(dir, 'condensed.json')}\n`,
      )
      const h = await cli(['report', fixtureFolder(name), '--html', dir, ...force])
      expect(h.code).toBe(2)
      expect(h.stderr).toBe(
        `context-condense: --html ${dir} is a folder, not a file\n  pass the path of a file to write, such as ${join(dir, 'report.html')}\n`,
      )
    }
    // Through a link to a folder too.
    const link = out('link-to-folder')
    symlinkSync(dir, link)
    const r = await cli(['condense', fixtureFolder(name), '-p', 'lossless', '-o', link, '--force'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain(`--out ${link} is a folder, not a file`)
    expect(readdirSync(dir)).toEqual([])
  })

  itReal('without --out: the history on stdout (compact input stays compact), the report on stderr', async () => {
    const input = loadFixture(name)
    const r = await cli(['condense', '-', '-p', 'lossless'], { input: JSON.stringify(input) })
    expect(r.code).toBe(0)
    const lib = await condense(input, { provider: 'lossless' })
    expect(r.stdout).toBe(JSON.stringify(lib.messages))
    expect(withoutTime(r.stderr)).toBe(`${withoutTime(lib.report)}\n`)
  })

  itReal('an object with a "messages" array is written back with its other keys', async () => {
    const input = { model: 'claude-sonnet', messages: loadFixture(name), note: { kept: true } }
    const file = out('wrapped.json')
    writeFileSync(file, JSON.stringify(input, null, 2))
    const r = await cli(['condense', file, '-p', 'lossless', '--json'])
    expect(r.code).toBe(0)
    const json = JSON.parse(r.stdout)
    const lib = await condense(input.messages, { provider: 'lossless' })
    expect(json.messages).toEqual({ model: 'claude-sonnet', messages: lib.messages, note: { kept: true } })
  })

  it('--repair repairs tool pairing first and lists the repairs', async () => {
    const input = [
      { role: 'user', content: 'start' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a' } }] },
      { role: 'user', content: [{ type: 'text', text: 'no result here' }] },
      { role: 'assistant', content: 'done' },
    ]
    const plain = await cli(['condense', '-', '-p', 'lossless', '--dry-run'], { input: JSON.stringify(input) })
    expect(plain.code).toBe(0)
    expect(plain.stderr).toContain(
      'context-condense: warning: 1 problem the provider APIs would reject, condensed around (--repair fixes tool pairing): messages[1].content[0]',
    )
    const r = await cli(['condense', '-', '-p', 'lossless', '--repair', '--json'], { input: JSON.stringify(input) })
    expect(r.code).toBe(0)
    const json = JSON.parse(r.stdout)
    expect(json.repairs).toEqual([{ path: 'messages[2]', action: 'added a synthetic tool_result for "t1"' }])
    expect(r.stderr).toBe('')
    expect(json.messages[2].content[0]).toMatchObject({ type: 'tool_result', tool_use_id: 't1', is_error: true })
  })
})

describe('OpenAI-format histories', () => {
  /** A generated history in OpenAI form (system prompt, tool_calls, tool messages). */
  const openai = [
    { role: 'system', content: 'You are Roo.' },
    ...fromAnthropic(generateHistory({ seed: 4, format: 'native', targetTokens: 20_000, thinking: false }) as never),
  ]

  it('detected, condensed, and written back in OpenAI format', async () => {
    const file = out('openai-in.json')
    writeFileSync(file, `${JSON.stringify(openai, null, 2)}\n`)
    const target = out('openai-out.json')
    const r = await cli(['condense', file, '-p', 'truncation', '-o', target])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain(`Written: ${target} (${openai.length} messages, OpenAI format)`)
    const lib = await condense(openai as never, { provider: 'truncation', format: 'openai' })
    expect(readFileSync(target, 'utf8')).toBe(`${JSON.stringify(lib.messages, null, 2)}\n`)
    const written = JSON.parse(readFileSync(target, 'utf8'))
    expect(written[0]).toEqual({ role: 'system', content: 'You are Roo.' })
    expect(written.filter((m: { role: string }) => m.role === 'tool').length).toBe(openai.filter((m) => m.role === 'tool').length)
    expect(lib.newContextTokens).toBeLessThan(lib.prevContextTokens)
  })

  it('analyze reads them (system messages not counted) with the library figures', async () => {
    const r = await cli(['analyze', '-', '--json', '--format', 'openai'], { input: JSON.stringify(openai) })
    expect(r.code).toBe(0)
    const json = JSON.parse(r.stdout)
    expect(json.input).toMatchObject({ kind: 'stdin', format: 'openai', messages: openai.length })
    expect(json.analysis).toEqual(analyze(openai as never, { format: 'openai' }))
    const lib = await condense(openai as never, { provider: 'smart', config: { preset: 'speed' }, format: 'openai' })
    expect(json.providers[5]).toMatchObject({ provider: 'smart', preset: 'speed', tokensAfter: lib.newContextTokens })
  })

  it('--format anthropic on an OpenAI history: the engine cannot read it; exit 3 with the paths and the fix', async () => {
    const r = await cli(['analyze', '-', '--format', 'anthropic'], { input: JSON.stringify(openai) })
    expect(r.code).toBe(3)
    expect(r.stderr).toContain(
      'context-condense: standard input is not a history the engine can read (anthropic format):\n  messages[0].role: expected "user" or "assistant", got "system"\n',
    )
  })
})

describe('exit codes and what the messages say', () => {
  const name = 'synthetic-4-mixed-ops'
  // Any valid history does for these (a generated one: they run on a plain clone too).
  const generated = join(tmp, 'exit-codes-history.json')
  writeFileSync(generated, JSON.stringify(generateHistory({ seed: 4, format: 'xml', targetTokens: 20_000 })))
  const historyFile = () => generated
  const emptyFolder = mkdtempSync(join(tmp, 'no-history-'))
  const cases: Array<[string, string[], { input?: string; code: number; stderr: string | RegExp }]> = [
    [
      'unknown command',
      ['frobnicate'],
      { code: 2, stderr: 'context-condense: unknown command "frobnicate"; expected analyze, condense, report or preset\n  see context-condense --help\n' },
    ],
    [
      'unknown option',
      ['condense', historyFile(), '-p', 'lossless', '--frob'],
      { code: 2, stderr: "context-condense: condense: Unknown option '--frob'\n  see context-condense help condense\n" },
    ],
    [
      'no history',
      ['analyze'],
      { code: 2, stderr: 'context-condense: analyze: expected one history (a file, a Roo Code task folder, or -), got 0\n  see context-condense --help\n' },
    ],
    [
      'no provider',
      ['condense', historyFile()],
      {
        code: 2,
        stderr:
          'context-condense: condense: --provider is required\n  pass --provider native|lossless|truncation|smart (context-condense analyze shows what each saves)\n',
      },
    ],
    [
      'unknown provider',
      ['condense', historyFile(), '-p', 'fast'],
      { code: 2, stderr: 'context-condense: --provider: unknown value "fast"; expected native, lossless, truncation, smart\n  see context-condense --help\n' },
    ],
    [
      'preset without smart',
      ['condense', historyFile(), '-p', 'lossless', '--preset', 'balanced'],
      { code: 2, stderr: 'context-condense: --preset applies to --provider smart, not lossless\n  see context-condense --help\n' },
    ],
    [
      'smart without preset',
      ['condense', historyFile(), '-p', 'smart'],
      {
        code: 2,
        stderr:
          'context-condense: --provider smart needs --preset or a --config with "passes"\n  pass --preset conservative|balanced|aggressive|speed|quality|cost (context-condense preset <name> prints one to edit)\n',
      },
    ],
    [
      '--dry-run with --out',
      ['condense', historyFile(), '-p', 'lossless', '--dry-run', '-o', 'x.json'],
      { code: 2, stderr: 'context-condense: --dry-run writes nothing; drop --out or --dry-run\n  see context-condense --help\n' },
    ],
    [
      '--model without --llm-url',
      ['condense', historyFile(), '-p', 'native', '--model', 'm'],
      { code: 2, stderr: 'context-condense: --model needs --llm-url\n  pass --llm-url URL (an OpenAI-compatible endpoint), or drop it\n' },
    ],
    [
      'a bad --timeout',
      ['condense', historyFile(), '-p', 'native', '--llm-url', 'http://127.0.0.1:9/v1', '--timeout', 'soon'],
      { code: 2, stderr: 'context-condense: --timeout: expected a number of seconds > 0, got "soon"\n  see context-condense --help\n' },
    ],
    [
      'a bad --llm-url',
      ['condense', historyFile(), '-p', 'native', '--llm-url', 'localhost:11434'],
      { code: 2, stderr: 'context-condense: --llm-url: expected an http or https URL, got "localhost:11434"\n  see context-condense --help\n' },
    ],
    [
      'an unset --api-key-env',
      ['condense', historyFile(), '-p', 'native', '--llm-url', 'http://127.0.0.1:9/v1', '--api-key-env', 'CC_TEST_NO_SUCH_VAR'],
      {
        code: 2,
        stderr:
          'context-condense: --api-key-env CC_TEST_NO_SUCH_VAR: that environment variable is not set\n  export CC_TEST_NO_SUCH_VAR=<your key>, or drop --api-key-env for a server that needs no key\n',
      },
    ],
    [
      'a missing file',
      ['analyze', '/no/such/history.json'],
      {
        code: 3,
        stderr:
          'context-condense: cannot read /no/such/history.json: no such file or folder\n  check the path; a Roo Code task folder holds api_conversation_history.json\n',
      },
    ],
    [
      'a folder without a history',
      ['analyze', emptyFolder],
      {
        code: 3,
        stderr: `context-condense: ${emptyFolder} is a folder without api_conversation_history.json\n  pass a Roo Code task folder (…/tasks/<task id>) or the history file itself\n`,
      },
    ],
    [
      'not JSON',
      ['analyze', '-'],
      {
        input: '[\n  {"role": "user",\n   "content": "x",}\n]',
        code: 3,
        stderr:
          /^context-condense: standard input is not JSON: .*\(line 3, column 19\)\n {2}pass the JSON history itself \(Roo Code keeps it in api_conversation_history\.json\)\n$/,
      },
    ],
    [
      'empty input',
      ['analyze', '-'],
      {
        input: '',
        code: 3,
        stderr:
          'context-condense: standard input is not JSON: it is empty\n  pass the JSON history itself (Roo Code keeps it in api_conversation_history.json)\n',
      },
    ],
    [
      'not a history',
      ['analyze', '-'],
      {
        input: '{"role":"user"}',
        code: 3,
        stderr: 'context-condense: standard input holds an object, not a history\n  expected a JSON array of messages, or an object with a "messages" array\n',
      },
    ],
    [
      'ui_messages.json',
      ['analyze', '-'],
      {
        input: '[{"ts":1,"type":"say","say":"text","text":"hi"}]',
        code: 3,
        stderr:
          "context-condense: standard input looks like Roo Code's ui_messages.json, not the conversation sent to the model\n  pass api_conversation_history.json (or the task folder) instead\n",
      },
    ],
    [
      'messages the engine cannot read',
      ['condense', '-', '-p', 'lossless'],
      {
        input: '[{"role":"user","content":"a"},null,{"role":"user","content":5}]',
        code: 3,
        stderr:
          'context-condense: standard input is not a history the engine can read (anthropic format, detected):\n  messages[1]: expected a message object, got null\n  messages[2].content: expected a string or an array of blocks, got a number\n  fix these messages, or pass --format openai if the format is wrong\n',
      },
    ],
    [
      'native without a model',
      ['condense', historyFile(), '-p', 'native', '-o', 'never.json'],
      {
        code: 1,
        stderr:
          "context-condense: not condensed: No summarize callback was given: the native provider summarizes with the host's model\n  native summarizes with a model: pass --llm-url URL (an OpenAI-compatible endpoint) and --model NAME; nothing was written\n",
      },
    ],
  ]
  for (const [label, args, want] of cases) {
    it(`${label}: exit ${want.code}`, async () => {
      const r = await cli(args, { input: want.input })
      expect(r.code).toBe(want.code)
      if (typeof want.stderr === 'string') expect(r.stderr).toBe(want.stderr)
      else expect(r.stderr).toMatch(want.stderr)
      if (want.code !== 0) expect(r.stdout).toBe('')
    })
  }

  it('nothing is written when the engine does not condense', () => {
    expect(existsSync(out('never.json'))).toBe(false)
  })

  itReal('a bad --config names the key (exit 2); a config file is merged with --preset', async () => {
    const bad = out('bad-config.json')
    writeFileSync(bad, '{ "dedup": true }')
    const r = await cli(['condense', fixtureFile(name), '-p', 'lossless', '-c', bad])
    expect(r.code).toBe(2)
    expect(r.stderr).toBe(
      "context-condense: config.dedup: unknown field `dedup`, expected one of `deduplicateFileReads`, `consolidateToolResults`, `removeObsoleteState`, `keep`\n  fix --config: it holds the lossless provider's config (its JSON Schema: require('context-condense').configSchema('lossless'))\n",
    )
    const notJson = out('not-json-config.json')
    writeFileSync(notJson, '{ preset: balanced }')
    const r2 = await cli(['condense', fixtureFile(name), '-p', 'smart', '-c', notJson])
    expect(r2.code).toBe(2)
    expect(r2.stderr).toMatch(/^context-condense: --config: .*not-json-config\.json is not JSON: .*\(line 1, column 3\)\n {2}the config file must be JSON\n$/)
    const extra = out('target-config.json')
    writeFileSync(extra, JSON.stringify({ targetTokens: 15_000 }))
    const r3 = await cli(['condense', fixtureFile(name), '-p', 'smart', '--preset', 'aggressive', '-c', extra, '--json', '--dry-run'])
    expect(r3.code).toBe(0)
    const lib = await condense(loadFixture(name), { provider: 'smart', config: { preset: 'aggressive', targetTokens: 15_000 } })
    expect(JSON.parse(r3.stdout).newContextTokens).toBe(lib.newContextTokens)
  })

  itReal('--json errors are JSON on stdout too', async () => {
    const r = await cli(['condense', fixtureFile(name), '-p', 'native', '--json'])
    expect(r.code).toBe(1)
    expect(JSON.parse(r.stdout)).toEqual({
      ok: false,
      exitCode: 1,
      error: "not condensed: No summarize callback was given: the native provider summarizes with the host's model",
      hint: 'native summarizes with a model: pass --llm-url URL (an OpenAI-compatible endpoint) and --model NAME; nothing was written',
      prevContextTokens: 20333,
      newContextTokens: 20333,
      report: "Context not condensed: No summarize callback was given: the native provider summarizes with the host's model",
    })
    const u = await cli(['analyze', '--json'])
    expect(u.code).toBe(2)
    expect(JSON.parse(u.stdout)).toEqual({
      ok: false,
      exitCode: 2,
      error: 'analyze: expected one history (a file, a Roo Code task folder, or -), got 0',
      hint: 'see context-condense --help',
    })
  })

  it('preset prints a Smart preset to edit', async () => {
    const r = await cli(['preset', 'cost'])
    expect(r.code).toBe(0)
    expect(JSON.parse(r.stdout)).toEqual(smartPreset('cost'))
    expect((await cli(['preset', 'turbo'])).code).toBe(2)
  })
})

describe('the summarizer: --llm-url against an OpenAI-compatible server', () => {
  const name = 'synthetic-4-mixed-ops'
  const SUMMARY = 'SUMMARY: the user asked for mixed edits and reads; everything passes.'
  /** The library's result with a callback answering as the mock does. */
  const libNative = () => condense(loadFixture(name), { provider: 'native', summarize: async () => ({ text: SUMMARY, inputTokens: 1000, outputTokens: 40 }) })

  itReal('native, whole replies: the summary from the server, the key from CONTEXT_CONDENSE_API_KEY, the figures of the library', async () => {
    const s = await serve(() => ({ json: completion(SUMMARY, { prompt_tokens: 1000, completion_tokens: 40 }) }))
    const file = out('native.json')
    const r = await cli(['condense', fixtureFolder(name), '-p', 'native', '--llm-url', s.url, '--model', 'llama3.1:8b', '-o', file], {
      env: { CONTEXT_CONDENSE_API_KEY: 'sk-local-1' },
    })
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    const lib: CondenseResult = await libNative()
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual(lib.messages)
    expect(lib.messages.filter((m) => m.isSummary).map((m) => (m.content as string).slice(0, SUMMARY.length))).toEqual([SUMMARY])
    expect(r.stdout).toContain(`Model: 1 answer from ${s.url}/chat/completions (llama3.1:8b), 1,000 input and 40 output tokens\n`)
    expect(s.requests).toHaveLength(1)
    expect(s.requests[0].headers.authorization).toBe('Bearer sk-local-1')
    expect(s.requests[0].body.model).toBe('llama3.1:8b')
    expect(s.requests[0].body.stream).toBe(undefined)
  })

  itReal('native, streamed replies (--stream), the key from --api-key-env, --json figures equal the library', async () => {
    const s = await serve(() => ({
      sse: sseEvents(['SUMMARY: the user asked for mixed edits ', 'and reads; everything passes.'], { prompt_tokens: 1000, completion_tokens: 40 }),
      gapMs: 5,
    }))
    const r = await cli(
      ['condense', fixtureFile(name), '-p', 'native', '--llm-url', `${s.url}/chat/completions`, '--stream', '--api-key-env', 'MY_LLM_KEY', '--json'],
      { env: { MY_LLM_KEY: 'sk-stream' } },
    )
    expect(r.code).toBe(0)
    const json = JSON.parse(r.stdout)
    const lib = await libNative()
    expect(json.summary).toBe(lib.summary)
    expect(json.newContextTokens).toBe(lib.newContextTokens)
    expect(json.messages.length).toBe(lib.messages.length)
    expect(json.llm).toMatchObject({ requests: 1, answered: 1, failedAttempts: 0, inputTokens: 1000, outputTokens: 40, apiKeyFrom: 'MY_LLM_KEY' })
    expect(s.requests[0].headers.authorization).toBe('Bearer sk-stream')
    expect(s.requests[0].body.stream).toBe(true)
  })

  itReal('analyze with --llm-url runs native and the summarizing presets with the model', async () => {
    const s = await serve(() => ({ json: completion(SUMMARY, { prompt_tokens: 1000, completion_tokens: 40 }) }))
    const r = await cli(['analyze', fixtureFile(name), '--llm-url', s.url, '--json'])
    expect(r.code).toBe(0)
    const json = JSON.parse(r.stdout)
    const lib = await libNative()
    expect(json.providers[8]).toMatchObject({ provider: 'native', tokensAfter: lib.newContextTokens, llmCalls: 1 })
    expect('estimate' in json.providers[8]).toBe(false)
    expect(json.llm.answered).toBe(s.requests.length)
    expect(s.requests.length).toBeGreaterThan(1)
  })

  itReal('an HTTP error after the retries: exit 4, what failed and what to check, nothing written', async () => {
    const s = await serve(() => ({ status: 500, json: { error: { message: 'CUDA out of memory' } } }))
    const file = out('llm-500.json')
    const r = await cli(['condense', fixtureFile(name), '-p', 'native', '--llm-url', s.url, '--retries', '1', '-o', file])
    expect(r.code).toBe(4)
    expect(s.requests).toHaveLength(2)
    expect(r.stderr).toBe(
      `context-condense: the LLM endpoint failed: ${s.url}/chat/completions answered HTTP 500 Internal Server Error: CUDA out of memory (the server failed; check its log)\n` +
        `  check --llm-url (${s.url}/chat/completions), --model and that the server is up (no API key was found (set CONTEXT_CONDENSE_API_KEY or OPENAI_API_KEY, or pass --api-key-env VAR)); --timeout raises the time allowed; without --llm-url, summaries fall back as the library does\n`,
    )
    expect(existsSync(file)).toBe(false)
  })

  itReal('Smart with a failing endpoint: exit 4 too, not a silent truncation', async () => {
    const s = await serve(() => ({ status: 401, json: { error: { message: 'invalid key' } } }))
    const r = await cli(['condense', fixtureFile('heavy-uncondensed'), '-p', 'smart', '--preset', 'quality', '--llm-url', s.url, '--retries', '0', '--json'], {
      env: { OPENAI_API_KEY: 'sk-wrong' },
    })
    expect(r.code).toBe(4)
    const json = JSON.parse(r.stdout)
    expect(json.exitCode).toBe(4)
    expect(json.error).toMatch(/^the LLM endpoint failed \(\d+ requests\): .*answered HTTP 401 Unauthorized: invalid key \(check the API key\)$/)
    expect(json.hint).toContain('the key is read from $OPENAI_API_KEY')
    expect(s.requests[0].headers.authorization).toBe('Bearer sk-wrong')
  })

  itReal('a slow server within --timeout is waited for', async () => {
    const s = await serve(() => ({ json: completion(SUMMARY, { prompt_tokens: 1000, completion_tokens: 40 }), delayMs: 400 }))
    const r = await cli(['condense', fixtureFile(name), '-p', 'native', '--llm-url', s.url, '--timeout', '5', '--dry-run'])
    expect(r.code).toBe(0)
    expect(r.stdout).toContain('Context condensed using Native strategy:')
  })

  itReal('--timeout: a server that does not answer in time is exit 4, quickly, the request closed', async () => {
    const s = await serve(() => ({ hang: true }))
    const started = Date.now()
    const r = await cli(['condense', fixtureFile(name), '-p', 'native', '--llm-url', s.url, '--timeout', '0.3', '--retries', '0'])
    expect(r.code).toBe(4)
    expect(Date.now() - started).toBeLessThan(10_000)
    expect(r.stderr.split('\n')[0]).toBe(`context-condense: the LLM endpoint failed: ${s.url}/chat/completions did not answer within 300 ms`)
    expect(s.requests[0].aborted).toBe(true)
  })

  itReal('an unreachable server is exit 4, connection refused', async () => {
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((r) => probe.close(() => r()))
    const r = await cli(['condense', fixtureFile(name), '-p', 'native', '--llm-url', `http://127.0.0.1:${port}/v1`, '--retries', '0'])
    expect(r.code).toBe(4)
    expect(r.stderr.split('\n')[0]).toBe(
      `context-condense: the LLM endpoint failed: cannot reach http://127.0.0.1:${port}/v1/chat/completions: connection refused (is the server running, on this port?)`,
    )
  })
})

describe('progress and interruption', () => {
  itReal('--progress: one line per step on stderr; stdout holds only the result', async () => {
    const r = await cli(['analyze', fixtureFolder('synthetic-4-mixed-ops'), '--progress', '--json'])
    expect(r.code).toBe(0)
    const lines = r.stderr.trimEnd().split('\n')
    expect(lines[0]).toBe(`context-condense: reading ${fixtureFile('synthetic-4-mixed-ops')}`)
    expect(lines).toContain('context-condense: analyzing 40 messages')
    expect(lines).toContain('context-condense: running lossless (1 of 9)')
    expect(lines).toContain('context-condense: running smart quality (7 of 9)')
    expect(lines).toContain('context-condense: running native (9 of 9)')
    expect(JSON.parse(r.stdout).providers).toHaveLength(9)
    // Not a terminal and no --progress: nothing on stderr.
    expect((await cli(['analyze', fixtureFolder('synthetic-4-mixed-ops'), '--json'])).stderr).toBe('')
  })

  itReal('--progress shows the model calls as they go', async () => {
    const s = await serve(() => ({ json: completion('SUMMARY: short.', { prompt_tokens: 10, completion_tokens: 3 }), delayMs: 50 }))
    const r = await cli(['condense', fixtureFile('synthetic-4-mixed-ops'), '-p', 'native', '--llm-url', s.url, '--model', 'm1', '--progress', '--dry-run'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('context-condense: summarizing with m1: 0 answered, 1 running\n')
    expect(r.stderr).toContain('context-condense: summarizing with m1: 1 answered, 0 running\n')
  })

  itReal('Ctrl-C while waiting for the model: exit 130, nothing written', async () => {
    let arrived!: () => void
    const requested = new Promise<void>((r) => (arrived = r))
    server = await startMockLLM(() => {
      arrived()
      return { hang: true }
    })
    const file = out('interrupted.json')
    const r = await cli(['condense', fixtureFile('synthetic-4-mixed-ops'), '-p', 'native', '--llm-url', server.url, '-o', file], {
      onSpawn: (child) => void requested.then(() => child.kill('SIGINT')),
    })
    expect(r.code).toBe(130)
    expect(r.stderr).toBe('context-condense: interrupted; nothing was written\n')
    expect(existsSync(file)).toBe(false)
  })
})
