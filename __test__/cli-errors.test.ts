// The command line (bin/context-condense.mjs), spawned as a user runs it: OpenAI-format histories,
// every exit code with its message, the summarizer against a mock OpenAI-compatible server (whole
// and streamed replies, failures, timeouts), progress, and Ctrl-C.
import { constants } from 'node:buffer'
import { spawnSync } from 'node:child_process'
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, truncateSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { analyze, condense, smartPreset, type CondenseResult } from '../lib/index.js'
import { fromAnthropic } from '../lib/openai-format.js'
import { loadFixture, itReal } from './helpers.js'
import { completion, sseEvents } from './mock-llm-server.js'
import { CLI, tmp, cli, fixtureFolder, fixtureFile, out, serve } from './cli-harness.js'

const { MAX_STRING_LENGTH } = constants

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
      {
        code: 2,
        stderr: 'context-condense: unknown command "frobnicate"; expected analyze, condense, report, replay or preset\n  see context-condense --help\n',
      },
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
      {
        code: 2,
        stderr:
          'context-condense: --timeout: expected a number of seconds from 0.001 to 2147483.647 (the longest a Node.js timer waits, about 24.8 days), got "soon"\n  see context-condense --help\n',
      },
    ],
    [
      'a --timeout longer than a timer waits (it would fire at once)',
      ['condense', historyFile(), '-p', 'native', '--llm-url', 'http://127.0.0.1:9/v1', '--timeout', '2147484'],
      {
        code: 2,
        stderr:
          'context-condense: --timeout: expected a number of seconds from 0.001 to 2147483.647 (the longest a Node.js timer waits, about 24.8 days), got "2147484"\n  see context-condense --help\n',
      },
    ],
    [
      'a --timeout that rounds to no time (0 ms would mean no timeout)',
      ['condense', historyFile(), '-p', 'native', '--llm-url', 'http://127.0.0.1:9/v1', '--timeout', '0.0001'],
      {
        code: 2,
        stderr:
          'context-condense: --timeout: expected a number of seconds from 0.001 to 2147483.647 (the longest a Node.js timer waits, about 24.8 days), got "0.0001"\n  see context-condense --help\n',
      },
    ],
    [
      'too many --retries',
      ['condense', historyFile(), '-p', 'native', '--llm-url', 'http://127.0.0.1:9/v1', '--retries', '40'],
      { code: 2, stderr: 'context-condense: --retries: expected a whole number from 0 to 10, got "40"\n  see context-condense --help\n' },
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

  it('a history longer than the longest text Node.js holds (about 512 MB) is refused by its size before it is read: a file, a task folder, standard input', async () => {
    // Sparse files of that size: no disk space is used, and the CLI must not read them.
    const limit = MAX_STRING_LENGTH
    const sparse = (file: string) => {
      writeFileSync(file, '')
      truncateSync(file, limit + 1)
      return file
    }
    const tooLarge = (name: string) =>
      `context-condense: ${name} is too large: ${(limit + 1).toLocaleString('en-US')} bytes, more than the ${limit.toLocaleString('en-US')} bytes (about 512 MB) the CLI reads as one JSON text (the longest string Node.js can hold)\n  split the history into smaller files, or condense it with the library in parts\n`
    const big = sparse(out('too-large.json'))
    const r = await cli(['analyze', big])
    expect(r.code).toBe(3)
    expect(r.stderr).toBe(tooLarge(big))
    const folder = out('too-large-task')
    mkdirSync(folder)
    const history = sparse(join(folder, 'api_conversation_history.json'))
    const t = await cli(['condense', folder, '-p', 'lossless', '--dry-run'])
    expect(t.code).toBe(3)
    expect(t.stderr).toBe(tooLarge(history))
    // Standard input that is the file itself.
    const fd = openSync(big, 'r')
    try {
      const s = spawnSync(process.execPath, [CLI, 'analyze', '-'], { cwd: tmp, stdio: [fd, 'pipe', 'pipe'], encoding: 'utf8', timeout: 60_000 })
      expect(s.status).toBe(3)
      expect(s.stderr).toBe(tooLarge('standard input'))
    } finally {
      closeSync(fd)
    }
    // A --config that large is refused the same way.
    const c = await cli(['condense', historyFile(), '-p', 'lossless', '--dry-run', '--config', big])
    expect(c.code).toBe(3)
    expect(c.stderr).toBe(tooLarge(big))
  }, 120_000)

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
    // One call, said in the singular.
    expect(r.stdout).toMatch(/ tokens\), 1 summarize call, cost \$\d/)
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
        `  check --llm-url (${s.url}/chat/completions), --model and the server's log; without --llm-url, summaries fall back as the library does\n`,
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
    expect(json.hint).toBe(
      `${s.url}/chat/completions refused the request: check the API key (the key is read from $OPENAI_API_KEY); without --llm-url, summaries fall back as the library does`,
    )
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
    // What to check is the server at that URL, not a key: a local server needs none.
    expect(r.stderr.split('\n')[1]).toBe(
      `  nothing answers at http://127.0.0.1:${port}/v1/chat/completions: check --llm-url and that the server is running there; without --llm-url, summaries fall back as the library does`,
    )
    expect(r.stderr).not.toMatch(/API key/)
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
    const server = await serve(() => {
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
