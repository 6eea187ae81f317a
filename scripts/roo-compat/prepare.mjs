// Prepares a run of Roo Code's own condense / sliding-window / context-management specs in a
// temporary folder (never in this repository): exports them from a local Roo Code git directory
// at a commit, rewrites only the import specifiers that name Roo's implementation modules so they
// name the host adapter (which loads this package's entry), and lays out the host stubs the specs
// need. With --roo the specs stay as they are and Roo's own implementation is exported beside them,
// over the same stubs, to show the harness is fair. It never writes inside this repository.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync, readFileSync, readdirSync, symlinkSync, copyFileSync } from 'node:fs'
import { dirname, join, resolve, posix } from 'node:path'
import { fileURLToPath } from 'node:url'

const here = dirname(fileURLToPath(import.meta.url))
const repo = resolve(here, '..', '..')
const [gitDir, commit, out, mode, extra] = process.argv.slice(2)
const ownImpl = mode === 'roo'
const timing = extra === 'time'

const git = (...args) => execFileSync('git', ['--git-dir', gitDir, ...args], { encoding: 'utf8', maxBuffer: 64 << 20 })
const has = (path) => {
  try {
    execFileSync('git', ['--git-dir', gitDir, 'cat-file', '-e', `${commit}:${path}`], { stdio: 'ignore' })
    return true
  } catch {
    return false
  }
}
const show = (path) => git('show', `${commit}:${path}`)
const put = (path, text) => {
  const full = join(out, path)
  mkdirSync(dirname(full), { recursive: true })
  writeFileSync(full, text)
}

// Roo's implementation modules (what the specs test) at this commit.
const IMPL_DIRS = ['src/core/condense', 'src/core/sliding-window', 'src/core/context-management']
const files = git('ls-tree', '-r', '--name-only', commit, '--', ...IMPL_DIRS)
  .split('\n')
  .filter(Boolean)
const specs = files.filter((f) => /__tests__\/.*\.spec\.ts$/.test(f))
const impl = files.filter((f) => !f.includes('__tests__') && f.endsWith('.ts'))
// Which of this package's entries a maintainer of Roo at this commit imports.
const condenseSource = show('src/core/condense/index.ts')
const era2025 = has('src/core/sliding-window/index.ts')
const freshStart = condenseSource.includes('## Conversation Summary')
const eraName = era2025 ? '2025' : freshStart ? 'current' : '2026-01'

