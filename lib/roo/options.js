// Options of the Roo entries: the constants and Roo's English messages, the eras' differences as data
// (`ERAS`), and reading a call's options over its entry's configured defaults. Pure data and checks;
// never calls the host or the engine.
'use strict'

const { randomUUID } = require('node:crypto')
const { PROVIDER, PROVIDER_IDS } = require('../internal/registry.js')
const { describe, isObject, checkTimeoutMs } = require('../internal/values.js')
const { checkKnownKeys, optionalFunction } = require('../internal/checks.js')
const { checkSummarizeOptions } = require('../internal/summarize.js')
const { findUnsupported, pathText } = require('../internal/crossing.js')
const { readPolicyAt } = require('../internal/policy-option.js')

const N_MESSAGES_TO_KEEP = 3
/** The engine's thresholds, as Roo names them; ANTHROPIC_DEFAULT_MAX_TOKENS is reserved for the model's answer when the host gives no maxTokens. */
const {
  MIN_CONDENSE_THRESHOLD,
  MAX_CONDENSE_THRESHOLD,
  TOKEN_BUFFER_PERCENTAGE,
  DEFAULT_MAX_TOKENS: ANTHROPIC_DEFAULT_MAX_TOKENS,
  configProblems,
} = require('../manager.js')

/** Roo's English strings (its en locale, common:errors.*), word for word; `options.errors` replaces any of them. */
const ROO_ERROR_MESSAGES = Object.freeze({
  condense_failed: 'Failed to condense context',
  condense_not_enough_messages: 'Not enough messages to condense context',
  condensed_recently: 'Context was condensed recently; skipping this attempt',
  condense_handler_invalid: 'API handler for condensing context is invalid',
  condense_context_grew: 'Context size increased during condensing; skipping this attempt',
  condense_api_failed: 'Condensing API call failed: {{message}}',
  /** Not Roo's: the caller's AbortSignal fired. */
  condense_aborted: 'Context condensing was aborted',
  /** Not Roo's: a host call did not answer within timeoutMs. */
  condense_timeout: 'Context condensing timed out: {{message}}',
})

/** Roo's final request of a summary (2025 and January 2026). */
const FINAL_REQUEST = 'Summarize the conversation so far, as described in the prompt instructions.'
/**
 * The system prompt of a fresh-start summary request when the host gives none (`requestSystemPrompt`;
 * a Roo host passes Roo's own): the instructions themselves go last, as the user's message.
 */
const FRESH_START_SYSTEM_PROMPT = `You summarize a conversation between a user and a coding agent so that the agent can continue the work from the summary alone.

Reply with text only: do not call any tool or function, none would be run.

The last message, which asks for this summary, is not the user's: judge the user's requests, intent and the next step from the conversation before it.`
const SYNTHETIC_REASONING = 'Condensing conversation context. The summary below captures the key information from the prior conversation.'
const SYNTHETIC_TOOL_RESULT = 'Context condensation triggered. Tool execution deferred.'

/**
 * Roo's API by era. `positional`: summarizeConversation's arguments; `condensingHandler`: the
 * 8th argument is a separate handler for condensing; `toolBlocks`: the tool_use blocks a kept
 * tool_result needs go into the summary (array content with a synthetic reasoning block);
 * `nonDestructive`: messages are tagged, not removed; `logs`: what Roo logs about handlers.
 */
const ERAS = Object.freeze({
  2025: Object.freeze({
    name: '2025',
    condensingHandler: true,
    toolBlocks: false,
    nonDestructive: false,
    logs: Object.freeze({
      fallback: 'Chosen API handler for condensing does not support message creation or is invalid, falling back to main apiHandler.',
      invalid: 'Main API handler is also invalid for condensing. Cannot proceed.',
    }),
  }),
  '2026-01': Object.freeze({
    name: '2026-01',
    condensingHandler: false,
    toolBlocks: true,
    nonDestructive: true,
    logs: Object.freeze({ fallback: undefined, invalid: 'API handler is invalid for condensing. Cannot proceed.' }),
  }),
  today: Object.freeze({
    name: 'today',
    condensingHandler: false,
    toolBlocks: true,
    nonDestructive: true,
    freshStart: true,
    logs: Object.freeze({ fallback: undefined, invalid: 'API handler is invalid for condensing. Cannot proceed.' }),
  }),
})

/** Roo never times out a summary; this bounds a host call that never settles (overridable). */
const DEFAULT_TIMEOUT_MS = 600_000
/** A stream longer than this (characters of text) is refused: a summary is never that long. */
const MAX_STREAM_CHARS = 4_000_000
/** The stream reader yields to the event loop at least this often (ms) and every so many chunks. */
const YIELD_EVERY_MS = 8
const YIELD_EVERY_CHUNKS = 256

// ---------------------------------------------------------------------------------------------
// Options: per call, over the defaults `configure` sets (each entry has its own).

