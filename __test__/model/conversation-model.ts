// The model-based test of a conversation (openConversation and its methods), as fast-check
// commands. The model is the history the conversation must hold (the host's own objects) and the
// stateless `condense` of it; the real system is one Conversation. Each command makes its calls —
// several at once where it says so, with an abort at a chosen moment — and checks, after each,
// that every call settled within the bound, that what it answered is the model's answer (messages
// deep-equal, tokens equal), that anything thrown carries an errorCode (an abort rejects with the
// signal's own reason), that the conversation holds exactly the model's history, its tokens
// counted as `countTokens` counts them, and that nothing the caller passed was changed.
import fc from 'fast-check'
import { expect } from 'vitest'

import {
  analyze,
  countTokens,
  openConversation,
  type ApiMessage,
  type Conversation,
  type ConversationCondenseOptions,
  type ConversationCondenseResult,
  type SummarizeRequest,
} from '../../lib/index.js'
import { difference, snapshot, type Snapshot } from '../sweep/values.mjs'
import { BOUND_MS, PROVIDERS, bounded, checkThrown, comparable, modelCondense, outcome, slowSummarize, violation } from './common.js'

export interface ConvModel {
  /** Messages to append, in order (generated once per run). */
  source: ApiMessage[]
  next: number
  /** What the conversation must hold. */
  host: ApiMessage[]
  open: boolean
  /** The result of the last `condense(..., { adopt: false })`, while nothing changed since. */
  pending?: { result: ConversationCondenseResult; messages: ApiMessage[] }
  /** The last result not adopted, even when something changed since (adopt must refuse it then). */
  stale?: ConversationCondenseResult
}

export interface ConvReal {
  conv: Conversation
  /** Snapshots of everything handed to the conversation (values.mjs: getters are not called, functions and signals kept by identity): none may change. */
  given: Array<{ value: unknown; before: Snapshot; what: string }>
}

type Cmd = fc.AsyncCommand<ConvModel, ConvReal>

/** Remembers what the caller passed, to compare at the end of the command. */
function give<T>(r: ConvReal, what: string, value: T): T {
  r.given.push({ value, before: snapshot(value), what })
  return value
}

/** Commands run in this process, by name (what the runs covered: printed by the tests). */
export const ran = new Map<string, number>()

