// The hostile sweep's runner, in a process of its own (a native crash must not take the test
// runner with it): node __test__/sweep/child.mjs <config.json>. The config holds the surface
// (surface.cjs), the mode ("fast" or "slow"), the case to start from (after a crash the parent
// starts a new runner past the case that crashed) and the per-call bound.
//
// For every callable with an entry in the baseline table (baselines.mjs), the valid call first, then
// one call per place (a parameter, an option key the types declare, the first element of an array
// of objects, an unknown key of an options object) and hostile value (values.mjs), the rest of the
// call valid. Each call is judged (`judge` below) and written to stdout as one JSON line, synchronously
// and before the call for the journal line, so the parent knows which call was running if the
// process dies. Console output of the library (Roo's logs) is silenced. Touches no file; its
// stand-in chat-completions server listens on 127.0.0.1 only.
import { writeSync } from 'node:fs'
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'

import { baselineTable } from './baselines.mjs'
import { GETTER_ERROR, NOT_HERE, UNKNOWN_KEY, admitted, deepFreeze, describeValue, difference, hostileValues, kindOf, snapshot } from './values.mjs'

const require = createRequire(import.meta.url)
const config = JSON.parse(readFileSync(process.argv[2], 'utf8'))
const { surface, mode, from = 0, boundMs } = config
/** Only the cases whose key matches this glob (SWEEP_ONLY, to replay one case). */
const only = config.only ? new RegExp(`^${config.only.replace(/[.+?^${}()|[\]\\]/g, '\\$&').replace(/\*/g, '.*')}$`, 's') : undefined

const out = (o) => writeSync(1, `${JSON.stringify(o)}\n`)
for (const k of ['log', 'warn', 'error', 'info', 'debug', 'trace']) console[k] = () => {}

// What happens beside a call: process warnings (a timer that overflows), unhandled rejections,
// uncaught exceptions. Each is charged to the call running (or the last one that ran).
let current = { warnings: [], stray: [] }
process.on('warning', (w) => current.warnings.push(`${w.name}: ${w.message}`))
process.on('unhandledRejection', (r) => current.stray.push(`an unhandled rejection: ${r instanceof Error ? `${r.name}: ${r.message}` : String(r)}`))
process.on('uncaughtException', (e) => current.stray.push(`an uncaught exception: ${e instanceof Error ? `${e.name}: ${e.message}` : String(e)}`))

/** A stand-in chat-completions server for the OpenAI summarizer. */
function startServer() {
  const server = createServer(async (req, res) => {
    for await (const _ of req) {
      // The body is not read.
    }
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(
      JSON.stringify({
        model: 'stand-in',
        choices: [{ message: { content: 'A summary.' }, finish_reason: 'stop' }],
        usage: { prompt_tokens: 10, completion_tokens: 3 },
      }),
    )
  })
  return new Promise((resolve) => server.listen(0, '127.0.0.1', () => resolve(server)))
}

const server = await startServer()
const llmUrl = `http://127.0.0.1:${server.address().port}/v1`
const lib = {}
for (const e of surface) lib[e.name] = e.js.endsWith('.mjs') ? await import(e.js) : require(e.js)
const table = baselineTable({ lib, llmUrl })

// Which callables the table covers, and which of its entries name nothing the types declare.
const ids = new Set(surface.flatMap((e) => e.callables.map((c) => `${e.name}:${c.id}`)))
if (from === 0) {
  out({ missing: [...ids].filter((id) => !(id in table)), stale: Object.keys(table).filter((id) => !ids.has(id)) })
  // Exported constants: what the types say, and frozen all the way down (a caller cannot change them for everyone).
  for (const e of surface) {
    for (const c of e.constants) {
      const v = lib[e.name][c.name]
      const problems = []
      if (!admitted(c.admits, v)) problems.push(`is ${describeValue(v)}, which its declared type rules out`)
      const thawed = unfrozen(v, c.name)
      if (thawed) problems.push(`${thawed} can be changed by any caller (not frozen)`)
      out({ constant: `${e.name}:${c.name}`, failures: problems })
    }
  }
}

