// `context-condense analyze`: where a history's tokens are and what each provider and preset saves on
// it, each run, not guessed. Reads only.
import {
  lib,
  PROVIDER,
  PROVIDERS,
  PRESETS,
  FORMATS,
  ENCODINGS,
  DEFAULT_ENCODING,
  METADATA_FILE,
  usageError,
  fmt,
  pct,
  warn,
  COMMON_OPTIONS,
  parse,
  oneOf,
  commandHelp,
} from './common.mjs'
import { readHistory, checkHistory, describeInput } from './input.mjs'
import { makeSummarizer, llmFailure, interruptible, run, libraryOptions } from './running.mjs'

// ---------------------------------------------------------------------------------------------
// analyze

const CONTENT_TYPES = [
  ['userText', 'user text'],
  ['assistantText', 'assistant text'],
  ['thinking', 'thinking'],
  ['toolCalls', 'tool calls'],
  ['toolResults', 'tool results'],
  ['environmentDetails', 'environment details'],
  ['images', 'images'],
  ['summaries', 'summaries'],
]
const OPERATIONS = {
  deduplicateFileReads: 'repeated file reads',
  consolidateToolResults: 'identical tool results',
  removeObsoleteState: 'superseded state',
}

/** A text table: numbers right-aligned, the first column and a "notes" column left-aligned. */
function table(header, rows, indent = '  ') {
  const all = [header, ...rows]
  const widths = header.map((_, c) => Math.max(...all.map((r) => String(r[c] ?? '').length)))
  const left = (c) => c === 0 || header[c] === 'notes'
  return all
    .map(
      (r) =>
        indent +
        r
          .map((cell, c) => (left(c) ? String(cell ?? '').padEnd(widths[c]) : String(cell ?? '').padStart(widths[c])))
          .join('  ')
          .trimEnd(),
    )
    .join('\n')
}

const plural = (n, one, many = `${one}s`) => `${fmt(n)} ${n === 1 ? one : many}`

function providerRow(spec, r) {
  const passes = r.metrics.passes ?? []
  const row = {
    provider: spec.provider,
    ...(spec.preset ? { preset: spec.preset } : {}),
    tokensBefore: r.prevContextTokens,
    tokensAfter: r.newContextTokens,
    tokensSaved: r.prevContextTokens - r.newContextTokens,
    reductionPercent: r.metrics.reductionPercent,
    reversibleTokensSaved: r.metrics.reversibleTokensSaved,
    supersededTokensSaved: r.metrics.supersededTokensSaved,
    messagesChanged: r.metrics.messagesChanged,
    messagesRemoved: r.metrics.messagesRemoved,
    llmCalls: r.metrics.callbackCalls,
    summarizeFallbacks: passes.reduce((n, p) => n + (p.summarizeFallbacks ?? 0), 0),
    cost: r.cost,
  }
  if (r.error) row.error = r.error
  return row
}

async function cmdAnalyze(args, state) {
  const { values, positionals } = parse('analyze', args, COMMON_OPTIONS)
  if (values.help) return { text: commandHelp('analyze') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`analyze: expected one history (a file, a Roo Code task folder, or -), got ${positionals.length}`)
  const requested = oneOf('format', values.format, FORMATS, 'auto')
  const encoding = oneOf('encoding', values.encoding, ENCODINGS, DEFAULT_ENCODING)
  const llm = makeSummarizer(values, state)
  const input = await readHistory(positionals[0], state)
  const { format, converted, warnings } = checkHistory(input, requested)
  if (warnings.length > 0) warn(state, problemsWarning(warnings))
  const signal = interruptible()

  state.progress.step(`analyzing ${fmt(input.messages.length)} messages`)
  const analysis = lib.analyze(input.messages, { format, encoding })
  const specs = [
    // Every built-in provider, the one with presets once per preset, the summary last.
    ...PROVIDERS.filter((id) => id !== PROVIDER.native).flatMap((provider) =>
      provider === PROVIDER.smart ? PRESETS.map((preset) => ({ provider, preset, config: { preset } })) : [{ provider }],
    ),
    { provider: PROVIDER.native },
  ]
  const providers = []
  const failures = []
  for (const [i, spec] of specs.entries()) {
    const label = spec.preset ? `${spec.provider} ${spec.preset}` : spec.provider
    state.progress.step(`running ${label} (${i + 1} of ${specs.length})`)
    const options = { ...libraryOptions(values, format, llm, signal), provider: spec.provider }
    if (spec.config) options.config = spec.config
    if (llm) llm.reset()
    const r = await run(input.messages, options)
    const row = providerRow(spec, r)
    if (llm && llm.failures().length > 0) {
      row.llmFailures = llm.failures().map((e) => (e instanceof Error ? e.message : String(e)))
      failures.push(...llm.failures())
    }
    if (spec.provider === PROVIDER.native && !llm) {
      // Not run without a model; the manager's estimate (a stand-in model writing summaries of
      // the usual size) says what it would roughly save.
      state.progress.step(`estimating ${PROVIDER.native} with a stand-in model`)
      const manager = new lib.CondensationManager({ config: { provider: PROVIDER.native } })
      const anthropic = converted ? converted.messages : input.messages
      const est = await manager.estimateReduction(anthropic, { provider: PROVIDER.native, summarize: async () => '' })
      row.estimate = {
        tokensAfter: est.tokensAfter,
        tokensSaved: est.tokensSaved,
        reductionPercent: est.reductionPercent,
        llmCalls: est.llmCalls,
        exact: est.exact,
      }
    }
    providers.push(row)
  }
  state.progress.clear()
  const lossless = providers[0]
  const result = {
    command: 'analyze',
    input: describeInput(input, format),
    encoding,
    analysis,
    providers,
    warnings,
    ...(llm ? { llm: llm.stats } : {}),
  }
  if (failures.length > 0) {
    // The figures are printed (the runs fell back), then the endpoint's failure is the exit code.
    state.pendingError = llmFailure(llm, 'during the runs (their rows show what ran instead)', failures)
  }
  if (values.json) return { json: result }
  return { text: analyzeText(result, lossless, llm) }
}

