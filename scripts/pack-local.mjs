#!/usr/bin/env node
// `npm run pack:local`: the pair of tarballs a source build can be installed from elsewhere — the
// main package (JavaScript, types, CLI; never a binary) and this platform's package with the binary
// `npm run build` left in the repository root, staged in a temporary npm/<platform>/ as
// `napi artifacts` stages it for a release. Writes only the two .tgz files (into the folder given,
// default ./packs) and a temporary staging folder it removes; never publishes.
//
//   npm run pack:local [-- DIR]
//   then, in another project: npm install DIR/context-condense-<v>.tgz DIR/context-condense-<platform>-<v>.tgz
//   (the main tarball names no platform package: napi pre-publish adds them only when publishing)
import { execFileSync } from 'node:child_process'
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

export const root = resolve(fileURLToPath(new URL('.', import.meta.url)), '..')

const require = createRequire(import.meta.url)
/** napi-rs's name for this platform (as in npm/<name>/ and the binary's file name). */
export const { platformName: hostPlatform } = require('../lib/internal/platform.js')

/**
 * Packs the main package and this platform's package into `dest`; returns what `npm pack --json`
 * said of each ({ filename, files, … }, filename relative to `dest`). Throws, naming what to do,
 * when this platform has no npm/<platform>/ package or the binary has not been built.
 */
export function packLocal(dest, env = process.env) {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  const host = hostPlatform()
  const file = `${pkg.napi.binaryName}.${host}.node`
  if (!existsSync(join(root, 'npm', host, 'package.json'))) {
    throw new Error(`pack:local: no npm/${host}/ package: this platform is not one of package.json's napi.targets`)
  }
  if (!existsSync(join(root, file))) throw new Error(`pack:local: ${join(root, file)} is missing; run npm run build first (it needs Rust: https://rustup.rs)`)
  mkdirSync(dest, { recursive: true })
  const stageRoot = mkdtempSync(join(tmpdir(), 'context-condense-stage-'))
  try {
    const stage = join(stageRoot, host)
    mkdirSync(stage)
    copyFileSync(join(root, 'npm', host, 'package.json'), join(stage, 'package.json'))
    copyFileSync(join(root, file), join(stage, file))
    for (const f of ['README.md', 'LICENSE']) if (existsSync(join(root, 'npm', host, f))) copyFileSync(join(root, 'npm', host, f), join(stage, f))
    const pack = (cwd) =>
      JSON.parse(
        execFileSync(process.platform === 'win32' ? 'npm.cmd' : 'npm', ['pack', '--json', '--pack-destination', dest], {
          cwd,
          env,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'pipe'],
          shell: process.platform === 'win32',
        }),
      )[0]
    return { main: pack(root), platform: pack(stage), host }
  } finally {
    rmSync(stageRoot, { recursive: true, force: true })
  }
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const dest = resolve(process.argv[2] ?? join(root, 'packs'))
  try {
    const { main, platform } = packLocal(dest)
    console.log(`pack:local: ${join(dest, main.filename)}\npack:local: ${join(dest, platform.filename)}`)
    console.log(`install both elsewhere with:\n  npm install ${join(dest, main.filename)} ${join(dest, platform.filename)}`)
  } catch (e) {
    console.error(e.message)
    process.exit(1)
  }
}
