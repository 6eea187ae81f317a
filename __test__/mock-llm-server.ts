// A stand-in OpenAI-compatible chat-completions server on 127.0.0.1, for the client and CLI
// tests: each request is recorded and answered by the test's handler (a whole JSON reply, a
// server-sent-events stream, an HTTP error, a delay, or no answer at all).
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'

export interface RecordedRequest {
  method: string
  path: string
  headers: IncomingHttpHeaders
  body: any
  /** The client closed the connection before the answer was complete. */
  aborted: boolean
}

export type MockReply =
  | { status?: number; json: unknown; delayMs?: number }
  | { status?: number; text: string; contentType?: string; delayMs?: number }
  /** Raw SSE text, written piece by piece `gapMs` apart; `hangAfter`: stop writing (never end) after that many pieces. */
  | { sse: string[]; gapMs?: number; delayMs?: number; hangAfter?: number }
  | { hang: true }

export interface MockServer {
  /** The base URL, `http://127.0.0.1:<port>/v1`. */
  url: string
  requests: RecordedRequest[]
  close(): Promise<void>
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

export async function startMockLLM(handler: (req: RecordedRequest, index: number) => MockReply | Promise<MockReply>): Promise<MockServer> {
  const requests: RecordedRequest[] = []
  const sockets = new Set<Socket>()
  const server = createServer(async (req, res: ServerResponse) => {
    const chunks: Buffer[] = []
    for await (const c of req) chunks.push(c as Buffer)
    const raw = Buffer.concat(chunks).toString('utf8')
    let body: unknown = raw
    try {
      body = JSON.parse(raw)
    } catch {
      // Kept as text.
    }
    const rec: RecordedRequest = { method: req.method ?? '', path: req.url ?? '', headers: req.headers, body, aborted: false }
    requests.push(rec)
    res.on('close', () => {
      if (!res.writableEnded) rec.aborted = true
    })
    const reply = await handler(rec, requests.length - 1)
    if ('hang' in reply) return
    if (reply.delayMs) await sleep(reply.delayMs)
    if (res.destroyed) return
    if ('sse' in reply) {
      res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' })
      for (let i = 0; i < reply.sse.length; i++) {
        if (reply.hangAfter !== undefined && i >= reply.hangAfter) return
        if (res.destroyed) return
        res.write(reply.sse[i])
        if (reply.gapMs) await sleep(reply.gapMs)
      }
      res.end()
      return
    }
    if ('json' in reply) {
      res.writeHead(reply.status ?? 200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(reply.json))
      return
    }
    res.writeHead(reply.status ?? 200, { 'content-type': reply.contentType ?? 'text/plain' })
    res.end(reply.text)
  })
  server.on('connection', (s) => {
    sockets.add(s)
    s.on('close', () => sockets.delete(s))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy()
        server.close(() => resolve())
      }),
  }
}

/** A whole chat.completion reply. */
export function completion(text: string, usage?: { prompt_tokens: number; completion_tokens: number; cached?: number }) {
  return {
    id: 'chatcmpl-mock',
    object: 'chat.completion',
    model: 'mock-model',
    choices: [{ index: 0, message: { role: 'assistant', content: text }, finish_reason: 'stop' }],
    ...(usage
      ? {
          usage: {
            prompt_tokens: usage.prompt_tokens,
            completion_tokens: usage.completion_tokens,
            total_tokens: usage.prompt_tokens + usage.completion_tokens,
            ...(usage.cached !== undefined ? { prompt_tokens_details: { cached_tokens: usage.cached } } : {}),
          },
        }
      : {}),
  }
}

/** The SSE events of a streamed reply: one chunk per piece, then the usage chunk and [DONE]. */
export function sseEvents(pieces: string[], usage?: { prompt_tokens: number; completion_tokens: number }): string[] {
  const chunk = (delta: object, finish: string | null = null) =>
    `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', model: 'mock-model', choices: [{ index: 0, delta, finish_reason: finish }] })}\n\n`
  const events = [chunk({ role: 'assistant', content: '' }), ...pieces.map((p) => chunk({ content: p })), chunk({}, 'stop')]
  if (usage)
    events.push(
      `data: ${JSON.stringify({ id: 'chatcmpl-mock', object: 'chat.completion.chunk', choices: [], usage: { ...usage, total_tokens: usage.prompt_tokens + usage.completion_tokens } })}\n\n`,
    )
  events.push('data: [DONE]\n\n')
  return events
}
