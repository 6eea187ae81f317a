// Written by prepare.mjs into a roo-compat run with --time, at src/core/condense/__tests__/: the time of
// one automatic condensing (the era's manageContext, or truncateConversationIfNeeded before it) on a
// generated history of about a million tokens, by Roo's own implementation (exported beside the
// spec from Roo's source) and by this package's entry (through the host adapter, as Roo's specs
// reach it), in one process. The API handler answers at once, so the time is the implementation's
// own. Both get the same 50 warm-up calls, so what is timed is the code the JIT has compiled, not
// its compiling (with 5, the entry's medians moved by a third from run to run: more of its
// functions are still being optimized); then the calls alternate (Roo first on even rounds, the
// entry first on odd ones), so garbage collection and the machine's load fall on both alike. Each
// call gets a copy of the messages and a task id never seen before (nothing held from an earlier
// call). Writes the times to timing.json at the run's root.
import { writeFileSync } from 'node:fs'
import path from 'node:path'

import { TelemetryService } from '@roo-code/telemetry'

// @ts-expect-error: the generator is plain JavaScript, imported from the repository by path.
import { generateHistory } from '__GENERATOR__'
import * as own from '__ROO_MANAGEMENT__'
import * as management from '__MANAGEMENT__'

const WARM_UP = 50
const RUNS = 101
const TOKENS = 1_000_000

const apiHandler = {
  async *createMessage() {
    yield { type: 'text', text: 'The task so far: the files read, the edits made, the tests run.' }
    yield { type: 'usage', inputTokens: 1000, outputTokens: 20, totalCost: 0.001 }
  },
  // The same estimate for both implementations: counting is not what is timed here.
  async countTokens(content: unknown[]) {
    return Math.ceil(JSON.stringify(content).length / 4)
  },
  getModel() {
    return { id: 'stub', info: { contextWindow: 200_000, maxTokens: 8192 } }
  },
}

type Manage = (o: Record<string, unknown>) => Promise<{ messages: unknown[]; summary: string; error?: string }>
const manageOf = (m: any) => (m.manageContext ?? m.truncateConversationIfNeeded) as Manage
const implementations: Record<string, Manage> = { roo: manageOf(own), entry: manageOf(management) }

const median = (ms: number[]) => [...ms].sort((a, b) => a - b)[ms.length >> 1]

describe('timing', () => {
  // As the extension does at activation.
  beforeAll(() => {
    if (!TelemetryService.hasInstance()) TelemetryService.createInstance([])
  })

  it('times one automatic condensing per history format, Roo and the entry alternating', async () => {
    expect(implementations.roo).not.toBe(implementations.entry)
    const out: Record<string, unknown> = {}
    for (const format of ['xml', 'native']) {
      const history = generateHistory({ seed: 7, format, targetTokens: TOKENS }) as any[]
      let task = 0
      const call = async (name: string) => {
        const t = performance.now()
        const r = await implementations[name]({
          messages: history.map((m) => ({ ...m })),
          totalTokens: 190_000,
          contextWindow: 200_000,
          maxTokens: 8192,
          apiHandler,
          autoCondenseContext: true,
          autoCondenseContextPercent: 75,
          systemPrompt: 'You are Roo.',
          taskId: `${name}-${format}-${task++}`,
          profileThresholds: {},
          currentProfileId: 'default',
        })
        const ms = performance.now() - t
        expect(r.error).toBeUndefined()
        expect(r.summary.length).toBeGreaterThan(0)
        return ms
      }
      for (let i = 0; i < WARM_UP; i++) for (const name of ['roo', 'entry']) await call(name)
      const ms: Record<string, number[]> = { roo: [], entry: [] }
      for (let i = 0; i < RUNS; i++) {
        for (const name of i % 2 === 0 ? ['roo', 'entry'] : ['entry', 'roo']) ms[name].push(await call(name))
      }
      out[format] = { messages: history.length, roo: { median: median(ms.roo), ms: ms.roo }, entry: { median: median(ms.entry), ms: ms.entry } }
    }
    writeFileSync(path.join(__dirname, '..', '..', '..', '..', 'timing.json'), JSON.stringify(out))
  }, 300_000)
})
