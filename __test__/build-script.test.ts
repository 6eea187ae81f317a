// `npm run build` on a machine without Rust: the build script checks for cargo before napi-rs runs
// (napi-rs alone says only "Internal Error: cargo metadata failed to run") and says that Rust is
// needed and where it comes from, exiting non-zero. Runs `npm run build` with a PATH that holds no
// cargo; nothing is built. And what it builds: the binding crate (crates/binding), seen through a
// stand-in cargo (the CARGO variable) that records what napi-rs asks of it and builds nothing.
import { spawnSync } from 'node:child_process'
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { delimiter, join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'

const root = join(__dirname, '..')
const empty = mkdtempSync(join(tmpdir(), 'context-condense-no-rust-'))
afterAll(() => rmSync(empty, { recursive: true, force: true }))

/** The environment of a machine without Rust: PATH without any folder holding cargo or rustc,
 * no CARGO override, rustup's and cargo's homes empty. npm and node stay. */
function withoutRust(): NodeJS.ProcessEnv {
  const PATH = (process.env.PATH ?? '')
    .split(delimiter)
    .filter((dir) => !['cargo', 'rustc', 'cargo.exe', 'rustc.exe'].some((b) => existsSync(join(dir, b))))
    .join(delimiter)
  const env: NodeJS.ProcessEnv = { ...process.env, PATH, CARGO_HOME: join(empty, 'cargo'), RUSTUP_HOME: join(empty, 'rustup') }
  delete env.CARGO
  return env
}

describe('npm run build without cargo', () => {
  it.each(['build', 'build:debug'])(
    'npm run %s says Rust is needed and where it comes from, and fails',
    (script) => {
      const r = spawnSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['run', '--silent', script], {
        cwd: root,
        env: withoutRust(),
        encoding: 'utf8',
        shell: process.platform === 'win32',
        timeout: 120_000,
      })
      expect(r.status).not.toBe(0)
      expect(r.stderr).toContain('cargo')
      expect(r.stderr).toContain('needs Rust')
      expect(r.stderr).toContain('https://rustup.rs')
      expect(r.stderr).not.toContain('Internal Error')
    },
    180_000,
  )
})

describe('npm run build builds the binding crate', () => {
  it.skipIf(process.platform === 'win32')(
    'napi-rs is pointed at crates/binding/Cargo.toml (the engine crate has no Node-API in it)',
    () => {
      const log = join(empty, 'cargo-calls.txt')
      const cargo = join(empty, 'fake-cargo')
      // Answers --version (the build script's check) and records every other call, failing it.
      writeFileSync(cargo, `#!/bin/sh\nif [ "$1" = "--version" ]; then echo "cargo 1.85.0"; exit 0; fi\necho "$@" >> "${log}"\nexit 1\n`)
      chmodSync(cargo, 0o755)
      const r = spawnSync('npm', ['run', '--silent', 'build:debug'], {
        cwd: root,
        env: { ...process.env, CARGO: cargo },
        encoding: 'utf8',
        timeout: 120_000,
      })
      expect(r.status).not.toBe(0)
      const calls = existsSync(log) ? readFileSync(log, 'utf8') : ''
      expect(calls).toContain(join('crates', 'binding', 'Cargo.toml'))
    },
    180_000,
  )
})