function unfrozen(v, path, seen = new Set()) {
  if (v === null || typeof v !== 'object' || seen.has(v)) return undefined
  seen.add(v)
  if (!Object.isFrozen(v)) return path
  for (const [k, x] of Object.entries(v)) {
    const u = unfrozen(x, `${path}.${k}`, seen)
    if (u) return u
  }
  return undefined
}

// ---------------------------------------------------------------------------------------------
// The places of a callable and the calls made there.

/** Every place of a callable: `{ path: [param index, key | 0 ...], name, show, admits, depth, element?, unknown? }`. */
function placesOf(callable, entry) {
  const out = []
  const opaque = new Set(entry.opaque ?? [])
  const aliases = entry.aliases ?? {}
  callable.params.forEach((p, i) => {
    const children = (p.keys ?? []).map((k) => k.name)
    out.push({ path: [i], name: p.name, also: aliases[p.name], show: p.name, admits: p.admits, depth: 0, children })
    if (opaque.has(p.name)) return
    if (p.element) out.push({ path: [i, 0], name: `${p.name}[0]`, show: `${p.name}[0]`, admits: p.element, depth: 1, data: p.elementData })
    if (!p.keys) return
    const data = p.data
    out.push({ path: [i, UNKNOWN_KEY], name: UNKNOWN_KEY, show: `${p.name}.${UNKNOWN_KEY}`, admits: {}, depth: 1, unknown: !p.indexed, data })
    for (const k of p.keys) {
      const grandchildren = (k.keys ?? []).map((x) => x.name)
      const at = { parent: p.name, siblings: children }
      out.push({
        path: [i, k.name],
        name: k.name,
        also: aliases[k.name],
        show: `${p.name}.${k.name}`,
        admits: k.admits,
        depth: 1,
        data,
        children: grandchildren,
        ...at,
      })
      if (!k.keys || opaque.has(`${p.name}.${k.name}`)) continue
      out.push({
        path: [i, k.name, UNKNOWN_KEY],
        name: UNKNOWN_KEY,
        show: `${p.name}.${k.name}.${UNKNOWN_KEY}`,
        admits: {},
        depth: 2,
        unknown: !k.indexed,
        data,
      })
      for (const kk of k.keys) {
        out.push({
          path: [i, k.name, kk.name],
          name: kk.name,
          also: aliases[kk.name],
          show: `${p.name}.${k.name}.${kk.name}`,
          admits: kk.admits,
          depth: 2,
          data,
          parent: k.name,
          siblings: grandchildren,
        })
      }
    }
  })
  return out
}

const hash = (s) => {
  let h = 2166136261
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 16777619)
  return h >>> 0
}

/**
 * The values tried at a place: all of them in the slow mode and at the parameters and first-level
 * keys; four at the second-level keys in the fast mode, chosen so that every value is tried at a
 * quarter of those places. An unknown key gets one value.
 */
function valuesAt(place, values, callableId) {
  if (place.unknown !== undefined) return [{ name: 'unknown key', make: () => 1, unknownKey: true }]
  if (mode === 'slow' || place.depth < 2) return values
  const start = hash(`${callableId} ${place.show}`) % 4
  return values.filter((_, i) => i % 4 === start)
}

/** `args` with `value` at `path` (objects on the way copied, so the valid arguments are not changed). */
function placed(args, path, value) {
  const copy = args.slice()
  if (path.length === 1) {
    while (copy.length < path[0]) copy.push(undefined)
    copy[path[0]] = value
    return copy
  }
  let parent = copy
  for (let d = 0; d < path.length - 1; d++) {
    const k = path[d]
    const v = parent[k]
    const next = Array.isArray(v) ? v.slice() : v !== null && typeof v === 'object' ? { ...v } : {}
    parent[k] = next
    parent = next
  }
  parent[path[path.length - 1]] = value
  return copy
}

function validAt(args, path) {
  let v = args
  for (const k of path) {
    if (v === null || typeof v !== 'object') return undefined
    v = v[k]
  }
  return v
}

const KEY_OF = (entryName, callable, show, value) => `${entryName}:${callable.id} @ ${show} = ${value}`

