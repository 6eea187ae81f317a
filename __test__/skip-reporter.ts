// A vitest reporter that says plainly, at the end of the run, which tests on the real Roo Code
// histories were skipped and why (they are skipped when the histories are not beside the clone).
// It only reads the run's results and prints; it never changes them.
import type { Reporter, TestModule } from 'vitest/node'

import { FIXTURES_ENV, fixtureLocation } from './fixture-location.js'

export default class RealHistoriesReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>) {
    const where = fixtureLocation()
    if (where.present) return
    const perFile: string[] = []
    let total = 0
    for (const m of testModules) {
      let n = 0
      for (const t of m.children.allTests()) if (t.result().state === 'skipped') n++
      if (n) perFile.push(`${m.moduleId.replace(/^.*__test__\//, '')} ${n}`)
      total += n
    }
    process.stdout.write(
      `\nSKIPPED: ${total} tests on the real Roo Code histories (${where.reason}). ` +
        `Put them at ../shared/fixtures/roo-pr8743 or set ${FIXTURES_ENV} to their folder to run them; ` +
        `the generated histories cover the invariants meanwhile.\n  skipped per file: ${perFile.join(', ')}\n`,
    )
  }
}
