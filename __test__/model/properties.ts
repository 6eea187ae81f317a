// The properties of the model-based tests, shared by __test__/model-based.test.ts (fixed seeds, a
// few runs) and the slow suite (random seeds, many runs): a conversation run and a manager run, as
// fast-check async properties over the commands of conversation-model.ts and manager-model.ts, and
// fc.assert with the replay line added to a failure. Opens conversations and managers, closes them.
import fc from 'fast-check'

import { generateHistory } from '../../fixtures/generate.mjs'
import { openConversation, type ApiMessage } from '../../lib/index.js'
import { conversationCommands, type ConvModel, type ConvReal, verify } from './conversation-model.js'
import { MANAGER_CONFIGS, TASKS, type ManagerModel, type ManagerReal, managerCommands, managers } from './manager-model.js'

/**
 * The fast-check settings of one property: `seed` unless MODEL_SEED replays one (with MODEL_PATH,
 * the failing run alone, and MODEL_REPLAY its shrunk commands: see `commandsFor`), and the runs.
 */
export function runSettings(seed: number, numRuns: number): fc.Parameters<unknown> {
  const replay = process.env.MODEL_SEED
  return replay !== undefined
    ? { seed: Number(replay), path: process.env.MODEL_PATH, numRuns, endOnFailure: process.env.MODEL_PATH !== undefined }
    : { seed, numRuns }
}

/** fc.commands over `arbs`; MODEL_REPLAY is the replayPath a failure printed, for its shrunk commands exactly. */
function commandsFor<M extends object, R>(arbs: Array<fc.Arbitrary<fc.AsyncCommand<M, R>>>, maxCommands: number) {
  return fc.commands(arbs, { maxCommands, size: 'max', replayPath: process.env.MODEL_REPLAY })
}

/** A conversation run: a format, a history to grow from, the first messages handed over, the commands. */
export function conversationProperty(maxCommands: number) {
  return fc.asyncProperty(
    fc.constantFrom<'xml' | 'native'>('xml', 'native'),
    fc.integer({ min: 1, max: 1000 }),
    fc.integer({ min: 2, max: 40 }),
    commandsFor(conversationCommands, maxCommands),
    async (format, historySeed, start, cmds) => {
      const source = generateHistory({ seed: historySeed, format, targetTokens: 30_000 }) as ApiMessage[]
      const host = source.slice(0, start)
      let real: ConvReal | undefined
      try {
        await fc.asyncModelRun(async () => {
          const conv = await openConversation(host)
          real = { conv, given: [] }
          const model: ConvModel = { source, next: start, host, open: true }
          await verify(model, real, 'openConversation')
          return { model, real }
        }, cmds)
      } finally {
        // After a failure a call may still run: closing then may be refused, and must not hide the failure.
        try {
          real?.conv.close()
        } catch {}
      }
    },
  )
}

/** A manager run: a config, the tasks' first histories, the commands. */
export function managerProperty(maxCommands: number) {
  return fc.asyncProperty(
    fc.integer({ min: 0, max: MANAGER_CONFIGS.length - 1 }),
    fc.constantFrom<'xml' | 'native'>('xml', 'native'),
    fc.integer({ min: 1, max: 1000 }),
    fc.integer({ min: 1, max: 2 }),
    commandsFor(managerCommands, maxCommands),
    async (config, format, historySeed, conversations, cmds) => {
      const source = generateHistory({ seed: historySeed, format, targetTokens: 40_000 }) as ApiMessage[]
      const first = source.slice(0, 8)
      const { held, plain } = managers(MANAGER_CONFIGS[config], conversations)
      try {
        await fc.asyncModelRun(() => {
          const model: ManagerModel = { source, next: 8, tasks: Object.fromEntries(TASKS.map((t) => [t, first])) as ManagerModel['tasks'] }
          const real: ManagerReal = { held, plain, contextWindow: 20_000 }
          return { model, real }
        }, cmds)
      } finally {
        await held.closeConversations()
      }
    },
  )
}

/** fc.assert, with the replay line added to a failure's message. */
export async function check(property: fc.IAsyncProperty<never>, settings: fc.Parameters<unknown>) {
  try {
    await fc.assert(property as fc.IAsyncProperty<unknown>, settings)
  } catch (e) {
    const message = (e as Error).message
    const m = message.match(/seed: (-?\d+), path: "([^"]*)"/)
    const replay = message.match(/replayPath="([^"]*)"/)
    if (m) {
      const file = process.env.VITEST_SLOW ? '-c vitest.slow.config.mts __test__/slow/model-based.slow.ts' : '__test__/model-based.test.ts'
      ;(e as Error).message +=
        `\n\nReplay: MODEL_SEED=${m[1]} MODEL_PATH=${m[2]}${replay ? ` MODEL_REPLAY='${replay[1]}'` : ''} npx vitest run ${file} -t '<the test name>'`
    }
    throw e
  }
}
