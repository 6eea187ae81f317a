// The package's public surface as its published .d.ts files declare it, read with the TypeScript
// compiler, for the hostile sweep (__test__/hostile-sweep.test.ts): every value each entry of
// package.json `exports` declares (scripts/dts-exports.cjs finds the entries and applies the same
// rule for "a value"), and for each callable — function, class constructor, method, getter, setter,
// and the methods and call signatures of what a function answers (openConversation's Conversation,
// createOpenAISummarizer's summarizer, toAnthropic's conversion) — its parameters, which kinds of
// JavaScript value each one's declared type admits, and the keys of an options object (two levels
// deep). Reads the .d.ts files only; loads nothing of the package.
'use strict'

const { join, sep } = require('node:path')
const ts = require('typescript')
const { packageEntries, root } = require('../../scripts/dts-exports.cjs')

const LIB = join(root, 'lib') + sep

/** The entry's short name: "main" for ".", else the sub-path ("roo", "settings/schemas"). */
const entryName = (subpath) => (subpath === '.' ? 'main' : subpath.slice(2))

/**
 * What a declared type admits, as JavaScript sees a value: `any` (unknown, any), or per kind
 * (undefined, null, boolean, number, bigint, string, symbol, function, array, object) true, or for
 * string / number / boolean the literal values alone when the type is a union of literals.
 */
function admits(checker, type, depth = 0) {
  const out = {}
  const add = (kind, literal) => {
    if (literal === undefined) out[kind] = true
    else if (out[kind] !== true) (out[kind] ??= []).push(literal)
  }
  const visit = (t, d) => {
    if (d > 8) return add('any')
    const f = t.flags
    if (f & (ts.TypeFlags.Any | ts.TypeFlags.Unknown)) return add('any')
    if (f & (ts.TypeFlags.Undefined | ts.TypeFlags.Void)) return add('undefined')
    if (f & ts.TypeFlags.Null) return add('null')
    if (f & ts.TypeFlags.StringLiteral) return add('string', t.value)
    if (f & ts.TypeFlags.NumberLiteral) return add('number', t.value)
    if (f & ts.TypeFlags.BooleanLiteral) return add('boolean', t.intrinsicName === 'true')
    if (f & ts.TypeFlags.Boolean) return add('boolean')
    if (f & (ts.TypeFlags.String | ts.TypeFlags.TemplateLiteral | ts.TypeFlags.StringMapping)) return add('string')
    if (f & ts.TypeFlags.Number) return add('number')
    if (f & (ts.TypeFlags.BigInt | ts.TypeFlags.BigIntLiteral)) return add('bigint')
    if (f & (ts.TypeFlags.ESSymbol | ts.TypeFlags.UniqueESSymbol)) return add('symbol')
    if (f & ts.TypeFlags.Never) return
    if (f & ts.TypeFlags.Union) {
      for (const u of t.types) visit(u, d + 1)
      return
    }
    if (f & ts.TypeFlags.TypeParameter) {
      const c = checker.getBaseConstraintOfType(t)
      return c && c !== t ? visit(c, d + 1) : add('any')
    }
    if (f & ts.TypeFlags.Intersection) {
      // An intersection of object types is an object of its members' kind.
      const kinds = t.types.map((u) => admits(checker, u, d + 1))
      for (const k of kinds) for (const [kind, v] of Object.entries(k)) if (v === true) add(kind)
      return
    }
    if (f & ts.TypeFlags.NonPrimitive) {
      for (const kind of ['object', 'array', 'function']) add(kind)
      return
    }
    if (f & ts.TypeFlags.Object) {
      if (checker.isArrayType(t) || checker.isTupleType(t)) return add('array')
      if (t.getCallSignatures().length > 0 || t.getConstructSignatures().length > 0) return add('function')
      const name = t.symbol && t.symbol.getName()
      if (name === 'Array' || name === 'ReadonlyArray') return add('array')
      return add('object')
    }
    add('any')
  }
  visit(type, depth)
  return out
}

/** Whether a symbol is declared in the package's own .d.ts files (not in Node's or TypeScript's). */
const ours = (symbol) => (symbol.declarations ?? []).some((d) => d.getSourceFile().fileName.startsWith(LIB))

