// The OpenAI-compatible summarizer (lib/openai-client.js) against a mock server on 127.0.0.1:
// whole and streamed (SSE) replies, usage read into the reply, HTTP errors, an unreachable
// server, bad replies, slow replies, its own timeout, the library's signal, and condense driving it.
import { createServer as createHttpServer } from 'node:http'
import { createServer, type AddressInfo } from 'node:net'
import { afterEach, describe, expect, it } from 'vitest'

import { condense, type SummarizeRequest } from '../lib/index.js'
import { chatCompletionsUrl, createOpenAISummarizer, OpenAIClientError } from '../lib/openai-client.js'
import { loadFixture, itReal } from './helpers.js'
import { completion, sseEvents, startMockLLM, type MockReply, type MockServer } from './mock-llm-server.js'

const request: SummarizeRequest = {
  purpose: 'conversation',
  systemPrompt: 'You summarize coding sessions.',
  messages: [
    { role: 'user', content: 'Fix the failing test in a.ts' },
    { role: 'assistant', content: 'I read a.ts and changed line 3.' },
    { role: 'user', content: 'Summarize the conversation so far.' },
  ],
  maxTokens: 512,
}

let server: MockServer | undefined
afterEach(async () => {
  await server?.close()
  server = undefined
})

async function serve(handler: (index: number) => MockReply | Promise<MockReply>) {
  server = await startMockLLM((_req, i) => handler(i))
  return server
}

/** The rejection of a promise (fails the test when it resolves). */
async function rejection(p: Promise<unknown>): Promise<any> {
  try {
    await p
  } catch (e) {
    return e
  }
  throw new Error('expected a rejection')
}

const until = async (check: () => boolean, ms = 2000) => {
  const end = Date.now() + ms
  while (!check() && Date.now() < end) await new Promise((r) => setTimeout(r, 10))
  return check()
}

describe('createOpenAISummarizer: options', () => {
  it('finds the chat-completions URL from a base URL or takes the full one', () => {
    expect(chatCompletionsUrl('http://127.0.0.1:11434/v1')).toBe('http://127.0.0.1:11434/v1/chat/completions')
    expect(chatCompletionsUrl('http://127.0.0.1:8080/v1/')).toBe('http://127.0.0.1:8080/v1/chat/completions')
    expect(chatCompletionsUrl('https://api.example.com/v1/chat/completions')).toBe('https://api.example.com/v1/chat/completions')
    expect(chatCompletionsUrl('http://localhost:1234')).toBe('http://localhost:1234/chat/completions')
  })

  it('rejects bad options, naming them', () => {
    expect(() => createOpenAISummarizer({ url: 'not a url' })).toThrow(
      /^createOpenAISummarizer: options\.url: expected an http\(s\) URL such as http:\/\/127\.0\.0\.1:11434\/v1, got string "not a url"/,
    )
    expect(() => createOpenAISummarizer({ url: 'ftp://x/v1' })).toThrow(/options\.url: expected an http or https URL, got "ftp:\/\/x\/v1"/)
    expect(() => createOpenAISummarizer({ url: 'http://x/v1', timeoutMs: -1 })).toThrow(
      /^createOpenAISummarizer: options\.timeoutMs: expected a whole number of milliseconds from 0 \(no timeout\) to 2147483647 \(the longest a Node\.js timer waits, about 24\.8 days\), got number -1$/,
    )
    // Past the longest a timer waits, setTimeout would fire after 1 ms: refused.
    expect(() => createOpenAISummarizer({ url: 'http://x/v1', timeoutMs: 2 ** 31 })).toThrow(/timeoutMs: .* to 2147483647 .*got number 2147483648$/)
    expect(() => createOpenAISummarizer({ url: 'http://x/v1', stream: 'yes' as never })).toThrow(/stream: expected true or false, got string "yes"/)
    expect(() => createOpenAISummarizer({ url: 'http://x/v1', headers: { a: 1 } as never })).toThrow(/headers\.a: expected a string, got number 1/)
    expect(() => createOpenAISummarizer({ url: 'http://x/v1', modle: 'x' } as never)).toThrow(
      /^createOpenAISummarizer: options\.modle: unknown key, expected one of url, model, apiKey, stream, timeoutMs, headers, body$/,
    )
  })
})

