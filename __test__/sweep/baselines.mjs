// The hostile sweep's table of valid baseline arguments: for every callable of the public surface
// (ids as __test__/sweep/surface.cjs names them, keyed `<entry>:<id>`), one valid call. The sweep
// replaces one argument, one option key or one element of it at a time with a hostile value and
// keeps the rest of this call. A callable that is in the .d.ts files but not here fails the sweep,
// so a new export, method or getter gets an entry when it is added.
//
// An entry: `make()` answers `{ self, args }` (the receiver of a method, getter or setter, made
// fresh for every call, and the valid arguments); optional:
//   `skip`: why the sweep cannot call it here (then it is not swept; say where it is tested);
//   `opaque`: parameter names whose keys are not swept one by one (an identity token, not options),
//     or such a key of an options parameter (`options.replay`: a result handed back, not options);
//   `aliases`: parameter name -> other words an error may name it by ("unknown preset" for `name`);
//   `lenient`: a place (a parameter's position, or the place as the sweep shows it: `content`,
//     `options.condensingApiHandler`) -> why a value its type rules out may be accepted there (a
//     documented leniency: for the Roo entries, one Roo's own specs require);
//   `identity`: parameter names whose value is an identity token: its frozen variant is the valid
//     value itself, frozen in place (a copy would be refused for not being the same object);
//   `mayChange`: parameter name -> why the call may change it (documented: adopt fills in the result);
//   `privateConstructor`: a constructor the types make private: calling it must be refused clearly;
//   `after(entry)`: undoes what a call leaves behind in module state (configure's defaults).
// Builds only test data (a generated history, stand-in callbacks); touches no file.
import { generateHistory } from '../../fixtures/generate.mjs'

/** A generated history, made once and copied for each call (a call gets objects of its own). */
const generated = (options) => {
  let made
  return () => structuredClone((made ??= generateHistory(options)))
}
/** A small valid history (10 messages, XML tools): every provider has something to do on it. */
export const history = generated({ seed: 1, format: 'xml', targetTokens: 4000 })
const second = generated({ seed: 2, format: 'xml', targetTokens: 4000 })
const nativeTools = generated({ seed: 4, format: 'native', targetTokens: 4000 })
/** Messages a conversation can take after `history()`. */
const more = () => second().slice(1, 3)
/** Roo's own test conversation (src/core/condense/__tests__/index.spec.ts). */
const rooConversation = () => [
  { role: 'user', content: 'Hello', ts: 1 },
  { role: 'assistant', content: 'Hi there', ts: 2 },
  { role: 'user', content: 'How are you?', ts: 3 },
  { role: 'assistant', content: "I'm good", ts: 4 },
  { role: 'user', content: "What's new?", ts: 5 },
  { role: 'assistant', content: 'Not much', ts: 6 },
  { role: 'user', content: 'Tell me more', ts: 7 },
]

/** A deterministic summarize callback. */
export const summarize = async (request) => ({ text: `Summary of ${request.messages.length} messages.` })

/** A Roo ApiHandler: a two-chunk stream and a character count. */
const apiHandler = () => ({
  createMessage: (_systemPrompt, _messages) =>
    (async function* () {
      yield { type: 'text', text: 'This is a summary' }
      yield { type: 'usage', inputTokens: 100, outputTokens: 50, totalCost: 0.05 }
    })(),
  countTokens: async (blocks) => blocks.reduce((n, b) => n + (b.type === 'text' && typeof b.text === 'string' ? b.text.length : 0), 0),
})
const telemetry = () => ({ captureContextCondensed() {}, captureSlidingWindowTruncation() {} })
const pricing = () => ({ inputPrice: 3, outputPrice: 15, cacheWritesPrice: 3.75, cacheReadsPrice: 0.3 })
const signal = () => new AbortController().signal
const summarizeOptions = () => ({ concurrency: 2, timeoutMs: 5000, retries: 0, retryDelayMs: 10 })

/** Each Roo entry's options of one call (this package's, beside Roo's arguments). */
const rooCallOptions = () => ({ timeoutMs: 5000, summarizeOptions: summarizeOptions(), signal: signal() })

/** `{ self, args }` with no receiver. */
const call = (args) => () => ({ self: undefined, args: args() })

/**
 * The table. `lib` holds the loaded entries by name (main, roo, roo-2025, roo-2026-01,
 * openai-client, openai-format, settings, settings/schemas, report-html); `llmUrl` is a stand-in
 * chat-completions server's base URL.
 */
