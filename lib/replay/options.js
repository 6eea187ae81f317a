// Replay options: reads and checks what the caller passed to `replay`, filling in the defaults.
// Throws a TypeError naming the option (`replay: options.contextWindow: expected ...`); never
// changes the caller's object.
'use strict'

const { describe, wholeNumber: checkWhole, deepFreeze } = require('../internal/values.js')
const { DEFAULT_PRICING, CACHE_TTLS, DEFAULT_CACHE_TTL, DEFAULT_LOOKBACK_BLOCKS, readCacheTtl, readPricing } = require('../internal/prompt-cache.js')
const { checkKnownKeys } = require('../internal/checks.js')
const { endpointOf } = require('../openai-client.js')

const DEFAULTS = deepFreeze({
  contextWindow: 200_000,
  threshold: 100,
  maxTokens: 8192,
  systemTokens: 10_000,
  summaryTokens: 2_000,
  cache: 'anthropic',
  workingSetTurns: 10,
  cacheTtl: DEFAULT_CACHE_TTL,
  lookbackBlocks: DEFAULT_LOOKBACK_BLOCKS,
})

const KNOWN = new Set([
  'policy',
  'contextWindow',
  'threshold',
  'maxTokens',
  'systemTokens',
  'summaryTokens',
  'cache',
  'pricing',
  'llmUrl',
  'model',
  'apiKey',
  'summarize',
  'expectedTurns',
  'workingSetTurns',
  'lookbackBlocks',
  'cacheTtl',
  'signal',
])

const at = (name) => `replay: options.${name}`

/** `options[name]`, checked, or its default. */
const wholeNumber = (options, name, min, max) => (options[name] === undefined ? DEFAULTS[name] : checkWhole(options[name], at(name), min, max))

/**
 * @param {unknown} options
 * @param {string[]} policyNames the policies `options.policy` may name
 */
function readOptions(options, policyNames) {
  if (options === undefined) options = {}
  if (options === null || typeof options !== 'object' || Array.isArray(options))
    throw new TypeError(`replay: options: expected an object, got ${describe(options)}`)
  checkKnownKeys(options, [...KNOWN], 'replay: options')
  // Left out, not null: null names no policy and no cache model.
  const policy = options.policy === undefined ? 'roo-default' : options.policy
  if (typeof policy !== 'string' || !policyNames.includes(policy))
    throw new TypeError(
      `${at('policy')}: expected one of ${policyNames.join(', ')}, got ${typeof policy === 'string' ? JSON.stringify(policy) : describe(policy)}`,
    )
  const contextWindow = wholeNumber(options, 'contextWindow', 1000)
  const threshold = wholeNumber(options, 'threshold', 5, 100)
  const maxTokens = wholeNumber(options, 'maxTokens', 0)
  const systemTokens = wholeNumber(options, 'systemTokens', 0)
  const summaryTokens = wholeNumber(options, 'summaryTokens', 1)
  const workingSetTurns = wholeNumber(options, 'workingSetTurns', 1)
  if (systemTokens + maxTokens >= contextWindow * 0.9)
    throw new TypeError(
      `${at('contextWindow')}: ${contextWindow} tokens leave no room for the history: 90% of it is ${Math.floor(contextWindow * 0.9)}, the system prompt (${systemTokens}) and the reserved answer (${maxTokens}) take ${systemTokens + maxTokens}`,
    )
  const cache = options.cache === undefined ? DEFAULTS.cache : options.cache
  if (cache !== 'anthropic' && cache !== 'openai')
    throw new TypeError(`${at('cache')}: expected "anthropic" or "openai", got ${typeof cache === 'string' ? JSON.stringify(cache) : describe(cache)}`)
  const cacheTtl = readCacheTtl(options.cacheTtl, at('cacheTtl'))
  // A one-hour write costs more: without a write price of the caller's, the engine's table prices it.
  const pricing = readPricing(options.pricing, cache, at('pricing'), cacheTtl)
  let expectedTurns
  if (options.expectedTurns !== undefined) expectedTurns = wholeNumber(options, 'expectedTurns', 1)
  // Anthropic looks for an entry only so far back; the OpenAI model has no breakpoints to look from.
  let lookbackBlocks
  if (options.lookbackBlocks !== undefined) {
    if (cache !== 'anthropic') throw new TypeError(`${at('lookbackBlocks')}: applies to the "anthropic" cache model only`)
    lookbackBlocks = wholeNumber(options, 'lookbackBlocks', 0)
  } else if (cache === 'anthropic') lookbackBlocks = DEFAULTS.lookbackBlocks
  for (const key of ['llmUrl', 'model', 'apiKey']) {
    if (options[key] !== undefined && (typeof options[key] !== 'string' || options[key] === ''))
      throw new TypeError(`${at(key)}: expected a non-empty string, got ${describe(options[key])}`)
  }
  // The URL is checked as the client checks it, in this option's name.
  if (options.llmUrl !== undefined) endpointOf(options.llmUrl, at('llmUrl'))
  if (options.summarize !== undefined && typeof options.summarize !== 'function')
    throw new TypeError(`${at('summarize')}: expected an async function (request) => summary, got ${describe(options.summarize)}`)
  if (options.summarize !== undefined && options.llmUrl !== undefined) throw new TypeError(`${at('summarize')}: give either summarize or llmUrl, not both`)
  if ((options.model !== undefined || options.apiKey !== undefined) && options.llmUrl === undefined)
    throw new TypeError(`${at(options.model !== undefined ? 'model' : 'apiKey')}: needs options.llmUrl`)
  const signal = options.signal
  if (signal !== undefined && !(signal && typeof signal.aborted === 'boolean' && typeof signal.addEventListener === 'function'))
    throw new TypeError(`${at('signal')}: expected an AbortSignal, got ${describe(signal)}`)
  return {
    policy,
    contextWindow,
    threshold,
    maxTokens,
    systemTokens,
    summaryTokens,
    cache,
    pricing,
    expectedTurns,
    lookbackBlocks,
    cacheTtl,
    cacheTtlMs: CACHE_TTLS[cacheTtl],
    workingSetTurns,
    llmUrl: options.llmUrl,
    model: options.model,
    apiKey: options.apiKey,
    summarize: options.summarize,
    signal,
  }
}

module.exports = { readOptions, DEFAULTS, DEFAULT_PRICING }
