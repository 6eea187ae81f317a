// The worst cases of byte-pair encoding: one long pre-token (a run of letters with no space), which
// the usual merge loop handles in quadratic time. Each case runs in a child process of its own so
// its peak resident memory is its own, and prints one JSON line.
//
//   node benchmark/worstcase.mjs                  every case, a table
//   node benchmark/worstcase.mjs --json out.json  the same, and the figures as JSON
//   node benchmark/worstcase.mjs --case <name>    one case (what the table runs in a child)
//
// Cases: countTokensAsync on 1 MB and 32 MB of random lowercase letters and on 100 MB of one letter
// (the largest block docs/errors.md talks about), in both encodings for the random ones; condense
// (Lossless) of a history holding that 100 MB block; and condense
// (Lossless) of a history holding a 24 MB random-letter block, aborted through an AbortSignal after
// 1 s: the time from the abort to the rejection.
import { execFileSync } from 'node:child_process'
import { writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

const here = fileURLToPath(import.meta.url)
const args = process.argv.slice(2)
const arg = (name) => {
  const i = args.indexOf(name)
  return i >= 0 ? args[i + 1] : undefined
}

/** `n` pseudo-random lowercase letters (xorshift, fixed seed: the same text every run). */
function randomLetters(n, seed = 0x9e3779b9) {
  const buf = Buffer.allocUnsafe(n)
  let x = seed >>> 0
  for (let i = 0; i < n; i++) {
    x ^= x << 13
    x >>>= 0
    x ^= x >>> 17
    x ^= x << 5
    x >>>= 0
    buf[i] = 97 + (x % 26)
  }
  return buf.toString('latin1')
}

const CASES = {
  'random-1mb-o200k': { what: 'countTokensAsync, 1 MB random letters, o200k', text: () => randomLetters(1e6), encoding: 'o200k_base' },
  'random-1mb-cl100k': { what: 'countTokensAsync, 1 MB random letters, cl100k', text: () => randomLetters(1e6), encoding: 'cl100k_base' },
  'random-32mb-o200k': { what: 'countTokensAsync, 32 MB random letters, o200k', text: () => randomLetters(32e6), encoding: 'o200k_base' },
  'random-32mb-cl100k': { what: 'countTokensAsync, 32 MB random letters, cl100k', text: () => randomLetters(32e6), encoding: 'cl100k_base' },
  'one-letter-100mb': { what: 'countTokensAsync, 100 MB of one letter, o200k', text: () => 'a'.repeat(100e6), encoding: 'o200k_base' },
  'condense-one-letter-100mb': { what: 'condense (Lossless), a 100 MB block of one letter', condenseBlock: () => 'a'.repeat(100e6) },
  'abort-24mb': { what: 'condense (Lossless), 24 MB random-letter block, abort at 1 s', abort: true },
}

async function runCase(name) {
  const c = CASES[name]
  if (!c) throw new Error(`unknown case ${name}; expected one of ${Object.keys(CASES).join(', ')}`)
  const require = createRequire(import.meta.url)
  const lib = require('../lib/index.js')
  // Load the tables first so the figure is the counting alone: the usual ones, then the linear
  // engine's (built at the first text holding a run of 64 KiB or more).
  const encoding = c.encoding ?? 'o200k_base'
  let t0 = performance.now()
  lib.countTokens('warm up', { encoding })
  const tablesMs = performance.now() - t0
  t0 = performance.now()
  lib.countTokens('q'.repeat(70_000), { encoding })
  const linearTablesMs = performance.now() - t0
  const load = { tablesMs, linearTablesMs }
  if (c.abort) {
    const history = [
      { role: 'user', content: [{ type: 'text', text: 'Read the file.' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'blob.txt' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: randomLetters(24e6) }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]
    const controller = new AbortController()
    let firedAt = 0
    setTimeout(() => {
      firedAt = performance.now()
      controller.abort()
    }, 1000)
    const t = performance.now()
    let outcome
    try {
      await lib.condense(history, { provider: 'lossless', signal: controller.signal })
      outcome = 'completed'
    } catch (e) {
      outcome = e?.name === 'AbortError' ? 'aborted' : `error: ${e?.message}`
    }
    const end = performance.now()
    return { case: name, outcome, totalMs: end - t, abortToAnswerMs: firedAt ? end - firedAt : null, ...load, maxRssMB: process.resourceUsage().maxRSS / 1024 }
  }
  if (c.condenseBlock) {
    const history = [
      { role: 'user', content: [{ type: 'text', text: 'Read the file.' }] },
      { role: 'assistant', content: [{ type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'blob.txt' } }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: c.condenseBlock() }] },
      { role: 'assistant', content: [{ type: 'text', text: 'Done.' }] },
    ]
    const t = performance.now()
    const r = await lib.condense(history, { provider: 'lossless' })
    const ms = performance.now() - t
    return { case: name, bytes: 100e6, tokens: r.prevContextTokens, ms, mbPerS: 100 / (ms / 1000), ...load, maxRssMB: process.resourceUsage().maxRSS / 1024 }
  }
  const text = c.text()
  const t = performance.now()
  const tokens = await lib.countTokensAsync(text, { encoding: c.encoding })
  const ms = performance.now() - t
  return { case: name, bytes: text.length, tokens, ms, mbPerS: text.length / 1e6 / (ms / 1000), ...load, maxRssMB: process.resourceUsage().maxRSS / 1024 }
}

/** Runs every case in its own process; returns the rows. */
export function runAll(log = console.log) {
  const out = []
  for (const [name, c] of Object.entries(CASES)) {
    let r
    try {
      const stdout = execFileSync(process.execPath, [here, '--case', name], { encoding: 'utf8', maxBuffer: 1 << 20, timeout: 600_000 })
      r = JSON.parse(stdout.trim().split('\n').pop())
    } catch (e) {
      r = { case: name, failed: String(e?.message ?? e).split('\n')[0] }
    }
    out.push({ what: c.what, ...r })
    const f = (n) => n.toLocaleString('en-US', { maximumFractionDigits: 0 })
    const fig = r.failed
      ? `FAILED: ${r.failed}`
      : c.abort
        ? `${r.outcome}; abort -> answer ${f(r.abortToAnswerMs ?? NaN)} ms (total ${f(r.totalMs)} ms), peak RSS ${f(r.maxRssMB)} MB`
        : `${f(r.ms)} ms (${r.mbPerS.toFixed(1)} MB/s), ${f(r.tokens)} tokens, peak RSS ${f(r.maxRssMB)} MB; tables ${f(r.tablesMs)} ms, then ${f(r.linearTablesMs)} ms for a 70 KB run`
    log(`      ${c.what.padEnd(58)} ${fig}`)
  }
  return out
}

if (process.argv[1] === here) {
  const one = arg('--case')
  if (one) {
    console.log(JSON.stringify(await runCase(one)))
  } else {
    console.log('Worst cases of byte-pair encoding (one long pre-token), each in its own process:')
    const rows = runAll()
    const json = arg('--json')
    if (json) writeFileSync(json, JSON.stringify(rows, null, 2))
  }
}
