// The condensing policies a replay compares. A policy is `{ name, description, config(settings),
// turn?(step) }`: `config` gives one manager configuration per role (the manager does the
// condensing, as a host would use it), `turn` decides each turn which role to ask and whether to
// take what it answers (without `turn`, the role "main" is asked whether to condense). Policies
// read the step; they never change messages themselves.
'use strict'

const native = require('../native.js')

const PRESETS = native.providerCatalogue().presets

/** Roo Code's default: a summary (Native) at the threshold, the sliding window past it. */
const rooDefault = {
  name: 'roo-default',
  description: "Roo Code's default: a summary at the threshold, the sliding window when it fails past the allowed size",
  config: (s) => ({ main: { provider: 'native', threshold: s.threshold } }),
}

/** Lossless at the threshold; a summary only when Lossless did not bring the context under it. */
const losslessThenSummary = {
  name: 'lossless-then-summary',
  description: 'Lossless at the threshold, then a summary if the context is still over it',
  config: (s) => ({
    lossless: { provider: 'lossless', threshold: s.threshold, fallback: false },
    summary: { provider: 'native', threshold: s.threshold },
  }),
  async turn(step) {
    if (step.decide('lossless').condense) await step.condenseIfNeeded('lossless')
    await step.condenseIfNeeded('summary')
  },
}

/** Lossless on every request (each edit breaks the cached prefix), a summary at the threshold. */
const losslessEveryTurn = {
  name: 'lossless-every-turn',
  description: 'Lossless before every request, a summary at the threshold',
  config: (s) => ({
    lossless: { provider: 'lossless', threshold: s.threshold, fallback: false },
    summary: { provider: 'native', threshold: s.threshold },
  }),
  async turn(step) {
    await step.condenseIfNeeded('lossless', { force: true })
    await step.condenseIfNeeded('summary')
  },
}

function smartPolicy(preset) {
  return {
    name: `smart-${preset}`,
    description: `Smart (${preset}) at the threshold, a summary if it fails, the sliding window past the allowed size`,
    config: (s) => ({ main: { provider: 'smart', providers: { smart: { preset } }, threshold: s.threshold } }),
  }
}

/**
 * Cache-aware: condenses where it pays over the turns still to come. Each request reads the cached
 * prefix at a tenth of the price (Anthropic) or half (OpenAI); an edit at message k makes every
 * later request of the task read k's successors from a smaller context, but the next request
 * writes (or sends uncached) everything from k again. So it:
 * - tries only in batches: when the context has grown by a tenth of the trigger since the last
 *   try, and is past a third of it (one condensing removes much, then nothing for many turns);
 * - takes a candidate only when the reads it saves over the expected remaining turns exceed what
 *   it costs now, priced by the cache model on the request as it would be sent (which is where
 *   a change after the last cached breakpoint costs nothing);
 * - tries Lossless first, then Smart without model calls ("speed": the lossless prelude, then old
 *   tool output cut), so the context rarely reaches the threshold and fewer lossy summaries run;
 * - at the threshold, does what Roo does (a summary; the sliding window past the allowed size).
 * Remaining turns: `expectedTurns` when given, else as many as have elapsed (a task seen at turn t
 * is taken to be half done), at least `MIN_REMAINING`.
 */
const MIN_REMAINING = 10
const cacheAware = {
  name: 'cache-aware',
  description:
    'Lossless, then Smart without model calls, in batches where the saving over the remaining turns beats re-writing the cache; a summary only at the threshold',
  config: (s) => ({
    lossless: { provider: 'lossless', threshold: s.threshold, fallback: false },
    smart: { provider: 'smart', providers: { smart: { preset: 'speed' } }, threshold: s.threshold, fallback: false },
    summary: { provider: 'native', threshold: s.threshold },
  }),
  async turn(step) {
    const s = step.settings
    const trigger = step.triggerTokens()
    const n = step.promptTokens()
    const memo = step.memo
    if (memo.lastTry === undefined) memo.lastTry = 0
    const batch = Math.max(1, Math.round(trigger / 10))
    if (n >= trigger / 3 && n - memo.lastTry >= batch) {
      memo.lastTry = n
      const remaining = s.expectedTurns !== undefined ? Math.max(1, s.expectedTurns - step.turn) : Math.max(MIN_REMAINING, step.turn)
      const worth = (c) => {
        const saved = c.tokensBefore - c.tokensAfter
        if (saved <= 0) return false
        // What the next request costs with the candidate minus without it (the re-write), against
        // the reads it saves on each request after.
        const extraNow = c.cacheIfTaken.cost - c.cacheNow.cost
        const savedLater = ((saved * s.pricing.cacheReadsPrice) / 1e6) * remaining
        return savedLater > extraNow
      }
      await step.condenseIfNeeded('lossless', { force: true, accept: worth })
      if (step.promptTokens() >= trigger / 3) await step.condenseIfNeeded('smart', { force: true, accept: worth })
      memo.lastTry = step.promptTokens()
    }
    await step.condenseIfNeeded('summary')
  },
}

const ALL = [rooDefault, losslessThenSummary, losslessEveryTurn, ...PRESETS.map(smartPolicy), cacheAware]
const REPLAY_POLICIES = ALL.map((p) => p.name)
const BY_NAME = new Map(ALL.map((p) => [p.name, p]))

module.exports = { REPLAY_POLICIES, BY_NAME, MIN_REMAINING }