/** The object types a (possibly union or intersection) type is made of, primitives and arrays aside. */
function objectParts(checker, type) {
  const t = checker.getNonNullableType(type)
  if (t.flags & ts.TypeFlags.Union) return t.types.flatMap((u) => objectParts(checker, u))
  if (t.flags & ts.TypeFlags.Intersection) return [t]
  if (!(t.flags & ts.TypeFlags.Object) || checker.isArrayType(t) || checker.isTupleType(t)) return []
  if (t.getCallSignatures().length > 0) return []
  return [t]
}

/**
 * The keys of an options object the types declare: per key, whether it is optional, what it
 * admits, and (down to `depth`) the keys of its own object type. Keys of types declared outside
 * the package (AbortSignal's, a Record's index) are not listed.
 */
function keysOf(checker, type, at, depth) {
  const byName = new Map()
  let indexed = false
  for (const part of objectParts(checker, type)) {
    if (part.getStringIndexType()) indexed = true
    // An interface that declares methods is one the host implements (Roo's ApiHandler): the
    // host's object may carry members the library never reads, so an unknown key is no mistake.
    if (checker.getPropertiesOfType(part).some((p) => (p.declarations ?? []).some((d) => ts.isMethodSignature(d)))) indexed = true
    for (const p of checker.getPropertiesOfType(part)) {
      if (!ours(p)) continue
      const decl = p.valueDeclaration ?? p.declarations?.[0]
      const t = checker.getTypeOfSymbolAtLocation(p, decl ?? at)
      const a = admits(checker, t)
      if (p.flags & ts.SymbolFlags.Optional) a.undefined = true
      const prev = byName.get(p.getName())
      if (prev) {
        merge(prev.admits, a)
        prev.optional ||= (p.flags & ts.SymbolFlags.Optional) !== 0
        prev.types.push(t)
      } else byName.set(p.getName(), { name: p.getName(), optional: (p.flags & ts.SymbolFlags.Optional) !== 0, admits: a, types: [t] })
    }
  }
  return {
    indexed,
    keys: [...byName.values()].map(({ types, ...k }) => {
      const nested = depth > 0 ? types.map((t) => keysOf(checker, t, at, depth - 1)) : []
      const keys = nested.flatMap((n) => n.keys)
      const seen = new Set()
      return {
        ...k,
        ...(keys.length > 0 ? { keys: keys.filter((x) => !seen.has(x.name) && seen.add(x.name)), indexed: nested.some((n) => n.indexed) } : {}),
      }
    }),
  }
}

/**
 * The types of a history's content: messages and their blocks are data, whose problems the
 * library reports (validateConversation, condense's `error`) rather than refuses as arguments.
 */
const DATA_TYPES = new Set([
  'ApiMessage',
  'ContentBlock',
  'OpenAIMessage',
  'OpenAIContentPart',
  'ApiRequestMessage',
  'RooMessage',
  'RooContentBlock',
  'RooTextBlock',
  'RooImageBlock',
  'RooToolUseBlock',
  'RooToolResultBlock',
  'RooOtherBlock',
])

function isData(checker, type, depth = 0) {
  if (depth > 4) return false
  let t = checker.getNonNullableType(type)
  if (t.flags & ts.TypeFlags.TypeParameter) t = checker.getBaseConstraintOfType(t) ?? t
  const name = (t.aliasSymbol ?? t.symbol)?.getName()
  if (name && DATA_TYPES.has(name)) return true
  if (t.flags & (ts.TypeFlags.Union | ts.TypeFlags.Intersection)) return t.types.some((u) => isData(checker, u, depth + 1))
  return false
}

