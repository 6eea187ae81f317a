// `context-condense replay`: replays a recorded task request by request under a context window and
// a condensing policy, prices each request with a prompt-cache model, and prints what the task
// cost and what was kept at the end; with --policy all, compares every policy and names the best.
// Reads the history; writes nothing but its output.
import { lib, htmlReport, FORMATS, usageError, fmt, pct, warn, COMMON_OPTIONS, parse, oneOf, wholeNumber, commandHelp, CliError, EXIT } from './common.mjs'
import { readHistory, checkHistory, describeInput } from './input.mjs'
import { makeSummarizer, llmFailure, interruptible } from './running.mjs'
import { problemsWarning } from './analyze.mjs'
import { checkOutPath } from './condense.mjs'
import { pageSource, writePage } from './report.mjs'

const REPLAY_OPTIONS = {
  ...COMMON_OPTIONS,
  policy: { type: 'string' },
  'context-window': { type: 'string' },
  threshold: { type: 'string' },
  'max-tokens': { type: 'string' },
  'system-tokens': { type: 'string' },
  'summary-tokens': { type: 'string' },
  'expected-turns': { type: 'string' },
  'lookback-blocks': { type: 'string' },
  cache: { type: 'string' },
  'cache-ttl': { type: 'string' },
  html: { type: 'string' },
  force: { type: 'boolean' },
}

/** A text table: the first column left-aligned, the others right-aligned. */
function table(header, rows, indent = '  ') {
  const all = [header, ...rows]
  const widths = header.map((_, c) => Math.max(...all.map((r) => String(r[c] ?? '').length)))
  return all
    .map(
      (r) =>
        indent +
        r
          .map((cell, c) => (c === 0 ? String(cell).padEnd(widths[c]) : String(cell).padStart(widths[c])))
          .join('  ')
          .trimEnd(),
    )
    .join('\n')
}

const money = (n) => `$${n.toFixed(n < 10 ? 3 : 2)}`
const ratio = (c) => `${c.kept}/${c.total}`
const share = (c) => (c.total === 0 ? 1 : c.kept / c.total)

/** The cheapest policy, by `billedCost` (every request's input priced by the cache model, and the
 * summary calls' input and output priced as sent), that leaves no more requests past the allowed size than Roo's default (a request
 * past it is one the host had to cut blindly: no policy that does that more often is better) and
 * keeps typed text, error lines and the working set at least as well; among those within the window
 * the cheapest when none keeps the checks as well. With the reason, in words, and why each cheaper
 * policy was passed over. */
function best(results) {
  const base = results.find((r) => r.policy === 'roo-default')
  const within = (r) => !base || r.requestsOverLimit <= base.requestsOverLimit
  const keeps = (r) => !base || ['typed', 'errors', 'workingSet'].every((k) => share(r.checks[k]) >= share(base.checks[k]))
  const byCost = [...results].sort((a, b) => a.billedCost - b.billedCost)
  const eligible = byCost.filter(within)
  const winner = eligible.find(keeps) ?? eligible[0] ?? byCost[0]
  const parts = [`${money(winner.billedCost)} billed`]
  if (base && winner !== base) {
    parts.push(`${(winner.billedCost / base.billedCost).toFixed(2)}x roo-default's ${money(base.billedCost)}`)
    parts.push(`${winner.summaries} ${winner.summaries === 1 ? 'summary' : 'summaries'} against ${base.summaries}`)
  }
  parts.push(
    keeps(winner)
      ? base && winner !== base
        ? 'typed text, error lines and working set kept at least as well'
        : 'the end checks as kept'
      : 'but no policy keeps the end checks as well as roo-default; this one is only the cheapest of those with no more requests past the allowed size',
  )
  const requests = (n) => `${fmt(n)} ${n === 1 ? 'request' : 'requests'}`
  const passedOver = byCost
    .slice(0, byCost.indexOf(winner))
    .map((r) =>
      within(r)
        ? `${r.policy} (end checks kept less well than roo-default)`
        : `${r.policy} (${requests(r.requestsOverLimit)} past the allowed size, against roo-default's ${fmt(base.requestsOverLimit)})`,
    )
  if (passedOver.length > 0) parts.push(`cheaper but passed over: ${passedOver.join(', ')}`)
  return { policy: winner.policy, why: parts.join('; ') }
}