/** Calls the callable on `self` with `args`, settled within the bound: `{ kind, value?, error?, ms }`. */
async function invoke(callable, self, args, fn) {
  const t0 = performance.now()
  let r
  try {
    if (callable.kind === 'constructor') r = new fn(...args)
    else if (callable.kind === 'function') r = fn(...args)
    else if (callable.kind === 'call') r = self(...args)
    else if (callable.kind === 'getter') r = self[callable.id.slice(callable.id.lastIndexOf('.') + 1)]
    else if (callable.kind === 'setter') {
      self[callable.id.slice(callable.id.lastIndexOf('.') + 1, -1)] = args[0]
      r = undefined
    } else r = self[callable.id.slice(callable.id.lastIndexOf('#') + 1).replace(/\/\d+$/, '')](...args)
  } catch (e) {
    return { kind: 'threw', error: e, ms: performance.now() - t0 }
  }
  if (r === null || typeof r !== 'object' || typeof r.then !== 'function') return { kind: 'ok', value: r, ms: performance.now() - t0 }
  let timer
  const bound = new Promise((resolve) => {
    timer = setTimeout(() => resolve({ kind: 'hang' }), boundMs)
  })
  const settled = await Promise.race([
    r.then(
      (value) => ({ kind: 'ok', value }),
      (error) => ({ kind: 'rejected', error }),
    ),
    bound,
  ])
  clearTimeout(timer)
  return { ...settled, ms: performance.now() - t0 }
}

const norm = (s) =>
  String(s)
    .toLowerCase()
    .replace(/[^a-z0-9]/g, '')
/**
 * Whether an error message names the place: its name (or an alias the table gives), or, for a rule
 * between keys, a sibling with its parent (`options.contextWindow` for a `maxTokens` that leaves no
 * room), or, for an object left out, one of the keys it should have held (`messages` for an
 * absent options object).
 */
function names(message, place, value) {
  if (INTERNAL.test(message)) return false
  const m = norm(message)
  if ([place.name, ...(place.also ?? [])].some((n) => m.includes(norm(n)))) return true
  if (place.parent && (place.siblings ?? []).some((s) => message.includes(`${place.parent}.${s}`))) return true
  if ((value === undefined || value === null) && (place.children ?? []).some((c) => new RegExp(`(^|[\\s.])${c}:`).test(message))) return true
  return false
}

/** The text of an error JavaScript itself throws inside the library: never a clear refusal, whatever words it happens to hold. */
const INTERNAL =
  /Cannot read properties of|is not a function|is not iterable|Cannot convert undefined or null|Cannot destructure|Converting circular structure|Do not know how to serialize a BigInt|Maximum call stack/
/**
 * A refusal that is the outcome of the work, not of a bad argument: Native's and Roo's "the context
 * would grow", "not enough messages", "condensed recently" (condense's RefusalCode, Roo's strings).
 * A call answering one has worked.
 */
const SEMANTIC_CODES = new Set(['not-enough-messages', 'condensed-recently', 'context-grew', 'empty-summary', 'window-cuts-summary'])
const SEMANTIC_TEXT = /^(Context size increased during condensing|Not enough messages to condense context|Context was condensed recently)/
const semantic = (v) => v !== null && typeof v === 'object' && (SEMANTIC_CODES.has(v.errorCode) || (typeof v.error === 'string' && SEMANTIC_TEXT.test(v.error)))
const shown = (e) => (e instanceof Error ? `${e.name}: ${e.message}`.slice(0, 300) : `a thrown ${kindOf(e)}: ${describeValue(e)}`)
const errorOf = (v) => (v !== null && typeof v === 'object' && !Array.isArray(v) && typeof v.error === 'string' && v.error !== '' ? v.error : undefined)
// What the library documents for what it throws (lib/names.d.ts ErrorCode, lib/index.d.ts ThrownErrorCode), 'internal' aside: a bug.
const CODES = new Set(
  require('./codes.cjs')
    .thrownErrorCodes()
    .filter((c) => c !== 'internal'),
)

