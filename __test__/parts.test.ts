// Long texts from the engine (a batch of summary requests, the changed texts of a result) are read
// a part at a time, so the event loop never waits for one string of a whole history. Read in parts
// as small as one byte, they give exactly what a single read gives: no text is cut inside a line
// or a change, none lost or repeated, multi-byte characters and escaped lone surrogates included.
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, type ApiMessage } from '../lib/index.js'

/* eslint-disable @typescript-eslint/no-require-imports */
type ReadPart = (maxBytes: number) => string | null
type History = { push(chunk: unknown[]): string[] }
type Handle = {
  start(history: History, withSummarizer: boolean): void
  next(): Promise<{ kind: string; changes?: { codes: Uint32Array; ends: Uint32Array; text: string }; summary?: string; error?: string }>
  readPart: ReadPart
  reply(answers: unknown[]): void
}
const native = require('../lib/internal/native.js') as { Run: new (options: unknown) => Handle; History: new () => History }
const { pushAll, fromEngine } = require('../lib/internal/crossing.js') as {
  pushAll: (h: History, m: ApiMessage[]) => string | undefined
  fromEngine: (json: string) => Record<string, unknown>
}
const { buildMessages } = require('../lib/internal/apply.js') as {
  buildMessages: (m: ApiMessage[], changes: unknown, summary: unknown, signal: undefined, readPart: ReadPart) => Promise<ApiMessage[]>
}
const { readRequests } = require('../lib/internal/summarize.js') as {
  readRequests: (readPart: ReadPart, signal: undefined, held: unknown[]) => Promise<Array<{ messages: unknown[] }>>
}
/* eslint-enable @typescript-eslint/no-require-imports */

/** A generated history whose tool results also hold multi-byte characters and a lone surrogate. */
function history(): ApiMessage[] {
  const h = generateHistory({ seed: 11, format: 'xml', targetTokens: 120_000 }) as ApiMessage[]
  let n = 0
  for (const m of h) {
    if (m.role !== 'user' || typeof m.content === 'string') continue
    for (const b of m.content as Array<{ type: string; text?: string }>) {
      if (b.type === 'text' && b.text && b.text.length > 2000) {
        b.text = `${b.text} ✓ 日本語 🚀 \ud800 \ufdd0 line ${n++}\n${b.text}`
      }
    }
  }
  return h
}

/** A run of `options` started on `messages`, at its first event. */
async function started(messages: ApiMessage[], options: object, withSummarizer: boolean) {
  const session = new native.Run(options)
  const history = new native.History()
  expect(pushAll(history, messages)).toBe(undefined)
  session.start(history, withSummarizer)
  return { session, event: await session.next() }
}

/** `readPart` with `size` bytes whatever is asked, counting the parts read. */
function smallParts(session: Handle, size: number) {
  const counter = { parts: 0 }
  const read: ReadPart = () => {
    const part = session.readPart(size)
    if (part !== null) counter.parts++
    return part
  }
  return { read, counter }
}

describe('long texts from the engine, read in parts', () => {
  const h = history()

  it.each([1, 7, 4096])('changed texts in parts of %i bytes give the result of one read', async (size) => {
    const options = { provider: 'truncation' as const, config: { preserveRecentCount: 4 } }
    const whole = await condense(h, options)
    const { session, event } = await started(h, options, false)
    expect(event.kind).toBe('done')
    expect(event.changes?.text).toBe('') // nothing crosses at once
    const { read, counter } = smallParts(session, size)
    const messages = await buildMessages(h, event.changes, fromEngine(event.summary ?? ''), undefined, read)
    expect(messages).toEqual(whole.messages)
    // One part per change at most, several changes per part once parts are large enough.
    expect(counter.parts).toBeGreaterThan(0)
    expect(counter.parts).toBeLessThanOrEqual(event.changes?.ends.length ?? 0)
    if (size === 1) expect(counter.parts).toBe(event.changes?.ends.length)
    expect(session.readPart(size)).toBe(null)
  })

  it.each([1, 7, 4096])('a batch of summary requests in parts of %i bytes is the batch the callback gets', async (size) => {
    const seen: unknown[] = []
    const summarize = async (request: unknown) => {
      seen.push(request)
      return 'A summary.'
    }
    const whole = await condense(h, { provider: 'native', summarize })
    expect(whole.error).toBe(undefined)
    expect(seen).toHaveLength(1)
    const { session, event } = await started(h, { provider: 'native' }, true)
    expect(event.kind).toBe('summarize')
    const { read, counter } = smallParts(session, size)
    const requests = await readRequests(read, undefined, h)
    expect(requests).toEqual(seen)
    // A part is whole lines: with one byte asked, one line (the heads, then a message) per part.
    if (size === 1) expect(counter.parts).toBe(1 + requests[0].messages.length)
    expect(session.readPart(size)).toBe(null)
    session.reply([{ ok: true, reply: { text: 'A summary.' } }])
    expect((await session.next()).kind).toBe('done')
  })
})
