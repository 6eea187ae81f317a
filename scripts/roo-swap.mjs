#!/usr/bin/env node
// Applies the swap to a Roo Code checkout, as docs/roo.md describes it for a maintainer: Roo's
// condense and context-management (2025: sliding-window) modules become this package's host
// adapters (examples/roo-host/, the folder of the checkout's era, copied as they are), Roo's
// SUMMARY_PROMPT constant moves out of the file the adapter replaces into the small host file the
// adapter imports it from (src/core/condense/summaryPrompt.ts; its text is Roo's, moved, never
// copied from here), this package becomes a dependency of Roo's src/ (packed with `npm pack` into
// <checkout>/.context-condense/, with this platform's binary package beside it, which the root
// package.json's pnpm.overrides points the optional dependency at), and Roo's esbuild copies the
// binary beside the bundle (`loader: { ".node": "copy" }`).
//
//   node scripts/roo-swap.mjs <roo-code checkout> [--no-pack]
//
// Prints each change. Then run `pnpm install --no-frozen-lockfile` in the checkout. --no-pack edits
// the files only (no dependency added). Never writes in this repository (the packs are made in a
// temporary folder). scripts/roo-compat/prepare.mjs uses the same era rule, adapter list and prompt
// move (exported below), so Roo's specs run against exactly what this command puts in a tree.
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
export const repo = resolve(here, '..')

/**
 * Which of this package's entries a Roo Code tree needs, from its files (`read(path)` answers a
 * file's text or undefined): 2025 while src/core/sliding-window exists, today's once the summary
 * is "## Conversation Summary" (fresh start), January 2026's between.
 */
export function rooEra(read) {
  if (read('src/core/sliding-window/index.ts') !== undefined) return '2025'
  const condense = read('src/core/condense/index.ts')
  if (condense === undefined) throw new Error('roo-swap: src/core/condense/index.ts not found: not a Roo Code tree')
  return condense.includes('## Conversation Summary') ? 'today' : '2026-01'
}

/** The adapter files of each era: [file in examples/roo-host, place in Roo's tree]. */
export const ADAPTERS = Object.freeze({
  today: [
    ['condense.ts', 'src/core/condense/index.ts'],
    ['context-management.ts', 'src/core/context-management/index.ts'],
    ['foldedFileContext.ts', 'src/core/condense/foldedFileContext.ts'],
  ],
  '2026-01': [
    ['2026-01/condense.ts', 'src/core/condense/index.ts'],
    ['2026-01/context-management.ts', 'src/core/context-management/index.ts'],
  ],
  2025: [
    ['2025/condense.ts', 'src/core/condense/index.ts'],
    ['2025/sliding-window.ts', 'src/core/sliding-window/index.ts'],
  ],
})

/** Where the summary prompt goes: the host file the eras' condense adapters import it from. */
export const SUMMARY_PROMPT_FILE = 'src/core/condense/summaryPrompt.ts'

/** The entry each era's adapters import. */
export const ENTRY = Object.freeze({ today: 'context-condense/roo', '2026-01': 'context-condense/roo-2026-01', 2025: 'context-condense/roo-2025' })

/** An adapter's text as it is in examples/roo-host (the adapters go into a tree verbatim). */
export function adapterText(file) {
  return readFileSync(join(repo, 'examples', 'roo-host', file), 'utf8')
}

/** Whether the era's condense adapter imports the moved summary prompt. */
export function needsSummaryPrompt(era) {
  return ADAPTERS[era].some(([file]) => /from "\.\/summaryPrompt"/.test(adapterText(file)))
}

/**
 * The summary prompt's host file, from the text of Roo's src/core/condense/index.ts: Roo's
 * `const SUMMARY_PROMPT = <template literal>` moved as it is written (the source text of the
 * literal, escapes and all), exported. Throws when the constant is not a template literal there.
 */
export function summaryPromptModule(condenseSource) {
  const m = /^const SUMMARY_PROMPT\s*=\s*`/m.exec(condenseSource)
  if (!m) throw new Error('roo-swap: no `const SUMMARY_PROMPT = `…`` template literal in src/core/condense/index.ts')
  const start = m.index + m[0].length - 1
  let i = start + 1
  for (; i < condenseSource.length; i++) {
    const c = condenseSource[i]
    if (c === '\\') i++
    else if (c === '$' && condenseSource[i + 1] === '{') throw new Error('roo-swap: SUMMARY_PROMPT interpolates values: not a constant to move')
    else if (c === '`') break
  }
  if (i >= condenseSource.length) throw new Error('roo-swap: SUMMARY_PROMPT: unterminated template literal')
  const literal = condenseSource.slice(start, i + 1)
  return (
    "// Roo Code's summary prompt, moved here from src/core/condense/index.ts, which context-condense's\n" +
    '// host adapter replaces (the adapter imports it from here).\n' +
    `export const SUMMARY_PROMPT = ${literal}\n`
  )
}

/** Roo's src/esbuild.mjs with `loader: { ".node": "copy" }` in its build options, so esbuild copies
 * the native binary the bundle requires into dist/ beside extension.js (and rewrites the require to
 * it). Throws when the build options are not where Roo has them. */
