// This platform's name as napi-rs names its packages and binaries (linux-x64-gnu, darwin-arm64,
// win32-x64-msvc, …: context-condense-<name>, context-condense.<name>.node), and the name of each
// Rust target package.json's napi.targets builds for. Reads process.platform, process.arch and
// Node's report; loads and writes nothing.
'use strict'

/** napi-rs's name for the platform this process runs on. */
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

/** The Rust targets napi-rs builds for and its name of each (its npm/<name>/ folder). */
const TARGET_NAMES = {
  'x86_64-unknown-linux-gnu': 'linux-x64-gnu',
  'x86_64-unknown-linux-musl': 'linux-x64-musl',
  'aarch64-unknown-linux-gnu': 'linux-arm64-gnu',
  'aarch64-unknown-linux-musl': 'linux-arm64-musl',
  'x86_64-apple-darwin': 'darwin-x64',
  'aarch64-apple-darwin': 'darwin-arm64',
  'x86_64-pc-windows-msvc': 'win32-x64-msvc',
  'aarch64-pc-windows-msvc': 'win32-arm64-msvc',
}

/** napi-rs's name for a Rust target triple, or undefined for a triple not in the table above. */
function targetName(triple) {
  return Object.hasOwn(TARGET_NAMES, triple) ? TARGET_NAMES[triple] : undefined
}

module.exports = { platformName, targetName }
