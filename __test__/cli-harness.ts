// Shared by the command-line suites (cli*.test.ts): the CLI spawned as a user runs it, in a
// temporary folder removed after the suite, with a mock OpenAI-compatible server closed after each
// test (the afterAll and afterEach below register in every suite that imports this module).
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, afterEach } from 'vitest'
import { FIXTURE_DIR } from './helpers.js'
import { startMockLLM, type MockReply, type MockServer } from './mock-llm-server.js'

export const ROOT = join(__dirname, '..')
export const CLI = join(ROOT, 'bin', 'context-condense.mjs')
export const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8'))
export const tmp = mkdtempSync(join(tmpdir(), 'context-condense-cli-'))
afterAll(() => rmSync(tmp, { recursive: true, force: true }))

export interface Run {
  code: number | null
  signal: NodeJS.Signals | null
  stdout: string
  stderr: string
}

/** Runs the CLI (asynchronously: the mock server answers from this process meanwhile). */
export function cli(
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

export const fixtureFolder = (name: string) => join(FIXTURE_DIR, name)
export const fixtureFile = (name: string) => join(FIXTURE_DIR, name, 'api_conversation_history.json')
export const out = (name: string) => join(tmp, name)

/** Metrics without timings (they differ from run to run). */
export function withoutTimes(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutTimes)
  if (value && typeof value === 'object')
    return Object.fromEntries(
      Object.entries(value)
        .filter(([k]) => k !== 'durationMs')
        .map(([k, v]) => [k, withoutTimes(v)]),
    )
  return value
}
export const withoutTime = (report: string) => report.replace(/\n - Time: .*$/m, '')

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})
export async function serve(handler: (index: number) => MockReply | Promise<MockReply>) {
  server = await startMockLLM((_req, i) => handler(i))
  return server
}