/** A parameter: its name, whether it may be left out, what it admits, its keys or its elements' kind. */
function describeParam(checker, p, at) {
  const decl = p.valueDeclaration
  const type = checker.getTypeOfSymbolAtLocation(p, decl ?? at)
  const optional = Boolean(decl && ts.isParameter(decl) && (decl.questionToken || decl.initializer))
  const rest = Boolean(decl && ts.isParameter(decl) && decl.dotDotDotToken)
  const a = admits(checker, type)
  if (optional) a.undefined = true
  const out = { name: p.getName(), optional, rest, admits: a }
  // A message or block parameter: its keys are data.
  if (isData(checker, type)) out.data = true
  const { keys, indexed } = keysOf(checker, type, at, 1)
  if (keys.length > 0) Object.assign(out, { keys, indexed })
  // An array of objects: its first element is a place of its own (`messages[0]`).
  const nn = checker.getNonNullableType(type)
  const arrays = nn.flags & ts.TypeFlags.Union ? nn.types : [nn]
  for (const t of arrays) {
    if (checker.isArrayType(t)) {
      const [el] = checker.getTypeArguments(t)
      const e = admits(checker, el)
      if (e.object || e.any) out.element = e
      if (isData(checker, el)) out.elementData = true
    }
  }
  return out
}

/** Signatures grouped by their parameter names: overloads that name the same parameters are one callable. */
function groupSignatures(checker, signatures, at) {
  const groups = new Map()
  for (const s of signatures) {
    const params = s.getParameters().map((p) => describeParam(checker, p, at))
    const key = params.map((p) => p.name).join(',')
    const g = groups.get(key)
    const returns = admits(checker, awaited(checker, s.getReturnType()))
    if (!g) {
      groups.set(key, { params, returns, returnType: s.getReturnType() })
      continue
    }
    merge(g.returns, returns)
    params.forEach((p, i) => {
      const q = g.params[i]
      merge(q.admits, p.admits)
      // The keys either overload declares, each admitting what either admits.
      if (p.keys) {
        q.keys ??= []
        for (const k of p.keys) {
          const same = q.keys.find((x) => x.name === k.name)
          if (same) merge(same.admits, k.admits)
          else q.keys.push(k)
        }
      }
    })
  }
  return [...groups.values()]
}

const awaited = (checker, t) => checker.getAwaitedType(t) ?? t

/** `into` admits what `from` admits too. */
function merge(into, from) {
  for (const [k, v] of Object.entries(from)) into[k] = v === true || into[k] === true ? true : [...new Set([...(into[k] ?? []), ...v])]
}

/**
 * The callables of a value's type: its call signatures, its own methods, its readonly properties
 * (getters) and, for a class (`isClass`), its other properties (a getter and a setter). What a
 * function answers counts only when it has behaviour (a call signature or a method), and not when it
 * is an instance of a class (the class's own members stand for it): a plain result's fields are
 * data, not surface.
 */
function membersOf(checker, type, at, prefix, out, isClass) {
  const t = checker.getNonNullableType(awaited(checker, type))
  const parts = objectParts(checker, t).concat(t.getCallSignatures().length > 0 ? [t] : [])
  if (!isClass) {
    if (parts.some((p) => p.symbol && p.symbol.flags & ts.SymbolFlags.Class)) return
    const behaves = parts.some(
      (p) =>
        p.getCallSignatures().length > 0 ||
        checker.getPropertiesOfType(p).some((m) => ours(m) && (m.declarations ?? []).some((d) => ts.isMethodDeclaration(d) || ts.isMethodSignature(d))),
    )
    if (!behaves) return
  }
  for (const part of parts) {
    const calls = part.getCallSignatures()
    if (calls.length > 0 && part === t) {
      for (const g of groupSignatures(checker, calls, at)) out.push({ id: `${prefix}()`, kind: 'call', params: g.params, returns: g.returns })
    }
    for (const p of checker.getPropertiesOfType(part)) {
      if (!ours(p) || p.getName().startsWith('#')) continue
      const decls = p.declarations ?? []
      const decl = decls[0]
      const isPrivate = decls.some((d) => ts.getCombinedModifierFlags(d) & (ts.ModifierFlags.Private | ts.ModifierFlags.Protected))
      if (isPrivate) continue
      const pt = checker.getTypeOfSymbolAtLocation(p, decl ?? at)
      const sigs = checker.getNonNullableType(pt).getCallSignatures()
      const isMethod = decls.some((d) => ts.isMethodDeclaration(d) || ts.isMethodSignature(d))
      if (isMethod && sigs.length > 0) {
        const groups = groupSignatures(checker, sigs, at)
        groups.forEach((g) => {
          out.push({ id: `${prefix}#${p.getName()}${groups.length > 1 ? `/${g.params.length}` : ''}`, kind: 'method', params: g.params, returns: g.returns })
        })
        continue
      }
      // A property: a getter, and a setter unless it is readonly.
      const readonly =
        decls.some((d) => ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Readonly) || (decls.every((d) => ts.isGetAccessor(d)) && decls.length > 0)
      if (!readonly && !isClass) continue
      const a = admits(checker, pt)
      if (p.flags & ts.SymbolFlags.Optional) a.undefined = true
      out.push({ id: `${prefix}.${p.getName()}`, kind: 'getter', params: [], returns: a })
      if (!readonly)
        out.push({ id: `${prefix}.${p.getName()}=`, kind: 'setter', params: [{ name: p.getName(), optional: false, rest: false, admits: a }], returns: {} })
    }
  }
}

