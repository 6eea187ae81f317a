// Running the library for a command: the OpenAI-compatible summarizer (counted, for exit code 4), an
// interruptible run, the --config file and the library's options. Never writes files.
import { lib, PROVIDER, EXIT, CliError, usageError, wholeNumber, createOpenAISummarizer, describe, MAX_TIMER_MS, MAX_RETRIES } from './common.mjs'
import { NotJson, parseJson, readTextFile } from './input.mjs'

// ---------------------------------------------------------------------------------------------
// The summarizer: the OpenAI-compatible client, counted for progress and for exit code 4.

function makeSummarizer(values, state) {
  const url = values['llm-url']
  const given = ['model', 'api-key-env', 'stream', 'timeout', 'retries', 'concurrency'].filter((k) => values[k] !== undefined)
  if (url === undefined) {
    if (given.length > 0) throw usageError(`--${given[0]} needs --llm-url`, 'pass --llm-url URL (an OpenAI-compatible endpoint), or drop it')
    return undefined
  }
  // Whole milliseconds from 1 to the longest a Node.js timer waits (a longer one would fire at once).
  let timeoutMs = 120_000
  if (values.timeout !== undefined) {
    timeoutMs = values.timeout.trim() === '' ? Number.NaN : Math.round(Number(values.timeout) * 1000)
    if (!(timeoutMs >= 1 && timeoutMs <= MAX_TIMER_MS))
      throw usageError(
        `--timeout: expected a number of seconds from 0.001 to ${MAX_TIMER_MS / 1000} (the longest a Node.js timer waits, about 24.8 days), got "${values.timeout}"`,
      )
  }
  const retries = wholeNumber('retries', values.retries, 0, MAX_RETRIES) ?? 2
  const concurrency = wholeNumber('concurrency', values.concurrency, 1) ?? 4
  let keyVar = values['api-key-env']
  let apiKey
  if (keyVar !== undefined) {
    apiKey = process.env[keyVar]
    if (apiKey === undefined || apiKey === '')
      throw usageError(
        `--api-key-env ${keyVar}: that environment variable is not set`,
        `export ${keyVar}=<your key>, or drop --api-key-env for a server that needs no key`,
      )
  } else {
    keyVar = ['CONTEXT_CONDENSE_API_KEY', 'OPENAI_API_KEY'].find((k) => process.env[k]) ?? null
    apiKey = keyVar ? process.env[keyVar] : undefined
  }
  let client
  try {
    client = createOpenAISummarizer({ url, model: values.model, apiKey, stream: Boolean(values.stream), timeoutMs })
  } catch (e) {
    throw usageError(`--llm-url: ${e.message.replace(/^createOpenAISummarizer: options\.(url|model): /, '')}`)
  }
  const stats = {
    endpoint: client.endpoint,
    model: values.model ?? null,
    apiKeyFrom: keyVar,
    requests: 0,
    answered: 0,
    failedAttempts: 0,
    running: 0,
    inputTokens: 0,
    outputTokens: 0,
  }
  /** Per request (the library retries with the same object): its last failure, or null once answered. */
  const outcome = new Map()
  const show = () => {
    const failed = stats.failedAttempts > 0 ? `, ${stats.failedAttempts} failed attempts` : ''
    state.progress.step(`summarizing with ${stats.model ?? client.endpoint}: ${stats.answered} answered, ${stats.running} running${failed}`)
  }
  const summarize = async (request, context) => {
    if (!outcome.has(request)) stats.requests++
    stats.running++
    show()
    try {
      const reply = await client(request, context)
      outcome.set(request, null)
      stats.answered++
      stats.inputTokens += reply.inputTokens ?? 0
      stats.outputTokens += reply.outputTokens ?? 0
      return reply
    } catch (e) {
      outcome.set(request, e)
      stats.failedAttempts++
      throw e
    } finally {
      stats.running--
      show()
    }
  }
  return {
    summarize,
    stats,
    // The client's own timeout answers first; the library's is a backstop.
    summarizeOptions: { timeoutMs: Math.min(timeoutMs + 2000, MAX_TIMER_MS), retries, concurrency },
    /** Requests whose last attempt failed, since `reset`. */
    failures: () => [...outcome.values()].filter((e) => e),
    reset: () => outcome.clear(),
  }
}

