#!/usr/bin/env node
// `npm run build` and `npm run build:debug`: checks that Rust's cargo can run (the CARGO variable
// or cargo on PATH, as napi-rs looks for it) and, if not, says that building from source needs Rust
// and where to get it, and exits 1; else runs `napi build --platform` on the binding crate
// (crates/binding, its addon, index.js and index.d.ts written to the repository root) with the
// arguments given, from the repository root, and exits with its code. Builds nothing itself; downloads nothing.
//   node scripts/build.mjs [napi build arguments]
import { spawnSync } from 'node:child_process'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..')

const cargo = process.env.CARGO || 'cargo'
const probe = spawnSync(cargo, ['--version'], { encoding: 'utf8', shell: false })
if (probe.error || probe.status !== 0) {
  const why =
    probe.error?.code === 'ENOENT'
      ? `${cargo} was not found${process.env.CARGO ? ' (the CARGO variable names it)' : ' on PATH'}`
      : `\`${cargo} --version\` failed: ${(probe.stderr || String(probe.error?.message ?? '')).trim()}`
  process.stderr.write(
    `context-condense: building the addon from source needs Rust, and ${why}.\n` +
      '  Install Rust (cargo and rustc) from https://rustup.rs, then open a new shell (or add ~/.cargo/bin to PATH) and run npm run build again.\n' +
      '  Without Rust: install the published package (npm install context-condense), which brings a prebuilt binary for Linux, macOS and Windows.\n',
  )
  process.exit(1)
}

const cli = join(dirname(require.resolve('@napi-rs/cli/package.json')), require('@napi-rs/cli/package.json').bin.napi)
const binding = ['--manifest-path', join('crates', 'binding', 'Cargo.toml'), '--output-dir', '.']
const r = spawnSync(process.execPath, [cli, 'build', '--platform', ...binding, ...process.argv.slice(2)], { cwd: root, stdio: 'inherit' })
if (r.error) throw r.error
process.exit(r.status ?? 1)