function problemsWarning(problems) {
  const list = problems
    .slice(0, 3)
    .map((p) => `${p.path}: ${p.message}`)
    .join('; ')
  const more = problems.length > 3 ? `; … ${problems.length - 3} more` : ''
  const pairing = problems.some((p) => /tool/.test(p.code)) ? ' (--repair fixes tool pairing)' : ''
  return `${problems.length} problem${problems.length === 1 ? '' : 's'} the provider APIs would reject, condensed around${pairing}: ${list}${more}`
}

function analyzeText(result, lossless, llm) {
  const { input, analysis, providers } = result
  const kind = { 'task-folder': 'Roo Code task folder', file: 'file', stdin: 'standard input' }[input.kind]
  const total = analysis.totalTokens
  const share = (n) => (total > 0 ? pct((100 * n) / total) : '—')
  const out = []
  out.push(
    `History: ${input.kind === 'stdin' ? '-' : input.path} (${kind}, ${fmt(input.messages)} messages, ${input.format === 'openai' ? 'OpenAI' : 'Anthropic'} format)`,
  )
  out.push(`Total: ${fmt(total)} tokens (${result.encoding})${input.format === 'openai' ? '; system and developer messages are not counted' : ''}`)
  out.push('')
  out.push('Where the tokens are')
  const types = CONTENT_TYPES.filter(([k]) => analysis.byContentType[k] > 0).map(([k, label]) => [
    label,
    fmt(analysis.byContentType[k]),
    share(analysis.byContentType[k]),
  ])
  out.push(types.length > 0 ? table(['content type', 'tokens', 'share'], types) : '  (nothing)')
  if (analysis.byTool.length > 0) {
    out.push('')
    out.push('By tool (results)')
    out.push(
      table(
        ['tool', 'results', 'tokens', 'errors'],
        analysis.byTool.map((t) => [t.tool, fmt(t.results), fmt(t.resultTokens), fmt(t.errors)]),
      ),
    )
  }
  if (analysis.byFile.length > 0) {
    out.push('')
    const shown = analysis.byFile.slice(0, 10)
    out.push(
      `By file (reads)${analysis.byFile.length > shown.length ? `: the ${shown.length} largest of ${analysis.byFile.length} (all of them with --json)` : ''}`,
    )
    out.push(
      table(
        ['file', 'reads', 'tokens'],
        shown.map((f) => [f.path, fmt(f.reads), fmt(f.tokens)]),
      ),
    )
  }
  out.push('')
  out.push('Duplicates and superseded state (what Lossless finds, run on this history)')
  out.push(
    table(
      ['found', 'edits', 'tokens'],
      analysis.lossless.map((o) => [`${OPERATIONS[o.operation] ?? o.operation} (${o.operation})`, fmt(o.edits), fmt(o.tokens)]),
    ),
  )
  out.push(
    `  total: ${fmt(analysis.losslessTokensSaved)} tokens (${share(analysis.losslessTokensSaved)}); ${fmt(lossless.reversibleTokensSaved)} restorable by expandReferences, ${fmt(lossless.supersededTokensSaved)} superseded`,
  )
  out.push('')
  out.push(
    `What each provider saves (each run on this history${llm ? `; summaries by ${llm.stats.model ?? llm.stats.endpoint}` : '; no model: summaries fall back as the library does'})`,
  )
  const rows = providers.map((p) => {
    const name = p.preset ? `${p.provider} ${p.preset}` : p.provider
    if (p.error) {
      let note = `not run: ${p.error}`
      if (p.provider === PROVIDER.native && !llm) {
        note = 'not run: needs a model (--llm-url)'
        if (p.estimate && !p.estimate.error) note += `; a stand-in model estimates -${pct(p.estimate.reductionPercent)} (${fmt(p.estimate.tokensAfter)} tokens)`
      }
      return [name, '—', '—', '—', note]
    }
    const notes = []
    if (p.llmCalls > 0) notes.push(plural(p.llmCalls, 'model call'))
    if (p.summarizeFallbacks > 0) notes.push(`${plural(p.summarizeFallbacks, 'summary', 'summaries')} truncated instead${llm ? '' : ' (no --llm-url)'}`)
    if (p.llmFailures) notes.push(`the endpoint failed: ${p.llmFailures[0]}`)
    if (p.messagesRemoved > 0) notes.push(`${plural(p.messagesRemoved, 'message')} summarized`)
    return [name, fmt(p.tokensAfter), fmt(p.tokensSaved), `-${pct(p.reductionPercent)}`, notes.join('; ')]
  })
  out.push(table(['provider', 'after', 'saved', 'reduction', 'notes'], rows))
  if (input.taskMetadata) {
    const m = input.taskMetadata
    const states = Object.entries(m.states)
      .map(([s, n]) => `${fmt(n)} ${s}`)
      .join(', ')
    out.push('')
    out.push(
      `Roo Code task metadata (${METADATA_FILE}): ${plural(m.filesInContext, 'file')} in context (${plural(m.records, 'record')}${states ? `: ${states}` : ''})`,
    )
  }
  return out.join('\n')
}

export { plural, cmdAnalyze, problemsWarning }
