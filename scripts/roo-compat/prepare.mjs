// Prepares a run of Roo Code's own condense / sliding-window / context-management specs in a
// temporary folder (never in this repository): exports them from a local Roo Code git directory
// at a commit, with the few host files they need, and puts the host adapter of that Roo's era
// (examples/roo-host, verbatim) where a maintainer puts it, in place of Roo's implementation, with
// Roo's SUMMARY_PROMPT moved into its host file: exactly what scripts/roo-swap.mjs does to a
// checkout (its era rule, adapter list and prompt move are used here). The specs are not rewritten:
// they import Roo's module paths, which now hold the adapter. With --roo Roo's own implementation
// stays in place instead, over the same stubs, to show the harness is fair. It never writes inside
// this repository.
import { execFileSync } from 'node:child_process'
import { mkdirSync, writeFileSync, readFileSync, readdirSync, symlinkSync, copyFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ADAPTERS, ENTRY, SUMMARY_PROMPT_FILE, adapterText, needsSummaryPrompt, rooEra, summaryPromptModule } from '../roo-swap.mjs'

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
const eraName = rooEra((path) => (has(path) ? show(path) : undefined))
const era2025 = eraName === '2025'

for (const f of specs) put(f, show(f))
// --time: the timing spec (timing.spec.ts beside this file). It imports the era's context
// management twice: as Roo's own specs do (Roo's module path, where the adapter is), and Roo's own
// implementation, exported beside it into src/core/<dir>-roo/ (its import of ../condense pointed at
// its own condense module there), so both run in one process.
const rewritten = []
if (timing) {
  const spec = 'src/core/condense/__tests__/timing.spec.ts'
  const dir = era2025 ? 'sliding-window' : 'context-management'
  put(
    spec,
    readFileSync(join(here, 'timing.spec.ts'), 'utf8')
      .replace(/(['"])__GENERATOR__\1/, JSON.stringify(join(repo, 'fixtures', 'generate.mjs')))
      .replace(/(['"])__ROO_MANAGEMENT__\1/, JSON.stringify(join(resolve(out), 'src', 'core', `${dir}-roo`, 'index.ts')))
      .replace(/(['"])__MANAGEMENT__\1/, JSON.stringify(`../../${dir}`)),
  )
  specs.push(spec)
  for (const f of impl) {
    const to = f.replace(/^src\/core\/(condense|sliding-window|context-management)\//, 'src/core/$1-roo/')
    put(
      to,
      show(f).replace(/(from\s+)(["'])\.\.\/condense\2/g, (_whole, lead, q) => {
        rewritten.push(`${to}: ../condense -> ../condense-roo`)
        return `${lead}${q}../condense-roo${q}`
      }),
    )
  }
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

const entry = ENTRY[eraName]
if (ownImpl) {
  for (const f of impl) put(f, show(f))
} else {
  // The host adapter, as a Roo maintainer puts it in Roo's tree (scripts/roo-swap.mjs): the prompt
  // moved out of Roo's condense module first, then the era's adapters in place of Roo's modules.
  if (needsSummaryPrompt(eraName)) put(SUMMARY_PROMPT_FILE, summaryPromptModule(show('src/core/condense/index.ts')))
  for (const [from, to] of ADAPTERS[eraName]) put(to, adapterText(from))
}
put('setup.ts', 'globalThis.structuredClone = globalThis.structuredClone || ((o: any) => JSON.parse(JSON.stringify(o)))\n')

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
  test: {
    globals: true, watch: false, include: ["src/**/*.spec.ts"], testTimeout: 20000, hookTimeout: 20000, setupFiles: ["./setup.ts"],
    // The package is loaded by Node as an installed package is (vite resolves the symlink to this
    // repository, outside node_modules, and would run its CommonJS through its own transform).
    server: { deps: { external: [/${(repo + '/lib/').replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')}/] } },
  },
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
