// Installs a Roo Code checkout's dependencies as its maintainers do (pnpm at the version of the
// root package.json's `packageManager`), where the registry and the machine allow, printing every
// change it had to make: install scripts that download from elsewhere than the package registry
// are left out of `pnpm.onlyBuiltDependencies`; a locked version the registry no longer serves is
// overridden by the nearest served version its caret range allows; a package the registry serves
// in no version at all is replaced by a local stub package whose every export is one self-returning
// Proxy (so the modules importing it load), with the names Roo imports from it declared for the
// type checker. The 404s are read from pnpm's own output (ERR_PNPM_FETCH_404 GET …/<pkg>/-/<file>-
// <version>.tgz), then the install is retried. Used by scripts/roo-extension.sh; writes only in
// the checkout (package.json, the lockfile, node_modules) and in the stub folder it is given.
//
//   node scripts/roo-extension/install.mjs <roo checkout> <stub folder>
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join, relative } from 'node:path'

const [roo, stubs] = process.argv.slice(2)
if (!roo || !stubs) {
  console.error('usage: node scripts/roo-extension/install.mjs <roo checkout> <stub folder>')
  process.exit(2)
}

/** Install scripts that fetch from outside the package registry, which this machine cannot reach. */
const DOWNLOADERS = {
  '@vscode/ripgrep': 'its postinstall downloads the ripgrep binary from api.github.com',
}

const rootFile = join(roo, 'package.json')
const rootPkg = JSON.parse(readFileSync(rootFile, 'utf8'))
const pm = /^pnpm@(\d+\.\d+\.\d+)/.exec(rootPkg.packageManager ?? '')
if (!pm) {
  console.error(`install: the root package.json's packageManager is ${JSON.stringify(rootPkg.packageManager)}, not pnpm@<version>`)
  process.exit(2)
}
const pnpm = ['-y', `pnpm@${pm[1]}`]
// Roo's preinstall bootstraps pnpm itself unless told a bootstrap is under way.
const env = { ...process.env, BOOTSTRAP_IN_PROGRESS: '1', npm_config_update_notifier: 'false' }
console.log(`pnpm ${pm[1]} (the root package.json's packageManager), through npx; BOOTSTRAP_IN_PROGRESS=1`)

const save = () => writeFileSync(rootFile, `${JSON.stringify(rootPkg, null, '\t')}\n`)
rootPkg.pnpm = rootPkg.pnpm ?? {}
const built = rootPkg.pnpm.onlyBuiltDependencies ?? []
const skipped = built.filter((name) => name in DOWNLOADERS)
for (const name of skipped) console.log(`install script skipped: ${name} (${DOWNLOADERS[name]})`)
rootPkg.pnpm.onlyBuiltDependencies = built.filter((name) => !(name in DOWNLOADERS))
console.log(`install scripts allowed: ${rootPkg.pnpm.onlyBuiltDependencies.join(', ') || 'none'}`)
rootPkg.pnpm.overrides = rootPkg.pnpm.overrides ?? {}
save()

/** Served versions of a package (npm view), or null when the registry serves none. */
function served(name) {
  const r = spawnSync('npm', ['view', name, 'versions', '--json'], { encoding: 'utf8', env })
  if (r.status !== 0) {
    if (/E404|404 Not Found/.test(r.stderr + r.stdout)) return null
    throw new Error(`install: npm view ${name} failed: ${r.stderr.trim().split('\n')[0]}`)
  }
  const v = JSON.parse(r.stdout)
  return Array.isArray(v) ? v : [v]
}

const parse = (v) => v.split(/[.+-]/).slice(0, 3).map(Number)
const newer = (a, b) => {
  for (let i = 0; i < 3; i++) if (a[i] !== b[i]) return a[i] > b[i]
  return false
}
/** The nearest version after `version` that `^version` allows (same major; same minor for 0.x). */
function nearest(version, versions) {
  const want = parse(version)
  const fits = versions
    .filter((v) => /^\d+\.\d+\.\d+$/.test(v))
    .map((v) => [v, parse(v)])
    .filter(([, p]) => newer(p, want) && p[0] === want[0] && (want[0] > 0 || p[1] === want[1]))
    .sort(([, a], [, b]) => (newer(a, b) ? 1 : -1))
  return fits.length > 0 ? fits[0][0] : undefined
}

/** The names Roo's sources import from a package, by sub-path: { '.': Set, './code': Set }. */
function importedNames(name) {
  const found = new Map()
  const escaped = name.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
  // import X from, import { a, type B } from, import X, { a } from, import * as X from, export { a } from
  const re = new RegExp(
    `(?:import|export)\\s+(type\\s+)?((?:\\w+\\s*,\\s*)?\\{[^}]*\\}|\\*\\s+as\\s+\\w+|\\w+)\\s+from\\s+["'](${escaped}(?:/[^"']*)?)["']`,
    'g',
  )
  const walk = (dir) => {
    for (const e of readdirSync(dir, { withFileTypes: true })) {
      if (e.name === 'node_modules' || e.name.startsWith('.') || e.name === 'dist') continue
      const full = join(dir, e.name)
      if (e.isDirectory()) walk(full)
      else if (/\.(ts|tsx|mts|js|mjs)$/.test(e.name)) {
        for (const m of readFileSync(full, 'utf8').matchAll(re)) {
          const sub = m[3] === name ? '.' : `.${m[3].slice(name.length)}`
          const names = found.get(sub) ?? new Set()
          const braces = /\{([^}]*)\}/.exec(m[2])
          for (const part of braces ? braces[1].split(',') : []) {
            const n = part
              .trim()
              .replace(/^type\s+/, '')
              .split(/\s+as\s+/)[0]
              .trim()
            if (n) names.add(n)
          }
          found.set(sub, names)
        }
      }
    }
  }
  for (const dir of ['src', 'packages', 'webview-ui', 'apps']) if (existsSync(join(roo, dir))) walk(join(roo, dir))
  return found
}

