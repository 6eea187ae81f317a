// The condensing policies a replay compares. A policy is `{ name, description, config(settings),
// policy?(settings), turn?(step) }`: `config` gives one manager configuration per role (the manager
// does the condensing, as a host would use it), `policy` the manager's own policy for the role
// "main" (`CondensationManager`'s `policy` option), `turn` decides each turn which role to ask and
// whether to take what it answers (without `turn`, the role "main" is asked whether to condense).
// Policies read the step; they never change messages themselves.
'use strict'

const { PROVIDER, PRESETS } = require('../internal/registry.js')
const { deepFreeze } = require('../internal/values.js')

/** Roo Code's default: a summary (Native) at the threshold, the sliding window past it. Roo asks
 * for the summary even when the messages it keeps are past the allowed size by themselves (the
 * window then cuts the summary away), hands back a summary's result still past it, and cuts the
 * window once: so does this model of it (`cutUntilFits: false`: Native is then never told the
 * allowed size), to bill and count what Roo does. */
const rooDefault = {
  name: 'roo-default',
  description: "Roo Code's default: a summary at the threshold, the sliding window when it fails past the allowed size",
  config: (s) => ({
    main: { provider: PROVIDER.native, threshold: s.threshold, cutUntilFits: false },
  }),
}

/** Two roles: Lossless (no fallback of its own) and a summary, both at the threshold. */
const losslessAndSummary = (s) => ({
  [PROVIDER.lossless]: { provider: PROVIDER.lossless, threshold: s.threshold, fallback: false },
  summary: { provider: PROVIDER.native, threshold: s.threshold },
})

/** Lossless at the threshold; a summary only when Lossless did not bring the context under it. */
const losslessThenSummary = {
  name: 'lossless-then-summary',
  description: 'Lossless at the threshold, then a summary if the context is still over it',
  config: losslessAndSummary,
  async turn(step) {
    if (step.decide(PROVIDER.lossless).condense) await step.condenseIfNeeded(PROVIDER.lossless)
    await step.condenseIfNeeded('summary')
  },
}

/** Lossless on every request (each edit breaks the cached prefix), a summary at the threshold. */
const losslessEveryTurn = {
  name: 'lossless-every-turn',
  description: 'Lossless before every request, a summary at the threshold',
  config: losslessAndSummary,
  async turn(step) {
    await step.condenseIfNeeded(PROVIDER.lossless, { force: true })
    await step.condenseIfNeeded('summary')
  },
}

function smartPolicy(preset) {
  return {
    name: `smart-${preset}`,
    description: `Smart (${preset}) at the threshold, a summary if it fails, the sliding window past the allowed size`,
    config: (s) => ({ main: { provider: PROVIDER.smart, providers: { [PROVIDER.smart]: { preset } }, threshold: s.threshold } }),
  }
}

/**
 * Cache-aware (and strict): the manager's own policy (src/manager/policy.rs says what it does), one
 * manager with `policy` set, told the replay's cache model, prices, working set, summary size and
 * expected length; each turn the replay calls its `condenseIfNeeded` as a host would.
 */
const cacheAware = (strict) => ({
  name: strict ? 'cache-aware-strict' : 'cache-aware',
  description: strict
    ? 'cache-aware without the Lossless operations that make a newer copy a reference to an older one (a later Smart run can shorten the older)'
    : 'Lossless or Smart without model calls in batches, where the reads saved beat re-writing the cache; summaries at most half as often as roo-default, when they pay',
  config: (s) => ({ main: { provider: PROVIDER.native, threshold: s.threshold } }),
  policy: (s) => ({
    name: strict ? 'cache-aware-strict' : 'cache-aware',
    cache: s.cache,
    cacheTtl: s.cacheTtl,
    pricing: s.pricing,
    workingSetTurns: s.workingSetTurns,
    summaryTokens: s.summaryTokens,
    ...(s.expectedTurns !== undefined ? { expectedTurns: s.expectedTurns } : {}),
    ...(s.lookbackBlocks !== undefined ? { lookbackBlocks: s.lookbackBlocks } : {}),
  }),
})

// Frozen: the names are exported (`REPLAY_POLICIES`) and the policies shared by every replay, so
// no caller can change what `replay` accepts or does for the others.
const ALL = deepFreeze([rooDefault, losslessThenSummary, losslessEveryTurn, ...PRESETS.map(smartPolicy), cacheAware(false), cacheAware(true)])
const REPLAY_POLICIES = deepFreeze(ALL.map((p) => p.name))

/** The policy named `name` (one of REPLAY_POLICIES), or undefined. */
const policyNamed = (name) => ALL.find((p) => p.name === name)

module.exports = { REPLAY_POLICIES, policyNamed }
