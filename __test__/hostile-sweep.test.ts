// The hostile sweep: every function, class, method and getter every public entry's .d.ts declares
// (read with the TypeScript compiler: __test__/sweep/surface.cjs), called with one valid call each
// (the table in __test__/sweep/baselines.mjs: a callable without an entry fails here), then with a
// hostile value in each place of it — each parameter, each option key the types declare (two
// levels deep), the first element of an array of objects, an unknown key — the rest of the call
// valid. Each call must work or refuse clearly (an Error with an errorCode whose message names the
// place, or an answer whose `error` does), never take a value its type rules out without a word,
// settle within 10 s, change nothing it was given (deep-frozen input included), make no process
// warning or stray rejection, and not kill the process (the calls run in a child process: a crash is
// charged to the call that caused it). Exported constants must be frozen.
//
// Every failing call fails the suite: there is no list of failures taken as known (a value the
// types rule out that a Roo entry must take for Roo's own specs is a documented `lenient` place of
// the baseline table, __test__/sweep/baselines.mjs, with the spec that needs it). The fast sweep (npm test) tries four values at the second-level keys; the slow suite
// (__test__/slow/hostile-sweep.slow.ts) every value everywhere, with 20 MB strings.
// SWEEP_ONLY='<glob over case keys>' runs only those cases, e.g. SWEEP_ONLY='main:condense @ options.*'.
import { beforeAll, describe, expect, it } from 'vitest'

import { type SweepRun, runSweep, showFailures, sweptEntries } from './sweep/harness.js'

const ENTRIES = sweptEntries()

describe('hostile sweep over the public surface', () => {
  let run: SweepRun
  beforeAll(async () => {
    run = await runSweep({ mode: 'fast', only: process.env.SWEEP_ONLY })
    console.log(`hostile sweep: ${run.cases} calls in ${(run.ms / 1000).toFixed(1)} s, ${run.failures.length} failing`)
  }, 300_000)

  it('has a valid call in the table for every callable the .d.ts files declare, and none for anything else', () => {
    expect(run.missing, 'callables without a valid call in __test__/sweep/baselines.mjs').toEqual([])
    expect(run.stale, 'entries of __test__/sweep/baselines.mjs that name nothing the .d.ts files declare').toEqual([])
  })

  it('no runner died or stalled', () => {
    const died = run.failures.filter((f) => run.restarts.some((r) => r.startsWith(`${f.key}:`)))
    expect(died, showFailures(died)).toEqual([])
  })

  for (const entry of ['constant', ...ENTRIES]) {
    it(`${entry === 'constant' ? 'exported constants' : entry}: every hostile call works or is refused clearly, settles, and changes nothing`, () => {
      const mine = run.failures.filter((f) => (entry === 'constant' ? f.key.startsWith('constant ') : f.key.startsWith(`${entry}:`)))
      expect(mine, `${mine.length} failing calls:\n${showFailures(mine)}`).toEqual([])
    })
  }
})
