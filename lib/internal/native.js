// The compiled engine, loaded through napi-rs's generated loader (the package's index.js), which picks this
// platform's binary: the context-condense-<platform> package npm installs as an optional
// dependency, a context-condense.<platform>.node beside the package (a source build), or the
// WebAssembly fallback package. When none fits, its generic error is replaced by one that names
// what is missing and the ways out (noBinaryError). It never builds, downloads or loads anything else.
'use strict'

const { existsSync } = require('node:fs')
const { join } = require('node:path')
const { platformName, targetName } = require('./platform.js')

/** Whether a binary for `name` is present in this install (so the failure is in loading it). */
function binaryPresent(name) {
  if (existsSync(join(__dirname, '..', '..', `context-condense.${name}.node`))) return true
  try {
    require.resolve(`context-condense-${name}/package.json`)
    return true
  } catch {
    return false
  }
}

/**
 * The error for an install without a usable binary for this platform: what is missing (this
 * platform's package and the binary's file name, or that the binary is there but does not load)
 * and the ways out, one a line. The one place that words it: the library throws it and the command
 * line prints it as it is.
 */
function noBinaryError(name, loaderError) {
  const { version, napi } = require('../../package.json')
  const pkg = `context-condense-${name}`
  const file = `context-condense.${name}.node`
  // A platform package is published for each target the release builds (package.json's napi.targets).
  const published = napi.targets.map(targetName).includes(name)
  const source = '  npm run build   (in a clone of the source, with Rust from https://rustup.rs; `npm run pack:local` then makes tarballs to install elsewhere)'
  let lines
  if (binaryPresent(name)) {
    const cause = loaderError && loaderError.cause && loaderError.cause.message ? loaderError.cause.message : 'unknown reason'
    lines = [`context-condense: the binary for ${name} (${file}) is installed but failed to load: ${cause}`, 'Reinstall the package, or build it:', source]
  } else {
    lines = [
      published
        ? `context-condense: no prebuilt binary for ${name} in this install: the package ${pkg} (with the file ${file}) is not installed. Any one of these gives it one:`
        : `context-condense: no prebuilt binary for ${name} in this install: no package ${pkg} is published (no file ${file}). Any one of these gives it one:`,
      ...(published ? [`  npm install ${pkg}@${version}   (this platform's package)`] : []),
      source,
    ]
  }
  const error = new Error(lines.join('\n'))
  error.code = 'CONTEXT_CONDENSE_NO_BINARY'
  error.cause = loaderError
  return error
}

function load() {
  try {
    return require('../../index.js')
  } catch (e) {
    const message = String(e && e.message)
    if (!/Cannot find native binding|Failed to load native binding/.test(message)) throw e
    throw noBinaryError(platformName(), e)
  }
}

module.exports = load()
