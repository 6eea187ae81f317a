// Shared by the vitest suites: the real fixtures (read from where they live, never copied), and
// the invariants every condensation keeps, asserted on each one.
import { readFileSync } from 'node:fs'
import { expect } from 'vitest'

import { countTokens, expandReferences, slidingWindow, validateConversation, type ApiMessage, type CondenseResult } from '../lib/index.js'
import { FIXTURES, FIXTURES_ENV, fixtureLocation } from './fixture-location.js'
import { itWhen } from './skip-when.js'

export { FIXTURES }

const location = fixtureLocation()
/** The folder of the real Roo Code histories (one task folder per name in FIXTURES). */
export const FIXTURE_DIR = location.dir
/** Whether the real histories are here; the suites that read them are skipped when not. */
export const HAVE_FIXTURES = location.present

/** A test that reads the real histories: skipped without them, saying why and how to get them in
 * the run's summary. */
export const itReal = itWhen(
  HAVE_FIXTURES,
  `${location.reason}; put them there or set ${FIXTURES_ENV} to their folder (the generated histories cover the invariants meanwhile)`,
)

export function loadFixture(name: string): ApiMessage[] {
  if (!HAVE_FIXTURES) throw new Error(`loadFixture(${name}): ${location.reason}; mark the test itReal`)
  return JSON.parse(readFileSync(location.file(name), 'utf8'))
}

/** Every piece of user-typed text in a history, found independently of the engine: the `<task>`
 * of the first message, and `<feedback>`, `<answer>`, `<user_message>` where Roo Code puts what
 * the user typed: at the head of a text block or tool result (further in, such tags are a tool's
 * output, e.g. a dumped conversation). */
export function userTypedTexts(messages: ApiMessage[]): Array<{ message: number; text: string }> {
  const out: Array<{ message: number; text: string }> = []
  messages.forEach((m, i) => {
    if (m.role !== 'user' || m.isSummary) return
    const texts: string[] = typeof m.content === 'string' ? [m.content] : []
    if (Array.isArray(m.content)) {
      for (const b of m.content) {
        if (b.type === 'text' && typeof b.text === 'string') texts.push(b.text)
        if (b.type === 'tool_result' && typeof b.content === 'string') texts.push(b.content)
      }
    }
    for (const t of texts) {
      const tags = i === 0 ? ['task', 'feedback', 'answer', 'user_message'] : ['feedback', 'answer', 'user_message']
      for (const tag of tags) {
        const re = new RegExp(`<${tag}>[\\s\\S]*?</${tag}>`, 'g')
        for (const match of t.matchAll(re)) if (match.index! < 400 || i === 0) out.push({ message: i, text: match[0] })
      }
    }
  })
  return out
}

function messageText(m: ApiMessage): string {
  return JSON.stringify(m.content)
}

/** Asserts every invariant on one condensation; `snapshot` is a deep copy of the input taken before. */
export function assertInvariants(input: ApiMessage[], snapshot: ApiMessage[], result: CondenseResult) {
  // 1. The input is never mutated.
  expect(input).toEqual(snapshot)
  // 2. Valid for the APIs whenever the input was.
  const before = validateConversation(input)
  expect(validateConversation(result.messages).length).toBeLessThanOrEqual(before.length)
  if (before.length === 0) expect(validateConversation(result.messages)).toEqual([])
  // 3. Same messages, same order; untouched ones are the caller's own objects, deep-equal;
  //    touched ones keep every field but content.
  expect(result.messages).toHaveLength(input.length)
  result.messages.forEach((m, i) => {
    if (m === input[i]) return
    const { content: _a, ...restOut } = m
    const { content: _b, ...restIn } = input[i]
    expect(restOut).toEqual(restIn)
    expect(Object.keys(m)).toEqual(Object.keys(input[i]))
  })
  // 4. User-typed text survives verbatim, in its message.
  for (const u of userTypedTexts(input)) {
    expect(messageText(result.messages[u.message]).includes(JSON.stringify(u.text).slice(1, -1))).toBe(true)
  }
  // 5. Tokens never go up; the reported figures are the measured ones.
  const tokensIn = countTokens(input)
  const tokensOut = countTokens(result.messages)
  expect(tokensOut).toBeLessThanOrEqual(tokensIn)
  if (!result.error) expect(result.prevContextTokens - result.newContextTokens).toBe(tokensIn - tokensOut)
  // 6. References point at something: expanding never fails silently (markers all resolve).
  const expanded = expandReferences(result.messages)
  expect(countTokens(expanded)).toBeGreaterThanOrEqual(tokensOut)
}

/** Whether the addon was built with the test-only `probes` feature (`npm run build` turns it on;
 * release builds leave it off, and the tests that need it are skipped there). */
// eslint-disable-next-line @typescript-eslint/no-require-imports
export const HAVE_PROBES = typeof (require('../index.js') as { countMessages?: unknown }).countMessages === 'function'
/** A test that needs the probes build (countMessages, the panic probe): skipped without it, saying so. */
export const itProbes = itWhen(
  HAVE_PROBES,
  'the addon was built without the test-only probes feature (npm run build has it; scripts/ci-build.sh leaves it out)',
)

/**
 * Expects `call` to throw an Error the binding refused clearly: a code among `codes`, its message
 * naming `place`; or Node-API's own type refusal (`NumberExpected`, `StringExpected`, …, or `InvalidArg`
 * for an object of another class), which names the type it expected instead of the place.
 */
export function expectRefused(call: () => unknown, place: string, codes: string[] = ['invalid-argument']) {
  let error: unknown
  try {
    call()
  } catch (e) {
    error = e
  }
  expect(error, `${place}: not refused`).toBeInstanceOf(Error)
  const e = error as Error & { code?: string }
  const ours = codes.includes(String(e.code))
  expect(ours || /^([A-Z][a-z]+Expected|InvalidArg)$/.test(String(e.code)), `${place}: code ${e.code} (${e.message})`).toBe(true)
  if (ours) expect(e.message, place).toContain(place)
}

/** What a host past the allowed size sends: `slidingWindow` cut again until the messages' tokens
 * are within `allowed` or a cut removes nothing (the manager's `cutUntilFits`). */
export function fittedWindow(messages: ApiMessage[], allowed: number): ApiMessage[] {
  let m = messages
  for (let cut = slidingWindow(m, 0.5); countTokens(m) > allowed && cut.length < m.length; cut = slidingWindow(m, 0.5)) m = cut
  return m
}
