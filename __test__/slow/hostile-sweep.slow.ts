// The hostile sweep at full strength (npm run test:slow): every hostile value at every place,
// second-level option keys included, and 20 MB strings. The same rules as
// __test__/hostile-sweep.test.ts, which tries four values at the second-level keys and a 1 MB
// string: every failing call fails it.
import { beforeAll, describe, expect, it } from 'vitest'

import { type SweepRun, runSweep, showFailures } from '../sweep/harness.js'

describe('hostile sweep, every value everywhere', () => {
  let run: SweepRun
  beforeAll(async () => {
    run = await runSweep({ mode: 'slow', only: process.env.SWEEP_ONLY })
    console.log(`hostile sweep (slow): ${run.cases} calls in ${(run.ms / 1000).toFixed(1)} s, ${run.failures.length} failing`)
  })

  it('has a valid call for every callable, and every hostile call works or is refused clearly, settles, and changes nothing', () => {
    expect(run.missing).toEqual([])
    expect(run.stale).toEqual([])
    expect(run.failures, `${run.failures.length} failing calls:\n${showFailures(run.failures)}`).toEqual([])
  })
})
