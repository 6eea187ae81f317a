// The Node side of the settings panel: collects what the panel renders from (every provider's
// JSON Schema, the manager's, the Smart presets as the engine defines them, the default prompts)
// into one JSON object a host sends to its webview, and runs the panel's previews on a history.
// Reads the engine; holds no state and changes nothing it is given.
'use strict'

const { condense, configSchema, managerConfigSchema, providerCatalogue, smartPreset } = require('../index.js')
const native = require('../internal/native.js')
const { PROVIDER, DEFAULT_PROVIDER, DEFAULT_PRESET, PRESETS, GENERAL_PRESETS } = require('../internal/registry.js')
const { checkMessagesArray, checkOptionsObject, optionalFunction } = require('../internal/checks.js')
const { configProblems } = require('../manager.js')
const { coded } = require('../internal/errors.js')
const { describe, isObject } = require('../internal/values.js')
const { POLICY_NAMES, describePolicy } = require('../internal/cache-aware.js')
const { readPolicyAt } = require('../internal/policy-option.js')
const { DEFAULT_PRICING } = require('../internal/prompt-cache.js')

/** The policy the panel offers when the host gives none (the manager's without a `policy` option). */
const DEFAULT_POLICY = POLICY_NAMES[0]
/** The prompt-cache models the cache-aware policies price requests with, the first the default. */
const CACHE_MODELS = Object.keys(DEFAULT_PRICING)

/**
 * The JSON Schema of the policy as the panel offers it: the manager's `policy` option in its object
 * form, its name and, for the cache-aware ones, the prompt-cache model (the policy's other settings
 * are given in code). What the manager accepts of these is `readPolicy`'s (lib/internal/cache-aware.js);
 * a test holds the two to the same answers.
 */
function policySchema() {
  const cache = { enum: CACHE_MODELS, default: CACHE_MODELS[0], description: "The provider's prompt cache the requests are priced with." }
  const branch = (name, title, description, withCache) => ({
    type: 'object',
    title,
    description,
    properties: withCache ? { name: { const: name }, cache } : { name: { const: name } },
    required: ['name'],
    additionalProperties: false,
  })
  const [plain, aware, strict] = POLICY_NAMES
  return {
    title: 'Policy',
    description: "When to condense, and the manager's `policy` option (given beside its config).",
    oneOf: [
      branch(plain, 'Default', 'Condense at the threshold with the chosen strategy.', false),
      branch(
        aware,
        'Cache-aware',
        "Also condense before the threshold, in batches and only where the prompt cache's price says it pays, and summarize at most half as often as the default; a step is taken only while the task would cost at most 1.02 times the default's bill.",
        true,
      ),
      branch(strict, 'Cache-aware, strict', 'The same, without the Lossless operations that point a newer copy at an older one.', true),
    ],
  }
}

/** The built-in providers as the engine's catalogue lists them, with whether each calls the model. */
const providers = () =>
  providerCatalogue().providers.map((p) => ({ id: p.id, name: p.name, description: p.description, summarizes: p.capabilities.supportsLLMSummarization }))

/** Everything the panel renders from, as plain JSON. */
function settingsSchemasUncoded() {
  return {
    providers: providers().map((p) => ({ ...p, schema: configSchema(p.id) })),
    manager: managerConfigSchema(),
    // Every preset the engine has, in its order; `general` marks the all-round ones (the others
    // are each for one use).
    presets: PRESETS.map((name) => ({ name, general: GENERAL_PRESETS.includes(name), config: smartPreset(name) })),
    prompts: native.defaultPrompts(),
    // The manager's `policy` option (given apart from its config: `new CondensationManager({ config, policy })`).
    policy: policySchema(),
    // The names the panel's code needs (it runs in the browser, where the engine is not).
    names: { defaultProvider: DEFAULT_PROVIDER, presetProvider: PROVIDER.smart, defaultPreset: DEFAULT_PRESET, defaultPolicy: DEFAULT_POLICY },
  }
}

