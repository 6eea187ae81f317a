// Written by prepare.mjs into a roo-compat run with --time, at src/core/condense/__tests__/: the time of
// one automatic condensing (the era's manageContext, or truncateConversationIfNeeded before it) on a
// generated history of about a million tokens, whatever implementation the run's imports name (Roo's
// own with --roo, this package's entry without). The API handler answers at once, so the time is the
// implementation's own. A warm-up call first; then each call gets a copy of the messages and a task
// id never seen before (nothing held from an earlier call). Writes the times to timing.json at the
// run's root.
import { writeFileSync } from 'node:fs'
import path from 'node:path'

import { TelemetryService } from '@roo-code/telemetry'

// @ts-expect-error: the generator is plain JavaScript, imported from the repository by path.
import { generateHistory } from '__GENERATOR__'
import * as management from '__MANAGEMENT__'

const RUNS = 21
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

const manage = ((management as any).manageContext ?? (management as any).truncateConversationIfNeeded) as (
  o: Record<string, unknown>,
) => Promise<{ messages: unknown[]; summary: string; error?: string }>

describe('timing', () => {
  // As the extension does at activation.
  beforeAll(() => {
    if (!TelemetryService.hasInstance()) TelemetryService.createInstance([])
  })

  it('times one automatic condensing per history format', async () => {
    const out: Record<string, unknown> = {}
    for (const format of ['xml', 'native']) {
      const history = generateHistory({ seed: 7, format, targetTokens: TOKENS }) as any[]
      const call = (taskId: string) =>
        manage({
          messages: history.map((m) => ({ ...m })),
          totalTokens: 190_000,
          contextWindow: 200_000,
          maxTokens: 8192,
          apiHandler,
          autoCondenseContext: true,
          autoCondenseContextPercent: 75,
          systemPrompt: 'You are Roo.',
          taskId,
          profileThresholds: {},
          currentProfileId: 'default',
        })
      const first = await call(`warm-${format}`)
      expect(first.error).toBeUndefined()
      expect(first.summary.length).toBeGreaterThan(0)
      const ms: number[] = []
      for (let i = 0; i < RUNS; i++) {
        const t = performance.now()
        const r = await call(`task-${format}-${i}`)
        ms.push(performance.now() - t)
        expect(r.summary.length).toBeGreaterThan(0)
      }
      const sorted = [...ms].sort((a, b) => a - b)
      out[format] = { messages: history.length, median: sorted[RUNS >> 1], ms }
    }
    writeFileSync(path.join(__dirname, '..', '..', '..', '..', 'timing.json'), JSON.stringify(out))
  }, 300_000)
})