/** The conversation holds exactly the model's history, and nothing given was changed. */
export async function verify(m: ConvModel, r: ConvReal, after: string) {
  const name = after.replace(/\(.*$/, '').replace(/:.*$/, '')
  ran.set(name, (ran.get(name) ?? 0) + 1)
  for (const g of r.given) {
    const changed = difference(g.before, snapshot(g.value))
    if (changed) expect.fail(`${after}: ${g.what} was changed: ${changed}`)
  }
  if (!m.open) {
    expect(r.conv.closed, `${after}: closed`).toBe(true)
    return
  }
  expect(r.conv.length, `${after}: length`).toBe(m.host.length)
  const held = r.conv.messages
  held.forEach((x, i) => {
    if (x !== m.host[i]) expect.fail(`${after}: conversation.messages[${i}] is not the object the model holds`)
  })
  expect(r.conv.tokens, `${after}: tokens`).toBe(countTokens(m.host))
}

/** One condense through the conversation, checked against the model; updates the model. */
async function condenseChecked(m: ConvModel, r: ConvReal, what: string, options: ConversationCondenseOptions, adopt: boolean, controller?: AbortController) {
  const expected = await modelCondense(m.host, options)
  const before = m.host
  const o = await outcome(what, () => r.conv.condense(give(r, `${what}: options`, { ...options, adopt })))
  if (!o.ok) {
    if (controller && controller.signal.aborted) {
      if (o.error !== controller.signal.reason) checkThrown(what, o.error, controller.signal)
    } else {
      checkThrown(what, o.error)
      violation('equals-model', `${what} rejected where the model answers: ${(o.error as Error)?.message}`)
    }
    // A condense that did not finish changes nothing: a result waiting to be adopted still is.
    return
  }
  const result = o.value
  if (JSON.stringify(comparable(result)) !== JSON.stringify(comparable(expected))) {
    violation('equals-model', `${what}: the conversation's result differs from condense() on the same history`)
    expect(comparable(result), what).toEqual(comparable(expected))
  }
  // An error result changes nothing either; a new result replaces the one waiting.
  if (result.error) return
  m.pending = undefined
  if (adopt) {
    // Unchanged messages are the objects held before, in order; changed ones are new.
    const known = new Set(before)
    result.messages.forEach((x, i) => expect(known.has(x), `${what}: messages[${i}] is an object held before`).toBe(!result.changed.includes(i)))
    m.host = result.messages
    m.stale = undefined
  } else {
    m.pending = { result, messages: result.messages }
    m.stale = result
  }
}

const providerArb = fc.integer({ min: 0, max: PROVIDERS.length - 1 })

class Append implements Cmd {
  constructor(readonly k: number) {}
  check = (m: Readonly<ConvModel>) => m.open && m.next < m.source.length
  async run(m: ConvModel, r: ConvReal) {
    const add = m.source.slice(m.next, m.next + this.k)
    const o = await outcome('append', () => r.conv.append(give(r, 'append: messages', add)))
    if (!o.ok) throw o.error
    m.next += add.length
    m.host = [...m.host, ...add]
    m.pending = undefined
    expect(o.value).toBe(m.host.length)
    await verify(m, r, this.toString())
  }
  toString = () => `append(${this.k})`
}

class Replace implements Cmd {
  constructor(
    readonly at: number,
    readonly how: 'text' | 'tool input',
  ) {}
  check = (m: Readonly<ConvModel>) => m.open && m.host.length > 2
  async run(m: ConvModel, r: ConvReal) {
    const i = 1 + (this.at % (m.host.length - 1))
    const old = m.host[i]
    const blocks = Array.isArray(old.content) ? old.content : undefined
    const call = blocks ? blocks.findIndex((b) => b.type === 'tool_use') : -1
    // An edit of a tool call's input: the results read with it must be read again.
    const edited: ApiMessage =
      this.how === 'tool input' && blocks && call >= 0
        ? { ...old, content: blocks.map((b, j) => (j === call ? { ...b, input: { path: `src/edited-${i}.ts` } } : b)) }
        : typeof old.content === 'string'
          ? { ...old, content: `${old.content} (edited)` }
          : { ...old, content: [...(blocks ?? []), { type: 'text', text: 'edited' }] }
    const o = await outcome('replace', () => r.conv.replace(i, give(r, 'replace: message', edited)))
    if (!o.ok) throw o.error
    m.host = m.host.map((x, j) => (j === i ? edited : x))
    m.pending = undefined
    await verify(m, r, this.toString())
  }
  toString = () => `replace(at ${this.at}, ${this.how})`
}

class Truncate implements Cmd {
  constructor(readonly cut: number) {}
  check = (m: Readonly<ConvModel>) => m.open && m.host.length > 6
  async run(m: ConvModel, r: ConvReal) {
    const n = m.host.length - 1 - (this.cut % 4)
    const o = await outcome('truncate', () => r.conv.truncate(n))
    if (!o.ok) throw o.error
    m.host = m.host.slice(0, n)
    m.pending = undefined
    await verify(m, r, this.toString())
  }
  toString = () => `truncate(length - ${1 + (this.cut % 4)})`
}

class Sync implements Cmd {
  constructor(
    readonly how: 'grow' | 'copy' | 'prefix' | 'swap block',
    readonly at: number,
  ) {}
  check = (m: Readonly<ConvModel>) => m.open && m.host.length > 3
  async run(m: ConvModel, r: ConvReal) {
    const i = 1 + (this.at % (m.host.length - 1))
    let next: ApiMessage[]
    let kept: number
    if (this.how === 'grow') {
      const add = m.source.slice(m.next, m.next + 2)
      m.next += add.length
      next = [...m.host, ...add]
      kept = m.host.length
    } else if (this.how === 'copy') {
      // The same content in a new object: taken again from there on.
      next = m.host.map((x, j) => (j === i ? { ...x } : x))
      kept = i
    } else if (this.how === 'swap block') {
      // The same object whose content array was swapped: seen as changed.
      const copy = { ...m.host[i] }
      next = m.host.map((x, j) => (j === i ? copy : x))
      await outcome('sync', () => r.conv.sync(next))
      m.host = next
      copy.content = [{ type: 'text', text: `swapped in place ${i}` }]
      kept = i
    } else {
      next = m.host.slice(0, i)
      kept = i
    }
    const o = await outcome('sync', () => r.conv.sync(give(r, 'sync: messages', next)))
    if (!o.ok) throw o.error
    expect(o.value, this.toString()).toEqual({ kept, taken: next.length - kept })
    // A sync that keeps everything and takes nothing changes nothing: a result still waits to be adopted.
    if (kept < m.host.length || next.length > kept) m.pending = undefined
    m.host = next
    await verify(m, r, this.toString())
  }
  toString = () => `sync(${this.how} at ${this.at})`
}

/** How an abort is fired: not at all, before the call, a microtask after it, on the first summary request, or after a few ms. */
type AbortAt = 'none' | 'before' | 'microtask' | 'in summarize' | 'timer'

class Condense implements Cmd {
  constructor(
    readonly provider: number,
    readonly adopt: boolean,
    readonly abortAt: AbortAt,
    readonly ms: number,
  ) {}
  check = (m: Readonly<ConvModel>) => m.open
  async run(m: ConvModel, r: ConvReal) {
    const options = PROVIDERS[this.provider].options()
    if (this.abortAt === 'none') return condenseChecked(m, r, this.toString(), options, this.adopt).then(() => verify(m, r, this.toString()))
    const controller = new AbortController()
    const reason = new Error(`model abort (${this.abortAt})`)
    const summarize = options.summarize
    if (this.abortAt === 'in summarize' && summarize) {
      options.summarize = (req, ctx) => {
        controller.abort(reason)
        return summarize(req, ctx)
      }
    }
    if (this.abortAt === 'before') controller.abort(reason)
    if (this.abortAt === 'microtask' || (this.abortAt === 'in summarize' && !summarize)) queueMicrotask(() => controller.abort(reason))
    let timer: NodeJS.Timeout | undefined
    if (this.abortAt === 'timer') timer = setTimeout(() => controller.abort(reason), this.ms)
    await condenseChecked(m, r, this.toString(), { ...options, signal: controller.signal }, this.adopt, controller)
    clearTimeout(timer)
    await verify(m, r, this.toString())
  }
  toString = () =>
    `condense(${PROVIDERS[this.provider].name}, adopt ${this.adopt}${this.abortAt === 'none' ? '' : `, abort ${this.abortAt}${this.abortAt === 'timer' ? ` ${this.ms} ms` : ''}`})`
}

class Adopt implements Cmd {
  check = (m: Readonly<ConvModel>) => m.open && (m.pending !== undefined || m.stale !== undefined)
  async run(m: ConvModel, r: ConvReal) {
    if (m.pending) {
      const o = await outcome('adopt', () => r.conv.adopt(m.pending!.result))
      if (!o.ok) {
        checkThrown('adopt', o.error)
        violation('equals-model', `adopt(last result) was refused though the conversation has not changed since: ${(o.error as Error)?.message}`)
        m.pending = undefined
        await verify(m, r, this.toString())
        return
      }
      m.host = m.pending.messages
      m.pending = undefined
      m.stale = undefined
    } else {
      // Something changed since that result: adopt refuses it and nothing changes.
      const o = await outcome('adopt (stale)', () => r.conv.adopt(m.stale!))
      expect(o.ok, 'adopt of a result the conversation changed since').toBe(false)
      if (!o.ok) checkThrown('adopt (stale)', o.error)
    }
    await verify(m, r, this.toString())
  }
  toString = () => 'adopt(last result)'
}

/** Several callers at once: a condense runs while others call in; those calls must be refused (busy) and change nothing. */
class Concurrent implements Cmd {
  constructor(
    readonly provider: number,
    readonly others: Array<'append' | 'replace' | 'truncate' | 'sync' | 'tokens' | 'tokensOf' | 'analyze' | 'condense' | 'adopt'>,
  ) {}
  check = (m: Readonly<ConvModel>) => m.open && m.host.length > 3
  async run(m: ConvModel, r: ConvReal) {
    const options = { ...PROVIDERS[this.provider].options(), summarize: slowSummarize(5) }
    const expected = await modelCondense(m.host, options)
    const before = m.host
    const running = r.conv.condense(give(r, 'concurrent: options', { ...options, adopt: true }))
    const extra = m.source[m.next] ?? m.host[1]
    const calls = this.others.map((k) =>
      outcome<unknown>(`${k} during a condense`, () => {
        switch (k) {
          case 'append':
            return r.conv.append([extra])
          case 'replace':
            return r.conv.replace(1, before[1])
          case 'truncate':
            return r.conv.truncate(2)
          case 'sync':
            return r.conv.sync(before.slice(0, 2))
          case 'tokens':
            return r.conv.tokens
          case 'tokensOf':
            return r.conv.tokensOf(0)
          case 'analyze':
            return r.conv.analyze()
          case 'condense':
            return r.conv.condense({ provider: 'lossless' })
          case 'adopt':
            return r.conv.adopt((m.stale ?? {}) as ConversationCondenseResult)
        }
      }),
    )
    const outcomes = await Promise.all(calls)
    outcomes.forEach((o, j) => {
      // While a condense runs every other call is refused; a getter may answer.
      if (o.ok && this.others[j] !== 'tokens' && this.others[j] !== 'tokensOf') expect.fail(`${this.others[j]} during a condense was taken`)
      if (!o.ok) checkThrown(`${this.others[j]} during a condense`, o.error)
    })
    const o = await outcome('the condense the others waited for', () => running)
    if (!o.ok) throw o.error
    expect(comparable(o.value), this.toString()).toEqual(comparable(expected))
    if (!o.value.error) {
      m.pending = undefined
      m.host = o.value.messages
      m.stale = undefined
    }
    await verify(m, r, this.toString())
  }
  toString = () => `concurrently(condense ${PROVIDERS[this.provider].name}, ${this.others.join(', ')})`
}

/** Arguments the conversation must refuse, clearly, changing nothing. */
class BadArguments implements Cmd {
  constructor(readonly which: number) {}
  static readonly CASES: Array<[string, (r: ConvReal, m: ConvModel) => unknown]> = [
    ['append("x")', (r) => r.conv.append('x' as never)],
    ['append([null])', (r) => r.conv.append([null as never])],
    ['replace(-1, m)', (r, m) => r.conv.replace(-1, m.host[0])],
    ['replace(length, m)', (r, m) => r.conv.replace(m.host.length, m.host[0])],
    ['truncate(-1)', (r) => r.conv.truncate(-1)],
    ['truncate(1.5)', (r) => r.conv.truncate(1.5)],
    ['tokensOf(-1)', (r) => r.conv.tokensOf(-1)],
    ['tokensOf(length)', (r, m) => r.conv.tokensOf(m.host.length)],
    ['condense({ provider: "nope" })', (r) => r.conv.condense({ provider: 'nope' } as never)],
    ['condense({ format: "openai" })', (r) => r.conv.condense({ provider: 'lossless', format: 'openai' } as never)],
    ['condense({ encoding: "cl100k_base" })', (r) => r.conv.condense({ provider: 'lossless', encoding: 'cl100k_base' })],
    [
      'condense({ summarizeOptions: { timeoutMs: -1 } })',
      (r) => r.conv.condense({ provider: 'native', summarize: async () => 'x', summarizeOptions: { timeoutMs: -1 } }),
    ],
    ['condense(5)', (r) => r.conv.condense(5 as never)],
    ['sync(5)', (r) => r.conv.sync(5 as never)],
    ['adopt({})', (r) => r.conv.adopt({} as never)],
  ]
  check = (m: Readonly<ConvModel>) => m.open && m.host.length > 0
  async run(m: ConvModel, r: ConvReal) {
    const [name, call] = BadArguments.CASES[this.which % BadArguments.CASES.length]
    const o = await outcome(name, () => call(r, m))
    expect(o.ok, `${name} was taken`).toBe(false)
    if (!o.ok) checkThrown(name, o.error)
    await verify(m, r, name)
  }
  toString = () => `bad argument: ${BadArguments.CASES[this.which % BadArguments.CASES.length][0]}`
}

class Analyze implements Cmd {
  check = (m: Readonly<ConvModel>) => m.open
  async run(m: ConvModel, r: ConvReal) {
    const o = await outcome('analyze', () => r.conv.analyze())
    if (!o.ok) throw o.error
    expect(o.value).toEqual(analyze(m.host))
    await verify(m, r, this.toString())
  }
  toString = () => 'analyze()'
}

/** When close is called: with nothing running, or while a condense runs (right after the call, a microtask later, on its first summary request, after a few ms). */
type CloseAt = 'idle' | 'sync' | 'microtask' | 'in summarize' | 'timer'

/** close, possibly while a condense runs: the condense settles (its answer the model's, or a refusal that says it was closed or aborted), and every later call is refused as closed. */
class Close implements Cmd {
  constructor(
    readonly at: CloseAt,
    readonly provider: number,
  ) {}
  check = (m: Readonly<ConvModel>) => m.open
  async run(m: ConvModel, r: ConvReal) {
    let running: Promise<ConversationCondenseResult> | undefined
    let expected: ReturnType<typeof comparable> | undefined
    if (this.at !== 'idle') {
      const slow = slowSummarize(5)
      let asked: () => void = () => {}
      const summarizing = new Promise<void>((resolve) => {
        asked = resolve
      })
      const options: ConversationCondenseOptions = {
        ...PROVIDERS[this.provider].options(),
        summarize: (req: SummarizeRequest) => {
          asked()
          return slow(req)
        },
      }
      expected = comparable(await modelCondense(m.host, options))
      running = r.conv.condense(options)
      if (this.at === 'microtask') await Promise.resolve()
      // A provider that asks for no summary: its condense is over by then.
      if (this.at === 'in summarize') await Promise.race([summarizing, running.catch(() => {})])
      if (this.at === 'timer') await new Promise((resolve) => setTimeout(resolve, 2))
    }
    const o = await outcome('close', () => r.conv.close())
    if (!o.ok) violation('close', `close() ${this.where()} threw: ${(o.error as Error)?.message}`)
    if (running) {
      const settled = await outcome('a condense the conversation was closed during', () => running!)
      if (!settled.ok) checkThrown('a condense the conversation was closed during', settled.error)
      else if (JSON.stringify(comparable(settled.value)) !== JSON.stringify(expected) && !/abort|closed/i.test(settled.value.error ?? '')) {
        violation(
          'close',
          `a condense closed ${this.where()} answered neither the model's result nor a refusal saying so: error ${JSON.stringify(settled.value.error)}`,
        )
      }
    }
    if (!o.ok && !r.conv.closed) {
      // The refusal left the conversation open: it must still hold the model's history.
      m.pending = undefined
      await verify(m, r, this.toString())
      return
    }
    m.open = false
    await verify(m, r, this.toString())
    for (const [name, call] of [
      ['tokens', () => r.conv.tokens],
      ['append', () => r.conv.append([])],
      ['condense', () => r.conv.condense({ provider: 'lossless' })],
      ['analyze', () => r.conv.analyze()],
    ] as Array<[string, () => unknown]>) {
      const after = await outcome(`${name} after close`, call)
      expect(after.ok, `${name} after close was taken`).toBe(false)
      if (!after.ok) checkThrown(`${name} after close`, after.error)
    }
    // Again: nothing to do, no error.
    r.conv.close()
  }
  where = () =>
    this.at === 'idle'
      ? 'with nothing running'
      : `${this.at === 'sync' ? 'right after' : this.at === 'timer' ? '2 ms after' : this.at === 'microtask' ? 'a microtask after' : 'on the first summary request of'} a condense (${PROVIDERS[this.provider].name})`
  toString = () => `close() ${this.where()}`
}

/**
 * Another conversation opened on the model's history (the hand-over aborted before the call, a
 * microtask after it, or not at all): it holds the same history with the same tokens, or the call
 * rejects with the signal's reason; either way the first conversation is untouched.
 */
class OpenAnother implements Cmd {
  constructor(readonly abortAt: 'none' | 'before' | 'microtask') {}
  check = (m: Readonly<ConvModel>) => m.open
  async run(m: ConvModel, r: ConvReal) {
    const controller = new AbortController()
    const reason = new Error(`model abort (${this.abortAt})`)
    if (this.abortAt === 'before') controller.abort(reason)
    const opening = outcome(this.toString(), () => openConversation(give(r, 'openConversation: messages', m.host.slice()), { signal: controller.signal }))
    if (this.abortAt === 'microtask') queueMicrotask(() => controller.abort(reason))
    const o = await opening
    if (o.ok) {
      try {
        const held: ApiMessage[] = o.value.messages
        expect(held.every((x, i) => x === m.host[i]) && held.length === m.host.length, `${this} holds the model's history`).toBe(true)
        expect(o.value.tokens, `${this}: tokens`).toBe(countTokens(m.host))
      } finally {
        o.value.close()
      }
    } else checkThrown(this.toString(), o.error, controller.signal)
    await verify(m, r, this.toString())
  }
  toString = () => `openConversation(the same history${this.abortAt === 'none' ? '' : `, abort ${this.abortAt}`})`
}

/** The commands, weighted toward growing and condensing. */
export const conversationCommands = [
  fc.integer({ min: 1, max: 4 }).map((k) => new Append(k)),
  fc.integer({ min: 1, max: 4 }).map((k) => new Append(k)),
  fc.tuple(fc.nat(), fc.constantFrom<'text' | 'tool input'>('text', 'tool input')).map(([at, how]) => new Replace(at, how)),
  fc.nat().map((cut) => new Truncate(cut)),
  fc.tuple(fc.constantFrom<'grow' | 'copy' | 'prefix' | 'swap block'>('grow', 'copy', 'prefix', 'swap block'), fc.nat()).map(([how, at]) => new Sync(how, at)),
  fc.tuple(providerArb, fc.boolean()).map(([p, adopt]) => new Condense(p, adopt, 'none', 0)),
  fc.tuple(providerArb, fc.boolean()).map(([p, adopt]) => new Condense(p, adopt, 'none', 0)),
  fc
    .tuple(providerArb, fc.boolean(), fc.constantFrom<AbortAt>('before', 'microtask', 'in summarize', 'timer'), fc.integer({ min: 0, max: 20 }))
    .map(([p, adopt, at, ms]) => new Condense(p, adopt, at, ms)),
  fc.constant(new Adopt()),
  fc
    .tuple(
      providerArb,
      fc.subarray(['append', 'replace', 'truncate', 'sync', 'tokens', 'tokensOf', 'analyze', 'condense', 'adopt'] as const, { minLength: 1, maxLength: 4 }),
    )
    .map(([p, others]) => new Concurrent(p, [...others])),
  fc.nat().map((w) => new BadArguments(w)),
  fc.constant(new Analyze()),
  fc.constantFrom<'none' | 'before' | 'microtask'>('none', 'before', 'microtask').map((at) => new OpenAnother(at)),
  fc.tuple(fc.constantFrom<CloseAt>('idle', 'sync', 'microtask', 'in summarize', 'timer'), providerArb).map(([at, p]) => new Close(at, p)),
]

export { BOUND_MS, bounded }
