// Shared by the model-based tests (__test__/model-based.test.ts, the slow suite): the providers
// every run picks from (a deterministic stand-in summarize for those that summarize), a bound on
// every call, the parts of a result the model must match, and the rule for thrown errors, with the
// temporary KNOWN_FAILURES of these tests. Makes no change to anything it is given.
import { condense, type ApiMessage, type ConversationCondenseOptions, type SummarizeRequest } from '../../lib/index.js'

/** A deterministic summarize callback (its text depends on what it is asked only). */
export const summarize = async (request: SummarizeRequest) => ({ text: `Summary of ${request.messages.length} messages (${request.purpose}).` })

/** One that answers a little later: long enough for a caller to act while a condense runs. */
export const slowSummarize = (ms: number) => async (request: SummarizeRequest) => {
  await new Promise((r) => setTimeout(r, ms))
  return summarize(request)
}

/** Every built-in provider, the Smart presets and Native (with the stand-in summarize). */
export const PROVIDERS: Array<{ name: string; options: () => ConversationCondenseOptions }> = [
  { name: 'lossless', options: () => ({ provider: 'lossless' }) },
  { name: 'lossless keep latest', options: () => ({ provider: 'lossless', config: { keep: 'latest' } }) },
  { name: 'truncation', options: () => ({ provider: 'truncation', config: { preserveRecentCount: 4 } }) },
  { name: 'smart conservative', options: () => ({ provider: 'smart', config: { preset: 'conservative' } }) },
  { name: 'smart balanced', options: () => ({ provider: 'smart', config: { preset: 'balanced' } }) },
  { name: 'smart aggressive', options: () => ({ provider: 'smart', config: { preset: 'aggressive' }, summarize }) },
  { name: 'smart speed', options: () => ({ provider: 'smart', config: { preset: 'speed' } }) },
  { name: 'smart quality', options: () => ({ provider: 'smart', config: { preset: 'quality' }, summarize }) },
  { name: 'smart cost', options: () => ({ provider: 'smart', config: { preset: 'cost' }, summarize }) },
  { name: 'native', options: () => ({ provider: 'native', summarize, config: { keepLast: 3 } }) },
]

/** How long any call may take to settle. */
export const BOUND_MS = 10_000

/** `p`, or a rejection naming `what` when it does not settle within BOUND_MS. */
export async function bounded<T>(what: string, p: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined
  const hang = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: did not settle within ${BOUND_MS / 1000} s`)), BOUND_MS)
  })
  try {
    return await Promise.race([p, hang])
  } finally {
    clearTimeout(timer)
  }
}

/** What a call did: its value or what it threw, synchronously or by rejecting. */
export type Outcome<T> = { ok: true; value: T } | { ok: false; error: unknown }

export async function outcome<T>(what: string, f: () => T | Promise<T>): Promise<Outcome<Awaited<T>>> {
  let p: Promise<Awaited<T>>
  try {
    p = Promise.resolve(f()) as Promise<Awaited<T>>
  } catch (error) {
    return { ok: false, error }
  }
  try {
    return { ok: true, value: await bounded(what, p) }
  } catch (error) {
    if (error instanceof Error && error.message.startsWith(`${what}: did not settle`)) throw error
    return { ok: false, error }
  }
}

/** The parts of a condense result that must not depend on whether the history was held. */
export function comparable(r: {
  messages: unknown[]
  summary: string
  prevContextTokens: number
  newContextTokens: number
  error?: string
  errorCode?: string
  cost: number
}) {
  return {
    messages: JSON.stringify(r.messages),
    summary: r.summary,
    prev: r.prevContextTokens,
    next: r.newContextTokens,
    error: r.error,
    errorCode: r.errorCode,
    cost: r.cost,
  }
}

/** The model's answer: the stateless condense of the history the model holds. */
export async function modelCondense(host: ApiMessage[], options: ConversationCondenseOptions) {
  const { adopt: _a, signal: _s, ...stateless } = options as ConversationCondenseOptions & { signal?: AbortSignal }
  return bounded('the model: condense', condense(host, stateless as Parameters<typeof condense>[1]))
}

// ---------------------------------------------------------------------------------------------
// Errors, and what is known to be wrong.

/** A KNOWN_FAILURES entry of the model-based tests: a check and the message it fails with. */
export interface KnownModelFailure {
  check: 'errorCode' | 'equals-model' | 'close'
  message: RegExp
  repro: string
  why: string
  /** Whether it shows depends on timing (close a few ms into a condense) or on the commands a run happens to draw: the fast run need not hit it. */
  occasional?: true
}

/**
 * KNOWN_FAILURES of the model-based tests: TEMPORARY, what they found on the code they were
 * written against, so that the suite is green while the fixes are made in their own lanes. The
 * fast test fails when an entry is not hit any more (its cause was fixed): delete it then.
 */
export const KNOWN_FAILURES: KnownModelFailure[] = []

/** Entries hit in this process, to tell which are no longer needed. */
export const hit = new Set<KnownModelFailure>()

/** With MODEL_COLLECT=1, violations are gathered here (and printed) instead of thrown: to see them all at once. */
export const collected = new Set<string>()

/** Throws `message` for check `check`, unless a KNOWN_FAILURES entry covers it. */
export function violation(check: KnownModelFailure['check'], message: string): void {
  const known = KNOWN_FAILURES.find((k) => k.check === check && k.message.test(message))
  if (known) {
    hit.add(known)
    return
  }
  if (process.env.MODEL_COLLECT) {
    collected.add(`${check}: ${message}`)
    return
  }
  throw new Error(`${check}: ${message}`)
}

// What the library documents for what it throws (lib/names.d.ts ErrorCode, lib/index.d.ts ThrownErrorCode), 'internal' aside: a bug.
const CODES = new Set((require('../sweep/codes.cjs') as { thrownErrorCodes(): string[] }).thrownErrorCodes().filter((c) => c !== 'internal'))

/**
 * A thrown error is an Error with an errorCode the library documents, or the abort signal's own
 * reason when `signal` fired.
 */
export function checkThrown(what: string, error: unknown, signal?: AbortSignal): void {
  if (signal && signal.aborted && error === signal.reason) return
  if (!(error instanceof Error)) {
    violation('errorCode', `${what} threw something that is not an Error: ${String(error)}`)
    return
  }
  const code = (error as Error & { errorCode?: unknown }).errorCode
  if (signal && signal.aborted && error.name === 'AbortError') {
    violation('errorCode', `${what} rejected with an AbortError of its own, not the signal's reason: ${error.message}`)
    return
  }
  if (!CODES.has(code as string)) violation('errorCode', `${what} threw without an errorCode (${String(code)}): ${error.name}: ${error.message}`)
}
