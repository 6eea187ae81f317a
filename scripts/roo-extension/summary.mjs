// The summary table of a scripts/roo-extension.sh run: Roo as it is beside Roo with the swap, from
// the run's results folder (vitest's JSON reports of Roo's src/ suite, tsc's logs, the bundle's
// and the VSIX's file lists, the load report). Reads only that folder; prints the table and the
// tests whose outcome the swap changed, and exits non-zero when the swap changed anything the
// issue's "done when" names (a test passing before and not after, a type error, no binary beside
// the bundle, the bundle not loading or not condensing, no binary in the VSIX).
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'

const [results, commit] = process.argv.slice(2)
const read = (f) => (existsSync(join(results, f)) ? readFileSync(join(results, f), 'utf8') : undefined)
const json = (f) => {
  const t = read(f)
  return t === undefined ? undefined : JSON.parse(t)
}
const n = (x) => (typeof x === 'number' ? x.toLocaleString('en-US') : '—')

/** A vitest JSON report: counts, and each test's outcome by file and full name. */
function suite(label) {
  const r = json(`${label}.json`)
  if (!r) return undefined
  // Each test by file and full name (a second test of the same name in a file gets " #2").
  const outcome = new Map()
  for (const f of r.testResults) {
    const file = f.name.replace(/^.*?\/src\//, 'src/')
    for (const a of f.assertionResults) {
      let key = `${file} > ${a.fullName}`
      for (let i = 2; outcome.has(key); i++) key = `${file} > ${a.fullName} #${i}`
      outcome.set(key, a.status)
    }
    // A file that failed to load has no tests in the report: one failure.
    if (f.assertionResults.length === 0 && f.status === 'failed') outcome.set(`${file} (the file)`, 'failed')
  }
  const unloaded = r.testResults.filter((f) => f.assertionResults.length === 0 && f.status === 'failed').length
  return {
    files: r.testResults.length,
    tests: r.numTotalTests,
    passed: r.numPassedTests,
    failed: r.numFailedTests + unloaded,
    skipped: r.numPendingTests + r.numTodoTests,
    outcome,
  }
}

const typeErrors = (label) => {
  const t = read(`${label}-tsc.log`)
  return t === undefined ? undefined : (t.match(/error TS\d+/g) ?? []).length
}

const before = suite('before')
const after = suite('after')
const tscBefore = typeErrors('before')
const tscAfter = typeErrors('after')
const bundleBefore = json('bundle-before.json')
const bundleAfter = json('bundle-after.json')
const load = json('load.json')
const vsix = json('vsix.json')

const suiteCell = (s) => (s ? `${n(s.passed)} passed, ${n(s.failed)} failed, ${n(s.skipped)} skipped (${n(s.files)} files, ${n(s.tests)} tests)` : 'not run')
const bundleCell = (b) =>
  !b
    ? 'not run'
    : !b.built
      ? `failed: ${b.error}`
      : `builds (dist/extension.js ${(b.extensionBytes / 1e6).toFixed(1)} MB${b.binaries.length ? `; beside it: ${b.binaries.map((x) => `${x.name} ${(x.bytes / 1e6).toFixed(1)} MB`).join(', ')}` : ''})`
const loadCell = !load
  ? 'not run'
  : !load.loaded
    ? `throws at load: ${(load.error ?? '').split('\n')[0]}`
    : `loads (${load.loadMs} ms; ${load.nativeBinaries.join(', ') || 'no native binary'}); ${
        load.condense
          ? `manageContext through the adapters condensed ${n(load.condense.messagesBefore)} messages (~${n(load.condense.tokensBefore)} tokens) to ${n(load.condense.messagesSent)} sent (a summary: ${load.condense.summaryMessage}), system prompt "${(load.condense.requestSystemPromptStart ?? '').split('\n')[0].slice(0, 50)}…"${load.condense.error ? `, error: ${load.condense.error}` : ''}`
          : `not condensed: ${(load.error ?? '').split('\n')[0]}`
      }`
const vsixCell = !vsix
  ? 'not run'
  : !vsix.built
    ? `failed: ${vsix.error}`
    : `${vsix.file} (${(vsix.bytes / 1e6).toFixed(1)} MB): ${vsix.binaries.length ? vsix.binaries.map((b) => `${b.path} ${(b.bytes / 1e6).toFixed(1)} MB`).join(', ') : 'no .node inside'}`

const rows = [
  ["src/ vitest (Roo's unit suite)", suiteCell(before), suiteCell(after)],
  [
    'check-types (tsc --noEmit in src/)',
    tscBefore === undefined ? 'not run' : `${tscBefore} errors`,
    tscAfter === undefined ? 'not run' : `${tscAfter} errors`,
  ],
  ['pnpm bundle (node esbuild.mjs)', bundleCell(bundleBefore), bundleCell(bundleAfter)],
  ["require('dist/extension.js') with Roo's vscode mock", '—', loadCell],
  ['vsce package --target linux-x64 --no-dependencies', '—', vsixCell],
]
console.log(`Roo Code ${commit}: the whole extension, as it is and with the swap (examples/roo-host, scripts/roo-swap.mjs)`)
console.log('')
console.log('| | Roo as it is | with the swap |')
console.log('|---|---|---|')
for (const [what, a, b] of rows) console.log(`| ${what} | ${a} | ${b} |`)

const problems = []
if (before && after) {
  const changed = []
  for (const [test, status] of after.outcome) {
    const was = before.outcome.get(test)
    if (status === 'failed' && was !== 'failed') changed.push(`  failing with the swap only: ${test}`)
  }
  for (const [test, status] of before.outcome)
    if (!after.outcome.has(test) && status === 'passed') changed.push(`  passing before, absent with the swap: ${test}`)
  const both = [...after.outcome].filter(([t, s]) => s === 'failed' && before.outcome.get(t) === 'failed').map(([t]) => t)
  console.log('')
  if (changed.length === 0) console.log(`the swapped suite: no test passing before fails or is missing with the swap`)
  else {
    console.log(`the swapped suite: ${changed.length} test(s) changed:`)
    for (const c of changed) console.log(c)
    problems.push('suite')
  }
  if (both.length > 0) {
    console.log(`failing as well in Roo as it is, identically (${both.length}; this machine, not the swap):`)
    for (const t of both.slice(0, 20)) console.log(`  ${t}`)
    if (both.length > 20) console.log(`  … and ${both.length - 20} more`)
  }
} else problems.push('suite not run')
if (tscAfter !== 0) problems.push('check-types')
if (!bundleAfter?.built || bundleAfter.binaries.length === 0) problems.push('bundle')
if (!load?.ok) problems.push('load and condense')
if (!vsix?.built || vsix.binaries.length === 0) problems.push('vsix')
console.log('')
console.log(problems.length === 0 ? 'roo-extension: done: every check passed' : `roo-extension: not done: ${problems.join(', ')}`)
process.exit(problems.length === 0 ? 0 : 1)