/**
 * Every entry with its value exports: constants (name, what they admit), and callables: `{ id,
 * kind: 'function' | 'constructor' | 'method' | 'getter' | 'setter' | 'call', params, returns }`.
 * Ids: `condense`, `CondensationManager` (its constructor), `CondensationManager#decide`,
 * `Conversation.length` (a getter), `openConversation()#append` (a method of what it answers),
 * `createOpenAISummarizer()()` (what it answers, called); overloads naming other parameters get
 * `/<arity>`.
 */
function readSurface() {
  const entries = packageEntries()
  const files = entries.map((e) => join(root, e.types))
  // strict: null and undefined stay in the types (without it, `number | null` reads as `number`).
  const program = ts.createProgram(files, {
    noEmit: true,
    strict: true,
    types: [],
    moduleResolution: ts.ModuleResolutionKind.Bundler,
    module: ts.ModuleKind.ESNext,
  })
  const checker = program.getTypeChecker()
  return entries.map((e, i) => {
    const file = program.getSourceFile(files[i])
    if (!file) throw new Error(`${files[i]}: not found`)
    const moduleSymbol = checker.getSymbolAtLocation(file)
    if (!moduleSymbol) throw new Error(`${files[i]}: not a module`)
    const constants = []
    const callables = []
    for (const s of checker.getExportsOfModule(moduleSymbol)) {
      const sym = s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s
      if ((sym.flags & ts.SymbolFlags.Value) === 0 || s.getName() === 'default') continue
      const name = s.getName()
      const type = checker.getTypeOfSymbolAtLocation(sym, file)
      if (sym.flags & ts.SymbolFlags.Class) {
        const ctor = type.getConstructSignatures()
        const isPrivate = (sym.members ? [...sym.members.values()] : []).some(
          (m) => m.flags & ts.SymbolFlags.Constructor && (m.declarations ?? []).some((d) => ts.getCombinedModifierFlags(d) & ts.ModifierFlags.Private),
        )
        for (const g of groupSignatures(checker, ctor, file))
          callables.push({ id: name, kind: 'constructor', private: isPrivate, params: g.params, returns: { object: true } })
        membersOf(checker, checker.getDeclaredTypeOfSymbol(sym), file, name, callables, true)
        continue
      }
      const sigs = type.getCallSignatures()
      if (sigs.length > 0) {
        const groups = groupSignatures(checker, sigs, file)
        for (const g of groups) {
          const id = `${name}${groups.length > 1 ? `/${g.params.length}` : ''}`
          callables.push({ id, kind: 'function', params: g.params, returns: g.returns })
          membersOf(checker, g.returnType, file, `${id}()`, callables, false)
        }
        continue
      }
      constants.push({ name, admits: admits(checker, type) })
    }
    // Members reached twice (two overloads answering the same type) are one callable.
    const seen = new Set()
    return {
      specifier: e.specifier,
      name: entryName(e.subpath),
      js: join(root, e.js),
      types: files[i],
      constants,
      callables: callables.filter((c) => !seen.has(c.id) && seen.add(c.id)),
    }
  })
}

module.exports = { readSurface, entryName }

if (require.main === module) console.log(JSON.stringify(readSurface(), null, 1))
