// The hostile sweep at full strength (npm run test:slow): every hostile value at every place,
// second-level option keys included, and 20 MB strings. The same rules and the same
// KNOWN_FAILURES as __test__/hostile-sweep.test.ts, which tries four values at the second-level
// keys and a 1 MB string.
import { beforeAll, describe, expect, it } from 'vitest'

import { type SweepRun, judgeAgainst, runSweep, showFailures } from '../sweep/harness.js'
import { KNOWN_FAILURES } from '../sweep/known-failures.js'

describe('hostile sweep, every value everywhere', () => {
  let run: SweepRun
  beforeAll(async () => {
    run = await runSweep({ mode: 'slow', only: process.env.SWEEP_ONLY })
    console.log(`hostile sweep (slow): ${run.cases} calls in ${(run.ms / 1000).toFixed(1)} s, ${run.failures.length} failing (known or not)`)
  })

  it('has a valid call for every callable, and every hostile call works or is refused clearly, settles, and changes nothing', () => {
    expect(run.missing).toEqual([])
    expect(run.stale).toEqual([])
    const { unknown } = judgeAgainst(run, KNOWN_FAILURES)
    expect(unknown, `${unknown.length} failing calls not in KNOWN_FAILURES:\n${showFailures(unknown)}`).toEqual([])
  })

  it('every KNOWN_FAILURES entry still fails', () => {
    if (process.env.SWEEP_ONLY) return
    expect(judgeAgainst(run, KNOWN_FAILURES).fixed.map((k) => k.why)).toEqual([])
  })
})
