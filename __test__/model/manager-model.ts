// The model-based test of one CondensationManager that keeps conversations per task id
// (`condenseIfNeeded` with `taskId`), as fast-check commands. The model is the same manager's
// config run with `conversations: 0` (stateless: every call hands the whole history over) on the
// same calls, and each task's history as the host keeps it. Commands: a turn of a task (new
// messages, a condense when due), several calls on one task at once, a history the engine refuses
// (a message with `ts: NaN`), a first hand-over aborted (before the call, or a microtask after),
// closing a task's conversation, bad arguments. Each call must settle within the bound, answer
// what the stateless manager answers, throw only errors with an errorCode (an abort: the signal's
// own reason), and change nothing the caller passed.
import fc from 'fast-check'
import { expect } from 'vitest'

import { CondensationManager, type ApiMessage, type CondenseContext, type ManagedResult } from '../../lib/index.js'
import { difference, snapshot } from '../sweep/values.mjs'
import { type Outcome, checkThrown, outcome, summarize, violation } from './common.js'

export const TASKS = ['task-a', 'task-b', 'task-c'] as const
type Task = (typeof TASKS)[number]

export interface ManagerModel {
  source: ApiMessage[]
  next: number
  /** Each task's history as the host keeps it. */
  tasks: Record<Task, ApiMessage[]>
}

export interface ManagerReal {
  /** The manager under test (conversations kept per task). */
  held: CondensationManager
  /** The model: the same config, stateless. */
  plain: CondensationManager
  contextWindow: number
}

type Cmd = fc.AsyncCommand<ManagerModel, ManagerReal>

/** The manager configs a run picks from: every built-in provider, condensing on every call. */
export const MANAGER_CONFIGS = [
  { provider: 'lossless', threshold: 5, triggers: { minGainTokens: 0 } },
  { provider: 'truncation', threshold: 5, triggers: { minGainTokens: 0 }, providers: { truncation: { preserveRecentCount: 4 } } },
  { provider: 'smart', threshold: 5, triggers: { minGainTokens: 0 }, providers: { smart: { preset: 'balanced' } } },
  { provider: 'smart', threshold: 5, triggers: { minGainTokens: 0 }, providers: { smart: { preset: 'aggressive' } } },
  { provider: 'native', threshold: 5, triggers: { minGainTokens: 0 }, providers: { native: { keepLast: 3 } } },
]

/** A clock both managers share, so that their loop guards see the same times. */
const CLOCK = () => 1_700_000_000_000

export function managers(config: (typeof MANAGER_CONFIGS)[number], conversations: number) {
  return {
    held: new CondensationManager({ config, summarize, now: CLOCK, conversations }),
    plain: new CondensationManager({ config, summarize, now: CLOCK, conversations: 0 }),
  }
}

/** The parts of a managed result that must not depend on whether the task's history was held. */
function managed(r: ManagedResult) {
  return {
    messages: JSON.stringify(r.messages),
    condensed: r.condensed,
    provider: r.provider,
    prev: r.prevContextTokens,
    next: r.newContextTokens,
    error: r.error,
    skipped: r.skipped,
  }
}

/** One call on both managers, checked: settles, same answer, nothing changed; answers the result. */
async function turn(r: ManagerReal, what: string, messages: ApiMessage[], context: CondenseContext, signal?: AbortSignal): Promise<ManagedResult | undefined> {
  const expected = await outcome(`${what} (the stateless model)`, () => r.plain.condenseIfNeeded(messages, { ...context, signal: undefined }))
  return compared(what, expected, () => r.held.condenseIfNeeded(messages, context), [messages, context], signal)
}

