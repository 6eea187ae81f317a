// Loads a Roo Code extension bundle (src/dist/extension.js, built by Roo's esbuild with the swap)
// outside VS Code, as VS Code would require it, with Roo's own vscode mock (src/__mocks__/vscode.js)
// standing in for the `vscode` module, and condenses a history through the swapped modules inside
// that bundle. Used by scripts/roo-extension.sh; reads only, writes one JSON report.
//
//   node scripts/roo-extension/load.cjs <roo src dir> <report.json>
//
// The bundle exports only activate/deactivate, and activating needs VS Code itself; the modules it
// bundles are reached without changing the bundle: the inspector (node:inspector) lists the
// variables of the bundle's top-level scope (the [[Scopes]] of its activate function), where
// esbuild keeps the context-condense/roo entry the host adapters import and configure. Its
// manageContext is the adapter's export (the context-management adapter re-exports the entry's
// functions), so calling it runs Roo's context management as the extension would: the adapter's
// configuration (Roo's prompts, the seam through the condense module, Roo's image cleaning), the
// package's JavaScript as bundled, and the native binary esbuild copied beside the bundle.
'use strict'

const Module = require('node:module')
const inspector = require('node:inspector')
const { writeFileSync } = require('node:fs')
const path = require('node:path')
const { pathToFileURL } = require('node:url')

const [srcDir, reportFile] = process.argv.slice(2)
if (!srcDir || !reportFile) {
  console.error('usage: node scripts/roo-extension/load.cjs <roo src dir> <report.json>')
  process.exit(2)
}
const dist = path.join(path.resolve(srcDir), 'dist')
const report = { loaded: false }
const done = (code) => {
  writeFileSync(reportFile, `${JSON.stringify(report, null, 2)}\n`)
  process.exit(code)
}

/** Inspector calls in this process (answered before post returns its promise's value is used). */
const session = new inspector.Session()
session.connect()
const post = (method, params) => new Promise((resolve, reject) => session.post(method, params, (error, result) => (error ? reject(error) : resolve(result))))

/** The variables of the scopes a function closes over: name → the inspector's handle of its value. */
async function closureVariables(fn) {
  globalThis.__rooExtensionProbe = fn
  const { result } = await post('Runtime.evaluate', { expression: 'globalThis.__rooExtensionProbe' })
  const { internalProperties } = await post('Runtime.getProperties', { objectId: result.objectId, ownProperties: true })
  const scopes = internalProperties.find((p) => p.name === '[[Scopes]]')
  const list = await post('Runtime.getProperties', { objectId: scopes.value.objectId, ownProperties: true })
  const vars = new Map()
  for (const scope of list.result) {
    if (!scope.value || !scope.value.objectId) continue
    const { result: props } = await post('Runtime.getProperties', { objectId: scope.value.objectId, ownProperties: true })
    for (const p of props) if (p.value && !vars.has(p.name)) vars.set(p.name, p.value)
  }
  return vars
}

/** The JavaScript value behind an inspector handle, in a box (a value that looks like a promise
 * must not be awaited). */
async function valueBehind(handle) {
  if (!handle.objectId) return { value: handle.value }
  await post('Runtime.callFunctionOn', { objectId: handle.objectId, functionDeclaration: 'function () { globalThis.__rooExtensionValue = this }' })
  const value = globalThis.__rooExtensionValue
  delete globalThis.__rooExtensionValue
  return { value }
}

