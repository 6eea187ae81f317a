// Runs the hostile sweep (child.mjs) in processes of its own and gathers what it found: a runner
// that dies (a native crash) or stops answering (a call that holds the event loop) is charged to
// the call it had started, and a new runner goes on from the next call. Used by
// __test__/hostile-sweep.test.ts and the slow suite: every failure it finds fails them (there is
// no list of failures taken as known).
import { spawn } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { readSurface } = require('./surface.cjs') as { readSurface(): Array<{ name: string; callables: Array<{ id: string }> }> }

export interface CaseFailure {
  key: string
  reasons: string[]
}

export interface SweepRun {
  /** Callables the .d.ts files declare that the table has no valid call for. */
  missing: string[]
  /** Table entries that name nothing the .d.ts files declare. */
  stale: string[]
  /** Every case that ran (its key), failed or not. */
  ran: string[]
  failures: CaseFailure[]
  /** Runners that died or stalled, and on which call. */
  restarts: string[]
  cases: number
  ms: number
}

/** The entries of the package, as the sweep names them (main, roo, …). */
export function sweptEntries(): string[] {
  return readSurface().map((e) => e.name)
}

/**
 * Runs every case. `mode`: "fast" (npm test) or "slow" (every value everywhere, 20 MB strings);
 * `boundMs`: how long a call may take to settle; `stallMs`: how long a runner may go without a word
 * before it is taken as held (a synchronous loop) and killed.
 */
export async function runSweep({
  mode,
  boundMs = 10_000,
  stallMs = 60_000,
  only,
}: {
  mode: 'fast' | 'slow'
  boundMs?: number
  stallMs?: number
  only?: string
}): Promise<SweepRun> {
  const started = Date.now()
  const dir = mkdtempSync(join(tmpdir(), 'context-condense-sweep-'))
  const run: SweepRun = { missing: [], stale: [], ran: [], failures: [], restarts: [], cases: 0, ms: 0 }
  try {
    const surface = readSurface()
    let from = 0
    for (let attempt = 0; attempt < 50; attempt++) {
      const config = join(dir, `config-${attempt}.json`)
      writeFileSync(config, JSON.stringify({ surface, mode, from, boundMs, only }))
      const r = await runOnce(config, stallMs, run)
      if (r.done) break
      // The runner died or stalled in the middle of a call: that call is the failure.
      const at = r.lastStarted
      if (!at) throw new Error(`the sweep's runner failed before its first call: ${r.why}\n${r.stderr}`)
      run.failures.push({ key: at.key, reasons: [`${r.why} (the runner was started again past it)${r.stderr ? `: ${r.stderr.slice(0, 600)}` : ''}`] })
      run.restarts.push(`${at.key}: ${r.why}`)
      from = at.index + 1
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
  run.ms = Date.now() - started
  return run
}

interface Once {
  done: boolean
  lastStarted?: { index: number; key: string }
  why: string
  stderr: string
}

function runOnce(config: string, stallMs: number, run: SweepRun): Promise<Once> {
  return new Promise((resolve) => {
    const child = spawn(process.execPath, [join(__dirname, 'child.mjs'), config], { stdio: ['ignore', 'pipe', 'pipe'] })
    let buffer = ''
    let stderr = ''
    let done = false
    let last = Date.now()
    let lastStarted: { index: number; key: string } | undefined
    let stalled = false
    const open = new Map<number, string>()
    const watchdog = setInterval(() => {
      if (Date.now() - last > stallMs) {
        stalled = true
        child.kill('SIGKILL')
      }
    }, 1000)
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-4000)
    })
    child.stdout.on('data', (d: Buffer) => {
      last = Date.now()
      buffer += d.toString()
      let nl: number
      while ((nl = buffer.indexOf('\n')) >= 0) {
        const line = buffer.slice(0, nl)
        buffer = buffer.slice(nl + 1)
        if (!line) continue
        const o = JSON.parse(line)
        if (o.missing) {
          run.missing.push(...o.missing)
          run.stale.push(...o.stale)
        } else if (o.constant !== undefined) {
          run.ran.push(`constant ${o.constant}`)
          if (o.failures.length > 0) run.failures.push({ key: `constant ${o.constant}`, reasons: o.failures })
        } else if (o.s !== undefined) {
          lastStarted = { index: o.s, key: o.k }
          open.set(o.s, o.k)
        } else if (o.i !== undefined) {
          const key = open.get(o.i) ?? o.k
          open.delete(o.i)
          if (o.skip) continue
          run.ran.push(key)
          run.cases++
          if (o.f) run.failures.push({ key, reasons: o.f })
        } else if (o.done) done = true
      }
    })
    child.on('close', (code, signal) => {
      clearInterval(watchdog)
      const why = stalled
        ? `stopped answering for ${stallMs / 1000} s (a call held the event loop)`
        : `the process died (exit code ${code}${signal ? `, signal ${signal}` : ''})`
      resolve({ done, lastStarted: done ? undefined : lastStarted, why, stderr: stderr.trim() })
    })
  })
}

/** A readable list of failures for an assertion message. */
export function showFailures(failures: CaseFailure[], max = 60): string {
  const lines = failures.slice(0, max).map((f) => `  ${f.key}\n${f.reasons.map((r) => `      ${r}`).join('\n')}`)
  if (failures.length > max) lines.push(`  … and ${failures.length - max} more`)
  return lines.join('\n')
}