describe('createOpenAISummarizer: replies', () => {
  it('sends the system prompt, the messages, max_tokens, the model and the key; reads text and usage', async () => {
    const s = await serve(() => ({
      json: completion('The user asked to fix a.ts; line 3 was changed.', { prompt_tokens: 1234, completion_tokens: 56, cached: 200 }),
    }))
    const summarize = createOpenAISummarizer({
      url: s.url,
      model: 'qwen2.5:7b',
      apiKey: 'sk-test-123',
      headers: { 'x-trace': 'abc' },
      body: { temperature: 0 },
    })
    expect(summarize.endpoint).toBe(`${s.url}/chat/completions`)
    const reply = await summarize(request, { signal: new AbortController().signal })
    expect(reply).toEqual({
      text: 'The user asked to fix a.ts; line 3 was changed.',
      inputTokens: 1234,
      outputTokens: 56,
      cacheReadTokens: 200,
      model: 'mock-model',
      finishReason: 'stop',
    })
    expect(s.requests).toHaveLength(1)
    const r = s.requests[0]
    expect(r.method).toBe('POST')
    expect(r.path).toBe('/v1/chat/completions')
    expect(r.headers.authorization).toBe('Bearer sk-test-123')
    expect(r.headers['content-type']).toBe('application/json')
    expect(r.headers['x-trace']).toBe('abc')
    expect(r.body).toEqual({
      model: 'qwen2.5:7b',
      messages: [{ role: 'system', content: 'You summarize coding sessions.' }, ...request.messages],
      max_tokens: 512,
      temperature: 0,
    })
  })

  it('sends no key and no model when none is given, and leaves out usage the server does not give', async () => {
    const s = await serve(() => ({ json: completion('short summary') }))
    const reply = await createOpenAISummarizer({ url: s.url })(request)
    expect(reply).toEqual({ text: 'short summary', model: 'mock-model', finishReason: 'stop' })
    expect(s.requests[0].headers.authorization).toBe(undefined)
    expect('model' in s.requests[0].body).toBe(false)
  })

  it('reads a streamed reply (SSE) cut at any byte, with the usage chunk', async () => {
    // Events cut every 7 bytes: in the middle of lines and of the multi-byte "—"; CRLF line
    // ends; a keep-alive comment first.
    const events = sseEvents(['The user ', 'wants ', 'the tests fixed — ', 'done.'], { prompt_tokens: 900, completion_tokens: 12 })
    const bytes = Buffer.from(`: keep-alive\r\n\r\n${events.join('').replace(/\n/g, '\r\n')}`, 'utf8')
    const http = createHttpServer((_req, res) => {
      res.writeHead(200, { 'content-type': 'text/event-stream' })
      let at = 0
      const next = () => {
        if (at >= bytes.length) return res.end()
        res.write(bytes.subarray(at, (at += 7)))
        setTimeout(next, 1)
      }
      next()
    })
    await new Promise<void>((r) => http.listen(0, '127.0.0.1', r))
    const { port } = http.address() as AddressInfo
    try {
      const reply = await createOpenAISummarizer({ url: `http://127.0.0.1:${port}/v1`, stream: true })(request)
      expect(reply).toEqual({ text: 'The user wants the tests fixed — done.', inputTokens: 900, outputTokens: 12, model: 'mock-model', finishReason: 'stop' })
    } finally {
      await new Promise<void>((r) => http.close(() => r()))
    }
  })

  it('asks for a stream with include_usage, and reads it', async () => {
    const s = await serve(() => ({ sse: sseEvents(['Summary: ', 'tests fixed.'], { prompt_tokens: 300, completion_tokens: 4 }), gapMs: 5 }))
    const reply = await createOpenAISummarizer({ url: s.url, model: 'm', stream: true })(request)
    expect(reply.text).toBe('Summary: tests fixed.')
    expect(reply.inputTokens).toBe(300)
    expect(reply.outputTokens).toBe(4)
    expect(s.requests[0].body.stream).toBe(true)
    expect(s.requests[0].body.stream_options).toEqual({ include_usage: true })
    expect(s.requests[0].headers.accept).toBe('text/event-stream')
  })

  it('reads an SSE body even when it did not ask for one', async () => {
    const s = await serve(() => ({ sse: sseEvents(['streamed anyway']) }))
    const reply = await createOpenAISummarizer({ url: s.url })(request)
    expect(reply).toEqual({ text: 'streamed anyway', model: 'mock-model', finishReason: 'stop' })
  })
})