async function main() {
  // VS Code's `vscode` module: Roo's own mock, as Roo's unit tests use it.
  const vscode = require(path.join(path.resolve(srcDir), '__mocks__', 'vscode.js'))
  const load = Module._load
  Module._load = function (request, parent, isMain) {
    if (request === 'vscode') return vscode
    return load.call(this, request, parent, isMain)
  }
  const started = performance.now()
  const extension = require(path.join(dist, 'extension.js'))
  report.loaded = true
  report.loadMs = Math.round(performance.now() - started)
  report.exports = Object.keys(extension)
  report.nativeBinaries = Object.keys(require.cache)
    .filter((f) => f.endsWith('.node'))
    .map((f) => path.relative(path.dirname(dist), f))
  console.log(
    `loaded dist/extension.js in ${report.loadMs} ms: exports ${report.exports.join(', ')}; native binaries loaded: ${report.nativeBinaries.join(', ') || 'none'}`,
  )

  // The context-condense/roo entry as bundled: the objects of the bundle's top-level scope with the
  // entry's functions (the adapters' `roo` namespaces).
  const vars = await closureVariables(extension.activate)
  report.bundleScopeVariables = vars.size
  const entries = []
  for (const [name, handle] of vars) {
    if (handle.type !== 'object' || handle.subtype) continue
    const { value: v } = await valueBehind(handle)
    if (!v || require('node:util').types.isProxy(v)) continue
    if (typeof v.manageContext === 'function' && typeof v.configuration === 'function' && typeof v.summarizeConversation === 'function' && v.ROO_ERROR_MESSAGES)
      entries.push([name, v])
  }
  // Each importing module has its own namespace object over the one bundled module: one entry is
  // one set of functions.
  const distinct = [...new Map(entries.map(([, v]) => [v.manageContext, v])).values()]
  report.entryVariables = entries.map(([n]) => n)
  if (distinct.length !== 1) {
    report.error = `expected one context-condense/roo entry in the bundle's scope, found ${distinct.length} (${report.entryVariables.join(', ')})`
    console.error(report.error)
    return done(1)
  }
  const roo = distinct[0]
  const config = roo.configuration()
  report.configured = Object.keys(config).sort()
  report.defaultPromptStart = typeof config.defaultPrompt === 'string' ? config.defaultPrompt.slice(0, 80) : null
  report.requestSystemPromptStart = typeof config.requestSystemPrompt === 'string' ? config.requestSystemPrompt.slice(0, 80) : null
  console.log(`the bundled entry (variable ${report.entryVariables.join(', ')}), configured by the adapters with: ${report.configured.join(', ')}`)

  // A generated Roo history of about 150k tokens (native tool calls), condensed by the bundled
  // manageContext with an API handler that answers at once and records the request.
  const { generateHistory } = await import(pathToFileURL(path.join(__dirname, '..', '..', 'fixtures', 'generate.mjs')).href)
  const messages = generateHistory({ seed: 11, format: 'native', targetTokens: 150_000 })
  const requests = []
  const apiHandler = {
    async *createMessage(systemPrompt, request) {
      requests.push({ systemPrompt, messages: request.length, last: request.at(-1) })
      yield { type: 'text', text: 'The task so far: the files read, the edits made, the tests run, and what is left to do.' }
      yield { type: 'usage', inputTokens: 1000, outputTokens: 24, totalCost: 0.002 }
    },
    async countTokens(content) {
      return Math.ceil(JSON.stringify(content).length / 4)
    },
    getModel() {
      return { id: 'stand-in', info: { contextWindow: 200_000, maxTokens: 8192, supportsImages: false } }
    },
  }
  const totalTokens = Math.ceil(JSON.stringify(messages).length / 4)
  const t = performance.now()
  const r = await roo.manageContext({
    messages,
    totalTokens,
    contextWindow: 200_000,
    maxTokens: 8192,
    apiHandler,
    autoCondenseContext: true,
    autoCondenseContextPercent: 50,
    systemPrompt: 'You are Roo.',
    taskId: 'roo-extension-check',
    profileThresholds: {},
    currentProfileId: 'default',
  })
  const sent = roo.getEffectiveApiHistory(r.messages)
  report.condense = {
    ms: Math.round(performance.now() - t),
    messagesBefore: messages.length,
    tokensBefore: totalTokens,
    messagesStored: r.messages.length,
    messagesSent: sent.length,
    summaryMessage: sent[0] && sent[0].isSummary === true,
    newContextTokens: r.newContextTokens,
    error: r.error,
    requests: requests.length,
    requestSystemPromptStart: requests[0] ? requests[0].systemPrompt.slice(0, 80) : null,
    requestInstructionsStart: requests[0] && typeof requests[0].last.content === 'string' ? requests[0].last.content.slice(0, 80) : null,
  }
  const c = report.condense
  console.log(
    `condensed ${c.messagesBefore} messages (~${c.tokensBefore} tokens) in ${c.ms} ms: ${c.messagesSent} sent after (summary: ${c.summaryMessage}), ${c.messagesStored} stored, newContextTokens ${c.newContextTokens}${c.error ? `, error: ${c.error}` : ''}`,
  )
  console.log(`  the request's system prompt: "${c.requestSystemPromptStart}…"`)
  console.log(`  its instructions: "${c.requestInstructionsStart}…"`)
  report.ok = !c.error && c.summaryMessage && c.requests === 1 && report.nativeBinaries.some((f) => f.startsWith('dist/'))
  return done(report.ok ? 0 : 1)
}

main().catch((e) => {
  report.error = e && e.stack ? e.stack : String(e)
  console.error(report.error)
  done(1)
})