export function esbuildWithLoader(text) {
  if (/["']\.node["']\s*:\s*["']copy["']/.test(text)) return text
  const at = /const buildOptions = \{\n/.exec(text)
  if (!at) throw new Error('roo-swap: src/esbuild.mjs: no `const buildOptions = {` to add the .node loader to')
  const indent = /^(\s*)\S/m.exec(text.slice(at.index + at[0].length))?.[1] ?? '\t\t'
  const line = `${indent}// context-condense's native binary: copied into dist/ beside the bundle, which loads it from there.\n${indent}loader: { ".node": "copy" },\n`
  return text.slice(0, at.index + at[0].length) + line + text.slice(at.index + at[0].length)
}

/** napi-rs's name for this platform, as in npm/<name>/ and the binary's file name. */
export function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform === 'linux') return `linux-${arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}`
  return `${platform}-${arch}`
}

/**
 * Packs this package and this platform's binary package (npm/<platform>/ with the built .node, as
 * `napi artifacts` stages it) into `dest`. Returns both tarballs' paths.
 */
export function packPackages(dest) {
  const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))
  const platform = hostPlatform()
  const binary = join(repo, `${pkg.napi.binaryName}.${platform}.node`)
  if (!existsSync(binary)) throw new Error(`roo-swap: ${binary} is missing; run npm run build first`)
  if (!existsSync(join(repo, 'npm', platform, 'package.json'))) throw new Error(`roo-swap: no npm/${platform}/: not one of package.json's napi.targets`)
  mkdirSync(dest, { recursive: true })
  const stage = mkdtempSync(join(tmpdir(), 'roo-swap-stage-'))
  try {
    copyFileSync(join(repo, 'npm', platform, 'package.json'), join(stage, 'package.json'))
    copyFileSync(binary, join(stage, `${pkg.napi.binaryName}.${platform}.node`))
    const pack = (cwd) =>
      join(
        dest,
        JSON.parse(
          execFileSync('npm', ['pack', '--json', '--ignore-scripts', '--pack-destination', dest], { cwd, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }),
        )[0].filename,
      )
    return { main: pack(repo), platform: pack(stage), platformName: `${pkg.name}-${platform}` }
  } finally {
    rmSync(stage, { recursive: true, force: true })
  }
}

/** Applies the swap to the checkout at `roo`; `log` gets one line per change. */
export function applySwap(roo, { pack = true, log = console.log } = {}) {
  const file = (p) => join(roo, p)
  const read = (p) => (existsSync(file(p)) ? readFileSync(file(p), 'utf8') : undefined)
  const era = rooEra(read)
  log(`era: ${era} (entry ${ENTRY[era]}, adapters examples/roo-host/${era === 'today' ? '' : `${era}/`})`)
  // The prompt first: it is read from the file the adapter is about to replace.
  if (needsSummaryPrompt(era)) {
    writeFileSync(file(SUMMARY_PROMPT_FILE), summaryPromptModule(read('src/core/condense/index.ts')))
    log(`moved SUMMARY_PROMPT from src/core/condense/index.ts to ${SUMMARY_PROMPT_FILE}`)
  }
  for (const [from, to] of ADAPTERS[era]) {
    writeFileSync(file(to), adapterText(from))
    log(`copied examples/roo-host/${from} to ${to}`)
  }
  const esbuild = read('src/esbuild.mjs')
  if (esbuild !== undefined) {
    writeFileSync(file('src/esbuild.mjs'), esbuildWithLoader(esbuild))
    log('src/esbuild.mjs: loader { ".node": "copy" } in buildOptions')
  }
  if (!pack) return { era }
  const packs = packPackages(file('.context-condense'))
  const srcPkg = JSON.parse(read('src/package.json'))
  srcPkg.dependencies = { ...srcPkg.dependencies, 'context-condense': `file:${relative(file('src'), packs.main)}` }
  writeFileSync(file('src/package.json'), `${JSON.stringify(srcPkg, null, '\t')}\n`)
  log(`src/package.json: dependency context-condense ${srcPkg.dependencies['context-condense']}`)
  const rootPkg = JSON.parse(read('package.json'))
  rootPkg.pnpm = { ...rootPkg.pnpm, overrides: { ...rootPkg.pnpm?.overrides, [packs.platformName]: `file:${relative(roo, packs.platform)}` } }
  writeFileSync(file('package.json'), `${JSON.stringify(rootPkg, null, '\t')}\n`)
  log(`package.json: pnpm.overrides ${packs.platformName} -> file:${relative(roo, packs.platform)} (the binary package, not yet on the registry)`)
  return { era, packs }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const args = process.argv.slice(2)
  const roo = args.find((a) => !a.startsWith('--'))
  if (!roo || args.includes('--help') || args.includes('-h')) {
    console.error('usage: node scripts/roo-swap.mjs <roo-code checkout> [--no-pack]')
    process.exit(2)
  }
  const dir = resolve(roo)
  if (dir === repo || dir.startsWith(repo + '/')) {
    console.error('roo-swap: the Roo checkout must be outside this repository')
    process.exit(2)
  }
  try {
    applySwap(dir, { pack: !args.includes('--no-pack') })
    if (!args.includes('--no-pack')) console.log('next: pnpm install --no-frozen-lockfile (in the checkout)')
  } catch (e) {
    console.error(e.message)
    process.exit(1)
  }
}
