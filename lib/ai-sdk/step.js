// The AI SDK's `prepareStep` for agent loops (`createPrepareStep`): condenses a run's messages
// with the manager's policy when they pass the threshold, holding the run's history in the engine
// between steps (one held conversation per run), summaries through the model the host names with
// the host's own `generateText`, and Anthropic's cache breakpoints where the prompt-cache model puts
// them. The conversion is lib/ai-sdk/format.js; the decisions are the manager's. Never mutates the
// caller's messages; never imports the `ai` package.
'use strict'

const { CondensationManager } = require('../manager.js')
const { tag } = require('../internal/errors.js')
const { describe, isObject, wholeNumber } = require('../internal/values.js')
const { checkSignal } = require('../internal/abort.js')
const native = require('../internal/native.js')
const { PROVIDER } = require('../internal/registry.js')
const { checkMessagesArray, checkOptionsObject, optionalFunction, optionalString } = require('../internal/checks.js')

const { CacheModel } = require('../internal/prompt-cache.js')
const { Form, convert, located, read, quoted, INDEX } = require('./format.js')

/** Anthropic's cache breakpoint, as its provider reads it from providerOptions. */
const EPHEMERAL = Object.freeze({ type: 'ephemeral' })

const PREPARE_OPTIONS = [
  'contextWindow',
  'maxTokens',
  'threshold',
  'provider',
  'config',
  'policy',
  'fallback',
  'summarize',
  'summarizeModel',
  'generateText',
  'summarizeOptions',
  'onCondense',
  'signal',
  'systemPrompt',
  'anthropicCacheControl',
]

let runs = 0

/**
 * A `prepareStep` for `generateText` / `streamText` that condenses the step's messages when they
 * pass the threshold, with the manager's policy, holding the run's history in the engine between
 * steps. One per run (a run's steps share what it holds); `close()` lets it go.
 */
function createPrepareStep(options) {
  const fn = 'createPrepareStep'
  const opts = checkOptionsObject(options, fn, PREPARE_OPTIONS)
  if (options === undefined) throw new TypeError(`${fn}: options: expected an object with contextWindow, got undefined`)
  const {
    contextWindow,
    maxTokens,
    threshold,
    provider = PROVIDER.smart,
    config,
    policy,
    fallback,
    summarizeModel,
    generateText,
    summarizeOptions,
    onCondense,
    signal,
    systemPrompt,
    anthropicCacheControl = false,
  } = opts
  if (typeof contextWindow !== 'number' || !Number.isSafeInteger(contextWindow) || contextWindow <= 0)
    throw new RangeError(`${fn}: options.contextWindow: expected a whole number of tokens above 0, got ${describe(contextWindow)}`)
  if (maxTokens !== undefined) wholeNumber(maxTokens, `${fn}: options.maxTokens`, 0)
  const providers = native.providerCatalogue().providers.map((p) => p.id)
  if (!providers.includes(provider)) throw new TypeError(`${fn}: options.provider: expected one of ${quoted(providers)}, got ${describe(provider)}`)
  optionalString(systemPrompt, `${fn}: options.systemPrompt`)
  if (typeof anthropicCacheControl !== 'boolean')
    throw new TypeError(`${fn}: options.anthropicCacheControl: expected true or false, got ${describe(anthropicCacheControl)}`)
  checkSignal(signal, `${fn}: options.signal`)
  optionalFunction(opts.summarize, `${fn}: options.summarize`, 'an async function answering a summary')
  optionalFunction(generateText, `${fn}: options.generateText`, "the AI SDK's generateText")
  optionalFunction(onCondense, `${fn}: options.onCondense`, 'a function')
  if (summarizeModel !== undefined && generateText === undefined)
    throw new TypeError(`${fn}: options.generateText: expected the AI SDK's generateText, to call options.summarizeModel with`)
  if (summarizeModel !== undefined && opts.summarize !== undefined)
    throw new TypeError(`${fn}: options.summarize: give either summarize or summarizeModel, not both`)
  const summarize = opts.summarize ?? (summarizeModel !== undefined ? modelSummarizer(generateText, summarizeModel) : undefined)
  const managerConfig = { provider, providers: config === undefined ? {} : { [provider]: config } }
  if (threshold !== undefined) managerConfig.threshold = threshold
  if (fallback !== undefined) managerConfig.fallback = fallback
  const manager = new CondensationManager({ config: managerConfig, policy, summarize, summarizeOptions, conversations: 1 })
  // The manager's cache-aware policies price each request with the system prompt, which the SDK
  // does not hand prepareStep: asked for here, where the host can be told which option it is.
  if (manager.policy.name !== 'default' && systemPrompt === undefined)
    throw new TypeError(
      `${fn}: options.systemPrompt: the ${manager.policy.name} policy prices each request with the run's system prompt; give it (prepareStep is not given it)`,
    )
  const taskId = `ai-sdk-run-${++runs}`
  const form = new Form('prepareStep')
  /** The SDK messages of the last step as given, and as condensed (what the model got). */
  let seen = []
  let sent
  let turn = Promise.resolve()
  let closed = false
  const steps = []

  async function step(input) {
    if (closed) throw new TypeError('prepareStep: the helper was closed; make one per run with createPrepareStep')
    if (!isObject(input)) throw new TypeError(`prepareStep: options: expected the SDK's step options ({ messages, stepNumber, … }), got ${describe(input)}`)
    const messages = read(input, 'messages', 'options', 'prepareStep')
    checkMessagesArray(messages, 'prepareStep', 'options.messages')
    const stepNumber = wholeNumber(read(input, 'stepNumber', 'options', 'prepareStep'), 'prepareStep: options.stepNumber', 0)
    // What the run added since the last step is appended to what the model got then; a history
    // that does not begin with the last one is taken as a new start.
    const continues = sent !== undefined && seen.length <= messages.length && seen.every((m, i) => m === messages[i])
    const history = continues ? sent.concat(messages.slice(seen.length)) : messages
    const conversion = convert(form, history)
    let r
    try {
      const context = { contextWindow, taskId }
      if (maxTokens !== undefined) context.maxTokens = maxTokens
      if (signal !== undefined) context.signal = signal
      if (systemPrompt !== undefined) context.systemPrompt = systemPrompt
      r = await manager.condenseIfNeeded(conversion.messages, context)
    } catch (e) {
      throw located(e, conversion)
    }
    const out = r.condensed ? conversion.restore(r.messages) : history
    const record = {
      stepNumber,
      condensed: r.condensed,
      provider: r.provider,
      messagesIn: messages.length,
      messagesOut: out.length,
      prevContextTokens: r.prevContextTokens,
      newContextTokens: r.newContextTokens,
      summary: r.summary,
      cost: r.cost,
      report: r.report,
      skipped: r.skipped,
      error: r.error === undefined ? undefined : conversion.locate(r.error),
    }
    steps.push(record)
    seen = messages.slice()
    sent = out
    if (onCondense && r.condensed) onCondense({ ...record, messages: out })
    if (anthropicCacheControl) return withBreakpoints(form, out, systemPrompt)
    // Nothing condensed in this run yet: the SDK's own messages stand.
    return out === messages ? undefined : { messages: out }
  }

  const prepareStep = (input) => {
    // Steps of one run take turns (a host calling it twice at once gets them in order).
    const result = turn.then(() => step(input))
    turn = result.catch(() => {})
    return result.catch((e) => {
      throw tag(e)
    })
  }
  Object.defineProperties(prepareStep, {
    steps: { get: () => steps.slice(), enumerable: true },
    last: { get: () => steps[steps.length - 1], enumerable: true },
    close: {
      value: async () => {
        closed = true
        await turn
        await manager.closeConversations(taskId)
      },
    },
  })
  return prepareStep
}