describe('createOpenAISummarizer: failures', () => {
  it('HTTP errors name the status, the server message and what to check', async () => {
    const cases: Array<[MockReply, RegExp, number]> = [
      [
        { status: 401, json: { error: { message: 'Incorrect API key provided', type: 'invalid_request_error' } } },
        /answered HTTP 401 Unauthorized: Incorrect API key provided \(check the API key\)$/,
        401,
      ],
      [
        { status: 404, json: { error: 'model "nope" not found, try pulling it first' } },
        /HTTP 404 Not Found: model "nope" not found, try pulling it first \(check the URL \(most servers expect it to end in \/v1\) and the model name\)$/,
        404,
      ],
      [
        { status: 429, json: { error: { message: 'Rate limit reached' } } },
        /HTTP 429 Too Many Requests: Rate limit reached \(rate limited: lower the concurrency or retry later\)$/,
        429,
      ],
      [{ status: 500, text: 'upstream exploded' }, /HTTP 500 Internal Server Error: upstream exploded \(the server failed; check its log\)$/, 500],
    ]
    for (const [reply, message, status] of cases) {
      const s = await serve(() => reply)
      const e = await rejection(createOpenAISummarizer({ url: s.url, model: 'm' })(request))
      expect(e).toBeInstanceOf(OpenAIClientError)
      expect(e.code).toBe('http')
      expect(e.status).toBe(status)
      expect(e.message).toMatch(message)
      expect(e.message.startsWith(`${s.url}/chat/completions answered`)).toBe(true)
      await s.close()
      server = undefined
    }
  })

  it('an unreachable server: connection refused, said so', async () => {
    // A port that was free a moment ago.
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    const port = (probe.address() as { port: number }).port
    await new Promise<void>((r) => probe.close(() => r()))
    const e = await rejection(createOpenAISummarizer({ url: `http://127.0.0.1:${port}/v1` })(request))
    expect(e.code).toBe('unreachable')
    expect(e.message).toBe(`cannot reach http://127.0.0.1:${port}/v1/chat/completions: connection refused (is the server running, on this port?)`)
  })

  it('replies it cannot use: not JSON, no choices, an empty summary, a refusal, an error event in a stream', async () => {
    const cases: Array<[MockReply, string, string]> = [
      [{ text: '<html>gateway</html>', contentType: 'text/html' }, 'bad_reply', 'answered with something that is not JSON: <html>gateway</html>'],
      [{ json: { object: 'list', data: [] } }, 'bad_reply', 'answered without choices[0].message; is it a chat-completions endpoint?'],
      [{ json: completion('   ') }, 'empty_reply', 'the model answered with an empty summary'],
      [
        { json: { choices: [{ message: { role: 'assistant', content: null, refusal: 'I cannot help with that.' } }] } },
        'empty_reply',
        'the model refused: I cannot help with that.',
      ],
      [
        { sse: [sseEvents(['partial'])[1], `data: ${JSON.stringify({ error: { message: 'model overloaded' } })}\n\n`] },
        'bad_reply',
        'streamed an error: model overloaded',
      ],
      [{ sse: ['data: {not json\n\n'] }, 'bad_reply', 'streamed an event that is not JSON: {not json'],
    ]
    for (const [reply, code, message] of cases) {
      const s = await serve(() => reply)
      const e = await rejection(createOpenAISummarizer({ url: s.url })(request))
      expect(e.code).toBe(code)
      expect(e.message.endsWith(message)).toBe(true)
      await s.close()
      server = undefined
    }
  })

  it('a slow reply within the timeout is answered', async () => {
    const s = await serve(() => ({ json: completion('late but fine', { prompt_tokens: 10, completion_tokens: 3 }), delayMs: 300 }))
    const started = Date.now()
    const reply = await createOpenAISummarizer({ url: s.url, timeoutMs: 3000 })(request)
    expect(reply.text).toBe('late but fine')
    expect(Date.now() - started).toBeGreaterThanOrEqual(290)
  })

  it('its own timeout: no answer in time rejects, and the request is closed', async () => {
    const s = await serve(() => ({ hang: true }))
    const started = Date.now()
    const e = await rejection(createOpenAISummarizer({ url: s.url, timeoutMs: 200 })(request))
    const took = Date.now() - started
    expect(e.code).toBe('timeout')
    expect(e.message).toBe(`${s.url}/chat/completions did not answer within 200 ms`)
    expect(took).toBeGreaterThanOrEqual(190)
    expect(took).toBeLessThan(2000)
    expect(await until(() => s.requests[0].aborted)).toBe(true)
  })

  it('a stream that stops half-way times out too', async () => {
    const s = await serve(() => ({ sse: sseEvents(['first part ', 'never sent']), hangAfter: 2 }))
    const e = await rejection(createOpenAISummarizer({ url: s.url, stream: true, timeoutMs: 250 })(request))
    expect(e.code).toBe('timeout')
    expect(await until(() => s.requests[0].aborted)).toBe(true)
  })

  it("the library's signal stops the request and the rejection is the signal's reason", async () => {
    const s = await serve(() => ({ hang: true }))
    const controller = new AbortController()
    const reason = new Error('options.summarize did not answer within 100 ms')
    setTimeout(() => controller.abort(reason), 100)
    const e = await rejection(createOpenAISummarizer({ url: s.url })(request, { signal: controller.signal }))
    expect(e).toBe(reason)
    expect(await until(() => s.requests[0].aborted)).toBe(true)
    // Already aborted: no request at all.
    const before = s.requests.length
    const e2 = await rejection(createOpenAISummarizer({ url: s.url })(request, { signal: controller.signal }))
    expect(e2).toBe(reason)
    expect(s.requests.length).toBe(before)
  })
})

