// The compiled engine, loaded through napi-rs's generated loader (../index.js), which picks this
// platform's binary: the context-condense-<platform> package npm installs as an optional
// dependency, a context-condense.<platform>.node beside the package (a source build), or the
// WebAssembly fallback package. When none fits, its generic error is replaced by one that names the
// platform and what to do. It never builds, downloads or loads anything else.
'use strict'

const { existsSync } = require('node:fs')
const { join } = require('node:path')

/** napi-rs's name for this platform, as in the platform packages' names. */
function platformName() {
  const { platform, arch } = process
  if (platform === 'win32') return `win32-${arch}-msvc`
  if (platform === 'linux') {
    const report = typeof process.report?.getReport === 'function' ? process.report.getReport() : null
    const glibc = report && report.header && report.header.glibcVersionRuntime
    return `linux-${arch}-${glibc ? 'gnu' : 'musl'}`
  }
  return `${platform}-${arch}`
}

/** Whether a binary for `name` is present in this install (so the failure is in loading it). */
function binaryPresent(name) {
  if (existsSync(join(__dirname, '..', `context-condense.${name}.node`))) return true
  try {
    require.resolve(`context-condense-${name}/package.json`)
    return true
  } catch {
    return false
  }
}

function load() {
  try {
    return require('../index.js')
  } catch (e) {
    const message = String(e && e.message)
    if (!/Cannot find native binding|Failed to load native binding/.test(message)) throw e
    const name = platformName()
    const cause = e.cause && e.cause.message ? `: ${e.cause.message}` : ''
    const error = binaryPresent(name)
      ? new Error(
          `context-condense: the prebuilt binary for ${name} is installed but failed to load${cause}; reinstall the package, or build from source with \`npm run build\`, which needs Rust`,
        )
      : new Error(
          `context-condense: no prebuilt binary for ${name} in this install; reinstall without --no-optional (or --omit=optional) so npm adds context-condense-${name}, ` +
            `install the WebAssembly build (npm install --cpu=wasm32 context-condense) if there is no package for ${name}, or build from source with \`npm run build\`, which needs Rust`,
        )
    error.code = 'CONTEXT_CONDENSE_NO_BINARY'
    error.cause = e
    throw error
  }
}

module.exports = load()