function replayText(input, results, pick) {
  const s = results[0].settings
  const out = []
  out.push(`Replay: ${input.path} (${fmt(input.messages)} messages, ${fmt(results[0].requests)} requests)`)
  out.push(
    `Window ${fmt(s.contextWindow)} tokens, threshold ${s.threshold}%, allowed ${fmt(s.allowedTokens)}; system prompt ${fmt(s.systemTokens)} tokens; ${s.cache} cache, entries live ${s.cacheTtl} (input $${s.pricing.inputPrice}/M, write $${s.pricing.cacheWritesPrice}/M, read $${s.pricing.cacheReadsPrice}/M); summaries by ${s.summarizer === 'stand-in' ? `a stand-in of ${fmt(s.summaryTokens)} tokens` : s.summarizer}`,
  )
  if (pick) out.push("Ranked by billed cost: every request's input priced by the cache model, plus the summary calls' input and output priced as sent")
  out.push('')
  const rows = results.map((r) => [
    r.policy,
    money(r.billedCost),
    fmt(r.inputTokens),
    pct(100 * r.cacheHitRate),
    fmt(r.summaries),
    fmt(r.condensings.length),
    fmt(r.peakContext),
    fmt(r.requestsOverLimit),
    ratio(r.checks.typed),
    ratio(r.checks.errors),
    ratio(r.checks.workingSet),
  ])
  out.push(table(['policy', 'billed', 'input tokens', 'cache hits', 'summaries', 'condensings', 'peak', 'over limit', 'typed', 'errors', 'working set'], rows))
  if (results.length === 1) {
    const r = results[0]
    if (r.condensings.length > 0) {
      out.push('')
      out.push('Condensings')
      out.push(
        table(
          ['turn', 'by', 'before', 'after', 'first changed'],
          r.condensings.map((c) => [
            String(c.turn),
            `${c.role === 'main' ? '' : `${c.role}: `}${c.provider}`,
            fmt(c.tokensBefore),
            fmt(c.tokensAfter),
            `message ${c.firstChanged}`,
          ]),
        ),
      )
    }
  }
  if (pick) {
    out.push('')
    out.push(`Best: ${pick.policy}: ${pick.why}`)
  }
  out.push('')
  out.push(
    `billed: every request's input priced by the cache model, plus the summary calls' input and output priced as sent${pick ? ' (the best is the cheapest by it)' : ''}; typed, errors, working set: kept verbatim in the final context, of those the recorded task holds`,
  )
  return out.join('\n')
}

async function cmdReplay(args, state) {
  const { values, positionals } = parse('replay', args, REPLAY_OPTIONS)
  if (values.help) return { text: commandHelp('replay') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`replay: expected one history (a file, a Roo Code task folder, or -), got ${positionals.length}`)
  const policies = values.policy === 'all' ? lib.REPLAY_POLICIES : [oneOf('policy', values.policy, [...lib.REPLAY_POLICIES, 'all'], 'roo-default')]
  const requested = oneOf('format', values.format, FORMATS, 'auto')
  const cache = oneOf('cache', values.cache, ['anthropic', 'openai'], 'anthropic')
  const options = { cache }
  // Its values are the replay's to check (lib/replay/options.js): a bad one is named as --cache-ttl below.
  if (values['cache-ttl'] !== undefined) options.cacheTtl = values['cache-ttl']
  const numbers = {
    'context-window': ['contextWindow', 1000],
    threshold: ['threshold', 5],
    'max-tokens': ['maxTokens', 0],
    'system-tokens': ['systemTokens', 0],
    'summary-tokens': ['summaryTokens', 1],
    'expected-turns': ['expectedTurns', 1],
    'lookback-blocks': ['lookbackBlocks', 0],
  }
  for (const [flag, [key, min]] of Object.entries(numbers)) {
    const n = wholeNumber(flag, values[flag], min)
    if (n !== undefined) options[key] = n
  }
  if (values.html !== undefined) {
    if (values.html.trim() === '') throw usageError('--html: expected the file to write the page to')
    checkOutPath('html', values.html, values.force)
  }
  if (options.threshold !== undefined && options.threshold > 100)
    throw usageError(`--threshold: expected a percentage from 5 to 100, got "${values.threshold}"`)
  const llm = makeSummarizer(values, state)
  if (llm) options.summarize = llm.summarize
  const input = await readHistory(positionals[0], state)
  const { format, converted, warnings } = checkHistory(input, requested)
  if (warnings.length > 0) warn(state, problemsWarning(warnings))
  const history = format === 'openai' ? converted.messages : input.messages
  options.signal = interruptible()
  const results = []
  for (const [i, policy] of policies.entries()) {
    state.progress.step(`replaying ${policy} (${i + 1} of ${policies.length})`)
    try {
      results.push(await lib.replay(history, { ...options, policy }))
    } catch (e) {
      if (options.signal.aborted) throw new CliError(EXIT.interrupted, 'interrupted')
      if (e instanceof TypeError)
        throw usageError(e.message.replace(/^replay: options\.(\w+)/, (_, k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`))
      throw e
    }
    if (llm && llm.failures().length > 0) throw llmFailure(llm, `replaying ${policy}`)
  }
  state.progress.clear()
  const pick = results.length > 1 ? best(results) : undefined
  const described = describeInput(input, format)
  let written
  if (values.html !== undefined) {
    const { source, name, generatedAt } = pageSource(input)
    written = writePage(values.html, htmlReport.renderReplayReport(results, { title: `Replay: ${name}`, source, generatedAt }))
  }
  if (values.json) return { json: { command: 'replay', input: described, results, ...(pick ? { best: pick } : {}), ...(written ? { out: written } : {}) } }
  const text = replayText(described, results, pick)
  return { text: written ? `${text}\nWrote ${written.file} (${fmt(written.bytes)} bytes): the cost of each request, policy by policy.` : text }
}

export { cmdReplay, best }