export function baselineTable({ lib, llmUrl }) {
  const main = lib.main
  const t = {}
  const add = (entry, id, spec) => {
    t[`${entry}:${id}`] = typeof spec === 'function' ? { make: spec } : spec
  }

  // --- The main entry.
  add(
    'main',
    'condense',
    call(() => [history(), { provider: 'native', summarize, summarizeOptions: summarizeOptions(), signal: signal(), config: { keepLast: 3 } }]),
  )
  add(
    'main',
    'countTokens',
    call(() => [history(), { encoding: 'o200k_base', format: 'anthropic' }]),
  )
  add(
    'main',
    'countTokensAsync',
    call(() => [history(), { encoding: 'o200k_base', format: 'anthropic' }]),
  )
  add(
    'main',
    'providerCatalogue',
    call(() => []),
  )
  add(
    'main',
    'configSchema',
    call(() => ['smart']),
  )
  add('main', 'smartPreset', { aliases: { name: ['preset'] }, make: call(() => ['balanced']) })
  add(
    'main',
    'clearTokenCache',
    call(() => []),
  )
  add(
    'main',
    'expandReferences',
    call(() => [history()]),
  )
  add(
    'main',
    'validateConversation',
    call(() => [history()]),
  )
  add(
    'main',
    'repairConversation',
    call(() => [history()]),
  )
  add(
    'main',
    'analyze',
    call(() => [history(), { encoding: 'o200k_base', format: 'anthropic' }]),
  )
  add(
    'main',
    'analyzeAsync',
    call(() => [history(), { encoding: 'o200k_base', format: 'anthropic' }]),
  )
  add(
    'main',
    'workingSet',
    call(() => [history(), { turns: 10, budgetTokens: 20_000, text: true, encoding: 'o200k_base' }]),
  )
  add(
    'main',
    'workingSetAsync',
    call(() => [history(), { turns: 10, budgetTokens: 20_000, text: true, encoding: 'o200k_base' }]),
  )
  add(
    'main',
    'openConversation',
    call(() => [history(), { encoding: 'o200k_base', signal: signal() }]),
  )
  add('main', 'Conversation', { privateConstructor: true, make: call(() => []) })
  const conversation = async () => main.openConversation(history())
  for (const g of ['length', 'messages', 'encoding', 'tokens', 'closed'])
    add('main', `Conversation.${g}`, async () => ({ self: await conversation(), args: [] }))
  add('main', 'Conversation#tokensOf', async () => ({ self: await conversation(), args: [1] }))
  add('main', 'Conversation#count', async () => ({ self: await conversation(), args: [] }))
  add('main', 'Conversation#append', async () => ({ self: await conversation(), args: [more()] }))
  add('main', 'Conversation#replace', async () => ({ self: await conversation(), args: [1, history()[1]] }))
  add('main', 'Conversation#truncate', async () => ({ self: await conversation(), args: [4] }))
  add('main', 'Conversation#sync', async () => ({ self: await conversation(), args: [history().slice(0, 6)] }))
  add('main', 'Conversation#analyze', async () => ({ self: await conversation(), args: [] }))
  add('main', 'Conversation#condense', async () => ({
    self: await conversation(),
    args: [{ provider: 'native', summarize, summarizeOptions: summarizeOptions(), signal: signal(), config: { keepLast: 3 }, adopt: true }],
  }))
  add('main', 'Conversation#adopt', {
    // The result is an identity token (the last condense's, unchanged since): its keys are not
    // options, and its frozen variant is the result itself, frozen in place.
    opaque: ['result'],
    identity: ['result'],
    mayChange: { result: 'adopt fills in result.changed and result.layout, as ConversationCondenseResult documents' },
    make: async () => {
      const self = await conversation()
      const result = await self.condense({ provider: 'lossless', adopt: false })
      return { self, args: [result] }
    },
  })
  add('main', 'Conversation#close', async () => ({ self: await conversation(), args: [] }))
  const managerOptions = () => ({
    config: { provider: 'lossless', threshold: 5, fallback: true },
    policy: 'default',
    summarize,
    summarizeOptions: summarizeOptions(),
    telemetry: telemetry(),
    now: () => Date.now(),
    conversations: 2,
  })
  add(
    'main',
    'CondensationManager',
    call(() => [managerOptions()]),
  )
  const manager = () => new main.CondensationManager(managerOptions())
  add('main', 'CondensationManager.policy', () => ({ self: manager(), args: [] }))
  const customProvider = () => ({
    id: 'mine',
    name: 'Mine',
    description: 'keeps everything',
    capabilities: { supportsLossless: true, estimatedSpeed: 'fast' },
    configSchema: { type: 'object' },
    validateConfig: () => [],
    condense: async (messages) => ({ messages }),
    estimateReduction: async () => ({
      tokensBefore: 1,
      tokensAfter: 1,
      tokensSaved: 0,
      reductionPercent: 0,
      cost: 0,
      llmCalls: 0,
      inputTokens: 0,
      outputTokens: 0,
      exact: true,
    }),
  })
  add('main', 'CondensationManager#registerProvider', () => ({ self: manager(), args: [customProvider()] }))
  add('main', 'CondensationManager#unregisterProvider', () => {
    const self = manager()
    self.registerProvider(customProvider())
    return { self, args: ['mine'] }
  })
  add('main', 'CondensationManager#listProviders', () => ({ self: manager(), args: [] }))
  const managerConfig = () => ({
    provider: 'lossless',
    providers: { lossless: { keep: 'first' } },
    autoCondense: true,
    threshold: 50,
    profileThresholds: { fast: 40 },
    triggers: { triggerPercent: 60, stopPercent: 40, minGainTokens: 0, minGainPercent: 0 },
    providerTriggers: {},
    profileTriggers: {},
    fallback: true,
    loopGuard: { maxAttempts: 3, coolDownMs: 1000 },
    condensingProfileId: 'fast',
  })
  add('main', 'CondensationManager#validateConfig', () => ({ self: manager(), args: [managerConfig()] }))
  add('main', 'CondensationManager#setConfig', () => ({ self: manager(), args: [managerConfig()] }))
  add('main', 'CondensationManager#exportConfig', () => ({ self: manager(), args: [] }))
  add('main', 'CondensationManager#importConfig', () => ({ self: manager(), args: [JSON.stringify(managerConfig())] }))
  add('main', 'CondensationManager#getEffectiveThreshold', () => ({ self: manager(), args: ['fast', 'lossless'] }))
  const situation = () => ({ totalTokens: 3000, lastMessageTokens: 100, contextWindow: 10_000, maxTokens: 1000, profileId: 'fast', provider: 'lossless' })
  add('main', 'CondensationManager#decide', () => ({ self: manager(), args: [situation()] }))
  add('main', 'CondensationManager#shouldCondense', () => ({ self: manager(), args: [situation()] }))
  add('main', 'CondensationManager#condenseIfNeeded', () => ({
    self: manager(),
    args: [
      history(),
      { contextWindow: 4000, maxTokens: 500, profileId: 'fast', taskId: 'task-1', signal: signal(), summarize, force: true, isAutomaticTrigger: true },
    ],
  }))
  const estimateOptions = () => ({ provider: 'native', pricing: pricing(), summarize, prevContextTokens: 3000 })
  add('main', 'CondensationManager#estimateReduction', () => ({ self: manager(), args: [history(), estimateOptions()] }))
  add('main', 'CondensationManager#estimateCost', () => ({ self: manager(), args: [history(), estimateOptions()] }))
  add('main', 'CondensationManager#closeConversations', async () => {
    const self = manager()
    await self.condenseIfNeeded(history(), { contextWindow: 4000, taskId: 'task-1' })
    return { self, args: ['task-1'] }
  })
  add(
    'main',
    'managerConfigSchema',
    call(() => []),
  )
  add(
    'main',
    'slidingWindow',
    call(() => [history(), 0.5]),
  )
  add(
    'main',
    'replay',
    call(() => [
      history(),
      {
        policy: 'roo-default',
        contextWindow: 3000,
        threshold: 100,
        maxTokens: 200,
        systemTokens: 200,
        summaryTokens: 100,
        cache: 'anthropic',
        workingSetTurns: 4,
        signal: signal(),
      },
    ]),
  )

  // --- The Roo entries: today's, January 2026's, 2025's. `configure` changes the entry's defaults:
  // each call is undone. Roo's own message for a handler without createMessage names the handler
  // in words.
  const handler = { aliases: { createMessage: ['API handler'], apiHandler: ['API handler'], condensingApiHandler: ['API handler'] } }
  // Roo's rules that take values the types leave out, each one Roo's own specs hold the entries to
  // (scripts/roo-compat.sh):
  // - estimateTokenCount counts no content at all (undefined, null) as 0 (context-management.spec.ts,
  //   sliding-window.spec.ts: "should return 0 for empty or undefined content");
  // - 2025's summary falls back to the main handler when the condensing handler is not one (its
  //   createMessage not a function), with Roo's console.warn (index.spec.ts: "should fall back to
  //   mainApiHandler if condensingApiHandler is invalid"), and with a condensing handler that is one,
  //   the main handler's createMessage is never called.
  const noContent = { content: 'Roo counts no content (undefined, null) as 0; its specs call estimateTokenCount(undefined, handler)' }
  const fallback =
    "2025's Roo uses the condensing handler only when its createMessage is a function, else the main one (console.warn); the main one's createMessage is not called while the condensing one works"
  const lenient2025 = {
    condensingApiHandler: fallback,
    'condensingApiHandler.createMessage': fallback,
    apiHandler: fallback,
    'apiHandler.createMessage': fallback,
  }
  for (const era of ['roo', 'roo-2025', 'roo-2026-01']) {
    const roo = lib[era]
    const after = () => roo.configure()
    add(era, 'configure', {
      after,
      make: call(() => [{ provider: 'lossless', timeoutMs: 5000, summarizeOptions: summarizeOptions(), nonDestructive: true, filesList: false }]),
    })
    add(
      era,
      'configuration',
      call(() => []),
    )
    add(
      era,
      'truncateConversation',
      call(() => [rooConversation(), 0.5, 'task-1', { nonDestructive: true, telemetry: telemetry(), generateId: () => 'id-1' }]),
    )
    add(
      era,
      'getMessagesSinceLastSummary',
      call(() => [rooConversation()]),
    )
    add(era, 'estimateTokenCount', {
      lenient: noContent,
      make: call(() => [[{ type: 'text', text: 'hello there' }], apiHandler()]),
    })
    add(
      era,
      'getEffectiveApiHistory',
      call(() => [rooConversation()]),
    )
    add(
      era,
      'cleanupAfterTruncation',
      call(() => [rooConversation()]),
    )
    add(
      era,
      'rewindConversation',
      call(() => [rooConversation(), { index: 3 }]),
    )
    const manage = () => ({
      messages: rooConversation(),
      totalTokens: 1000,
      contextWindow: 1200,
      maxTokens: 100,
      apiHandler: apiHandler(),
      autoCondenseContext: true,
      autoCondenseContextPercent: 50,
      systemPrompt: 'SYSTEM',
      taskId: 'task-1',
      profileThresholds: {},
      currentProfileId: 'default',
      ...rooCallOptions(),
    })
    if (era !== 'roo-2025') {
      add(era, 'manageContext', { ...handler, make: call(() => [manage()]) })
      add(
        era,
        'willManageContext',
        call(() => [
          {
            totalTokens: 1000,
            contextWindow: 1200,
            maxTokens: 100,
            autoCondenseContext: true,
            autoCondenseContextPercent: 50,
            profileThresholds: {},
            currentProfileId: 'default',
            lastMessageTokens: 10,
          },
        ]),
      )
    }
    if (era === 'roo-2025')
      add(era, 'truncateConversationIfNeeded', {
        ...handler,
        lenient: { 'options.condensingApiHandler': fallback, 'options.condensingApiHandler.createMessage': fallback },
        make: call(() => [manage()]),
      })
  }
  add('roo', 'summarizeConversation/1', {
    ...handler,
    // An array first is the other overload's `messages` (the positional call): its errors name them.
    aliases: { ...handler.aliases, options: ['messages'] },
    make: call(() => [
      { messages: rooConversation(), apiHandler: apiHandler(), systemPrompt: 'SYSTEM', taskId: 'task-1', isAutomaticTrigger: false, ...rooCallOptions() },
    ]),
  })
  add('roo', 'summarizeConversation/9', {
    ...handler,
    make: call(() => [rooConversation(), apiHandler(), 'SYSTEM', 'task-1', 1000, false, 'Custom prompt', { tools: [] }, rooCallOptions()]),
  })
  add('roo-2026-01', 'summarizeConversation', {
    ...handler,
    make: call(() => [rooConversation(), apiHandler(), 'SYSTEM', 'task-1', 1000, false, 'Custom prompt', rooCallOptions()]),
  })
  add('roo-2025', 'summarizeConversation', {
    ...handler,
    lenient: lenient2025,
    make: call(() => [rooConversation(), apiHandler(), 'SYSTEM', 'task-1', 1000, false, 'Custom prompt', apiHandler(), rooCallOptions()]),
  })
  add(
    'roo-2026-01',
    'getKeepMessagesWithToolBlocks',
    call(() => [history(), 3]),
  )
  add(
    'roo',
    'toolUseToText',
    call(() => [{ type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } }]),
  )
  add(
    'roo',
    'toolResultToText',
    call(() => [{ type: 'tool_result', tool_use_id: 'toolu_1', content: 'const a = 1', is_error: false }]),
  )
  add(
    'roo',
    'convertToolBlocksToText',
    call(() => [
      [
        { type: 'text', text: 'Reading it.' },
        { type: 'tool_use', id: 'toolu_1', name: 'read_file', input: { path: 'src/a.ts' } },
      ],
    ]),
  )
  add(
    'roo',
    'transformMessagesForCondensing',
    call(() => [history()]),
  )
  add(
    'roo',
    'injectSyntheticToolResults',
    call(() => [history()]),
  )
  add(
    'roo',
    'extractCommandBlocks',
    call(() => [{ role: 'user', content: 'Run it: <command name="test">npm test</command>' }]),
  )
  add(
    'roo',
    'generateFoldedFileContext',
    call(() => [['src/a.ts', 'src/b.ts'], { cwd: '/workspace', maxCharacters: 2000, outlineFile: async (p) => `1--3 | export function f() // ${p}` }]),
  )

  // --- openai-client: the summarizer asks a stand-in server on 127.0.0.1.
  const client = lib['openai-client']
  const clientOptions = () => ({
    url: llmUrl,
    model: 'stand-in',
    apiKey: 'key',
    stream: false,
    timeoutMs: 5000,
    headers: { 'x-test': 'yes' },
    body: { temperature: 0 },
  })
  add(
    'openai-client',
    'createOpenAISummarizer',
    call(() => [clientOptions()]),
  )
  add('openai-client', 'createOpenAISummarizer()()', () => ({
    self: client.createOpenAISummarizer(clientOptions()),
    args: [
      { purpose: 'conversation', systemPrompt: 'Summarize.', messages: [{ role: 'user', content: 'Hello' }], maxTokens: 100, taskId: 'task-1' },
      { signal: signal() },
    ],
  }))
  add('openai-client', 'createOpenAISummarizer().endpoint', () => ({ self: client.createOpenAISummarizer(clientOptions()), args: [] }))
  add(
    'openai-client',
    'chatCompletionsUrl',
    call(() => [llmUrl]),
  )
  // An Error subclass: its constructor, like Error's, takes any message; its fields are data.
  const lenientError = { 0: 'an Error subclass: like Error, it makes a message of any value' }
  add('openai-client', 'OpenAIClientError', { lenient: lenientError, make: call(() => ['the server failed']) })
  const clientError = () => new client.OpenAIClientError('the server failed', 'http', { status: 500 })
  for (const f of ['name', 'code', 'status']) {
    add('openai-client', `OpenAIClientError.${f}`, () => ({ self: clientError(), args: [] }))
    add('openai-client', `OpenAIClientError.${f}=`, { skip: 'a data field of an error the library makes, not a setter with rules' })
  }

  // --- openai-format.
  const format = lib['openai-format']
  const openaiHistory = () => format.fromAnthropic(nativeTools())
  add(
    'openai-format',
    'detectFormat',
    call(() => [openaiHistory()]),
  )
  add(
    'openai-format',
    'toAnthropic',
    call(() => [openaiHistory()]),
  )
  add(
    'openai-format',
    'fromAnthropic',
    call(() => [history()]),
  )
  add('openai-format', 'toAnthropic()#restore', () => {
    const self = format.toAnthropic(openaiHistory())
    return { self, args: [self.messages] }
  })
  add('openai-format', 'toAnthropic()#locate', () => ({ self: format.toAnthropic(openaiHistory()), args: ['messages[2].content[0].text: expected a string'] }))
  add('openai-format', 'toAnthropic()#finish', {
    // A result condense made, handed back: its fields are passed through, not options.
    opaque: ['result'],
    make: async () => {
      const self = format.toAnthropic(openaiHistory())
      return { self, args: [await main.condense(self.messages, { provider: 'lossless' })] }
    },
  })

  // --- ai-sdk: AI SDK messages (the generated native history converted), a run's prepareStep.
  const aiSdk = lib['ai-sdk']
  const sdkHistory = () => aiSdk.fromEngine(nativeTools())
  add(
    'ai-sdk',
    'toEngine',
    call(() => [sdkHistory()]),
  )
  add(
    'ai-sdk',
    'fromEngine',
    call(() => [nativeTools()]),
  )
  add(
    'ai-sdk',
    'condense',
    call(() => [sdkHistory(), { provider: 'native', summarize, summarizeOptions: summarizeOptions(), signal: signal(), config: { keepLast: 3 } }]),
  )
  add(
    'ai-sdk',
    'expandReferences',
    call(() => [sdkHistory()]),
  )
  add(
    'ai-sdk',
    'createPrepareStep',
    call(() => [{ contextWindow: 2000, provider: 'truncation', summarize, summarizeOptions: summarizeOptions(), signal: signal() }]),
  )
  const prepareStep = () => aiSdk.createPrepareStep({ contextWindow: 2000, provider: 'truncation' })
  add('ai-sdk', 'createPrepareStep()()', () => ({ self: prepareStep(), args: [{ messages: sdkHistory(), stepNumber: 0 }] }))
  add('ai-sdk', 'createPrepareStep().steps', () => ({ self: prepareStep(), args: [] }))
  add('ai-sdk', 'createPrepareStep().last', () => ({ self: prepareStep(), args: [] }))
  add('ai-sdk', 'createPrepareStep()#close', () => ({ self: prepareStep(), args: [] }))
  add('ai-sdk', 'toEngine()#restore', () => {
    const self = aiSdk.toEngine(sdkHistory())
    return { self, args: [self.messages] }
  })
  add('ai-sdk', 'toEngine()#locate', () => ({ self: aiSdk.toEngine(sdkHistory()), args: ['messages[2].content[0].text: expected a string'] }))
  add('ai-sdk', 'toEngine()#finish', {
    // A result condense made, handed back: its fields are passed through, not options.
    opaque: ['result'],
    make: async () => {
      const self = aiSdk.toEngine(sdkHistory())
      return { self, args: [await main.condense(self.messages, { provider: 'lossless' })] }
    },
  })

  // --- settings: the custom element needs a browser (customElements, HTMLElement, a shadow root).
  const browser = 'the settings element needs a browser (customElements, a shadow root): __test__/settings.test.ts drives it in headless Chromium'
  for (const id of [
    'defineSettingsElement',
    'ContextCondenseSettings',
    'ContextCondenseSettings.errors',
    'ContextCondenseSettings#check',
    ...['schemas', 'settings', 'policy', 'profiles', 'preview', 'previewRequest'].flatMap((p) => [
      `ContextCondenseSettings.${p}`,
      `ContextCondenseSettings.${p}=`,
    ]),
  ]) {
    add('settings', id, { skip: browser })
  }
  add(
    'settings',
    'validate',
    call(() => [main.managerConfigSchema(), { provider: 'lossless', threshold: 50 }, 'settings']),
  )

  // --- settings/schemas.
  add(
    'settings/schemas',
    'settingsSchemas',
    call(() => []),
  )
  add(
    'settings/schemas',
    'previewOnHistory',
    call(() => [history(), managerConfig(), { summarize }]),
  )
  add(
    'settings/schemas',
    'summaryRequestFor',
    call(() => [history(), { provider: 'native', providers: { native: { keepLast: 3 } } }]),
  )
  // --- report-html: a result condense made with provenance (the report reads the engine's record),
  // and replay's results, handed over as they are (their fields are passed through, not options).
  const reported = async () => {
    const before = history()
    return { before, result: await main.condense(before, { provider: 'smart', config: { preset: 'balanced' }, provenance: true }) }
  }
  for (const id of ['renderHtmlReport', 'buildReportData']) {
    add('report-html', id, {
      opaque: ['result', 'options.replay'],
      make: async () => {
        const { before, result } = await reported()
        return { self: undefined, args: [before, result, { title: 'report', preset: 'balanced', generatedAt: '2026-01-01' }] }
      },
    })
  }
  add('report-html', 'renderReplayReport', {
    opaque: ['results'],
    make: async () => ({ self: undefined, args: [await main.replay(history(), { policy: 'roo-default' }), { title: 'replay', generatedAt: '2026-01-01' }] }),
  })
  add(
    'report-html',
    'escapeHtml',
    call(() => ['<b>"a" & \'b\'</b>']),
  )
  return t
}
