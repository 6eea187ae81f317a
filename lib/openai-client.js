// A summarize callback backed by any OpenAI-compatible chat-completions endpoint: a local server
// (Ollama, llama.cpp, vLLM, LM Studio) or a hosted one. It answers the library's SummarizeRequest
// with { text, inputTokens, outputTokens, cacheReadTokens } read from the reply's `usage`, streamed
// (server-sent events) or not, and stops its request when the library's signal fires (a timeout,
// an abort). Node's global fetch only; no dependencies.
'use strict'

const { describe, checkTimeoutMs, wholeNumber } = require('./internal/values.js')
const { checkKnownKeys, checkObject, checkOptionsObject, optionalBoolean, optionalObject, optionalString } = require('./internal/checks.js')
const { checkCrossable } = require('./internal/crossing.js')
const { checkSignal, abortError, whenAborted } = require('./internal/abort.js')
const { coded } = require('./internal/errors.js')

const DEFAULT_TIMEOUT_MS = 120_000

/** Why a request failed: `code` is one of the strings below, `status` the HTTP status when there was one. */
class OpenAIClientError extends Error {
  constructor(message, code, extra) {
    super(message)
    this.name = 'OpenAIClientError'
    /** "http" | "unreachable" | "timeout" | "bad_reply" | "empty_reply" */
    this.code = code
    if (extra) Object.assign(this, extra)
  }
}

/**
 * The chat-completions URL for a base URL (`http://host/v1`) or the full one; a value that is not
 * an http(s) URL is refused as a TypeError naming `where` (the parameter or option it was given as).
 */