for (const f of specs) put(f, show(f))
// --time: the timing spec (timing.spec.ts beside this file). It imports the era's context
// management twice: as Roo's own specs do (so the rewrite below points it at the entry in the same
// way), and by its absolute path (which the rewrite leaves alone: Roo's own implementation,
// exported beside it below), so both run in one process.
if (timing) {
  const spec = 'src/core/condense/__tests__/timing.spec.ts'
  const dir = era2025 ? 'sliding-window' : 'context-management'
  put(
    spec,
    readFileSync(join(here, 'timing.spec.ts'), 'utf8')
      .replace(/(['"])__GENERATOR__\1/, JSON.stringify(join(repo, 'fixtures', 'generate.mjs')))
      .replace(/(['"])__ROO_MANAGEMENT__\1/, JSON.stringify(join(resolve(out), 'src', 'core', dir, 'index.ts')))
      .replace(/(['"])__MANAGEMENT__\1/, JSON.stringify(`../../${dir}`)),
  )
  specs.push(spec)
}

// Host files Roo's implementation and specs import, taken from Roo at the same commit (plain
// helpers with no imports of their own), and Roo's English strings.
for (const f of ['src/shared/array.ts', 'src/shared/support-prompt.ts', 'src/api/transform/image-cleaning.ts', 'src/utils/tiktoken.ts']) {
  if (has(f)) put(f, show(f))
}
put('src/i18n/locales/en/common.json', show('src/i18n/locales/en/common.json'))

// Stubs for the rest of Roo's host (same for both modes).
const stubs = join(here, 'tree')
for (const name of readdirSync(stubs, { recursive: true })) {
  const from = join(stubs, name)
  if (!name.endsWith('.ts') && !name.endsWith('.js')) continue
  const to = join(out, name)
  mkdirSync(dirname(to), { recursive: true })
  copyFileSync(from, to)
}

// Roo's default condensing prompt, from Roo's source at this commit: the template literal
// SUMMARY_PROMPT in condense/index.ts (2025), or supportPrompt's CONDENSE template (later).
function templateAfter(text, marker) {
  const at = text.indexOf(marker)
  if (at < 0) return undefined
  // Only a template literal right after the marker (`const X = \`…\``, `template: \`…\``).
  const head = /^\s*(?:[=:]\s*)?`/.exec(text.slice(at + marker.length))
  if (!head) return undefined
  let i = at + marker.length + head[0].length
  let s = ''
  for (; i < text.length; i++) {
    const c = text[i]
    if (c === '\\') {
      const n = text[i + 1]
      if (n === '\n') {
        i++
        continue
      }
      s += n === 'n' ? '\n' : n === 't' ? '\t' : n
      i++
      continue
    }
    if (c === '`') break
    if (c === '$' && text[i + 1] === '{') return undefined // an interpolated template: not a fixed prompt
    s += c
  }
  return s
}
// Roo's own prompts at this commit: the default condensing instructions (the literal SUMMARY_PROMPT
// of 2025, supportPrompt's CONDENSE template later) and, once both exist, the literal
// SUMMARY_PROMPT is the system prompt of today's fresh-start request.
const literal = templateAfter(condenseSource, 'const SUMMARY_PROMPT')
let condense
if (has('src/shared/support-prompt.ts')) {
  const sp = show('src/shared/support-prompt.ts')
  const at = sp.indexOf('CONDENSE:')
  if (at >= 0) condense = templateAfter(sp.slice(at), 'template:')
}
const prompt = condense ?? literal
const requestSystemPrompt = condense !== undefined ? literal : undefined
if (prompt === undefined) throw new Error(`no default condensing prompt found in Roo's source at ${commit}`)
const entry = { 2025: 'context-condense/roo-2025', '2026-01': 'context-condense/roo-2026-01', current: 'context-condense/roo' }[eraName]
// The host adapter, as a Roo maintainer would use it (examples/roo-host), with its Roo-tree
// imports pointed at the stubs' places in this folder and the era's entry.
for (const name of ['condense.ts', 'context-management.ts', 'foldedFileContext.ts']) {
  let text = readFileSync(join(repo, 'examples', 'roo-host', name), 'utf8')
    .replaceAll('"../../i18n"', '"../src/i18n"')
    .replaceAll('"../../api/transform/image-cleaning"', '"../src/api/transform/image-cleaning"')
    .replaceAll('"../../services/tree-sitter"', '"../src/services/tree-sitter"')
    .replaceAll('"../condense"', '"./condense"')
    .replaceAll('"context-condense/roo"', JSON.stringify(entry))
  // Before today's Roo there is no folded file context (the adapter's own note).
  if (eraName !== 'current') text = text.replace(/^import \* as folded from .*\n/m, '').replace(/^\tfoldedFileContext: .*\n/m, '')
  put(join('host', name), text)
}
// Roo's default prompt from Roo's source at this commit (the harness's stand-in for Roo's
// prompt settings), given to the entry before each spec file.
put(
  'setup.ts',
  `import { createRequire } from "node:module"
globalThis.structuredClone = globalThis.structuredClone || ((o: any) => JSON.parse(JSON.stringify(o)))
${
  ownImpl
    ? ''
    : `const roo = createRequire(import.meta.url)(${JSON.stringify(entry)})
roo.configure({ ...roo.configuration(), defaultPrompt: ${JSON.stringify(prompt)}${requestSystemPrompt ? `, requestSystemPrompt: ${JSON.stringify(requestSystemPrompt)}` : ''} })
`
}`,
)

// Which implementation module a spec's specifier names, if any.
function implTarget(specFile, spec) {
  if (!spec.startsWith('.')) return undefined
  const p = posix.normalize(posix.join(posix.dirname(specFile), spec)).replace(/\.ts$/, '')
  if (p === 'src/core/condense' || p === 'src/core/condense/index') return 'condense'
  if (p === 'src/core/sliding-window' || p === 'src/core/sliding-window/index') return 'context-management'
  if (p === 'src/core/context-management' || p === 'src/core/context-management/index') return 'context-management'
  if (p === 'src/core/condense/foldedFileContext') return 'foldedFileContext'
  return undefined
}

const rewritten = []
if (ownImpl || timing) for (const f of impl) put(f, show(f))
if (!ownImpl) {
  for (const f of specs) {
    let text = readFileSync(join(out, f), 'utf8')
    // Specifiers in import/export ... from "x", import("x"), vi.mock("x"), vi.doMock("x").
    text = text.replace(/(from\s+|import\s*\(\s*|import\s+|vi\.(?:do)?(?:un)?mock\(\s*)(["'])([^"']+)\2/g, (whole, lead, q, spec) => {
      const target = implTarget(f, spec)
      if (!target) return whole
      const to = posix.relative(posix.dirname(f), `host/${target}`)
      rewritten.push(`${f}: ${spec} -> ${to}`)
      return `${lead}${q}${to}${q}`
    })
    writeFileSync(join(out, f), text)
  }
}

// node_modules: this repository's, and the package itself (resolved through its exports map).
mkdirSync(join(out, 'node_modules'), { recursive: true })
for (const name of readdirSync(join(repo, 'node_modules'))) {
  if (name === '.bin') continue
  symlinkSync(join(repo, 'node_modules', name), join(out, 'node_modules', name))
}
symlinkSync(repo, join(out, 'node_modules', 'context-condense'))

put(
  'vitest.config.mts',
  `import { defineConfig } from "vitest/config"
import path from "node:path"
const stub = (p: string) => path.resolve(__dirname, p)
export default defineConfig({
  root: __dirname,
  test: { globals: true, watch: false, include: ["src/**/*.spec.ts"], testTimeout: 20000, hookTimeout: 20000, setupFiles: ["./setup.ts"] },
  resolve: {
    alias: {
      "@roo-code/telemetry": stub("stubs/telemetry.ts"),
      "@roo-code/types": stub("stubs/types.ts"),
      "@anthropic-ai/sdk": stub("stubs/anthropic.ts"),
      vscode: stub("stubs/vscode.ts"),
    },
  },
})
`,
)
console.log(JSON.stringify({ era: eraName, entry: ownImpl ? "Roo's own implementation" : entry, specs, rewritten }))
