// The manager's course as JavaScript reaches it (`ManagerAttempt`, `ManagerGuards`,
// crates/binding/src/attempt.rs; lib/manager.js runs it): its rule is tested in Rust
// (src/manager/attempt.rs) and through the manager in manager-course.test.ts; here, that a hostile
// value in each place (NaN, -1, 2^53, 1.5, a BigInt, a wrong type) is refused with an error naming
// the place, that a step handed back out of turn is refused, that a refused call leaves the
// attempt where it was, and that the guards' map takes any task id.
import { describe, expect, it } from 'vitest'

import { expectRefused } from './helpers.js'

type Step = { action: string; provider?: string; attempts?: unknown[]; [k: string]: unknown }
type Attempt = {
  start(guards: unknown, nowMs: unknown): Step
  failed(guards: unknown, error: unknown, nowMs: unknown): Step
  produced(guards: unknown, tokens: unknown, nowMs: unknown): Step
  windowed(before: unknown, after: unknown): Step
}
type Guards = { readonly size: number; has(taskId: unknown): boolean; forget(taskId?: unknown): boolean }
// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require('../lib/internal/native.js') as {
  ManagerRules: new (config: unknown) => unknown
  ManagerGuards: new () => Guards
  ManagerAttempt: new (rules: unknown, decision: unknown, taskId: unknown, hasSummarize: unknown) => Attempt
}

const rules = new native.ManagerRules({ provider: 'lossless', fallback: true })
const DECISION = { prevContextTokens: 90_000, minGainTokens: 1_000, overflow: false, allowedTokens: 100_000 }
const HOSTILE: unknown[] = [Number.NaN, -1, 2 ** 53, 1.5, Number.POSITIVE_INFINITY, 10n, '10', {}, null]

describe("the manager's course refuses hostile values clearly", () => {
  it('in the decision it is built with, and in the task id', () => {
    for (const bad of HOSTILE) {
      expectRefused(() => new native.ManagerAttempt(rules, { ...DECISION, prevContextTokens: bad }, 't', true), 'prevContextTokens', ['invalid-options'])
      expectRefused(() => new native.ManagerAttempt(rules, { ...DECISION, minGainTokens: bad }, 't', true), 'minGainTokens', ['invalid-options'])
    }
    // The allowed size is any finite number (fractional, or negative when the reserved output exceeds the window).
    for (const bad of [Number.NaN, Number.POSITIVE_INFINITY, Number.NEGATIVE_INFINITY, 10n, '10', {}, null, undefined])
      expectRefused(() => new native.ManagerAttempt(rules, { ...DECISION, allowedTokens: bad }, 't', true), 'allowedTokens', ['invalid-options'])
    for (const fine of [-8192, 0.5, 2 ** 53]) expect(new native.ManagerAttempt(rules, { ...DECISION, allowedTokens: fine }, 't', true)).toBeTruthy()
    expectRefused(() => new native.ManagerAttempt(rules, { ...DECISION, overflow: 'yes' }, 't', true), 'overflow')
    expectRefused(() => new native.ManagerAttempt(rules, DECISION, 7, true), 'taskId')
    expectRefused(() => new native.ManagerAttempt({}, DECISION, 't', true), 'rules')
  })

  it('in the outcomes it is handed, leaving the attempt where it was', () => {
    const guards = new native.ManagerGuards()
    const attempt = new native.ManagerAttempt(rules, DECISION, 'task', true)
    // Out of turn: no provider runs before the call starts, and the window is not due.
    expectRefused(() => attempt.produced(guards, 50_000, 0), 'no provider is running', ['internal'])
    expectRefused(() => attempt.failed(guards, 'boom', 0), 'no provider is running', ['internal'])
    expectRefused(() => attempt.windowed(90_000, 45_000), 'the sliding window is not due', ['internal'])
    const first = attempt.start(guards, 0)
    expect(first).toMatchObject({ action: 'run', provider: 'lossless' })
    expectRefused(() => attempt.start(guards, 0), 'the call has started already', ['internal'])
    for (const bad of HOSTILE) {
      if (typeof bad === 'number' && Number.isSafeInteger(bad)) continue
      expectRefused(() => attempt.produced(guards, bad, 0), 'tokens', ['invalid-options'])
    }
    expectRefused(() => attempt.failed(guards, 42, 0), 'error', ['internal'])
    // Nothing refused moved it: the provider still runs, and its outcome is taken now.
    const done = attempt.produced(guards, 50_000, Number.NaN)
    expect(done.action).toBe('adopt')
    expect(done.attempts).toHaveLength(1)
    expectRefused(() => attempt.produced(guards, 40_000, 0), 'no provider is running', ['internal'])
  })

  it('a failing run counts for its task in the guards, under any task id', () => {
    const guards = new native.ManagerGuards()
    for (const id of ['', '\u{d800}', 'x'.repeat(100_000)]) {
      const attempt = new native.ManagerAttempt(rules, DECISION, id, false)
      expect(attempt.start(guards, 0).action).toBe('run')
      attempt.failed(guards, 'the provider failed', 0)
      expect(guards.has(id)).toBe(true)
    }
    expect(guards.size).toBe(3)
    expectRefused(() => guards.has(1), 'taskId')
    expect(guards.forget('\u{d800}')).toBe(true)
    expect(guards.forget()).toBe(true)
    expect(guards.size).toBe(0)
  })
})
