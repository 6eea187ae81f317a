// What `npm pack` of the main package holds: the JavaScript API, its types, the generated loader,
// the command line when there is one, the README, and nothing of the sources, tests or benches.
// The binaries travel in the per-platform packages (npm/<platform>/), wired by `napi pre-publish`.
import { execFileSync, spawnSync } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

const root = join(__dirname, '..')
const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))

describe('the npm package', () => {
  it('contains what a user needs and nothing more', () => {
    const out = execFileSync('npm', ['pack', '--dry-run', '--json', '--ignore-scripts'], { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'ignore'] })
    const files: string[] = JSON.parse(out)[0].files.map((f: { path: string }) => f.path)
    for (const needed of [
      'package.json',
      'README.md',
      'index.js',
      'index.d.ts',
      'lib/index.js',
      'lib/index.d.ts',
      'lib/manager.js',
      'lib/internal/repair.js',
    ]) {
      expect(files).toContain(needed)
    }
    for (const bin of Object.values<string>(pkg.bin ?? {})) expect(files).toContain(bin.replace(/^\.\//, ''))
    // Every file `main`, `types`, `exports` and `bin` name is in it.
    // (the targets of `exports`, its values, not its keys; a pattern, were there one, aside)
    const targets = (v: unknown): string[] => (typeof v === 'string' ? [v] : v && typeof v === 'object' ? Object.values(v).flatMap(targets) : [])
    const named = [pkg.main, pkg.types, ...targets(pkg.exports ?? {})].filter((p: string) => !p.includes('*')).map((p: string) => p.replace(/^\.\//, ''))
    expect(named).toContain('lib/roo.js')
    for (const n of named.filter((n) => n !== 'package.json')) expect(files).toContain(n)
    const unwanted = files.filter(
      (f) => /^(src|tests|__test__|fuzz|benchmark|fixtures|target|npm|examples|\.ci)\//.test(f) || f.endsWith('.node') || f.endsWith('.rs'),
    )
    expect(unwanted).toEqual([])
  })

  it('each entry of `exports` loads by its package name', () => {
    const out = execFileSync(
      process.execPath,
      [
        '-e',
        `
      const names = ['context-condense', 'context-condense/roo', 'context-condense/openai-client', 'context-condense/openai-format', 'context-condense/ai-sdk', 'context-condense/report-html']
      console.log(JSON.stringify(names.map((n) => Object.keys(require(n)).length)))`,
      ],
      { cwd: root, encoding: 'utf8' },
    )
    const counts: number[] = JSON.parse(out)
    expect(counts.every((n) => n > 0)).toBe(true)
    expect(counts).toHaveLength(6)
  })

  it('the main export is whole whichever module is required first, with no warning', () => {
    for (const first of ['./lib/manager.js', './lib/roo.js', './lib/report-html.js', './lib/index.js']) {
      const r = spawnSync(
        process.execPath,
        [
          '-e',
          `
        require(${JSON.stringify(first)})
        const lib = require('./lib/index.js')
        console.log(JSON.stringify([typeof lib.CondensationManager, lib.MIN_CONDENSE_THRESHOLD, lib.MAX_CONDENSE_THRESHOLD, lib.TOKEN_BUFFER_PERCENTAGE, lib.DEFAULT_MAX_TOKENS, typeof lib.slidingWindow]))`,
        ],
        { cwd: root, encoding: 'utf8' },
      )
      expect(r.stderr).toBe('')
      expect(JSON.parse(r.stdout)).toEqual(['function', 5, 100, 0.1, 8192, 'function'])
    }
  })

  it('names a platform package for each target, each with its binary and its os/cpu, depended on optionally once published', () => {
    const targets: string[] = pkg.napi.targets
    expect(targets).toEqual([
      'x86_64-unknown-linux-gnu',
      'x86_64-unknown-linux-musl',
      'aarch64-unknown-linux-gnu',
      'x86_64-apple-darwin',
      'aarch64-apple-darwin',
      'x86_64-pc-windows-msvc',
    ])
    const dirs: Record<string, { os: string; cpu: string; libc?: string }> = {
      'linux-x64-gnu': { os: 'linux', cpu: 'x64', libc: 'glibc' },
      'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
      'linux-arm64-gnu': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
      'darwin-x64': { os: 'darwin', cpu: 'x64' },
      'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
      'win32-x64-msvc': { os: 'win32', cpu: 'x64' },
    }
    for (const [dir, want] of Object.entries(dirs)) {
      const p = JSON.parse(readFileSync(join(root, 'npm', dir, 'package.json'), 'utf8'))
      expect(p.name).toBe(`context-condense-${dir}`)
      expect(p.version).toBe(pkg.version)
      expect(p.os).toEqual([want.os])
      expect(p.cpu).toEqual([want.cpu])
      if (want.libc) expect(p.libc).toEqual([want.libc])
      expect(p.main).toBe(`context-condense.${dir}.node`)
      expect(p.files).toEqual([p.main])
    }
    // No WebAssembly build is offered: some suites hang on it (Node 22) and its asynchronous calls
    // hang on Node 20, so it is not built, published or named until they pass.
    expect(readdirSync(join(root, 'npm')).sort()).toEqual(Object.keys(dirs).sort())
    // The optional dependencies on them are written when publishing, by `napi pre-publish` (every
    // platform package at this version; scripts/pack-check.mjs runs it and checks): listed in the
    // repository, npm ci refuses the lockfile, which cannot lock packages not yet on the registry.
    expect(pkg.optionalDependencies).toBeUndefined()
    expect(pkg.scripts.prepublishOnly).toBe('napi pre-publish -t npm')
    expect(pkg.scripts.artifacts).toBe('napi artifacts')
  })
})