/** Lets go of what a call left open: a conversation, a manager's conversations. */
async function release(...things) {
  for (const x of things) {
    try {
      if (x && typeof x.close === 'function' && typeof x.closed === 'boolean' && !x.closed) x.close()
      if (x && typeof x.closeConversations === 'function') await x.closeConversations()
    } catch {
      // A busy conversation (a call still running past the bound) stays open.
    }
  }
}

/**
 * What is wrong with one call, as a list of reasons (empty: it is fine). `valid`: the outcome of
 * the valid call of the same callable; `place` undefined for the valid call itself.
 */
function judge({ callable, entry, place, hostile, value, outcome, valid, changed, warnings, stray }) {
  const bad = []
  if (outcome.kind === 'hang') bad.push(`did not settle within ${boundMs / 1000} s`)
  if (changed) bad.push(`changed what it was given: ${changed}`)
  for (const w of warnings) bad.push(`made the process warn: ${w}`)
  for (const s of stray) bad.push(`left ${s}`)
  const failed = outcome.kind === 'threw' || outcome.kind === 'rejected'
  const err = outcome.error
  if (!place) {
    if (entry.privateConstructor) {
      if (!failed) bad.push('a constructor the types make private made an object')
      else if (!(err instanceof Error) || !CODES.has(err.errorCode)) bad.push(`a constructor the types make private threw without an errorCode: ${shown(err)}`)
      return bad
    }
    if (failed) bad.push(`the valid call failed: ${shown(err)}`)
    else if (outcome.kind === 'ok' && errorOf(outcome.value) && callable.kind !== 'getter')
      bad.push(`the valid call answered an error: ${errorOf(outcome.value)}`)
    return bad.concat(resultProblems(callable, outcome))
  }
  const refusedWith = failed ? err : outcome.kind === 'ok' && !errorOf(valid.value) && !semantic(outcome.value) ? errorOf(outcome.value) : undefined
  if (failed) {
    if (err instanceof Error && err.message === GETTER_ERROR) {
      // The host's own getter threw, and its error came back as it was: fine.
    } else if (!(err instanceof Error)) bad.push(`threw something that is not an Error: ${shown(err)}`)
    else if (err.errorCode === 'internal') bad.push(`threw an internal error (a bug caught at the boundary): ${shown(err)}`)
    else if (!CODES.has(err.errorCode))
      bad.push(`threw without an errorCode (${err.errorCode === undefined ? 'none' : JSON.stringify(err.errorCode)}): ${shown(err)}`)
    else if (!names(err.message, place, value)) bad.push(`threw an error that does not name ${place.show}: ${shown(err)}`)
  } else if (refusedWith !== undefined) {
    if (refusedWith.includes(GETTER_ERROR)) {
      // The host's getter threw, and the answer says so: fine.
    } else if (!names(refusedWith, place, value)) bad.push(`answered an error that does not name ${place.show}: ${refusedWith.slice(0, 300)}`)
  } else if (outcome.kind === 'ok') {
    const lenient = entry.lenient && (entry.lenient[place.show] ?? entry.lenient[String(place.path[0])])
    // Inside a message (data, not an argument) anything may be taken: its problems are the
    // history's, which validateConversation and condense's `error` report.
    if (place.data) {
      // Judged only by the other rules.
    } else if (place.unknown && !lenient) bad.push(`accepted an unknown key ${place.show} without a word (the types declare no such key)`)
    else if (!hostile.variant && !hostile.unknownKey && !admitted(place.admits, value) && !lenient)
      bad.push(`accepted ${hostile.name}, which the declared type of ${place.show} rules out (${admitsShown(place.admits)})`)
    bad.push(...resultProblems(callable, outcome))
  }
  if (hostile.variant && (failed || refusedWith !== undefined)) bad.push(`refused a deep-frozen copy of the valid value: ${failed ? shown(err) : refusedWith}`)
  return bad
}

/** What is wrong with what a call answered: a kind its declared type rules out, or NaN for a number. */
function resultProblems(callable, outcome) {
  if (outcome.kind !== 'ok' || callable.kind === 'setter' || callable.kind === 'constructor' || !callable.returns || Object.keys(callable.returns).length === 0)
    return []
  const v = outcome.value
  if (!admitted({ ...callable.returns, ...(callable.returns.undefined ? { undefined: true } : {}) }, v))
    return [`answered ${describeValue(v)}, which its declared type rules out (${admitsShown(callable.returns)})`]
  if (typeof v === 'number' && Number.isNaN(v)) return ['answered NaN for a number']
  return []
}