/** A stub package for `name`: every export (default included) is one self-returning Proxy. */
function stubPackage(name, version) {
  const dir = join(stubs, name.replace('/', '+'))
  mkdirSync(dir, { recursive: true })
  const names = importedNames(name)
  if (!names.has('.')) names.set('.', new Set())
  writeFileSync(
    join(dir, 'stub.js'),
    `// A stand-in for ${name}, which the registry no longer serves: every name is one object that can be
// read, called and constructed, answering itself, so modules that import it load.
const stub = new Proxy(function stub() {}, {
  get: (_t, k) => (k === Symbol.toPrimitive ? () => 'stub' : k === 'then' ? undefined : stub),
  apply: () => stub,
  construct: () => stub,
})
module.exports = stub
`,
  )
  const exportsMap = {}
  for (const [sub, set] of names) {
    const base = sub === '.' ? 'index' : sub.slice(2).replace(/\//g, '-')
    const list = [...set]
    writeFileSync(
      join(dir, `${base}.mjs`),
      `import stub from './stub.js'\n${list.length ? `export const ${list.map((n) => `${n} = stub`).join(', ')}\n` : ''}export default stub\n`,
    )
    // Each name as a value and as a type: Roo's sources use some of them as either.
    writeFileSync(
      join(dir, `${base}.d.ts`),
      `${list.map((n) => `export declare const ${n}: any\nexport type ${n} = any\n`).join('')}declare const stub: any\nexport default stub\n`,
    )
    exportsMap[sub] = { types: `./${base}.d.ts`, import: `./${base}.mjs`, require: './stub.js' }
  }
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, version, exports: exportsMap }, null, 2)}\n`)
  return { dir, names }
}

const overridden = []
for (let attempt = 1; attempt <= 8; attempt++) {
  const frozen = Object.keys(rootPkg.pnpm.overrides).length === 0 && skipped.length === 0
  const args = [...pnpm, 'install', frozen ? '--frozen-lockfile' : '--no-frozen-lockfile']
  console.log(`$ npx ${args.join(' ')}`)
  const r = spawnSync('npx', args, { cwd: roo, env, encoding: 'utf8', maxBuffer: 256 << 20 })
  const out = `${r.stdout}\n${r.stderr}`
  if (r.status === 0) {
    const tail = out.trim().split('\n').slice(-3).join('\n  ')
    console.log(`  ${tail}`)
    console.log(`installed (${attempt} attempt${attempt > 1 ? 's' : ''})${overridden.length ? `; overrides: ${overridden.join('; ')}` : ''}`)
    process.exit(0)
  }
  const m = /ERR_PNPM_FETCH_404\s+GET\s+(\S+)\/-\/[^\s/]+-(\d+\.\d+\.\d+[^\s/]*?)\.tgz/.exec(out)
  if (!m) {
    console.error(out.trim().split('\n').slice(-30).join('\n'))
    console.error('install: pnpm install failed (not a version the registry no longer serves)')
    process.exit(1)
  }
  // The package's name: the tarball URL's path after the registry's own.
  const registry = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8', env }).stdout.trim().replace(/\/?$/, '/')
  const name = decodeURIComponent(m[1].startsWith(registry) ? m[1].slice(registry.length) : new URL(m[1]).pathname.slice(1))
  const version = m[2]
  const versions = served(name)
  if (versions === null) {
    const stub = stubPackage(name, version)
    rootPkg.pnpm.overrides[name] = `link:${stub.dir}`
    const list = [...stub.names].map(([sub, set]) => `${sub === '.' ? name : name + sub.slice(1)}: ${[...set].join(', ') || '(default)'}`)
    const note = `${name}@${version} -> link:${relative(roo, stub.dir)} (the registry serves no version of it: a stub whose every export is a self-returning Proxy; Roo imports ${list.join('; ')})`
    overridden.push(note)
    console.log(`not served at all: ${note}`)
  } else {
    const to = nearest(version, versions)
    if (!to) {
      console.error(`install: ${name}@${version} is no longer served and no later version within ^${version} is (served: ${versions.slice(-5).join(', ')})`)
      process.exit(1)
    }
    rootPkg.pnpm.overrides[`${name}@${version}`] = to
    const note = `${name}@${version} -> ${to} (the nearest served version within ^${version})`
    overridden.push(note)
    console.log(`lockfile version not served: ${note}`)
  }
  save()
}
console.error('install: still failing after 8 attempts')
process.exit(1)
