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

/** Two roles: Lossless (no fallback of its own) and a summary, both at the threshold. */
const losslessAndSummary = (s) => ({
  lossless: { provider: 'lossless', threshold: s.threshold, fallback: false },
  summary: { provider: 'native', threshold: s.threshold },
})

/** Lossless at the threshold; a summary only when Lossless did not bring the context under it. */
const losslessThenSummary = {
  name: 'lossless-then-summary',
  description: 'Lossless at the threshold, then a summary if the context is still over it',
  config: losslessAndSummary,
  async turn(step) {
    if (step.decide('lossless').condense) await step.condenseIfNeeded('lossless')
    await step.condenseIfNeeded('summary')
  },
}

/** Lossless on every request (each edit breaks the cached prefix), a summary at the threshold. */
const losslessEveryTurn = {
  name: 'lossless-every-turn',
  description: 'Lossless before every request, a summary at the threshold',
  config: losslessAndSummary,
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
 * prefix at a tenth of the input price (Anthropic) or half (OpenAI); a change at message k makes
 * every later request read a smaller context, but the next request writes (or sends uncached)
 * everything from k again. So it:
 * - works in batches: it asks again only once the context has grown by the batch that minimises
 *   re-writes plus reads per turn (B = sqrt(2 x premium x growth x rewritten / read price), where
 *   `rewritten` is what the last condensing made the next request write again);
 * - asks for two candidates, Lossless and Smart without model calls (old tool output, tool
 *   parameters and environment details suppressed; the working set's turns, the last
 *   `2 x workingSetTurns` messages, kept whole; what the user typed and errors kept), and takes the
 *   one whose reads saved until the trigger (at most the expected remaining turns) exceed, by the
 *   most, what it costs now: the next request priced by the cache model with and without it, so a
 *   change after the last cached breakpoint costs nothing and one near the start re-writes it all;
 *   Lossless wins a tie;
 * - summarizes (a lossy summary, through the manager, keeping the working set's turns whole) at
 *   most half as often as Roo's default would at this growth, and then only when the reads the
 *   summary saves until the next one may run exceed its price (its call's input and the re-write
 *   after it): what Smart leaves grows slowly, and only a summary brings it back down;
 * - at the trigger, Lossless, else Smart (keeping the working set's turns whole, else the last
 *   `AT_TRIGGER_KEEP` messages: a summary would keep 3), when it leaves room under the trigger for
 *   a batch of growth (a condensing is due anyway, and these cost no model call and keep what the
 *   user typed and the errors); else what Roo does (a summary; the sliding window past the
 *   allowed size).
 * Remaining turns: `expectedTurns` when given, else as many as have elapsed (a task seen at turn t
 * is taken to be half done), at least `MIN_REMAINING`.
 *
 * `cache-aware-strict` is the same without the Lossless operations that turn a newer copy into a
 * reference to an older one (repeated file reads, identical tool results): once the older copy
 * is older than the messages Smart keeps whole, a later Smart run shortens it and the reference
 * is left pointing at nothing ("Omitted"), so the newest state of that file is gone from context.
 */
const MIN_REMAINING = 10
/** Messages Smart keeps whole at the trigger, where the alternative is a summary keeping the last 3. */
const AT_TRIGGER_KEEP = 6

/** The Lossless operations: all, or (strict) only those that point an older copy at a newer one. */
const operations = (strict) => ({ deduplicateFileReads: !strict, consolidateToolResults: !strict, removeObsoleteState: true })

/** Smart without model calls: old tool output suppressed, the last `keep` messages kept whole. */
function suppressOld(keep, strict) {
  return {
    losslessPrelude: { enabled: true, operations: operations(strict) },
    passes: [
      {
        id: 'suppress-old-output',
        name: 'Suppress old tool output',
        mode: 'individual',
        selection: { type: 'preserve_recent', keepRecentCount: keep },
        individualConfig: { defaults: { toolResults: 'suppress', toolParameters: 'suppress', environmentDetails: 'suppress' } },
      },
    ],
  }
}

const cacheAware = (strict) => ({
  name: strict ? 'cache-aware-strict' : 'cache-aware',
  description: strict
    ? 'cache-aware without the Lossless operations that make a newer copy a reference to an older one (a later Smart run can shorten the older)'
    : 'Lossless or Smart without model calls in batches, where the reads saved beat re-writing the cache; summaries at most half as often as roo-default, when they pay',
  config: (s) => ({
    lossless: { provider: 'lossless', providers: { lossless: operations(strict) }, threshold: s.threshold, fallback: false },
    smart: { provider: 'smart', providers: { smart: suppressOld(2 * s.workingSetTurns, strict) }, threshold: s.threshold, fallback: false },
    smartAtTrigger: { provider: 'smart', providers: { smart: suppressOld(AT_TRIGGER_KEEP, strict) }, threshold: s.threshold, fallback: false },
    summary: { provider: 'native', threshold: s.threshold },
    ownSummary: { provider: 'native', providers: { native: { keepLast: 2 * s.workingSetTurns } }, threshold: s.threshold, fallback: false },
  }),
  async turn(step) {
    const s = step.settings
    const p = s.pricing
    const memo = step.memo
    if (memo.lastTry === undefined) {
      memo.lastTry = 0
      memo.rewritten = 0
      memo.lastSummaryTurn = 0
      memo.afterSummary = undefined
    }
    const trigger = step.triggerTokens()
    const n = step.promptTokens()
    const growth = Math.max(1, step.appendedTokens / (step.turn + 1))
    const remaining = s.expectedTurns !== undefined ? Math.max(1, s.expectedTurns - step.turn) : Math.max(MIN_REMAINING, step.turn)
    const premium = step.rewritePremium()
    const rewritten = Math.max(memo.rewritten, growth)
    const batch = Math.min(trigger / 2, Math.sqrt((2 * premium * growth * rewritten) / p.cacheReadsPrice))
    if (n - memo.lastTry >= batch && n < trigger) {
      const horizon = Math.min(remaining, Math.max(1, (trigger - n) / growth))
      const value = (c) => {
        const saved = c.tokensBefore - c.tokensAfter
        if (saved <= 0) return -Infinity
        return ((saved * p.cacheReadsPrice) / 1e6) * horizon - (c.cacheIfTaken.cost - c.cacheNow.cost)
      }
      let best
      for (const role of ['lossless', 'smart']) {
        const c = await step.propose(role, { force: true })
        if (!c.condensed) continue
        const v = value(c)
        if (v > 0 && (!best || v > best.v)) best = { c, v }
      }
      if (best) {
        const next = best.c.cacheIfTaken
        memo.rewritten = next.tokens - next.cachedRead
        best.c.take()
      }
      memo.lastTry = step.promptTokens()
    }
    // A summary of its own: no sooner than twice Roo's default's cycle at this growth after the
    // last one, and when the reads it saves until the next may run beat its price.
    const rooCycle = Math.max(1, (trigger - (memo.afterSummary ?? s.systemTokens)) / growth)
    const since = step.turn - memo.lastSummaryTurn
    const m = step.promptTokens()
    if (since >= 2 * rooCycle && m < trigger) {
      const after = memo.afterSummary ?? s.systemTokens + s.summaryTokens
      const price = (m * p.inputPrice + after * p.cacheWritesPrice) / 1e6
      const saves = (((m - after) * p.cacheReadsPrice) / 1e6) * Math.min(remaining, 2 * rooCycle)
      if (saves > price) {
        const r = await step.condenseIfNeeded('ownSummary', { force: true })
        if (r.taken && r.provider === 'native') {
          memo.lastSummaryTurn = step.turn
          memo.afterSummary = step.promptTokens()
          memo.lastTry = step.promptTokens()
        }
      }
    }
    // At the trigger: Lossless, else Smart, when it leaves room for a batch of growth; else the summary.
    if (step.decide('summary').condense) {
      const room = (c) => c.tokensAfter + batch <= trigger
      const r1 = await step.condenseIfNeeded('lossless', { force: true, accept: room })
      if (!r1.taken) {
        const r2 = await step.condenseIfNeeded('smart', { force: true, accept: room })
        if (!r2.taken) await step.condenseIfNeeded('smartAtTrigger', { force: true, accept: room })
      }
      if (step.promptTokens() < trigger) memo.lastTry = step.promptTokens()
    }
    const r = await step.condenseIfNeeded('summary')
    if (r.taken && r.provider === 'native') {
      memo.lastSummaryTurn = step.turn
      memo.afterSummary = step.promptTokens()
      memo.lastTry = step.promptTokens()
    }
  },
})

const ALL = [rooDefault, losslessThenSummary, losslessEveryTurn, ...PRESETS.map(smartPolicy), cacheAware(false), cacheAware(true)]
const REPLAY_POLICIES = ALL.map((p) => p.name)
const BY_NAME = new Map(ALL.map((p) => [p.name, p]))

module.exports = { REPLAY_POLICIES, BY_NAME, MIN_REMAINING }
