// `npm run build` on a machine without Rust: the build script checks for cargo before napi-rs runs
// (napi-rs alone says only "Internal Error: cargo metadata failed to run") and says that Rust is
// needed and where it comes from, exiting non-zero. Runs `npm run build` with a PATH that holds no
// cargo; nothing is built.
import { spawnSync } from 'node:child_process'
import { existsSync, mkdtempSync, rmSync } from 'node:fs'
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