const PROVIDERS = PROVIDER_IDS
const CONFIG_KEYS = Object.freeze([
  'provider',
  'providerConfig',
  'nonDestructive',
  'telemetry',
  'pricing',
  'errors',
  'summarizeOptions',
  'generateId',
  'defaultPrompt',
  'prepareMessages',
  'summarizeConversation',
  'filesList',
  'strictGrowth',
  'timeoutMs',
  'maxStreamChars',
  'foldedFileContext',
  'requestSystemPrompt',
  'outlineFile',
  'policy',
])
const CALL_KEYS = Object.freeze([...CONFIG_KEYS, 'signal', 'targetTokens'])

function checkKey(key, value, at) {
  const bad = (expected) => new TypeError(`${at}.${key}: expected ${expected}, got ${describe(value)}`)
  switch (key) {
    case 'provider':
      if (!PROVIDERS.includes(value)) throw bad(`one of ${PROVIDERS.map((p) => `"${p}"`).join(', ')}`)
      break
    case 'nonDestructive':
    case 'filesList':
    case 'strictGrowth':
      if (typeof value !== 'boolean') throw bad('true or false')
      break
    case 'generateId':
      if (typeof value !== 'function') throw bad('a function returning a unique string')
      break
    case 'prepareMessages':
      if (typeof value !== 'function') throw bad('a function (messages, apiHandler) => messages')
      break
    case 'summarizeConversation':
      if (typeof value !== 'function') throw bad("a function taking summarizeConversation's arguments")
      break
    case 'outlineFile':
      if (typeof value !== 'function')
        throw bad('a function (absolutePath, rooIgnoreController) => Promise<string | undefined> (an outline of the definitions in a file)')
      break
    case 'foldedFileContext':
      if (typeof value !== 'function') throw bad('a function (filesReadByRoo, { cwd, rooIgnoreController }) => Promise<{ sections: string[] }>')
      break
    case 'defaultPrompt':
    case 'requestSystemPrompt':
      if (typeof value !== 'string') throw bad('a string')
      break
    case 'timeoutMs':
      checkTimeoutMs(value, `${at}.${key}`)
      break
    case 'maxStreamChars':
      if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0) throw bad('a number > 0')
      break
    case 'targetTokens':
      if (typeof value !== 'number' || !Number.isFinite(value) || value < 0) throw bad('a number of tokens >= 0')
      break
    case 'signal':
      if (!isObject(value) || typeof value.aborted !== 'boolean' || typeof value.addEventListener !== 'function') throw bad('an AbortSignal')
      break
    case 'errors':
      if (!isObject(value)) throw bad('an object of messages by Roo i18n key')
      for (const [k, v] of Object.entries(value)) {
        if (!(k in ROO_ERROR_MESSAGES)) throw new TypeError(`${at}.errors.${k}: unknown key, expected one of ${Object.keys(ROO_ERROR_MESSAGES).join(', ')}`)
        if (typeof v !== 'string') throw new TypeError(`${at}.errors.${k}: expected a string, got ${describe(v)}`)
      }
      break
    case 'telemetry':
      if (!isObject(value)) throw bad('an object of telemetry callbacks')
      checkKnownKeys(value, TELEMETRY_KEYS, `${at}.telemetry`)
      for (const k of TELEMETRY_KEYS) optionalFunction(value[k], `${at}.telemetry.${k}`)
      break
    case 'summarizeOptions':
      checkSummarizeOptions(value, `${at}.summarizeOptions`)
      break
    case 'policy':
      // The manager's reading of it, its problems named here.
      readPolicyAt(value, `${at}.policy`)
      break
    case 'pricing':
      if (!isObject(value)) throw bad('an object of prices')
      // The prices as the engine reads them (its Native provider prices a usage chunk with them).
      checkEngineConfig(PROVIDER.native, { pricing: value }, at)
      break
    default: // providerConfig: checked against the provider it runs with (checkProviderConfig)
      if (!isObject(value)) throw bad('an object')
  }
}

/** The callbacks `telemetry` may hold (RooTelemetry). */
const TELEMETRY_KEYS = ['captureContextCondensed', 'captureSlidingWindowTruncation']

/**
 * `config` as the engine reads the config of `provider` (its problems, from the manager's reading
 * of a provider's config: src/manager/config.rs), each named from `at` (`options.pricing.inputPrice`
 * for the pricing of `{ pricing }`). Throws a TypeError listing them.
 */
function checkEngineConfig(provider, config, at) {
  checkJson(config, at)
  const problems = engineConfigProblems(provider, config)
  const name = (p) => `${at}${p.path.replace(/^config\.providers\.\w+/, '')}: ${p.message}`
  if (problems.length > 0) throw new TypeError(problems.map(name).join('; '))
}

/** The engine's problems of `config` as the config of `provider`, paths from `config.providers.<provider>`. */
function engineConfigProblems(provider, config) {
  return configProblems({ providers: { [provider]: config } })
}

/** The providers that can run before Roo's summary. */
const FIRST_STEPS = PROVIDER_IDS.filter((id) => id !== PROVIDER.native)

/**
 * `providerConfig` checked as the config of the provider it runs with: with a first step
 * (`FIRST_STEPS`) that provider's; with Roo's summary alone (which does not read it) a config
 * one of them takes, so a default kept for calls that choose a first step
 * is still one. Problems name it under `at` (`options.providerConfig.keep: …`).
 */