describe('createOpenAISummarizer as the summarize callback of condense', () => {
  itReal('Native: the summary comes from the endpoint, its usage priced with OpenAI accounting', async () => {
    const s = await serve(() => ({
      json: completion('SUMMARY: the user mixed edits and reads; all tests pass now.', { prompt_tokens: 1000, completion_tokens: 100, cached: 400 }),
    }))
    const input = loadFixture('synthetic-4-mixed-ops')
    const r = await condense(input, {
      provider: 'native',
      config: { pricing: { inputPrice: 3, outputPrice: 15, cacheReadsPrice: 0.3, accounting: 'openai' } },
      summarize: createOpenAISummarizer({ url: s.url, model: 'mock' }),
    })
    expect(r.error).toBe(undefined)
    expect(r.summary.startsWith('SUMMARY: the user mixed edits and reads; all tests pass now.')).toBe(true)
    expect(r.metrics.callbackCalls).toBe(1)
    // (1000 - 400 cached) * $3 + 400 * $0.3 + 100 * $15, per million.
    expect(r.cost).toBeCloseTo(0.00342, 10)
    expect(s.requests).toHaveLength(1)
    const sent = s.requests[0].body
    expect(sent.model).toBe('mock')
    expect(sent.messages[0].role).toBe('system')
    expect(sent.messages.at(-1)).toEqual({ role: 'user', content: 'Summarize the conversation so far, as described in the prompt instructions.' })
    expect(r.messages.filter((m) => m.isSummary)).toHaveLength(1)
  })

  itReal('Native: a server failing every time becomes the library error after its retries, messages unchanged', async () => {
    const s = await serve(() => ({ status: 503, json: { error: { message: 'loading model' } } }))
    const input = loadFixture('synthetic-4-mixed-ops')
    const r = await condense(input, {
      provider: 'native',
      summarize: createOpenAISummarizer({ url: s.url }),
      summarizeOptions: { retries: 2, retryDelayMs: 10 },
    })
    expect(s.requests).toHaveLength(3)
    expect(r.error).toBe(
      `Failed to condense context: options.summarize rejected (3 attempts): ${s.url}/chat/completions answered HTTP 503 Service Unavailable: loading model (the server failed; check its log)`,
    )
    expect(r.messages).toEqual(input)
  })

  itReal("the library's timeout aborts a slow request (the server sees it closed)", async () => {
    const s = await serve(() => ({ json: completion('too late'), delayMs: 5000 }))
    const started = Date.now()
    const r = await condense(loadFixture('synthetic-4-mixed-ops'), {
      provider: 'native',
      summarize: createOpenAISummarizer({ url: s.url, timeoutMs: 0 }),
      summarizeOptions: { timeoutMs: 200, retries: 0 },
    })
    expect(r.error).toBe('Failed to condense context: options.summarize did not answer within 200 ms')
    expect(Date.now() - started).toBeLessThan(3000)
    expect(await until(() => s.requests[0].aborted)).toBe(true)
  })

  itReal('Smart: streamed summaries replace the oldest results', async () => {
    let n = 0
    const s = await serve(() => ({ sse: sseEvents([`Result ${++n} summarized.`], { prompt_tokens: 500, completion_tokens: 5 }) }))
    const r = await condense(loadFixture('heavy-uncondensed'), {
      provider: 'smart',
      config: { preset: 'quality' },
      summarize: createOpenAISummarizer({ url: s.url, stream: true }),
    })
    const summarized = r.metrics.passes.reduce((k, p) => k + p.summarized, 0)
    expect(summarized).toBe(s.requests.length)
    expect(summarized).toBeGreaterThan(0)
    expect(r.metrics.passes.reduce((k, p) => k + p.summarizeFallbacks, 0)).toBe(0)
    expect(JSON.stringify(r.messages)).toContain('Result 1 summarized.')
  })
})
