// `context-condense report`: the HTML page of one condensation (lib/report-html.js), pass by pass.
// Writes the page only.
import { basename } from 'node:path'
import {
  htmlReport,
  PROVIDER,
  DEFAULT_PRESET,
  PROVIDERS,
  PRESETS,
  FORMATS,
  ENCODINGS,
  CliError,
  notCondensed,
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
import { makeSummarizer, llmFailure, interruptible, run, readConfig, libraryOptions } from './running.mjs'
import { plural, problemsWarning } from './analyze.mjs'
import { checkOutPath, writeAtomically } from './condense.mjs'

// ---------------------------------------------------------------------------------------------
// report: the HTML page of one condensation (lib/report-html.js), pass by pass

const REPORT_OPTIONS = {
  ...COMMON_OPTIONS,
  provider: { type: 'string', short: 'p' },
  preset: { type: 'string' },
  config: { type: 'string', short: 'c' },
  html: { type: 'string' },
  title: { type: 'string' },
  force: { type: 'boolean' },
}
/**
 * The preset a run of `provider` with `config` uses, for the page and the summary: the one named,
 * or the default one when the config names neither a preset nor passes (the engine runs that
 * preset then); none when it gives passes or for another provider.
 */
const presetRun = (provider, config) => (provider === PROVIDER.smart && config.passes === undefined ? (config.preset ?? DEFAULT_PRESET) : undefined)

/** Where a history came from, for a page's header: its source (a path, or standard input), a short
 * name, and now. */
function pageSource(input) {
  const source = input.source.kind === 'stdin' ? 'standard input' : input.source.kind === 'task-folder' ? input.source.path : input.source.file
  const name = input.source.taskId ?? (input.source.kind === 'stdin' ? 'standard input' : basename(input.source.file))
  return { source, name, generatedAt: new Date().toISOString().replace(/\.\d+Z$/, 'Z') }
}

/** Writes a page to the --html file (a failure hints at choosing another); what was written. */
function writePage(file, page) {
  try {
    writeAtomically(file, page)
  } catch (e) {
    if (e instanceof CliError) e.hint = 'choose another --html'
    throw e
  }
  return { file, bytes: Buffer.byteLength(page) }
}

async function cmdReport(args, state) {
  const { values, positionals } = parse('report', args, REPORT_OPTIONS)
  if (values.help) return { text: commandHelp('report') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`report: expected one history (a file, a Roo Code task folder, or -), got ${positionals.length}`)
  if (values.html === undefined || values.html.trim() === '')
    throw usageError('report: --html FILE is required', 'pass --html report.html: the file to write the page to')
  const provider = oneOf('provider', values.provider, PROVIDERS, PROVIDER.smart)
  if (values.preset !== undefined && provider !== PROVIDER.smart) throw usageError(`--preset applies to --provider ${PROVIDER.smart}, not ${provider}`)
  const preset = oneOf('preset', values.preset, PRESETS)
  const requested = oneOf('format', values.format, FORMATS, 'auto')
  oneOf('encoding', values.encoding, ENCODINGS)
  checkOutPath('html', values.html, values.force)
  const config = readConfig(values)
  if (preset) config.preset = preset
  const shownPreset = presetRun(provider, config)
  const llm = makeSummarizer(values, state)
  const input = await readHistory(positionals[0], state)
  const { format, converted, warnings } = checkHistory(input, requested)
  if (warnings.length > 0) warn(state, problemsWarning(warnings))
  const signal = interruptible()

  // OpenAI-format histories are shown as the engine reads them (Anthropic's format).
  const messages = converted ? converted.messages : input.messages
  state.progress.step(`condensing ${fmt(messages.length)} messages with ${provider}${shownPreset ? ` ${shownPreset}` : ''}`)
  const options = { ...libraryOptions(values, 'anthropic', llm, signal), provider, provenance: true }
  if (Object.keys(config).length > 0) options.config = config
  const r = await run(messages, options)
  state.progress.clear()
  if (llm && llm.failures().length > 0) throw llmFailure(llm, '')
  if (r.error) throw notCondensed(r)
  state.progress.step(`writing ${values.html}`)
  const { source, name, generatedAt } = pageSource(input)
  const page = htmlReport.renderHtmlReport(messages, r, {
    title: values.title ?? `Condensation report: ${name}`,
    source: `${source}${format === 'openai' ? ' (OpenAI format, shown as Anthropic messages; system messages set aside)' : ''}`,
    preset: shownPreset,
    generatedAt,
  })
  const written = writePage(values.html, page)
  state.progress.clear()
  if (values.json) {
    return {
      json: {
        command: 'report',
        input: describeInput(input, format),
        provider,
        ...(shownPreset ? { preset: shownPreset } : {}),
        out: written,
        prevContextTokens: r.prevContextTokens,
        newContextTokens: r.newContextTokens,
        tokensSaved: r.prevContextTokens - r.newContextTokens,
        metrics: r.metrics,
        warnings,
        ...(llm ? { llm: llm.stats } : {}),
      },
    }
  }
  const t = r.metrics
  return {
    text: [
      `Report: ${written.file} (${fmt(written.bytes)} bytes, self-contained: open it in a browser)`,
      ` - ${provider}${shownPreset ? ` ${shownPreset}` : ''}: ${fmt(t.tokensBefore)} → ${fmt(t.tokensAfter)} tokens (-${pct(t.reductionPercent)}), ${plural(messages.length, 'message')} → ${fmt(r.messages.length)}`,
    ].join('\n'),
  }
}

export { cmdReport, pageSource, writePage }
