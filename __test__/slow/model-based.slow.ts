// The model-based tests at length (npm run test:slow): more runs, longer ones, and new random
// seeds each time (printed; a failure prints the line that replays it: MODEL_SEED, MODEL_PATH,
// MODEL_REPLAY). The commands, the model and the KNOWN_FAILURES are those of
// __test__/model-based.test.ts.
import { describe, it } from 'vitest'

import { check, conversationProperty, managerProperty, runSettings } from '../model/properties.js'

process.env.VITEST_SLOW = '1'
const seed = Number(process.env.MODEL_SEED ?? Math.floor(Math.random() * 2 ** 31))

describe(`model-based, at length (seed ${seed})`, () => {
  it('a conversation against the stateless condense: 1500 runs of up to 60 commands', async () => {
    console.log(`model-based (slow): conversation seed ${seed}`)
    await check(conversationProperty(60) as never, runSettings(seed, 1500))
  })

  it('a manager keeping conversations per task against the stateless manager: 500 runs of up to 40 commands', async () => {
    console.log(`model-based (slow): manager seed ${process.env.MODEL_SEED ?? seed + 1}`)
    await check(managerProperty(40) as never, runSettings(seed + 1, 500))
  })
})
