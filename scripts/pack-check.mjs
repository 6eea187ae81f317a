#!/usr/bin/env node
// The pack-and-install check: first what publishing needs (checkPublishable: every package's
// metadata, versions, optionalDependencies, the lockfile, the release job's permissions); then packs the main
// package and this platform's binary package exactly as they are published (scripts/pack-local.mjs,
// the binary copied into npm/<platform>/ as `napi artifacts` does), installs
// both into a fresh temporary project with no Rust toolchain on PATH, and checks what a user gets:
// require and import of every value export the .d.ts files name (main entry and sub-paths), tsc
// under node16, bundler and node10 resolution, the CLI through npx, and the error when the binary
// is absent. Works in a temporary folder only; never touches the repository's files or publishes.
//
//   node scripts/pack-check.mjs [--keep]        (the built .node must exist: npm run build)
//   node scripts/pack-check.mjs --metadata-only (what publishing needs, nothing packed)
import { execFileSync, spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'

const require = createRequire(import.meta.url)
const { packageEntries, valueExports, root } = require('./dts-exports.cjs')
const { generateHistory } = await import('../fixtures/generate.mjs')
const { hostPlatform, packLocal } = await import('./pack-local.mjs')

const keep = process.argv.includes('--keep')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
const failures = []
const check = (what, ok, detail = '') => {
  console.log(`${ok ? 'ok  ' : 'FAIL'}  ${what}${!ok && detail ? `\n      ${String(detail).trim().split('\n').join('\n      ')}` : ''}`)
  if (!ok) failures.push(what)
}

// What npm and the release workflow need before anything is packed (no registry asked): fails
// here rather than at release time.
checkPublishable()
if (process.argv.includes('--metadata-only')) finish()

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

  // The pair `npm run pack:local` makes: the platform package staged as `napi artifacts` leaves
  // it (npm/<platform>/ with its binary) and the main package.
  const { main: mainPack, platform: platformPack } = packLocal(packs, env)
  check(
    `${platformPack.filename}: holds the binary`,
    platformPack.files.some((f) => f.path.endsWith('.node')),
    JSON.stringify(platformPack.files),
  )
  check(
    `${mainPack.filename}: holds no binary and the LICENSE`,
    !mainPack.files.some((f) => f.path.endsWith('.node')) && mainPack.files.some((f) => f.path === 'LICENSE'),
  )
  // What the release's npm publish adds: its prepublishOnly, napi pre-publish, writes the platform
  // packages into optionalDependencies (one per napi.targets entry, at the version). Run here on a
  // staged copy of package.json and this platform's package (this target only, as
  // scripts/ci-publish.sh --dry-run does), publishing nothing and creating no GitHub release.
  const prepub = join(tmp, 'pre-publish')
  mkdirSync(join(prepub, 'npm', host), { recursive: true })
  const stagedPkg = { ...pkg, napi: { ...pkg.napi, targets: pkg.napi.targets.filter((t) => targetDir(t) === host) } }
  writeFileSync(join(prepub, 'package.json'), JSON.stringify(stagedPkg, null, 2))
  writeFileSync(join(prepub, 'npm', host, 'package.json'), readFileSync(join(root, 'npm', host, 'package.json')))
  execFileSync('tar', ['-xzf', join(packs, platformPack.filename), '-C', join(prepub, 'npm', host), '--strip-components=1'])
  const napiCli = join(root, 'node_modules', '@napi-rs', 'cli', 'dist', 'cli.js')
  const prePublish = run(process.execPath, [napiCli, 'pre-publish', '-t', 'npm', '--skip-optional-publish', '--no-gh-release'], prepub, {
    GITHUB_REPOSITORY: '',
  })
  const written = prePublish.status === 0 ? readJson(join(prepub, 'package.json')).optionalDependencies : undefined
  check(
    `napi pre-publish (prepublishOnly) writes optionalDependencies: ${JSON.stringify(written)}`,
    JSON.stringify(written) === JSON.stringify({ [`${pkg.name}-${host}`]: pkg.version }),
    prePublish.stdout + prePublish.stderr,
  )

  // A fresh CommonJS project installs both tarballs, as pack:local tells a user to.
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'pack-check-project', version: '1.0.0', private: true }, null, 2))
  const install = run(npm, ['install', '--no-package-lock', join(packs, mainPack.filename), join(packs, platformPack.filename)])
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

  // Without a binary for this platform: the library's error, which names what is missing and the
  // ways out, and the CLI prints it alone.
  const platformDir = join(project, 'node_modules', `${pkg.name}-${host}`)
  renameSync(platformDir, `${platformDir}.away`)
  const absent = run(process.execPath, ['-e', `require('context-condense')`])
  const absentCli = run(npx, ['--no-install', 'context-condense', '--help'])
  renameSync(`${platformDir}.away`, platformDir)
  const firstLine = absent.stderr.split('\n').find((l) => l.includes('no prebuilt binary')) ?? absent.stderr
  check(
    `binary absent: "${firstLine.replace(/^.*?Error: /, '').slice(0, 90)}..."`,
    absent.status !== 0 &&
      absent.stderr.includes(`no prebuilt binary for ${host} in this install`) &&
      absent.stderr.includes(`${pkg.napi.binaryName}.${host}.node`) &&
      absent.stderr.includes(`npm install ${pkg.name}-${host}@${pkg.version}`) &&
      absent.stderr.includes('npm run build'),
    absent.stderr,
  )
  check(
    'binary absent: npx context-condense --help prints that message alone and exits non-zero',
    absentCli.status !== 0 && absentCli.stderr.startsWith(`context-condense: no prebuilt binary for ${host}`) && !/^\s+at /m.test(absentCli.stderr),
    absentCli.stderr,
  )
} finally {
  if (keep) console.log(`kept ${tmp}`)
  else rmSync(tmp, { recursive: true, force: true })
}

