// context-condense/ai-sdk's prepareStep as an agent loop calls it: the first step of a run on a
// generated task (AI SDK messages, fixtures/generate.mjs converted with fromEngine) condenses it,
// then each later step brings the run's two new messages (the assistant's tool call and the tool's
// result) and is timed as a whole (median): the prefix check, the conversion (one engine object per
// SDK message, kept), the manager's turn on the run's held conversation (which crosses only what
// changed) and the decision. Against the floor of the step's messages: JSON.parse(JSON.stringify())
// of the SDK messages the step was given. Measured on a second run, as in a host that has run
// steps before. bench.mjs reports it; run alone:
//
//   node --expose-gc benchmark/ai-sdk.mjs [tokens=1000000] [steps=20]
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'

import { generateHistory } from '../fixtures/generate.mjs'

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]
// Each step and each floor is timed after a collection (run with --expose-gc), as bench.mjs's
// `observe` does: the garbage of the floor's own copy is not charged to the next step.
const gc = globalThis.gc ?? (() => {})

/** The two messages a step of the run adds: a read_file call and its result. */
function stepMessages(k) {
  const id = `bench_call_${k}`
  return [
    { role: 'assistant', content: [{ type: 'tool-call', toolCallId: id, toolName: 'read_file', input: { path: `src/bench/file${k}.ts` } }] },
    {
      role: 'tool',
      content: [
        {
          type: 'tool-result',
          toolCallId: id,
          toolName: 'read_file',
          output: { type: 'text', value: `File: src/bench/file${k}.ts\n 1 | export const n = ${k}\n` },
        },
      ],
    },
  ]
}

/** One run of `steps` steps after the first over `task`, each step timed, with its floor. */
async function run(createPrepareStep, task, tokens, steps) {
  const prepareStep = createPrepareStep({ contextWindow: Math.round(tokens / 4), provider: 'smart' })
  const t0 = performance.now()
  await prepareStep({ messages: task, stepNumber: 0 })
  const firstMs = performance.now() - t0
  let messages = task
  const stepMs = []
  const floors = []
  for (let k = 1; k <= steps; k++) {
    messages = messages.concat(stepMessages(k))
    gc()
    const t = performance.now()
    const r = await prepareStep({ messages, stepNumber: k })
    stepMs.push(performance.now() - t)
    if (!r || r.messages.length === 0) throw new Error(`step ${k}: prepareStep handed back no messages`)
    gc()
    const f = performance.now()
    JSON.parse(JSON.stringify(messages))
    floors.push(performance.now() - f)
  }
  const records = prepareStep.steps
  await prepareStep.close()
  return { firstMs, stepMs, floors, records }
}

/**
 * Times `steps` steps after the first on a run over a task of about `tokens` tokens (window: a
 * quarter of the task, so the first step condenses and the later ones stay below the threshold),
 * after a warm-up run of its own (a host that has run steps before: the code is compiled).
 */
export async function aiSdkFigures({ tokens = 1_000_000, steps = 20 } = {}) {
  const require = createRequire(import.meta.url)
  const { createPrepareStep, fromEngine } = require('../lib/ai-sdk.js')
  const task = fromEngine(generateHistory({ seed: 7, format: 'native', targetTokens: tokens }))
  task.push({ role: 'user', content: [{ type: 'text', text: 'Go on.' }] })
  await run(createPrepareStep, task, tokens, steps)
  const { firstMs, stepMs, floors, records } = await run(createPrepareStep, task, tokens, steps)
  const step = median(stepMs)
  const floor = median(floors)
  return {
    tokens,
    messages: task.length,
    firstMs,
    firstCondensed: records[0].condensed,
    laterCondensed: records.slice(1).filter((s) => s.condensed).length,
    stepMs: step,
    floorMs: floor,
    ratio: step / floor,
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tokens = Number(process.argv[2] ?? 1_000_000)
  const steps = Number(process.argv[3] ?? 20)
  const f = await aiSdkFigures({ tokens, steps })
  console.log(
    `ai-sdk prepareStep on a ${f.messages}-message task (~${tokens.toLocaleString('en-US')} tokens): first step ${f.firstMs.toFixed(1)} ms (condensed: ${f.firstCondensed}), ` +
      `then per step ${f.stepMs.toFixed(2)} ms = ${f.ratio.toFixed(3)}x the floor of its messages (${f.floorMs.toFixed(1)} ms; target <= 0.1x), ${f.laterCondensed} later steps condensed`,
  )
}
