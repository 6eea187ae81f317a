// The promise reference markers keep across chains of condensing runs, as a property (bounded here;
// __test__/slow/reference-chains.slow.ts runs many more, larger): 2 to 4 runs of Lossless (keep
// first or latest), Truncation, Native and the Smart presets, in Anthropic's and OpenAI's format,
// with and without the caller's token count, over generated histories. After each run every
// marker expands to exactly the bytes it stood for or is an "Omitted" note, and the run keeps a
// condensing's invariants. A failure names its seed: `CHAIN_SEED=<seed> npx vitest run
// __test__/reference-chains.test.ts` runs it alone and prints its chain.
import { describe, it } from 'vitest'

import { checkChain, describeChain, chainFor, seeds } from './reference-chains-cases.js'

const MAX_TOKENS = 60_000

describe('reference markers across chains of runs', () => {
  it.each(seeds(1, 24).map((seed) => [describeChain(chainFor(seed, MAX_TOKENS)), seed] as const))('%s', async (_chain, seed) => {
    await checkChain(seed, MAX_TOKENS)
  })
})