/** What to check after a failure, by what failed: a server that cannot be reached is not a key's
 * fault (a local server needs none), and only a refusal of the key (HTTP 401 or 403) names it. */
function llmHint(llm, failure) {
  const endpoint = llm.stats.endpoint
  const fallback = 'without --llm-url, summaries fall back as the library does'
  if (failure?.code === 'unreachable') return `nothing answers at ${endpoint}: check --llm-url and that the server is running there; ${fallback}`
  if (failure?.code === 'timeout') return `${endpoint} answered too slowly: --timeout raises the time allowed; ${fallback}`
  if (failure?.code === 'http' && (failure.status === 401 || failure.status === 403)) {
    const key = llm.stats.apiKeyFrom
      ? `the key is read from $${llm.stats.apiKeyFrom}`
      : 'no API key was found (set CONTEXT_CONDENSE_API_KEY or OPENAI_API_KEY, or pass --api-key-env VAR)'
    return `${endpoint} refused the request: check the API key (${key}); ${fallback}`
  }
  return `check --llm-url (${endpoint}), --model and the server's log; ${fallback}`
}

function llmFailure(llm, what, failures = llm.failures()) {
  const first = failures[0]
  const reason = first instanceof Error ? first.message : String(first)
  return new CliError(
    EXIT.llm,
    `the LLM endpoint failed${failures.length > 1 ? ` (${failures.length} requests)` : ''}${what ? ` ${what}` : ''}: ${reason}`,
    llmHint(llm, first),
  )
}

// ---------------------------------------------------------------------------------------------
// Running the library

function interruptible() {
  const controller = new AbortController()
  let count = 0
  const onSignal = () => {
    count++
    if (count > 1) process.exit(EXIT.interrupted)
    controller.abort()
  }
  process.on('SIGINT', onSignal)
  process.on('SIGTERM', onSignal)
  return controller.signal
}

async function run(messages, options) {
  try {
    return await lib.condense(messages, options)
  } catch (e) {
    if (options.signal && options.signal.aborted) throw new CliError(EXIT.interrupted, 'interrupted; nothing was written')
    if (e && (e.errorCode === 'invalid-argument' || e.errorCode === 'invalid-options')) {
      const message = String(e.message).replace(/^invalid options: /, '')
      let hint
      if (/options\.config/.test(message)) {
        hint =
          options.provider === PROVIDER.smart
            ? 'fix --config (context-condense preset <name> prints a Smart config to start from)'
            : `fix --config: it holds the ${options.provider} provider's config (its JSON Schema: require('context-condense').configSchema('${options.provider}'))`
      }
      throw usageError(message.replace(/options\.config/g, 'config'), hint)
    }
    throw e
  }
}

function readConfig(values) {
  let config = {}
  if (values.config !== undefined) {
    let text
    try {
      text = readTextFile(values.config)
    } catch (e) {
      if (e instanceof CliError) throw e
      throw usageError(`--config ${values.config}: ${e.code === 'ENOENT' ? 'no such file' : e.message}`, 'pass a JSON file holding the provider config')
    }
    const parsed = parseJson(text.charCodeAt(0) === 0xfeff ? text.slice(1) : text, values.config)
    if (parsed instanceof NotJson) throw usageError(`--config: ${parsed.message}`, 'the config file must be JSON')
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed))
      throw usageError(`--config ${values.config}: expected a JSON object, got ${describe(parsed)}`)
    config = parsed
  }
  return config
}

function libraryOptions(values, format, llm, signal) {
  const options = { format, signal }
  if (values.encoding !== undefined) options.encoding = values.encoding
  if (llm) {
    options.summarize = llm.summarize
    options.summarizeOptions = llm.summarizeOptions
  }
  return options
}

export { makeSummarizer, llmFailure, interruptible, run, readConfig, libraryOptions }
