#!/usr/bin/env node
// The pack-and-install check: packs the main package and this platform's binary package exactly as
// they are published (the binary copied into npm/<platform>/ as `napi artifacts` does), installs
// both into a fresh temporary project with no Rust toolchain on PATH, and checks what a user gets:
// require and import of every value export the .d.ts files name (main entry and sub-paths), tsc
// under node16, bundler and node10 resolution, the CLI through npx, and the error when the binary
// is absent. Works in a temporary folder only; never touches the repository's files or publishes.
//
//   node scripts/pack-check.mjs [--keep]        (the built .node must exist: npm run build)
import { execFileSync, spawnSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'

const require = createRequire(import.meta.url)
const { packageEntries, valueExports, root } = require('./dts-exports.cjs')
const { generateHistory } = await import('../fixtures/generate.mjs')

const keep = process.argv.includes('--keep')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const failures = []
const check = (what, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${what}${!ok && detail ? `\n      ${String(detail).trim().split('\n').join('\n      ')}` : ''}`)
  if (!ok) failures.push(what)
}

/** napi-rs's name for this platform (as in npm/<name>/ and the binary's file name). */
function hostPlatform() {
  const { platform, arch } = process
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform === 'linux') return `linux-${arch}-${process.report.getReport().header.glibcVersionRuntime ? 'gnu' : 'musl'}`
  return `${platform}-${arch}`
}

const host = hostPlatform()
const binary = join(root, `${pkg.napi.binaryName}.${host}.node`)
if (!existsSync(join(root, 'npm', host, 'package.json'))) {
  console.error(`pack-check: no npm/${host}/ package: this platform is not one of package.json's napi.targets`)
  process.exit(2)
}
if (!existsSync(binary)) {
  console.error(`pack-check: ${binary} is missing; run npm run build first`)
  process.exit(2)
}

const tmp = mkdtempSync(join(tmpdir(), 'context-condense-pack-'))
const packs = join(tmp, 'packs')
const project = join(tmp, 'project')
mkdirSync(packs)
mkdirSync(project)

// No Rust on PATH: what a user without a toolchain has. npm and node stay.
const PATH = process.env.PATH.split(delimiter)
  .filter((dir) => !['cargo', 'rustc', 'cargo.exe', 'rustc.exe'].some((b) => existsSync(join(dir, b))))
  .join(delimiter)
const env = {
  ...process.env,
  PATH,
  CARGO_HOME: join(tmp, 'no-cargo'),
  RUSTUP_HOME: join(tmp, 'no-rustup'),
  npm_config_audit: 'false',
  npm_config_fund: 'false',
  npm_config_update_notifier: 'false',
}
delete env.NODE_OPTIONS
const run = (cmd, args, cwd = project, extra = {}) =>
  spawnSync(cmd, args, { cwd, env: { ...env, ...extra }, encoding: 'utf8', shell: process.platform === 'win32' })
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm'
const npx = process.platform === 'win32' ? 'npx.cmd' : 'npx'

try {
  console.log(`pack-check: ${pkg.name}@${pkg.version} and ${pkg.name}-${host}, in ${tmp}`)
  check(
    'no cargo or rustc on the PATH of the install',
    run(process.platform === 'win32' ? 'where' : 'sh', process.platform === 'win32' ? ['cargo'] : ['-c', 'command -v cargo || command -v rustc']).status !== 0,
  )

  // The platform package, staged as `napi artifacts` leaves it: npm/<platform>/ with its binary.
  const stage = join(tmp, 'stage', host)
  mkdirSync(stage, { recursive: true })
  copyFileSync(join(root, 'npm', host, 'package.json'), join(stage, 'package.json'))
  copyFileSync(binary, join(stage, `${pkg.napi.binaryName}.${host}.node`))
  for (const f of ['README.md', 'LICENSE']) if (existsSync(join(root, 'npm', host, f))) copyFileSync(join(root, 'npm', host, f), join(stage, f))
  const packJson = (cwd) =>
    JSON.parse(
      execFileSync(npm, ['pack', '--json', '--pack-destination', packs], {
        cwd,
        env,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'pipe'],
        shell: process.platform === 'win32',
      }),
    )[0]
  const platformPack = packJson(stage)
  check(
    `${platformPack.filename}: holds the binary`,
    platformPack.files.some((f) => f.path.endsWith('.node')),
    JSON.stringify(platformPack.files),
  )
  const mainPack = packJson(root)
  check(
    `${mainPack.filename}: holds no binary and the LICENSE`,
    !mainPack.files.some((f) => f.path.endsWith('.node')) && mainPack.files.some((f) => f.path === 'LICENSE'),
  )
  const published = JSON.parse(execFileSync('tar', ['-xzOf', join(packs, mainPack.filename), 'package/package.json'], { encoding: 'utf8' }))
  const wanted = Object.fromEntries(pkg.napi.targets.map((t) => [`${pkg.name}-${targetDir(t)}`, pkg.version]))
  const sorted = (o) => JSON.stringify(Object.entries(o ?? {}).sort(([a], [b]) => a.localeCompare(b)))
  check(
    'the published package.json names every platform package at its version in optionalDependencies',
    sorted(published.optionalDependencies) === sorted(wanted),
    JSON.stringify(published.optionalDependencies),
  )

  // A fresh CommonJS project installs both tarballs (the other platforms' optional packages are
  // not for this machine; --omit=optional keeps npm from asking the registry for them).
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pack-check-project', version: '1.0.0', private: true }, null, 2))
  const install = run(npm, ['install', '--omit=optional', '--no-package-lock', join(packs, mainPack.filename), join(packs, platformPack.filename)])
  check('npm install of both tarballs, no Rust toolchain', install.status === 0, install.stderr)
  check(`npm install: no EBADENGINE, no install script`, !/EBADENGINE|gyp|cargo/.test(install.stderr + install.stdout), install.stderr)

  const entries = packageEntries().map((e) => ({ ...e, names: valueExports(join(root, e.types)) }))
  for (const e of entries) {
    const cjs = run(process.execPath, [
      '-e',
      `const m = require(${JSON.stringify(e.specifier)}); const missing = ${JSON.stringify(e.names)}.filter((n) => m[n] === undefined); if (missing.length) { console.error('missing: ' + missing.join(', ')); process.exit(1) }`,
    ])
    check(`require('${e.specifier}'): all ${e.names.length} value exports`, cjs.status === 0 && cjs.stderr === '', cjs.stderr)
    const esm = run(process.execPath, [
      '--input-type=module',
      '-e',
      `import { ${e.names.join(', ')} } from ${JSON.stringify(e.specifier)}\nfor (const v of [${e.names.join(', ')}]) if (v === undefined) process.exit(1)`,
    ])
    check(`import { ... } from '${e.specifier}': all ${e.names.length} named`, esm.status === 0 && esm.stderr === '', esm.stderr)
  }
  // It works, not just loads: a lossless run on a generated history.
  const history = join(project, 'history.json')
  writeFileSync(history, JSON.stringify(generateHistory({ seed: 5, format: 'native', targetTokens: 20_000 })))
  const works = run(process.execPath, [
    '--input-type=module',
    '-e',
    `import { condense, countTokens } from 'context-condense'\nimport { readFileSync } from 'node:fs'\nconst h = JSON.parse(readFileSync('history.json', 'utf8'))\nconst r = await condense(h, { provider: 'lossless' })\nif (!(r.newContextTokens < r.prevContextTokens) || r.prevContextTokens !== countTokens(h)) process.exit(1)\nconsole.log(r.prevContextTokens + ' -> ' + r.newContextTokens)`,
  ])
  check(`condense from the installed package: ${works.stdout.trim()}`, works.status === 0, works.stderr)

  // The types, as a user's project compiles them: every entry, under each resolution.
  // An entry that is an ES module only (the browser settings element) is imported from an ES
  // module file: a CommonJS file under node16 resolution must use import() for it, as in Node;
  // node10 (CommonJS resolution, no `exports`) cannot type an ES module entry at all.
  const esmOnly = (e) => e.js.endsWith('.mjs')
  const use = (list, offset) =>
    list
      .map((e, k) => {
        const i = k + offset
        return `import { ${e.names.map((n) => `${n} as e${i}_${n}`).join(', ')} } from '${e.specifier}'\nexport const used${i} = [${e.names.map((n) => `e${i}_${n}`).join(', ')}]`
      })
      .join('\n')
  const source = use(
    entries.filter((e) => !esmOnly(e)),
    0,
  )
  writeFileSync(join(project, 'use-esm.mts'), `${use(entries.filter(esmOnly), 100)}\n`)
  writeFileSync(
    join(project, 'use.ts'),
    `${source}\nimport type { ApiMessage, CondenseResult } from 'context-condense'\nexport const m: ApiMessage = { role: 'user', content: 'hi' }\nexport type R = CondenseResult\n`,
  )
  const tsc = join(root, 'node_modules', 'typescript', 'bin', 'tsc')
  const typeRoots = join(root, 'node_modules', '@types')
  for (const [resolution, module] of [
    ['node16', 'node16'],
    ['bundler', 'esnext'],
    ['node10', 'commonjs'],
  ]) {
    const r = run(process.execPath, [
      tsc,
      '--noEmit',
      '--strict',
      '--skipLibCheck',
      'false',
      '--target',
      'es2022',
      '--module',
      module,
      '--moduleResolution',
      resolution,
      '--typeRoots',
      typeRoots,
      '--types',
      'node',
      'use.ts',
      ...(resolution === 'node10' ? [] : ['use-esm.mts']),
    ])
    check(`tsc --moduleResolution ${resolution}: every entry's types found and used`, r.status === 0, r.stdout + r.stderr)
  }

  // The command line through npx, on a history.
  const help = run(npx, ['--no-install', 'context-condense', '--help'])
  check('npx context-condense --help', help.status === 0 && /context-condense/.test(help.stdout), help.stderr)
  const analyze = run(npx, ['--no-install', 'context-condense', 'analyze', 'history.json', '--json'])
  check('npx context-condense analyze history.json --json', analyze.status === 0 && JSON.parse(analyze.stdout || '{}').ok === true, analyze.stderr)

  // Without a binary for this platform: an error that names it and says what to do.
  const platformDir = join(project, 'node_modules', `${pkg.name}-${host}`)
  renameSync(platformDir, `${platformDir}.away`)
  const absent = run(process.execPath, ['-e', `require('context-condense')`])
  renameSync(`${platformDir}.away`, platformDir)
  const firstLine = absent.stderr.split('\n').find((l) => l.includes('no prebuilt binary')) ?? absent.stderr
  check(
    `binary absent: "${firstLine.replace(/^.*?Error: /, '').slice(0, 90)}..."`,
    absent.status !== 0 &&
      absent.stderr.includes(`no prebuilt binary for ${host} in this install`) &&
      absent.stderr.includes('npm run build') &&
      absent.stderr.includes('--no-optional'),
    absent.stderr,
  )
} finally {
  if (keep) console.log(`kept ${tmp}`)
  else rmSync(tmp, { recursive: true, force: true })
}

/** The npm/ folder napi-rs uses for a Rust target triple. */
function targetDir(triple) {
  const known = {
    'x86_64-unknown-linux-gnu': 'linux-x64-gnu',
    'x86_64-unknown-linux-musl': 'linux-x64-musl',
    'aarch64-unknown-linux-gnu': 'linux-arm64-gnu',
    'x86_64-apple-darwin': 'darwin-x64',
    'aarch64-apple-darwin': 'darwin-arm64',
    'x86_64-pc-windows-msvc': 'win32-x64-msvc',
    'wasm32-wasip1-threads': 'wasm32-wasi',
  }
  if (!known[triple]) throw new Error(`pack-check: no npm folder known for target ${triple}`)
  return known[triple]
}

console.log(failures.length === 0 ? 'pack-check: all passed' : `pack-check: ${failures.length} failed`)
process.exit(failures.length === 0 ? 0 : 1)