/** The held manager's call, checked against the model's outcome `expected`. */
async function compared(
  what: string,
  expected: Outcome<ManagedResult>,
  call: () => Promise<ManagedResult>,
  given: unknown[],
  signal?: AbortSignal,
): Promise<ManagedResult | undefined> {
  const before = snapshot(given)
  const got = await outcome(what, call)
  const changed = difference(before, snapshot(given))
  if (changed) expect.fail(`${what}: changed what it was given: ${changed}`)
  if (!got.ok) {
    checkThrown(what, got.error, signal)
    if (!signal || !signal.aborted) violation('equals-model', `${what} rejected where the stateless manager answers: ${(got.error as Error)?.message}`)
    return undefined
  }
  if (!expected.ok) {
    violation('equals-model', `${what} answered where the stateless manager rejects: ${(expected.error as Error)?.message}`)
    return got.value
  }
  const a = managed(got.value)
  const b = managed(expected.value)
  const differs = (Object.keys(a) as Array<keyof typeof a>).filter((k) => JSON.stringify(a[k]) !== JSON.stringify(b[k]))
  if (differs.length > 0) {
    const shown = (r: ManagedResult, k: string) => (k === 'messages' ? `${r.messages.length} messages` : JSON.stringify(managed(r)[k as keyof typeof a]))
    violation(
      'equals-model',
      `${what}: the result differs from the stateless manager's in ${differs.map((k) => `${k} (${shown(got.value, k)}, the model ${shown(expected.value, k)})`).join(', ')}`,
    )
  }
  return got.value
}

const taskArb = fc.constantFrom(...TASKS)

class Turn implements Cmd {
  constructor(
    readonly task: Task,
    readonly k: number,
  ) {}
  check = (m: Readonly<ManagerModel>) => m.next < m.source.length
  async run(m: ManagerModel, r: ManagerReal) {
    const add = m.source.slice(m.next, m.next + this.k)
    m.next += add.length
    const history = [...m.tasks[this.task], ...add]
    const result = await turn(r, this.toString(), history, { contextWindow: r.contextWindow, taskId: this.task })
    m.tasks[this.task] = result ? result.messages : history
  }
  toString = () => `turn(${this.task}, +${this.k})`
}

/**
 * Two or three calls on one task at once, with the same history: they must answer what the
 * stateless manager answers to the same calls made one after another, in the order they were made
 * (the loop guard's count makes the order matter).
 */
class Concurrent implements Cmd {
  constructor(
    readonly task: Task,
    readonly n: number,
  ) {}
  check = () => true
  async run(m: ManagerModel, r: ManagerReal) {
    const history = m.tasks[this.task]
    const context = () => ({ contextWindow: r.contextWindow, taskId: this.task })
    const expected: Array<Outcome<ManagedResult>> = []
    for (let i = 0; i < this.n; i++)
      expected.push(await outcome(`${this.toString()} #${i} (the stateless model)`, () => r.plain.condenseIfNeeded(history, context())))
    const results = await Promise.all(
      expected.map((e, i) => {
        const c = context()
        return compared(`${this.toString()} #${i}`, e, () => r.held.condenseIfNeeded(history, c), [history, c])
      }),
    )
    const first = results.find((x) => x !== undefined)
    if (first) m.tasks[this.task] = first.messages
  }
  toString = () => `${this.n} calls at once(${this.task})`
}

/** A history the engine refuses for the task (a message with `ts: NaN`), then the task's history again: both settle. */
class Refused implements Cmd {
  constructor(readonly task: Task) {}
  check = (m: Readonly<ManagerModel>) => m.tasks[this.task].length > 1
  async run(m: ManagerModel, r: ManagerReal) {
    const history = m.tasks[this.task]
    const bad = history.map((x, i) => (i === history.length - 1 ? { ...x, ts: Number.NaN } : x))
    await turn(r, `${this.toString()}: the refused history`, bad, { contextWindow: r.contextWindow, taskId: this.task, force: true })
    const result = await turn(r, `${this.toString()}: then the task's history`, history, { contextWindow: r.contextWindow, taskId: this.task })
    if (result) m.tasks[this.task] = result.messages
  }
  toString = () => `refused history(${this.task})`
}

