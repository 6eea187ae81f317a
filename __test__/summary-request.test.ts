// What the summarize callback receives: each message the engine kept as it came is sent as the
// host's own strings (named by path, put together in JavaScript), each one a pass changed as the
// engine's text. Checked against a rendering written here from the rule (text as it is, tool calls
// and results as labelled text, images as `[Image]`, thinking left out), on every message of every
// request, in the ways a run can hold its history: condense, condense with repair (messages
// inserted, so the engine's places are not the caller's), a conversation after it took results on,
// and Smart, whose batch summary comes after its own passes changed some of the messages.
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, openConversation, type ApiMessage, type SmartConfig } from '../lib/index.js'
import { FIXTURES, itReal, loadFixture } from './helpers.js'

type Block = { type: string; text?: unknown; name?: unknown; input?: unknown; content?: unknown; is_error?: unknown }
type Request = { messages: Array<{ role: string; content: string }> }
type Act = { action: string; message: number }

function block(b: Block): string | undefined {
  switch (b.type) {
    case 'text':
      return typeof b.text === 'string' ? b.text : undefined
    case 'tool_use':
      return `[Tool call: ${typeof b.name === 'string' ? b.name : 'tool'}]\n${b.input === undefined ? '' : JSON.stringify(b.input, null, 2)}`
    case 'tool_result': {
      const body =
        typeof b.content === 'string'
          ? b.content
          : Array.isArray(b.content)
            ? (b.content as Block[])
                .map(block)
                .filter((x) => x !== undefined)
                .join('\n')
            : ''
      return `[Tool result${b.is_error === true ? ' (error)' : ''}]\n${body}`
    }
    case 'image':
      return '[Image]'
    default:
      return undefined
  }
}

/** A message as the callback should receive it. */
function rendered(m: ApiMessage): { role: string; content: string } {
  const c = (m as { content: unknown }).content
  const content =
    typeof c === 'string'
      ? c
      : Array.isArray(c)
        ? (c as Block[])
            .map(block)
            .filter((x) => x !== undefined)
            .join('\n\n')
        : ''
  return { role: typeof m.role === 'string' ? m.role : 'user', content }
}

/**
 * Runs `run` with a summarize callback that keeps the requests, then checks the conversation
 * request against `history` (what the engine held): its messages are the summarized ones, in
 * order, each rendered from the original unless a pass changed it first (then it must differ).
 */
async function checkRequest(history: ApiMessage[], run: (summarize: (r: Request) => Promise<string>) => Promise<{ provenance?: { acts: Act[] } }>) {
  const requests: Request[] = []
  const result = await run(async (r) => {
    requests.push(r)
    return 'The task so far.'
  })
  const acts = result.provenance?.acts ?? []
  const summarized = acts.filter((a) => a.action === 'summarized').map((a) => a.message)
  const changed = new Set(acts.filter((a) => a.action !== 'summarized').map((a) => a.message))
  const request = requests.find((r) => r.messages.length >= summarized.length + 1)
  expect(request, 'a conversation summary was asked for').toBeDefined()
  const sent = (request as Request).messages
  // A leading "Please continue…" when the span starts with the assistant, the span, the final ask.
  const span = sent.slice(sent.length - 1 - summarized.length, sent.length - 1)
  let compared = 0
  summarized.forEach((k, i) => {
    if (changed.has(k)) {
      expect(span[i].content, `message ${k} was changed before it was summarized`).not.toBe(rendered(history[k]).content)
    } else {
      expect(span[i], `messages[${k}]`).toEqual(rendered(history[k]))
      compared++
    }
  })
  return { compared, changed: summarized.filter((k) => changed.has(k)).length }
}

/** A generated history whose texts hold multi-byte characters, a lone surrogate and U+FDD0. */
function awkward(format: 'xml' | 'native', targetTokens = 60_000): ApiMessage[] {
  const h = generateHistory({ seed: 21, format, targetTokens }) as ApiMessage[]
  let n = 0
  for (const m of h) {
    if (Array.isArray(m.content)) {
      for (const b of m.content as Block[]) {
        if (b.type === 'text' && typeof b.text === 'string' && b.text.length > 1500) b.text = `${b.text} ✓ 日本語 \ud800 \ufdd0 ${n++}`
      }
    }
  }
  return h
}

describe('the summarize callback receives the summarized messages rendered as text', () => {
  for (const format of ['xml', 'native'] as const) {
    it(`condense, ${format} format, escaped characters included`, async () => {
      const h = awkward(format)
      const { compared } = await checkRequest(h, (summarize) => condense(h, { provider: 'native', summarize, provenance: true }))
      expect(compared).toBeGreaterThan(20)
    })

    it(`condense with repair: true, ${format} format (a result inserted before its call's answer)`, async () => {
      const h = awkward(format).slice(0, -1)
      // The last assistant's calls lose their results: repair inserts them (native) or leaves the
      // history as it is (xml), and the engine's places follow the repaired history.
      const { repaired, run } = await repairedRun(h)
      const { compared } = await checkRequest(repaired, run)
      expect(compared).toBeGreaterThan(20)
    })
  }

  it('a conversation, after appending and after taking a result on', async () => {
    const h = awkward('native', 150_000)
    const conv = await openConversation(h.slice(0, 40))
    conv.append(h.slice(40, 60))
    await checkRequest([...conv.messages], (summarize) => conv.condense({ provider: 'native', summarize, provenance: true }))
    conv.append(h.slice(60))
    const { compared } = await checkRequest([...conv.messages], (summarize) => conv.condense({ provider: 'native', summarize, provenance: true }))
    expect(compared).toBeGreaterThan(40)
    conv.close()
  })

  it('Smart: messages its passes changed are sent as changed, the others as the host holds them', async () => {
    const h = generateHistory({ seed: 5, format: 'xml', targetTokens: 90_000 }) as ApiMessage[]
    const { compared, changed } = await checkRequest(h, (summarize) =>
      condense(h, { provider: 'smart', config: SUPPRESS_THEN_SUMMARIZE, summarize, provenance: true }),
    )
    expect(changed).toBeGreaterThan(5)
    expect(compared).toBeGreaterThan(5)
  })

  itReal('every real history (Roo Code tasks)', async () => {
    for (const name of FIXTURES) {
      const h = loadFixture(name)
      const { compared } = await checkRequest(h, (summarize) => condense(h, { provider: 'native', summarize, provenance: true }))
      expect(compared, name).toBeGreaterThan(0)
    }
  })
})

/** Old tool results suppressed, then one summary of all but the first and the last four messages. */
const SUPPRESS_THEN_SUMMARIZE: SmartConfig = {
  passes: [
    {
      id: 'suppress-old',
      mode: 'individual',
      selection: { type: 'preserve_recent', keepRecentCount: 4 },
      individualConfig: { defaults: { toolResults: 'suppress' }, thresholds: { toolResults: 40 } },
    },
    { id: 'summarize-middle', mode: 'batch', batchConfig: { operation: 'summarize', summarizationConfig: { keepFirst: 1, keepLast: 4 } } },
  ],
}

/** The repaired history condense works on, and a run of Native over it with repair: true. */
async function repairedRun(h: ApiMessage[]) {
  const { repairConversation } = await import('../lib/index.js')
  const { messages: repaired } = repairConversation(h) as { messages: ApiMessage[] }
  const run = (summarize: (r: Request) => Promise<string>) => condense(h, { provider: 'native', summarize, provenance: true, repair: true })
  return { repaired, run }
}
