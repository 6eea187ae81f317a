// The summarizer a replay condenses with: a deterministic stand-in whose summaries are a given
// number of tokens (the same text for the same request, no network), or a real model through the
// package's OpenAI-compatible client (lib/openai-client.js) when `llmUrl` is given. Either way each
// call is counted and priced as the host sends it, by the replay's cache model
// (`freshRequestCost`, src/cache_model.rs, the engine's price table): its input (the messages it was
// asked to summarize, counted) shares no prefix with the task's requests (another system prompt),
// and carries the host's breakpoints, so on Anthropic it is written to the cache; its output is
// billed at the output price. Never changes the requests it is handed.
'use strict'

const { countTokens } = require('../internal/tokens.js')
const { createOpenAISummarizer } = require('../openai-client.js')

const WORDS = ['summary', 'of', 'earlier', 'work', 'files', 'read', 'edited', 'tests', 'run', 'next', 'step', 'pending', 'decision', 'error', 'fixed', 'kept']

const standIns = new Map()

/** A text of exactly `tokens` tokens (in the default encoding), the same every time. */
function standInText(tokens) {
  let text = standIns.get(tokens)
  if (text !== undefined) return text
  const words = []
  for (let i = 0; words.length < tokens; i++) words.push(WORDS[(i * 7) % WORDS.length])
  text = words.join(' ')
  // Each word is one token with its leading space; trim or pad to the exact count.
  let n = countTokens(text)
  while (n > tokens && words.length > 1) {
    words.pop()
    text = words.join(' ')
    n = countTokens(text)
  }
  while (n < tokens) {
    words.push('note')
    text = words.join(' ')
    n = countTokens(text)
  }
  standIns.set(tokens, text)
  return text
}

/** Tokens of what a summary request asks to summarize. */
function requestTokens(request) {
  let n = countTokens(typeof request.systemPrompt === 'string' ? request.systemPrompt : '')
  for (const m of request.messages ?? []) n += countTokens(typeof m.content === 'string' ? m.content : '')
  return n
}

/**
 * The summarize callback and its tally: `calls` by purpose, input and output tokens, input written
 * to the cache, and cost.
 * @param {{ summaryTokens: number, llmUrl?: string, model?: string, apiKey?: string, summarize?: Function }} o
 * @param {{ freshRequestCost(input: number, output: number): { inputCost: number, outputCost: number, cacheWrite: number } }} cache
 *   the replay's cache model, which prices a request as the host sends it
 */
function makeSummarizer(o, cache) {
  const tally = { calls: 0, byPurpose: {}, inputTokens: 0, outputTokens: 0, cacheWriteTokens: 0, inputCost: 0, outputCost: 0 }
  let inner
  if (o.summarize) inner = o.summarize
  else if (o.llmUrl) inner = createOpenAISummarizer({ url: o.llmUrl, model: o.model, apiKey: o.apiKey, body: { temperature: 0 } })
  const summarize = async (request, context) => {
    const input = requestTokens(request)
    let text
    let output
    if (inner) {
      const reply = await inner(request, context)
      text = typeof reply === 'string' ? reply : reply && typeof reply.text === 'string' ? reply.text : ''
      output = countTokens(text)
    } else {
      // Never longer than what it summarizes (a model asked for a summary writes less).
      output = Math.max(1, Math.min(o.summaryTokens, Math.floor(input / 2)))
      text = standInText(output)
    }
    tally.calls++
    tally.byPurpose[request.purpose] = (tally.byPurpose[request.purpose] ?? 0) + 1
    tally.inputTokens += input
    tally.outputTokens += output
    // Its prompt is not the task's (another system prompt): nothing of it is read from the cache.
    const { inputCost, outputCost, cacheWrite } = cache.freshRequestCost(input, output)
    tally.cacheWriteTokens += cacheWrite
    tally.inputCost += inputCost
    tally.outputCost += outputCost
    return { text, cost: inputCost + outputCost, inputTokens: input, outputTokens: output }
  }
  return { summarize, tally }
}

module.exports = { makeSummarizer, standInText }