/** A call aborted (before it, or a microtask after: during the hand-over of a task new to the pool), then the task again. */
class Aborted implements Cmd {
  constructor(
    readonly task: Task,
    readonly when: 'before' | 'microtask',
  ) {}
  check = () => true
  async run(m: ManagerModel, r: ManagerReal) {
    // A fresh task id: its first call hands the whole history over.
    const task = `${this.task}-aborted-${m.next}`
    const history = m.tasks[this.task]
    const controller = new AbortController()
    const reason = new Error(`model abort (${this.when})`)
    if (this.when === 'before') controller.abort(reason)
    const before = snapshot(history)
    const running = outcome(this.toString(), () =>
      r.held.condenseIfNeeded(history, { contextWindow: r.contextWindow, taskId: task, signal: controller.signal }),
    )
    if (this.when === 'microtask') queueMicrotask(() => controller.abort(reason))
    const got = await running
    const changed = difference(before, snapshot(history))
    if (changed) expect.fail(`${this.toString()}: changed the history: ${changed}`)
    if (!got.ok) checkThrown(this.toString(), got.error, controller.signal)
    // The task's next call, not aborted, works as if nothing happened.
    await turn(r, `${this.toString()}: the same task again`, history, { contextWindow: r.contextWindow, taskId: task })
  }
  toString = () => `aborted call(${this.task}, ${this.when})`
}

class CloseTask implements Cmd {
  constructor(readonly task: Task | undefined) {}
  check = () => true
  async run(_m: ManagerModel, r: ManagerReal) {
    const o = await outcome(this.toString(), () => r.held.closeConversations(this.task))
    if (!o.ok) throw o.error
    // It also lets go of the task's loop-guard state: the model forgets it too.
    await r.plain.closeConversations(this.task)
  }
  toString = () => `closeConversations(${this.task ?? ''})`
}

class BadArguments implements Cmd {
  constructor(readonly which: number) {}
  static readonly CASES: Array<[string, (r: ManagerReal, m: ManagerModel) => unknown]> = [
    ['condenseIfNeeded(h, { contextWindow: -1 })', (r, m) => r.held.condenseIfNeeded(m.tasks['task-a'], { contextWindow: -1, taskId: 'task-a' })],
    ['condenseIfNeeded("x", …)', (r) => r.held.condenseIfNeeded('x' as never, { contextWindow: 1000, taskId: 'task-a' })],
    ['condenseIfNeeded(h, null)', (r, m) => r.held.condenseIfNeeded(m.tasks['task-a'], null as never)],
    [
      'condenseIfNeeded(h, { maxTokens: "5" })',
      (r, m) => r.held.condenseIfNeeded(m.tasks['task-a'], { contextWindow: 1000, maxTokens: '5' as never, taskId: 'task-a' }),
    ],
  ]
  check = () => true
  async run(m: ManagerModel, r: ManagerReal) {
    const [name, call] = BadArguments.CASES[this.which % BadArguments.CASES.length]
    const o = await outcome(name, () => call(r, m))
    expect(o.ok, `${name} was taken`).toBe(false)
    if (!o.ok) checkThrown(name, o.error)
  }
  toString = () => `bad argument: ${BadArguments.CASES[this.which % BadArguments.CASES.length][0]}`
}

export const managerCommands = [
  fc.tuple(taskArb, fc.integer({ min: 1, max: 4 })).map(([t, k]) => new Turn(t, k)),
  fc.tuple(taskArb, fc.integer({ min: 1, max: 4 })).map(([t, k]) => new Turn(t, k)),
  fc.tuple(taskArb, fc.integer({ min: 2, max: 3 })).map(([t, n]) => new Concurrent(t, n)),
  taskArb.map((t) => new Refused(t)),
  fc.tuple(taskArb, fc.constantFrom<'before' | 'microtask'>('before', 'microtask')).map(([t, w]) => new Aborted(t, w)),
  fc.option(taskArb, { nil: undefined }).map((t) => new CloseTask(t)),
  fc.nat().map((w) => new BadArguments(w)),
]