function endpointOf(url, where) {
  let u
  try {
    if (typeof url !== 'string') throw new TypeError('not a string')
    u = new URL(url)
  } catch {
    throw new TypeError(`${where}: expected an http(s) URL such as http://127.0.0.1:11434/v1, got ${describe(url)}`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') {
    throw new TypeError(`${where}: expected an http or https URL, got ${JSON.stringify(url)}`)
  }
  if (!/\/chat\/completions\/?$/.test(u.pathname)) u.pathname = `${u.pathname.replace(/\/+$/, '')}/chat/completions`
  return u.toString()
}

/** The chat-completions URL for a base URL (`http://host/v1`) or the full one. */
function chatCompletionsUrl(url) {
  return endpointOf(url, 'chatCompletionsUrl: url')
}

const OPTION_KEYS = ['url', 'model', 'apiKey', 'stream', 'timeoutMs', 'headers', 'body']
const AT = 'createOpenAISummarizer: options'

function checkOptions(options) {
  checkObject(options, AT, 'an options object such as { url, model }')
  checkKnownKeys(options, OPTION_KEYS, AT)
  const { model, apiKey, stream, timeoutMs, headers, body } = options
  if (model !== undefined && (typeof model !== 'string' || model === '')) throw new TypeError(`${AT}.model: expected a model name, got ${describe(model)}`)
  optionalString(apiKey, `${AT}.apiKey`)
  optionalBoolean(stream, `${AT}.stream`)
  if (timeoutMs !== undefined) checkTimeoutMs(timeoutMs, `${AT}.timeoutMs`, 0)
  optionalObject(headers, `${AT}.headers`)
  optionalObject(body, `${AT}.body`)
  if (headers)
    for (const [k, v] of Object.entries(headers)) if (typeof v !== 'string') throw new TypeError(`${AT}.headers.${k}: expected a string, got ${describe(v)}`)
  // The body is sent as JSON: a value JSON has no form for is named here, not when a request fails.
  if (body) checkCrossable(body, 'createOpenAISummarizer', ['options', 'body'])
}

/** The keys of a SummarizeRequest (lib/index.d.ts), and the purposes the library asks for. */
const REQUEST_KEYS = ['purpose', 'systemPrompt', 'messages', 'maxTokens', 'taskId']
const PURPOSES = ['conversation', 'toolResult', 'toolParameters', 'messageText']

/**
 * A summary request as the library makes it (SummarizeRequest), and the call's context: what
 * would be sent is checked before anything is, each error naming its place
 * (`summarize: request.messages[1].content: …`).
 */
function checkRequest(request, context) {
  const at = 'summarize: request'
  checkObject(request, at, 'a summary request { purpose, systemPrompt, messages }')
  checkKnownKeys(request, REQUEST_KEYS, at)
  if (!PURPOSES.includes(request.purpose))
    throw new TypeError(`${at}.purpose: expected one of ${PURPOSES.map((p) => JSON.stringify(p)).join(', ')}, got ${describe(request.purpose)}`)
  if (typeof request.systemPrompt !== 'string') throw new TypeError(`${at}.systemPrompt: expected a string, got ${describe(request.systemPrompt)}`)
  if (!Array.isArray(request.messages)) throw new TypeError(`${at}.messages: expected an array of { role, content }, got ${describe(request.messages)}`)
  for (let i = 0; i < request.messages.length; i++) {
    const m = request.messages[i]
    const where = `${at}.messages[${i}]`
    checkObject(m, where, 'a message { role, content }')
    if (m.role !== 'user' && m.role !== 'assistant') throw new TypeError(`${where}.role: expected "user" or "assistant", got ${describe(m.role)}`)
    if (typeof m.content !== 'string') throw new TypeError(`${where}.content: expected a string, got ${describe(m.content)}`)
  }
  if (request.maxTokens !== undefined) wholeNumber(request.maxTokens, `${at}.maxTokens`, 1)
  optionalString(request.taskId, `${at}.taskId`)
  const signal = checkOptionsObject(context, 'summarize', ['signal'], 'context').signal
  return checkSignal(signal, 'summarize: context.signal')
}

/** What a failing HTTP status most likely means, as a hint. */
function statusHint(status) {
  if (status === 401 || status === 403) return 'check the API key'
  if (status === 404) return 'check the URL (most servers expect it to end in /v1) and the model name'
  if (status === 408 || status === 504) return 'the server timed out; retry, or use a smaller model'
  if (status === 413) return 'the request is too large for the server; use a model with a larger context'
  if (status === 429) return 'rate limited: lower the concurrency or retry later'
  if (status >= 500) return 'the server failed; check its log'
  return 'check the request the server expects'
}

/** The message of an error body ({ error: { message } }, { error: "..." }, { message }, or text). */
function errorBodyMessage(text) {
  try {
    const json = JSON.parse(text)
    const e = json && (json.error ?? json)
    if (typeof e === 'string') return e
    if (e && typeof e.message === 'string') return e.message
  } catch {
    // Not JSON: the text itself.
  }
  const t = text.trim().replace(/\s+/g, ' ')
  return t.length > 300 ? `${t.slice(0, 300)}…` : t
}

function networkReason(e) {
  const cause = e && e.cause
  const code = cause && (cause.code || (cause.errors && cause.errors[0] && cause.errors[0].code))
  switch (code) {
    case 'ECONNREFUSED':
      return 'connection refused (is the server running, on this port?)'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'host not found (check the URL)'
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'the connection was closed by the server'
    case 'CERT_HAS_EXPIRED':
    case 'DEPTH_ZERO_SELF_SIGNED_CERT':
    case 'SELF_SIGNED_CERT_IN_CHAIN':
    case 'UNABLE_TO_VERIFY_LEAF_SIGNATURE':
      return `TLS certificate problem (${code})`
    default:
      return (cause && cause.message) || (e && e.message) || String(e)
  }
}

const numberOr = (v) => (typeof v === 'number' && Number.isFinite(v) ? v : undefined)

/** The reply, with the token counts the usage gives (absent ones left out). */
function reply(text, usage, extra) {
  if (text.trim() === '') throw new OpenAIClientError('the model answered with an empty summary', 'empty_reply', extra)
  const out = { text }
  if (usage && typeof usage === 'object') {
    const input = numberOr(usage.prompt_tokens)
    const output = numberOr(usage.completion_tokens)
    const cached = numberOr(usage.prompt_tokens_details && usage.prompt_tokens_details.cached_tokens)
    if (input !== undefined) out.inputTokens = input
    if (output !== undefined) out.outputTokens = output
    if (cached !== undefined) out.cacheReadTokens = cached
  }
  if (extra.model !== undefined) out.model = extra.model
  if (extra.finishReason !== undefined) out.finishReason = extra.finishReason
  return out
}

/** The text of a message's `content`: a string, or text parts. */
function contentText(content) {
  if (typeof content === 'string') return content
  if (Array.isArray(content)) return content.map((p) => (p && typeof p.text === 'string' ? p.text : '')).join('')
  return ''
}

function readWhole(json, endpoint) {
  if (json && json.error) throw new OpenAIClientError(`${endpoint} answered with an error: ${errorBodyMessage(JSON.stringify(json))}`, 'bad_reply')
  const choice = json && Array.isArray(json.choices) ? json.choices[0] : undefined
  if (!choice || !choice.message) {
    throw new OpenAIClientError(`${endpoint} answered without choices[0].message; is it a chat-completions endpoint?`, 'bad_reply')
  }
  const extra = { model: typeof json.model === 'string' ? json.model : undefined, finishReason: choice.finish_reason ?? undefined }
  const text = contentText(choice.message.content)
  if (text === '' && typeof choice.message.refusal === 'string' && choice.message.refusal !== '') {
    throw new OpenAIClientError(`the model refused: ${choice.message.refusal}`, 'empty_reply', extra)
  }
  return reply(text, json.usage, extra)
}

/** Reads a server-sent-events body of chat.completion.chunk objects. */
async function readStream(body, endpoint) {
  const decoder = new TextDecoder()
  let buffer = ''
  let text = ''
  let usage
  let model
  let finishReason
  let data = []
  let done = false
  const dispatch = () => {
    if (data.length === 0) return
    const payload = data.join('\n')
    data = []
    if (payload.trim() === '[DONE]') {
      done = true
      return
    }
    let chunk
    try {
      chunk = JSON.parse(payload)
    } catch {
      throw new OpenAIClientError(`${endpoint} streamed an event that is not JSON: ${payload.slice(0, 200)}`, 'bad_reply')
    }
    if (chunk && chunk.error) throw new OpenAIClientError(`${endpoint} streamed an error: ${errorBodyMessage(payload)}`, 'bad_reply')
    if (chunk && typeof chunk.model === 'string') model = chunk.model
    if (chunk && chunk.usage) usage = chunk.usage
    const choice = chunk && Array.isArray(chunk.choices) ? chunk.choices[0] : undefined
    if (choice) {
      if (choice.delta) text += contentText(choice.delta.content)
      if (choice.finish_reason) finishReason = choice.finish_reason
    }
  }
  const line = (l) => {
    if (l === '') dispatch()
    else if (l.startsWith(':'))
      return // a comment (keep-alive)
    else if (l.startsWith('data:')) data.push(l.slice(l[5] === ' ' ? 6 : 5))
    // event:, id:, retry: carry nothing a chat completion needs.
  }
  for await (const bytes of body) {
    buffer += decoder.decode(bytes, { stream: true })
    let at
    while (!done && (at = buffer.search(/\r\n|\r|\n/)) >= 0) {
      const l = buffer.slice(0, at)
      buffer = buffer.slice(at + (buffer.startsWith('\r\n', at) ? 2 : 1))
      line(l)
    }
    if (done) break
  }
  if (!done) {
    buffer += decoder.decode()
    if (buffer !== '') line(buffer)
    dispatch()
  }
  return reply(text, usage, { model, finishReason })
}

/**
 * A summarize callback for `condense` (and the manager) backed by an OpenAI-compatible
 * chat-completions endpoint. `url` is the base (`http://127.0.0.1:11434/v1`) or the full
 * `…/chat/completions` URL; `apiKey` is sent as a Bearer token; `stream` asks for server-sent
 * events; `timeoutMs` bounds each request (120 s; at most 2^31-1 ms, the longest a timer waits;
 * 0: none, the library's own timeout still applies); `headers` are added to each request, `body` merged into each request body (e.g.
 * `{ temperature: 0 }`).
 */
function createOpenAISummarizer(options) {
  checkOptions(options)
  const endpoint = endpointOf(options.url, `${AT}.url`)
  const { model, apiKey, stream = false, timeoutMs = DEFAULT_TIMEOUT_MS, headers = {}, body: extraBody = {} } = options

  async function summarize(request, context) {
    const signal = checkRequest(request, context)
    const messages = []
    if (request.systemPrompt !== '') messages.push({ role: 'system', content: request.systemPrompt })
    for (const m of request.messages) messages.push({ role: m.role, content: m.content })
    const body = { ...(model !== undefined ? { model } : {}), messages }
    if (request.maxTokens !== undefined && !('max_completion_tokens' in extraBody)) body.max_tokens = request.maxTokens
    if (stream) {
      body.stream = true
      body.stream_options = { include_usage: true }
    }
    Object.assign(body, extraBody)

    if (signal && signal.aborted) throw abortError(signal)
    const controller = new AbortController()
    let timedOut = false
    const timer =
      timeoutMs > 0
        ? setTimeout(() => {
            timedOut = true
            controller.abort()
          }, timeoutMs)
        : undefined
    const unfollow = whenAborted(signal, () => controller.abort())
    const fail = (e) => {
      if (signal && signal.aborted) return abortError(signal)
      if (timedOut) return new OpenAIClientError(`${endpoint} did not answer within ${timeoutMs} ms`, 'timeout')
      return e
    }
    try {
      let response
      try {
        response = await fetch(endpoint, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            accept: stream ? 'text/event-stream' : 'application/json',
            ...(apiKey ? { authorization: `Bearer ${apiKey}` } : {}),
            ...headers,
          },
          body: JSON.stringify(body),
          signal: controller.signal,
        })
      } catch (e) {
        throw fail(new OpenAIClientError(`cannot reach ${endpoint}: ${networkReason(e)}`, 'unreachable'))
      }
      if (!response.ok) {
        const text = await response.text().catch(() => '')
        const message = errorBodyMessage(text)
        const status = `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`
        throw fail(
          new OpenAIClientError(`${endpoint} answered HTTP ${status}${message ? `: ${message}` : ''} (${statusHint(response.status)})`, 'http', {
            status: response.status,
          }),
        )
      }
      const type = response.headers.get('content-type') || ''
      try {
        if (type.includes('text/event-stream')) return await readStream(response.body, endpoint)
        const text = await response.text()
        let json
        try {
          json = JSON.parse(text)
        } catch {
          throw new OpenAIClientError(`${endpoint} answered with something that is not JSON: ${errorBodyMessage(text) || '(an empty body)'}`, 'bad_reply')
        }
        return readWhole(json, endpoint)
      } catch (e) {
        if (e instanceof OpenAIClientError) throw e
        throw fail(new OpenAIClientError(`reading the answer of ${endpoint} failed: ${networkReason(e)}`, 'unreachable'))
      }
    } finally {
      clearTimeout(timer)
      unfollow()
    }
  }

  // Its rejections carry `errorCode` (lib/internal/errors.js) when they are the caller's mistakes; an
  // OpenAIClientError keeps its own `code`, and an abort the signal's reason.
  const coded_ = coded(summarize)
  Object.defineProperty(coded_, 'endpoint', { value: endpoint, enumerable: true })
  return coded_
}

// The entry's functions throw with `errorCode` set (lib/internal/errors.js), as the main entry's do. Each is
// written out: Node's ESM import of this file finds named exports only in such forms.
const createOpenAISummarizerCoded = coded(createOpenAISummarizer)
const chatCompletionsUrlCoded = coded(chatCompletionsUrl)
module.exports = { createOpenAISummarizer: createOpenAISummarizerCoded, chatCompletionsUrl: chatCompletionsUrlCoded, endpointOf, OpenAIClientError }