const admitsShown = (a) =>
  Object.entries(a)
    .map(([k, v]) => (v === true ? k : v.map((x) => JSON.stringify(x)).join(' | ')))
    .join(' | ') || 'nothing'

// ---------------------------------------------------------------------------------------------
// The run.

const values = hostileValues({ hugeChars: mode === 'slow' ? 20 * 1024 * 1024 : 1024 * 1024 })
let index = 0
const counts = { cases: 0, failures: 0 }
const started = performance.now()

async function runOne(entryName, callable, entry, place, hostile, valid) {
  const key = place ? KEY_OF(entryName, callable, place.show, hostile.name) : `${entryName}:${callable.id} @ (valid call)`
  const i = index++
  if (i < from || (only && !only.test(key))) return undefined
  out({ s: i, k: key })
  current = { warnings: [], stray: [] }
  let made
  try {
    made = await entry.make()
  } catch (e) {
    out({ i, k: key, f: [`the table's valid arguments could not be made: ${shown(e)}`] })
    return undefined
  }
  const fn = callable.kind === 'function' || callable.kind === 'constructor' ? lib[entryName][callable.id.replace(/\/\d+$/, '')] : undefined
  let args = made.args
  let value
  if (place) {
    if (hostile.unknownKey) {
      const parentPath = place.path.slice(0, -1)
      const parent = validAt(args, parentPath)
      value = 1
      args = placed(args, parentPath, { ...(parent !== null && typeof parent === 'object' ? parent : {}), [UNKNOWN_KEY]: 1 })
    } else {
      const validValue = validAt(args, place.path)
      value = hostile.variant && place.path.length === 1 && (entry.identity ?? []).includes(place.name) ? deepFreeze(validValue) : hostile.make(validValue)
      if (value === NOT_HERE) {
        out({ i, skip: 1 })
        await release(made.self)
        return undefined
      }
      args = placed(args, place.path, value)
    }
  }
  // What the call may change (documented), left out of the comparison.
  const mayChange = new Set(callable.params.flatMap((p, k) => (entry.mayChange && p.name in entry.mayChange ? [k] : [])))
  const watched = args.map((a, k) => (mayChange.has(k) ? undefined : a))
  const before = snapshot(watched)
  const outcome = await invoke(callable, made.self, args, fn)
  // Warnings and stray rejections arrive a turn or two later.
  await new Promise((r) => setImmediate(r))
  await new Promise((r) => setImmediate(r))
  const changed = difference(before, snapshot(watched))
  const bad = judge({ callable, entry, place, hostile, value, outcome, valid, changed, warnings: current.warnings, stray: current.stray })
  counts.cases++
  if (bad.length > 0) {
    counts.failures++
    out({ i, k: key, f: bad, ms: Math.round(outcome.ms ?? 0) })
  } else out({ i, ok: 1, ms: Math.round(outcome.ms ?? 0) })
  if (entry.after) {
    try {
      entry.after()
    } catch {
      // The undo is the table's; its failure shows in the next call.
    }
  }
  if (outcome.kind !== 'hang') await release(made.self, outcome.value)
  return outcome
}

for (const e of surface) {
  for (const callable of e.callables) {
    const entry = table[`${e.name}:${callable.id}`]
    if (!entry || entry.skip) continue
    const valid = (await runOne(e.name, callable, entry, undefined, undefined, undefined)) ?? { kind: 'ok' }
    if (entry.privateConstructor) continue
    const places = callable.kind === 'getter' ? [] : placesOf(callable, entry)
    for (const place of places) {
      for (const hostile of valuesAt(place, values, callable.id)) await runOne(e.name, callable, entry, place, hostile, valid)
    }
  }
}
out({ done: true, counts, ms: Math.round(performance.now() - started) })
server.close()
server.closeAllConnections?.()
process.exit(0)
