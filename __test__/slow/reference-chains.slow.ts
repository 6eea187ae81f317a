// The reference-chain property of __test__/reference-chains.test.ts over many more chains and
// larger histories (npm run test:slow). A failure names its seed: `CHAIN_SEED=<seed> npx vitest
// run -c vitest.slow.config.mts __test__/slow/reference-chains.slow.ts` runs it alone.
import { describe, it } from 'vitest'

import { checkChain, describeChain, chainFor, seeds } from '../reference-chains-cases.js'

const MAX_TOKENS = 250_000

describe('reference markers across chains of runs (slow)', () => {
  it.each(seeds(1000, 400).map((seed) => [describeChain(chainFor(seed, MAX_TOKENS)), seed] as const))('%s', async (_chain, seed) => {
    await checkChain(seed, MAX_TOKENS)
  })
})
