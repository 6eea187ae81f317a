// The engine's cache-aware rule as JavaScript reaches it (`PolicyCall`, `PolicyTask`,
// `policyRoleConfigs`, crates/binding/src/policy.rs; lib/internal/cache-aware.js runs it): its rule is
// tested in Rust (src/manager/policy.rs) and through the manager in manager-policy.test.ts; here,
// that a hostile value in each place (NaN, -1, 2^53, a BigInt, a wrong type) is refused with a
// coded error naming the place, that a step handed back out of turn is refused, and that a
// refused call leaves the task's state as it was.
import { describe, expect, it } from 'vitest'

import { expectRefused } from './helpers.js'

type Step = { action: string; [k: string]: unknown }
type Call = {
  account(task: unknown, systemTokens: unknown, systemText: unknown, assistants: unknown): { fresh: boolean; remake: boolean; bill: boolean }
  billed(task: unknown, own: unknown, shadow: unknown): void
  appended(task: unknown, tokens: unknown): void
  start(task: unknown, systemTokens: unknown, messages: unknown, given: unknown): Step
  proposed(task: unknown, candidates: unknown): Step
  decided(task: unknown, condense: unknown): Step
  taken(task: unknown, messages: unknown): Step
  finish(task: unknown, lastReport?: unknown): { billed: number; turn: number; steps: unknown[]; report: string }
}
// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require('../lib/internal/native.js') as {
  PolicyCall: new (settings: unknown) => Call
  PolicyTask: new () => { readonly turn: number; readonly shadowSummaries: number }
  policyRoleConfigs(config: unknown, strict: unknown, workingSetTurns: unknown): Record<string, { provider: string }>
}

const PRICES = { inputPrice: 3, outputPrice: 15, cacheWritesPrice: 3.75, cacheReadsPrice: 0.3 }
const SETTINGS = { name: 'cache-aware', cache: 'anthropic', pricing: PRICES, workingSetTurns: 10, summaryTokens: 2000 }
const MESSAGES = new Float64Array([1000, 1000])
const START = {
  thresholdPercent: 100,
  allowedTokens: 90_000,
  contextWindow: 100_000,
  autoCondense: true,
  force: false,
}
const HOSTILE: unknown[] = [Number.NaN, -1, Number.POSITIVE_INFINITY, 10n, '10', {}]

describe('the engine cache-aware rule refuses hostile values clearly', () => {
  it('in its settings and the role configs', () => {
    expectRefused(() => new native.PolicyCall({ ...SETTINGS, cache: 'gemini' }), 'cache')
    for (const bad of HOSTILE) {
      if (typeof bad === 'object') continue
      expectRefused(() => new native.PolicyCall({ ...SETTINGS, workingSetTurns: bad }), 'workingSetTurns')
      expectRefused(() => new native.PolicyCall({ ...SETTINGS, summaryTokens: bad }), 'summaryTokens')
      expectRefused(() => new native.PolicyCall({ ...SETTINGS, pricing: { ...PRICES, cacheReadsPrice: bad } }), 'pricing')
      expectRefused(() => native.policyRoleConfigs({ provider: 'native' }, false, bad), 'workingSetTurns')
    }
    expectRefused(() => native.policyRoleConfigs({ provider: 'native' }, false, 1.5), 'workingSetTurns')
    expectRefused(() => native.policyRoleConfigs({ provider: 'native' }, false, 2 ** 53), 'workingSetTurns')
    expectRefused(() => new native.PolicyCall({ ...SETTINGS, workingSetTurns: 2 ** 53 }), 'workingSetTurns')
    expectRefused(() => new native.PolicyCall({ ...SETTINGS, workingSetTurns: 1.5 }), 'workingSetTurns')
    expectRefused(() => native.policyRoleConfigs('native', false, 10), 'config')
    const roles = native.policyRoleConfigs({ provider: 'native', providers: {} }, true, 10)
    expect(Object.keys(roles)).toEqual(['lossless', 'smart', 'smartAtTrigger', 'ownSummary'])
  })

  it('in each step, leaving the task as it was', () => {
    const task = new native.PolicyTask()
    const call = new native.PolicyCall(SETTINGS)
    for (const bad of HOSTILE) {
      expectRefused(() => call.account(task, bad, null, 0), 'systemTokens')
      expectRefused(() => call.account(task, 10_000, null, bad), 'assistants')
    }
    expect(task.turn).toBe(-1)
    call.account(task, 10_000, null, 0)
    for (const bad of HOSTILE) {
      expectRefused(() => call.billed(task, bad, 0), 'own')
      expectRefused(() => call.appended(task, bad), 'tokens')
      expectRefused(() => call.start(task, 10_000, MESSAGES, { ...START, contextWindow: bad }), 'contextWindow')
      expectRefused(() => call.start(task, 10_000, MESSAGES, { ...START, expectedTurns: bad }), 'expectedTurns')
    }
    expectRefused(() => call.start(task, 10_000, [1000, 1000], START), 'messages')
    expectRefused(() => call.start(task, 10_000, new Float64Array([1000, Number.NaN]), START), 'messages[1]')
    // Out of turn: a decision before the call started, candidates when none were asked for.
    expectRefused(() => call.decided(task, true), 'not started', ['internal'])
    const step = call.start(task, 10_000, MESSAGES, START)
    expect(step).toEqual({ action: 'propose', roles: ['lossless', 'smart'], force: true, priced: true })
    expectRefused(() => call.decided(task, true), 'the call is at "propose"', ['internal'])
    expectRefused(() => call.proposed(task, [{ condensed: false, report: 'x' }]), '1 candidates for a proposal of 2 roles', ['internal'])
    expectRefused(() => call.taken(task, new Float64Array([1])), 'the call is at "propose"', ['internal'])
    expectRefused(() => call.finish(task), 'the call is at "propose"', ['internal'])
    // Nothing refused changed the task: the call goes on as it would have.
    const next = call.proposed(task, [
      { condensed: false, report: 'nothing to condense' },
      { condensed: false, report: 'nothing to condense' },
    ])
    expect(next).toEqual({ action: 'decide' })
    expect(call.decided(task, false)).toEqual({ action: 'propose', roles: ['summary'], force: false, priced: false })
    expect(call.proposed(task, [{ condensed: false, report: 'under the threshold' }])).toEqual({ action: 'done' })
    const done = call.finish(task, 'under the threshold')
    expect(done).toMatchObject({ turn: 0, billed: 0 })
    expect(done.steps).toHaveLength(2)
    expect(done.report).toBe('Context not condensed (cache-aware): lossless: nothing to condense; smart: nothing to condense')
  })
})