/**
 * The arguments of a preview, checked (a TypeError naming the bad one): the history, the settings
 * (the manager configuration, checked as the manager checks its config, its problems named under
 * `settings`) and, for previewOnHistory, its options (`summarize` a function, no other key).
 */
function checkPreviewArgs(fn, messages, settings, options) {
  checkMessagesArray(messages, fn)
  if (!isObject(settings)) throw new TypeError(`${fn}: settings: expected the manager configuration, an object, got ${describe(settings)}`)
  if (settings.providers !== undefined && !isObject(settings.providers))
    throw new TypeError(`${fn}: settings.providers: expected an object of provider configs by id, got ${describe(settings.providers)}`)
  const problems = configProblems(settings)
  if (problems.length > 0) {
    const named = problems.map((p) => `${p.path.replace(/^config/, 'settings')}: ${p.message}`)
    throw new TypeError(`${fn}: ${named.join('; ')}`)
  }
  if (options === undefined) return undefined
  const { summarize, policy } = checkOptionsObject(options, fn, ['summarize', 'policy'])
  optionalFunction(summarize, `${fn}: options.summarize`, 'an async function')
  // As the manager reads it (its problems named here), its defaults filled in.
  return policy === undefined ? undefined : describePolicy(readPolicyAt(policy, `${fn}: options.policy`))
}

/**
 * What each provider would do to `messages` under `settings` (the manager configuration):
 * `{ tokensBefore, rows: [{ provider, name, tokensAfter, messagesChanged, note? }] }`. Native runs
 * only when `options.summarize` is given (it calls the model); otherwise its row says so. With
 * `options.policy` (the manager's `policy` option, checked as the manager checks it) the result also
 * holds `policy`: it as the manager reads it (`manager.policy`, its defaults filled in).
 */
async function previewOnHistoryUncoded(messages, settings = {}, options = {}) {
  const policy = checkPreviewArgs('previewOnHistory', messages, settings, options)
  const rows = []
  let tokensBefore
  for (const p of providers()) {
    // As the manager runs it (Smart with neither a preset nor passes runs the default preset).
    const config = settings.providers?.[p.id] ?? {}
    if (p.id === PROVIDER.native && !options.summarize) {
      rows.push({ provider: p.id, name: p.name, tokensAfter: null, note: 'Writes a summary with your model: not run in the preview.' })
      continue
    }
    try {
      const r = await condense(messages, { provider: p.id, config, ...(options.summarize ? { summarize: options.summarize } : {}) })
      tokensBefore = r.metrics.tokensBefore
      rows.push({
        provider: p.id,
        name: p.name,
        tokensAfter: r.error ? r.metrics.tokensBefore : r.metrics.tokensAfter,
        messagesChanged: r.metrics.messagesChanged,
        ...(r.error ? { note: r.error } : {}),
      })
    } catch (e) {
      rows.push({ provider: p.id, name: p.name, tokensAfter: null, note: e.message })
    }
  }
  return { tokensBefore: tokensBefore ?? 0, rows, ...(policy ? { policy } : {}) }
}

/**
 * The first request Native would send the summarizer for `messages` under `settings`: the engine
 * builds it and this captures it (the stand-in answer is discarded). Null when Native would not
 * summarize (too few messages).
 */
async function summaryRequestForUncoded(messages, settings = {}) {
  checkPreviewArgs('summaryRequestFor', messages, settings)
  let request = null
  const config = settings.providers?.[PROVIDER.native]
  await condense(messages, {
    provider: PROVIDER.native,
    ...(config ? { config } : {}),
    summarize: (r) => {
      request ??= r
      return 'preview'
    },
  })
  return request
}

// Their errors carry `errorCode` as the main entry's do (lib/internal/errors.js).
const settingsSchemas = coded(settingsSchemasUncoded)
const previewOnHistory = coded(previewOnHistoryUncoded)
const summaryRequestFor = coded(summaryRequestForUncoded)

module.exports = { settingsSchemas, previewOnHistory, summaryRequestFor }