/** `providerOptions` with Anthropic's cache breakpoint added. */
function withEphemeral(providerOptions) {
  const given = isObject(providerOptions) ? providerOptions : {}
  return { ...given, anthropic: { ...(isObject(given.anthropic) ? given.anthropic : {}), cacheControl: EPHEMERAL } }
}

/**
 * What a step hands the SDK with Anthropic's cache breakpoints where the cache-aware policy's
 * model puts them (src/cache_model.rs `breakpoints`, through lib/internal/prompt-cache.js: the system
 * prompt and the last two user messages of the engine's form, a tool message being one): copies of
 * those messages with
 * `providerOptions.anthropic.cacheControl`, and the system prompt as a system message with it when
 * the host gave it. The run keeps the messages without them (what it holds stays the same objects).
 */
function withBreakpoints(form, messages, systemPrompt) {
  const conversion = convert(form, messages)
  const marked = messages.slice()
  for (const b of CacheModel.breakpoints(conversion.messages)) {
    if (b === 0) continue
    const i = conversion[INDEX][b - 1]
    marked[i] = { ...messages[i], providerOptions: withEphemeral(messages[i].providerOptions) }
  }
  const out = { messages: marked }
  if (systemPrompt !== undefined) out.system = { role: 'system', content: systemPrompt, providerOptions: { anthropic: { cacheControl: EPHEMERAL } } }
  return out
}

/** A summarize callback that asks `model` through the host's `generateText`. */
function modelSummarizer(generateText, model) {
  return async (request, { signal }) => {
    const r = await generateText({
      model,
      system: request.systemPrompt,
      messages: request.messages.map((m) => ({ role: m.role, content: m.content })),
      maxOutputTokens: request.maxTokens,
      abortSignal: signal,
    })
    const usage = isObject(r.usage) ? r.usage : {}
    return {
      text: String(r.text ?? ''),
      ...(Number.isFinite(usage.inputTokens) ? { inputTokens: usage.inputTokens } : {}),
      ...(Number.isFinite(usage.outputTokens) ? { outputTokens: usage.outputTokens } : {}),
    }
  }
}

module.exports = { createPrepareStep }
