// Used by __test__/ai-sdk.test.ts: the agent loop
// of examples/ai-sdk-agent.mjs run with the real `ai` package and its mock model, and what every
// step must hold. Spawns nothing; reads no fixture but the generator.
import { isDeepStrictEqual } from 'node:util'
import { modelMessageSchema } from 'ai'
import { expect } from 'vitest'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const aiSdk = require('../lib/ai-sdk.js')
// eslint-disable-next-line @typescript-eslint/no-require-imports
const lib = require('../lib/index.js')

type Msg = { role: string; content: unknown; [k: string]: unknown }

/** A summarize callback whose answer depends only on the request (the same for the helper and the direct run). */
export const summarize = async (request: { messages: Array<{ content: string }> }) => `Summary of ${request.messages.length} messages of the task.`

/** Every text of SDK messages, joined (what a model reads of them). */
export function textOf(messages: Msg[]): string {
  const out: string[] = []
  const walk = (v: unknown) => {
    if (typeof v === 'string') out.push(v)
    else if (Array.isArray(v)) v.forEach(walk)
    else if (v && typeof v === 'object') Object.values(v).forEach(walk)
  }
  for (const m of messages) walk(m.content)
  return out.join('\n')
}

/**
 * Runs the example's agent over a generated task of about `tokens` tokens with a `contextWindow`
 * window and checks every step: what prepareStep hands the SDK passes the SDK's own validation,
 * stays under the window, keeps what the user typed and the working set's files, and holds the
 * caller's own objects for every message condensing did not change; the first step that condensed
 * equals the manager run directly on the converted history.
 */
export async function agentRun(tokens: number, contextWindow: number) {
  // The example is plain JavaScript without types.
  const { runAgent } = await import(new URL('../examples/ai-sdk-agent.mjs', import.meta.url).href)
  const prepared: Array<{ messages: Msg[]; step: number; given: Msg[] }> = []
  const prompts: unknown[] = []
  const run = await runAgent({
    tokens,
    contextWindow,
    helper: { summarize },
    onPrompt: (prompt: unknown) => prompts.push(prompt),
    onPrepared: (messages: Msg[], step: number, given: Msg[]) => prepared.push({ messages, step, given }),
  })
  const { messages: task, request, steps } = run
  expect(prepared.length).toBe(3)
  expect(prompts.length).toBe(3)
  expect(steps[0].condensed).toBe(true)
  const firstTyped = textOf([task[0]]).match(/<task>[\s\S]*?<\/task>/)?.[0]
  expect(firstTyped).toBeTruthy()
  // The working set of the task as it was given, with Smart's budget (the default preset's): the
  // files it keeps whole are whole in what the model gets.
  const whole = lib
    .workingSet(aiSdk.toEngine(task).messages, { ...lib.smartPreset('balanced').workingSet, text: true })
    .filter((f: { keep: string; text?: string | null }) => f.keep === 'full' && typeof f.text === 'string')
  expect(whole.length).toBeGreaterThan(0)
  for (const { messages, step, given } of prepared) {
    for (const [i, m] of messages.entries()) {
      const parsed = modelMessageSchema.safeParse(m)
      expect(parsed.success, `step ${step}: messages[${i}]: ${parsed.success ? '' : JSON.stringify(parsed.error.issues).slice(0, 300)}`).toBe(true)
    }
    expect(lib.validateConversation(aiSdk.toEngine(messages).messages)).toEqual([])
    const tokensSent = lib.countTokens(aiSdk.toEngine(messages).messages)
    expect(tokensSent, `step ${step}: tokens sent`).toBeLessThanOrEqual(contextWindow)
    const text = textOf(messages)
    expect(text.includes(firstTyped as string), `step ${step}: the task the user typed`).toBe(true)
    expect(text.includes(request), `step ${step}: the user's last request`).toBe(true)
    for (const f of whole) expect(text.includes(f.text), `step ${step}: working-set file ${f.path}`).toBe(true)
    // Every message condensing did not change is the caller's own object: a new object is one
    // that differs from the caller's message it stands for (or one the engine wrote).
    const own = new Set(given)
    const originals = new Set(given.map((m) => JSON.stringify(m)))
    const fresh = messages.filter((m) => !own.has(m))
    expect(fresh.filter((m) => originals.has(JSON.stringify(m))).length, `step ${step}: copies of unchanged messages`).toBe(0)
    expect(messages.filter((m) => own.has(m)).length).toBeGreaterThan(0)
  }
  // What the model received is what prepareStep handed the SDK (the SDK's conversion of it): the
  // last user request is in each prompt.
  for (const p of prompts) expect(JSON.stringify(p).includes(JSON.stringify(request).slice(1, -1))).toBe(true)
  // The first step equals condensing the converted history directly with the main API's manager.
  const manager = new lib.CondensationManager({ config: { provider: 'smart' }, summarize })
  const conversion = aiSdk.toEngine(task)
  const direct = await manager.condenseIfNeeded(conversion.messages, { contextWindow })
  expect(direct.condensed).toBe(true)
  expect(isDeepStrictEqual(conversion.restore(direct.messages), prepared[0].messages)).toBe(true)
  expect(direct.newContextTokens).toBe(steps[0].newContextTokens)
  return { run, prepared }
}
