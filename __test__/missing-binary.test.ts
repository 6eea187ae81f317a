// An install without this platform's binary (pnpm drops an optional platform package it cannot
// fetch without a word; npm with --omit=optional): whichever entry of the package a host loads
// first, the error is this package's (lib/internal/native.js: the platform named, what to do, code
// CONTEXT_CONDENSE_NO_BINARY), never napi-rs's generic "Cannot find native binding. npm has a bug
// …". The message says what is missing (this platform's package and its binary's file name) and
// the three ways out, in a few lines; the command line prints just that and exits non-zero. The
// package's JavaScript is copied to a temporary folder without any binary and loaded there.
import { spawnSync } from 'node:child_process'
import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { packageEntries, root } = require('../scripts/dts-exports.cjs') as {
  packageEntries(): Array<{ specifier: string; subpath: string; types: string; js: string }>
  root: string
}

const copy = mkdtempSync(join(tmpdir(), 'context-condense-no-binary-'))
cpSync(join(root, 'lib'), join(copy, 'lib'), { recursive: true })
cpSync(join(root, 'bin'), join(copy, 'bin'), { recursive: true })
cpSync(join(root, 'index.js'), join(copy, 'index.js'))
cpSync(join(root, 'package.json'), join(copy, 'package.json'))
afterAll(() => rmSync(copy, { recursive: true, force: true }))

/** Loads one file of the copy in a fresh Node (require, or import for an ES module): what it threw
 * (its message and code), or null when it loaded. */
function load(file: string): { message: string; code?: string } | null {
  const path = JSON.stringify(join(copy, file))
  const report = `(e) => console.log(JSON.stringify({ message: String(e && e.message), code: e && e.code }))`
  const code = file.endsWith('.mjs')
    ? `import(${path}).then(() => console.log('null'), ${report})`
    : `try { require(${path}); console.log('null') } catch (e) { (${report})(e) }`
  const r = spawnSync(process.execPath, ['-e', code], { cwd: copy, encoding: 'utf8', env: cleanEnv })
  expect(r.stderr).toBe('')
  return JSON.parse(r.stdout)
}

const OURS = { message: expect.stringMatching(/^context-condense: no prebuilt binary for \S+ in this install/), code: 'CONTEXT_CONDENSE_NO_BINARY' }
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')) as { version: string }
// No NAPI_RS_NATIVE_LIBRARY_PATH or forced WebAssembly from the environment: only the copy counts.
const cleanEnv = { ...process.env, NAPI_RS_NATIVE_LIBRARY_PATH: '', NAPI_RS_FORCE_WASI: '' }

// napi-rs's name for this platform (the suffix of the platform package and of the binary's file).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const { platformName } = require('../lib/internal/platform.js') as { platformName(): string }

describe('no binary for this platform in the install', () => {
  // The engine is needed by the main entry and by each Roo entry (their options, history and host
  // modules read it as they load).
  const needsEngine = ['context-condense', 'context-condense/roo', 'context-condense/roo-2025', 'context-condense/roo-2026-01']

  it.each(packageEntries())('$specifier: fails, if at all, with this package’s error', ({ specifier, js }) => {
    const thrown = load(js.replace(/^\.\//, ''))
    if (needsEngine.includes(specifier)) expect(thrown, `${specifier} loaded without a binary`).not.toBeNull()
    if (thrown) expect(thrown).toEqual(OURS)
  })

  it('each module of lib/roo/ on its own, loaded first', () => {
    for (const name of ['options.js', 'host.js', 'manage.js', 'history.js', 'fresh.js', 'summarize.js', 'tools.js']) {
      expect(load(`lib/roo/${name}`), name).toEqual(OURS)
    }
  })
  it('only lib/internal/native.js loads the generated loader (index.js), so every module gets its error', () => {
    const loader = join(root, 'index.js')
    const found: string[] = []
    for (const f of readdirSync(join(root, 'lib'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(c|m)?js$/.test(f))) {
      const file = join(root, 'lib', f)
      for (const m of readFileSync(file, 'utf8').matchAll(/(?:require\(|from\s+|import\()\s*['"](\.[^'"]*)['"]/g)) {
        if (resolve(dirname(file), m[1]) === loader) found.push(`lib/${f}`)
      }
    }
    expect(found).toEqual(['lib/internal/native.js'])
  })

  it('the message names the platform package and the binary file, and the two ways out, in a few lines', () => {
    const name = platformName()
    const thrown = load('lib/index.js')
    expect(thrown).toEqual(OURS)
    const message = thrown!.message
    expect(message).toContain(`context-condense-${name}`)
    expect(message).toContain(`context-condense.${name}.node`)
    expect(message).toContain(`npm install context-condense-${name}@${version}`)
    // No WebAssembly build is offered (not built or published until its suites pass on it).
    expect(message).not.toContain('wasm32')
    expect(message).toContain('npm run build')
    expect(message).toContain('https://rustup.rs')
    // Not the old advice, which is wrong when no optional package was ever there.
    expect(message).not.toContain('--no-optional')
    expect(message.split('\n').length).toBeLessThanOrEqual(6)
  })

  it('on a platform with no package published: says so, and offers a source build', () => {
    // A processor no platform package is built for; napi-rs's loader and lib/internal/native.js both read process.arch.
    const code = `Object.defineProperty(process, 'arch', { value: 'riscv64' }); try { require(${JSON.stringify(join(copy, 'lib/index.js'))}); console.log('null') } catch (e) { console.log(JSON.stringify({ message: e.message, code: e.code })) }`
    const r = spawnSync(process.execPath, ['-e', code], { cwd: copy, encoding: 'utf8', env: cleanEnv })
    const thrown = JSON.parse(r.stdout) as { message: string; code: string }
    const name = platformName().replace(process.arch, 'riscv64')
    expect(thrown.code).toBe('CONTEXT_CONDENSE_NO_BINARY')
    expect(thrown.message).toMatch(new RegExp(`^context-condense: no prebuilt binary for ${name} in this install`))
    expect(thrown.message).toContain(`no package context-condense-${name} is published`)
    expect(thrown.message).not.toContain(`npm install context-condense-${name}`)
    expect(thrown.message).not.toContain('wasm32')
    expect(thrown.message).toContain('https://rustup.rs')
  })

  it('the command line prints the message alone (no stack) and exits non-zero, --help included', () => {
    for (const args of [['--help'], ['analyze', 'history.json']]) {
      const r = spawnSync(process.execPath, [join(copy, 'bin', 'context-condense.mjs'), ...args], { cwd: copy, encoding: 'utf8', env: cleanEnv })
      expect(r.status, args.join(' ')).not.toBe(0)
      expect(r.stdout).toBe('')
      expect(r.stderr).toMatch(/^context-condense: no prebuilt binary for \S+ in this install/)
      expect(r.stderr).not.toMatch(/^\s+at /m)
      expect(r.stderr).not.toContain('Cannot find native binding')
      expect(r.stderr.trim().split('\n').length).toBeLessThanOrEqual(6)
    }
  })
})