/** The npm/ folder napi-rs uses for a Rust target triple. */
function targetDir(triple) {
  const name = require('../lib/internal/platform.js').targetName(triple)
  if (!name) throw new Error(`pack-check: no npm folder known for target ${triple} (lib/internal/platform.js)`)
  return name
}

finish()

function finish() {
  console.log(failures.length === 0 ? 'pack-check: all passed' : `pack-check: ${failures.length} failed`)
  process.exit(failures.length === 0 ? 0 : 1)
}

/**
 * The publish, short of the upload: every package npm would publish (the main one and each
 * npm/<platform>/) has what `npm publish --provenance` requires and what a user needs to find the
 * source (name, version, repository.url on GitHub, homepage, bugs, license, files, main); they all
 * name the same repository and version; npm/ holds a package for each of napi.targets and the
 * repository's package.json leaves optionalDependencies to napi pre-publish (which the pack phase
 * runs); the lockfile locks every platform's build of the tools; and the release workflow's publish job may do
 * what the publish does (an OIDC token for provenance; a GitHub token with write access to the
 * repository's contents when `napi pre-publish` creates the GitHub release).
 */
function checkPublishable() {
  const dirs = readdirSync(join(root, 'npm'), { withFileTypes: true })
    .filter((d) => d.isDirectory())
    .map((d) => d.name)
    .sort()
  const packages = [
    { where: 'package.json', json: pkg },
    ...dirs.map((d) => ({ where: `npm/${d}/package.json`, json: readJson(join(root, 'npm', d, 'package.json')) })),
  ]
  const repositoryUrl = (json) => (typeof json.repository === 'string' ? json.repository : json.repository?.url) ?? ''
  for (const { where, json } of packages) {
    const missing = ['name', 'version', 'license', 'main', 'homepage'].filter((k) => typeof json[k] !== 'string' || json[k] === '')
    if (!repositoryUrl(json)) missing.push('repository.url')
    if (!(typeof json.bugs === 'string' ? json.bugs : json.bugs?.url)) missing.push('bugs.url')
    if (!Array.isArray(json.files) || json.files.length === 0) missing.push('files')
    else if (where !== 'package.json' && !json.files.includes(json.main)) missing.push(`files: ${json.main} (its main)`)
    check(`${where}: name, version, repository.url, homepage, bugs, license, files and main`, missing.length === 0, `missing or empty: ${missing.join(', ')}`)
    const url = repositoryUrl(json)
    let github = false
    try {
      github = new URL(url.replace(/^git\+/, '')).hostname === 'github.com'
    } catch {}
    if (url) check(`${where}: repository.url is a GitHub repository (npm's provenance checks it against the workflow's)`, github, url)
  }
  const urls = new Set(packages.map(({ json }) => repositoryUrl(json)))
  check('every package names the same repository', urls.size === 1 && !urls.has(''), [...urls].join(', '))
  const off = packages.filter(({ json }) => json.version !== pkg.version)
  check(`every package is at version ${pkg.version}`, off.length === 0, off.map(({ where, json }) => `${where}: ${json.version}`).join(', '))
  const misnamed = dirs.filter((d) => readJson(join(root, 'npm', d, 'package.json')).name !== `${pkg.name}-${d}`)
  check(`each npm/<platform>/package.json is named ${pkg.name}-<platform>`, misnamed.length === 0, misnamed.join(', '))
  const fromTargets = pkg.napi.targets.map(targetDir).sort()
  check(
    'npm/ holds one folder per napi.targets entry',
    JSON.stringify(dirs) === JSON.stringify(fromTargets),
    `npm/: ${dirs.join(', ')}; targets: ${fromTargets.join(', ')}`,
  )
  // The platform packages are not on the registry until the release publishes them, so npm cannot
  // lock them: listed in the repository's package.json, they make npm ci refuse the lockfile ("Missing:
  // context-condense-darwin-arm64@ from lock file"). napi pre-publish writes them at publish time.
  const ownOptional = Object.keys(pkg.optionalDependencies ?? {}).filter((d) => d.startsWith(`${pkg.name}-`))
  check(
    'package.json lists no platform package in optionalDependencies (napi pre-publish adds them when publishing; npm ci could not lock them)',
    ownOptional.length === 0,
    ownOptional.join(', '),
  )
  check("package.json's prepublishOnly runs napi pre-publish", /\bnapi pre-publish\b/.test(pkg.scripts?.prepublishOnly ?? ''), pkg.scripts?.prepublishOnly)

  // The lockfile CI installs from (npm ci on Linux, macOS, Windows and Alpine): every optional
  // dependency a locked package names is locked too, so each runner finds its platform's build (of
  // Biome, napi-rs's tar and wasm-tools, …). npm locks them all; a lockfile written by another
  // client or with --os/--cpu may not.
  const lock = readJson(join(root, 'package-lock.json'))
  const unlocked = []
  for (const [path, entry] of Object.entries(lock.packages ?? {})) {
    for (const dep of Object.keys(entry.optionalDependencies ?? {})) {
      const base = path === '' ? '' : `${path}/`
      // npm's resolution: the dependency nested under its dependent, else under each ancestor.
      const candidates = [`${base}node_modules/${dep}`]
      for (let p = path; p.includes('node_modules/'); ) {
        p = p.slice(0, p.lastIndexOf('node_modules/')).replace(/\/$/, '')
        candidates.push(`${p ? `${p}/` : ''}node_modules/${dep}`)
      }
      if (!candidates.some((c) => lock.packages[c])) unlocked.push(`${dep} (for ${path || 'the root'})`)
    }
  }
  check('package-lock.json locks every optional (per-platform) dependency', unlocked.length === 0, unlocked.slice(0, 20).join(', '))

  // The publish job of the release workflow (the job that runs scripts/ci-publish.sh).
  const workflow = readFileSync(join(root, '.github', 'workflows', 'release.yml'), 'utf8')
  const jobs = workflow.slice(workflow.search(/^jobs:/m)).split(/\n(?= {2}[\w-]+:)/)
  const publish = jobs.find((j) => j.includes('scripts/ci-publish.sh') && !j.includes('--dry-run')) ?? ''
  check('release.yml: a job runs scripts/ci-publish.sh', publish !== '')
  check("release.yml: the publish job has 'id-token: write' (npm publish --provenance needs the OIDC token)", /^\s+id-token:\s*write\b/m.test(publish))
  const prePublish = pkg.scripts.prepublishOnly ?? ''
  if (/napi pre-publish/.test(prePublish) && !/--no-gh-release\b/.test(prePublish)) {
    check(
      "release.yml: the publish job has 'contents: write' and GITHUB_TOKEN (napi pre-publish creates the GitHub release and uploads the binaries to it)",
      /^\s+contents:\s*write\b/m.test(publish) && /^\s+GITHUB_TOKEN:\s*\$\{\{\s*secrets\.GITHUB_TOKEN\s*\}\}/m.test(publish),
      publish
        .split('\n')
        .filter((l) => /contents:|GITHUB_TOKEN/.test(l))
        .join('\n') || 'neither is there',
    )
  }
}

function readJson(file) {
  return JSON.parse(readFileSync(file, 'utf8'))
}
