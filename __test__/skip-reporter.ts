// A vitest reporter that says plainly, at the end of the run, which tests were skipped and why,
// grouped by reason: each skip's own (the test's recorded skipReason, or the note of a skip made as
// it started; see __test__/skip-when.ts), so tests skipped for want of Chromium are not counted as
// skipped for want of the real Roo Code histories. It only reads the run's results and prints; it
// never changes them.
import type { Reporter, TestCase, TestModule } from 'vitest/node'

/** Why a skipped test was skipped. */
function reasonOf(t: TestCase): string {
  const result = t.result()
  const note = result.state === 'skipped' ? result.note : undefined
  return note || t.meta().skipReason || 'no reason recorded (a plain skip or skipIf, or left out by -t or .only)'
}

export default class SkipReasonsReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const byReason = new Map<string, Map<string, number>>()
    for (const m of testModules) {
      const file = m.moduleId.replace(/^.*__test__\//, '')
      for (const t of m.children.allTests()) {
        if (t.result().state !== 'skipped' || t.options.mode === 'todo') continue
        // Not run because a hook of their describe failed: vitest reports that failure; not a skip.
        if (t.parent.type === 'suite' && t.parent.state() === 'failed') continue
        const reason = reasonOf(t)
        const perFile = byReason.get(reason) ?? new Map<string, number>()
        perFile.set(file, (perFile.get(file) ?? 0) + 1)
        byReason.set(reason, perFile)
      }
    }
    for (const [reason, perFile] of byReason) {
      const total = [...perFile.values()].reduce((a, b) => a + b, 0)
      process.stdout.write(
        `\nSKIPPED: ${total} test${total === 1 ? '' : 's'}: ${reason}.\n  skipped per file: ${[...perFile].map(([f, n]) => `${f} ${n}`).join(', ')}\n`,
      )
    }
  }
}