function checkProviderConfig(provider, config, at) {
  const where = `${at}.providerConfig`
  checkJson(config, where)
  const name = (p) => `${where}${p.path.replace(/^config\.providers\.\w+/, '')}: ${p.message}`
  if (FIRST_STEPS.includes(provider)) {
    const problems = engineConfigProblems(provider, config)
    if (problems.length > 0) throw new TypeError(problems.map(name).join('; '))
    return
  }
  const each = FIRST_STEPS.map((p) => [p, engineConfigProblems(p, config)])
  if (each.some(([, problems]) => problems.length === 0)) return
  const relative = (p) => `${p.path.replace(/^config\.providers\.\w+\.?/, '') || 'it'}: ${p.message}`
  throw new TypeError(
    `${where}: a config none of ${FIRST_STEPS.slice(0, -1).join(', ')} and ${FIRST_STEPS[FIRST_STEPS.length - 1]} takes (${each.map(([p, problems]) => `${p}: ${problems.map(relative).join('; ')}`).join(' | ')})`,
  )
}

/** A value JSON has no form for under `at` (an options value on its way to the engine), named by its path. */
function checkJson(value, at) {
  const found = findUnsupported(value, [], { options: true })
  if (found) throw new TypeError(`${at}${found.path.length > 0 ? `.${pathText(found.path)}` : ''}: ${found.message}`)
}

/**
 * The options in `raw` (an object; undefined is none, and so is null where `nullable`, as
 * `configure(null)` clears the defaults), each checked, every key one of `keys`: an unknown key is
 * refused as checks.js refuses one.
 */
function readOptions(raw, keys, at, nullable = false) {
  if (raw === undefined || (raw === null && nullable)) return {}
  if (!isObject(raw)) throw new TypeError(`${at}: expected an object, got ${describe(raw)}`)
  checkKnownKeys(raw, keys, at)
  const out = {}
  for (const [key, value] of Object.entries(raw)) {
    if (value === undefined) continue
    checkKey(key, value, at)
    out[key] = value
  }
  if (out.providerConfig !== undefined && out.provider !== undefined) checkProviderConfig(out.provider, out.providerConfig, at)
  return out
}

/**
 * The options a call runs with: its own over its entry's configured defaults. A call with none of
 * its own gets the defaults' resolved options, kept until `configure` replaces the defaults (a
 * resolved options object is never modified).
 */
function resolveOptions(state, raw, at) {
  const own = readOptions(raw, CALL_KEYS, at)
  if (Object.keys(own).length > 0) {
    const o = { ...state.defaults, ...own }
    // The first step's config as the provider this call runs with reads it (given apart, or by `configure`).
    if (o.providerConfig !== undefined && (own.providerConfig !== undefined || own.provider !== undefined))
      checkProviderConfig(o.provider ?? PROVIDER.native, o.providerConfig, own.providerConfig !== undefined ? at : 'configure: options')
    return resolved(state, o)
  }
  if (state.resolvedFrom !== state.defaults) {
    state.resolved = resolved(state, state.defaults)
    state.resolvedFrom = state.defaults
  }
  return state.resolved
}

function resolved(state, o) {
  return {
    ...o,
    era: state.era,
    provider: o.provider ?? PROVIDER.native,
    nonDestructive: o.nonDestructive ?? state.era.nonDestructive,
    generateId: o.generateId ?? randomUUID,
    errors: o.errors ?? {},
    timeoutMs: o.timeoutMs ?? DEFAULT_TIMEOUT_MS,
    maxStreamChars: o.maxStreamChars ?? MAX_STREAM_CHARS,
  }
}

function capture(telemetry, method, args) {
  if (!telemetry || typeof telemetry[method] !== 'function') return
  try {
    telemetry[method](...args)
  } catch {
    // Telemetry never stops a condensation.
  }
}

/** A message by Roo's key (the host's wording when it gave one), with {{name}} filled in. */
function message(o, key, vars = {}) {
  const text = o && o.errors && typeof o.errors[key] === 'string' ? o.errors[key] : ROO_ERROR_MESSAGES[key]
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (whole, name) => (name in vars ? String(vars[name]) : whole))
}

module.exports = {
  N_MESSAGES_TO_KEEP,
  MIN_CONDENSE_THRESHOLD,
  MAX_CONDENSE_THRESHOLD,
  TOKEN_BUFFER_PERCENTAGE,
  ANTHROPIC_DEFAULT_MAX_TOKENS,
  ROO_ERROR_MESSAGES,
  FINAL_REQUEST,
  FRESH_START_SYSTEM_PROMPT,
  SYNTHETIC_REASONING,
  SYNTHETIC_TOOL_RESULT,
  ERAS,
  YIELD_EVERY_MS,
  YIELD_EVERY_CHUNKS,
  CONFIG_KEYS,
  CALL_KEYS,
  readOptions,
  checkProviderConfig,
  resolveOptions,
  capture,
  message,
}
