// Prints the passed / failed counts per spec file and the totals of a roo-compat run (vitest's
// JSON report), with the failing tests' names. Reads only the run's temporary folder.
import { readFileSync, existsSync } from 'node:fs'
import { join, relative } from 'node:path'

const [work, commit] = process.argv.slice(2)
const prepared = JSON.parse(readFileSync(join(work, 'prepared.json'), 'utf8'))
const file = join(work, 'results.json')
if (!existsSync(file)) {
  console.error(`roo-compat: vitest wrote no report; its output:\n${readFileSync(join(work, 'vitest.log'), 'utf8')}`)
  process.exit(1)
}
const report = JSON.parse(readFileSync(file, 'utf8'))
console.log(`Roo Code ${commit.slice(0, 10)} (${prepared.era} era) against ${prepared.entry}`)
let passed = 0
let failed = 0
const failures = []
for (const r of report.testResults) {
  const name = relative(work, r.name)
  const p = r.assertionResults.filter((a) => a.status === 'passed').length
  const f = r.assertionResults.filter((a) => a.status === 'failed').length
  passed += p
  failed += f
  const note = r.assertionResults.length === 0 && r.message ? `  (file failed: ${r.message.split('\n')[0]})` : ''
  console.log(`  ${name}: ${p} passed, ${f} failed${note}`)
  for (const a of r.assertionResults)
    if (a.status === 'failed') failures.push(`${name} > ${a.fullName}\n      ${(a.failureMessages[0] ?? '').split('\n')[0].slice(0, 240)}`)
}
console.log(`total: ${passed} of ${passed + failed} passed`)
if (process.env.ROO_COMPAT_VERBOSE !== '0' && failures.length > 0) {
  console.log('failing:')
  for (const f of failures) console.log(`  ${f}`)
}
