// `context-condense condense`: runs one provider and writes the condensed history, atomically (a
// temporary file renamed over the target; never a half-written file).
import { randomBytes } from 'node:crypto'
import { closeSync, fchmodSync, lstatSync, openSync, readdirSync, readlinkSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { basename, dirname, join, resolve } from 'node:path'
import {
  PROVIDER,
  PROVIDERS,
  PRESETS,
  FORMATS,
  ENCODINGS,
  notCondensed,
  usageError,
  inputError,
  fmt,
  warn,
  CONDENSE_OPTIONS,
  parse,
  oneOf,
  commandHelp,
} from './common.mjs'
import { readHistory, checkHistory, describeInput } from './input.mjs'
import { makeSummarizer, llmFailure, interruptible, run, readConfig, libraryOptions } from './running.mjs'
import { plural, problemsWarning } from './analyze.mjs'

// ---------------------------------------------------------------------------------------------
// condense

function serialize(input, messages) {
  const value = input.wrapper ? { ...input.wrapper, messages } : messages
  return JSON.stringify(value, null, input.indent) + (input.finalNewline ? '\n' : '')
}

// Writing --out / --html. A symbolic link at the path is written through: the link stays, its
// target gets the new content (as any editor that saves through a link does). An existing file
// keeps its permission bits. The content goes to a temporary file beside the target, named
// `.<name>.context-condense-<pid>-<16 random hex digits>.tmp` and created exclusively (O_CREAT |
// O_EXCL: if anything is at that name already, a file or a symbolic link someone planted, it is
// neither opened nor followed, and another random name is tried), then renamed over the target, so
// the target is never half written and a shared folder is safe. A temporary left by a process that
// died mid-write (kill -9) is removed by the next write to the same target.

const TMP_INFIX = '.context-condense-'
/** Names tried for a temporary before giving up (each collision is a file someone else made). */
const TMP_ATTEMPTS = 16

/** Whether `flag`'s path may be written: not a folder (through links), not existing unless --force. */
function checkOutPath(flag, file, force) {
  let link
  try {
    link = lstatSync(file)
  } catch {
    return // Nothing there yet (a missing folder is reported when writing).
  }
  let isFolder = link.isDirectory()
  if (link.isSymbolicLink()) {
    try {
      isFolder = statSync(file).isDirectory()
    } catch {
      // A link to nothing yet: its target is created when writing.
    }
  }
  if (isFolder)
    throw usageError(
      `--${flag} ${file} is a folder, not a file`,
      `pass the path of a file to write, such as ${join(file, flag === 'html' ? 'report.html' : 'condensed.json')}`,
    )
  if (!force) throw usageError(`--${flag} ${file} exists`, 'pass --force to overwrite it, or choose another file')
}

/** The file a path names once symbolic links are followed (the last one may point at nothing yet). */
function linkTarget(file) {
  let path = resolve(file)
  for (let hops = 0; hops < 40; hops++) {
    let st
    try {
      st = lstatSync(path)
    } catch {
      return path
    }
    if (!st.isSymbolicLink()) return path
    path = resolve(dirname(path), readlinkSync(path))
  }
  const e = new Error('too many levels of symbolic links')
  e.code = 'ELOOP'
  throw e
}

function isAlive(pid) {
  try {
    process.kill(pid, 0)
    return true
  } catch (e) {
    return e.code === 'EPERM' // Alive, owned by someone else.
  }
}

/** Removes temporaries for `target` left by processes that no longer run. */
function removeStaleTemporaries(target) {
  const prefix = `.${basename(target)}${TMP_INFIX}`
  let names
  try {
    names = readdirSync(dirname(target))
  } catch {
    return
  }
  for (const name of names) {
    if (!name.startsWith(prefix) || !name.endsWith('.tmp')) continue
    // `<pid>-<random>` (or `<pid>` alone, as versions before the random part named them).
    const pid = Number(name.slice(prefix.length, -'.tmp'.length).split('-')[0])
    if (!Number.isSafeInteger(pid) || pid <= 0 || pid === process.pid || isAlive(pid)) continue
    try {
      unlinkSync(join(dirname(target), name))
    } catch {
      // Gone already, or not ours to remove.
    }
  }
}

const WRITE_ERRORS = {
  EACCES: 'permission denied',
  EPERM: 'permission denied',
  ENOENT: 'no such folder',
  ENOTDIR: 'a part of the path is not a folder',
  EISDIR: 'it is a folder, not a file',
  ELOOP: 'too many levels of symbolic links',
  ENOSPC: 'no space left on the device',
  EROFS: 'the file system is read-only',
}

/**
 * A new, empty temporary file beside `target`, opened for writing: `{ path, fd }`. Created
 * exclusively under an unpredictable name, so nothing already there (a symbolic link planted at a
 * guessed name) is opened or followed.
 */
function createTemporary(target, mode) {
  for (let attempt = 1; ; attempt++) {
    const path = join(dirname(target), `.${basename(target)}${TMP_INFIX}${process.pid}-${randomBytes(8).toString('hex')}.tmp`)
    try {
      return { path, fd: openSync(path, 'wx', mode) }
    } catch (e) {
      if (e.code !== 'EEXIST' || attempt >= TMP_ATTEMPTS) throw e
    }
  }
}

function writeAtomically(file, text) {
  let tmp
  try {
    const target = linkTarget(file)
    removeStaleTemporaries(target)
    let mode
    try {
      const st = statSync(target)
      if (st.isDirectory()) throw Object.assign(new Error('a folder'), { code: 'EISDIR' })
      mode = st.mode & 0o7777
    } catch (e) {
      if (e.code !== 'ENOENT') throw e
    }
    const created = createTemporary(target, mode ?? 0o666)
    tmp = created.path
    try {
      writeFileSync(created.fd, text)
      // The mode given at creation is narrowed by the umask; an existing file's bits are kept exactly.
      if (mode !== undefined) fchmodSync(created.fd, mode)
    } finally {
      closeSync(created.fd)
    }
    renameSync(tmp, target)
  } catch (e) {
    if (tmp !== undefined) {
      try {
        unlinkSync(tmp)
      } catch {
        // Nothing was left behind.
      }
    }
    throw inputError(`cannot write ${file}: ${WRITE_ERRORS[e.code] ?? e.message}`, 'choose another --out')
  }
}

async function cmdCondense(args, state) {
  const { values, positionals } = parse('condense', args, CONDENSE_OPTIONS)
  if (values.help) return { text: commandHelp('condense') }
  state.setFlags(values)
  if (positionals.length !== 1) throw usageError(`condense: expected one history (a file, a Roo Code task folder, or -), got ${positionals.length}`)
  if (values.provider === undefined)
    throw usageError('condense: --provider is required', `pass --provider ${PROVIDERS.join('|')} (context-condense analyze shows what each saves)`)
  const provider = oneOf('provider', values.provider, PROVIDERS)
  if (values.preset !== undefined && provider !== PROVIDER.smart) throw usageError(`--preset applies to --provider ${PROVIDER.smart}, not ${provider}`)
  const preset = oneOf('preset', values.preset, PRESETS)
  const requested = oneOf('format', values.format, FORMATS, 'auto')
  oneOf('encoding', values.encoding, ENCODINGS)
  const dryRun = Boolean(values['dry-run'])
  if (dryRun && values.out !== undefined) throw usageError('--dry-run writes nothing; drop --out or --dry-run')
  if (values.out !== undefined) checkOutPath('out', values.out, values.force)
  const config = readConfig(values)
  // With neither --preset nor a config naming a preset or passes, Smart runs the default preset
  // (the engine reads such a config so).
  if (preset) config.preset = preset
  const llm = makeSummarizer(values, state)
  const input = await readHistory(positionals[0], state)
  const { format, warnings } = checkHistory(input, requested)
  if (warnings.length > 0 && !values.repair) warn(state, problemsWarning(warnings))
  const signal = interruptible()

  state.progress.step(`condensing ${fmt(input.messages.length)} messages with ${provider}${preset ? ` ${preset}` : ''}`)
  const options = { ...libraryOptions(values, format, llm, signal), provider }
  if (Object.keys(config).length > 0) options.config = config
  if (values.repair) options.repair = true
  const r = await run(input.messages, options)
  state.progress.clear()
  if (llm && llm.failures().length > 0) throw llmFailure(llm, '')
  if (r.error) throw notCondensed(r)
  let written
  if (!dryRun && values.out !== undefined) {
    state.progress.step(`writing ${values.out}`)
    const text = serialize(input, r.messages)
    writeAtomically(values.out, text)
    written = { file: values.out, bytes: Buffer.byteLength(text), messages: r.messages.length }
    state.progress.clear()
  }
  const summary = {
    command: 'condense',
    input: describeInput(input, format),
    provider,
    ...(preset ? { preset } : {}),
    format,
    dryRun,
    ...(written ? { out: written } : {}),
    prevContextTokens: r.prevContextTokens,
    newContextTokens: r.newContextTokens,
    tokensSaved: r.prevContextTokens - r.newContextTokens,
    summary: r.summary,
    cost: r.cost,
    metrics: r.metrics,
    report: r.report,
    ...(r.repairs ? { repairs: r.repairs } : {}),
    warnings,
    ...(llm ? { llm: llm.stats } : {}),
  }
  const extra = []
  if (r.repairs && r.repairs.length > 0)
    extra.push(
      `Repaired first: ${r.repairs.length} (${r.repairs
        .slice(0, 3)
        .map((x) => `${x.path}: ${x.action}`)
        .join('; ')}${r.repairs.length > 3 ? '; …' : ''})`,
    )
  if (llm)
    extra.push(
      `Model: ${plural(llm.stats.answered, 'answer')} from ${llm.stats.endpoint}${llm.stats.model ? ` (${llm.stats.model})` : ''}, ${fmt(llm.stats.inputTokens)} input and ${fmt(llm.stats.outputTokens)} output tokens`,
    )
  if (written) extra.push(`Written: ${written.file} (${fmt(written.messages)} messages, ${format === 'openai' ? 'OpenAI' : 'Anthropic'} format)`)
  const report = [r.report, ...extra].join('\n')
  if (values.json) {
    if (!dryRun && values.out === undefined) summary.messages = input.wrapper ? { ...input.wrapper, messages: r.messages } : r.messages
    return { json: summary }
  }
  if (!dryRun && values.out === undefined) {
    // The history on stdout (for a pipe), the report on stderr.
    if (!state.quiet) process.stderr.write(`${report}\n`)
    return { raw: serialize(input, r.messages) }
  }
  return { text: dryRun ? `${report}\n(dry run: nothing was written)` : report }
}

export { checkOutPath, writeAtomically, cmdCondense }
