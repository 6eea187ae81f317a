// The hand-written public types (lib/index.d.ts) against the engine's JSON Schemas: every config
// interface names exactly the keys its schema has, optional where the schema does not require
// them, of the kinds of value the schema takes (boolean, number, string, array, object), taking
// null exactly where the schema does (the engine reads a null there as the key left out; nowhere
// else is null taken), and each enum type holds exactly the schema's values. Every provider of the
// registry is checked, its interface found by its schema's title (the name the generated
// ProviderConfigs imports), so a provider added in Rust is checked without a line here. Reads the
// .d.ts with the TypeScript compiler; a key added in Rust and not in the types (or the reverse), or
// a key whose type changed, fails here. The interfaces stay hand-written because they say more
// than the schemas (the preset's and the operations' names as types, longer notes).
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

import { CondensationManager, configSchema, managerConfigSchema, providerCatalogue } from '../lib/index.js'

type Schema = {
  title?: string
  type?: string | string[]
  $ref?: string
  properties?: Record<string, unknown>
  required?: string[]
  $defs?: Record<string, Schema>
  enum?: unknown[]
  oneOf?: Schema[]
  anyOf?: Schema[]
  const?: unknown
}

const DTS = join(__dirname, '..', 'lib', 'index.d.ts')
// strict: null stays in the types (without it, `string | null` reads as `string`).
const program = ts.createProgram([DTS], {
  noEmit: true,
  strict: true,
  types: [],
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  module: ts.ModuleKind.ESNext,
})
const checker = program.getTypeChecker()
const file = program.getSourceFile(DTS)!
const exported = checker.getExportsOfModule(checker.getSymbolAtLocation(file)!)

/** The properties of an exported interface: name -> optional. */
function members(name: string): Record<string, boolean> {
  const symbol = exported.find((s) => s.getName() === name)
  if (!symbol) throw new Error(`lib/index.d.ts exports no ${name}`)
  const type = checker.getDeclaredTypeOfSymbol(symbol)
  return Object.fromEntries(type.getProperties().map((p) => [p.getName(), (p.flags & ts.SymbolFlags.Optional) !== 0]))
}

/** The string literals of a union type alias (or of a property's type). */
function literals(type: ts.Type): string[] {
  const parts = type.isUnion() ? type.types : [type]
  return parts
    .filter((t) => t.isStringLiteral())
    .map((t) => (t as ts.StringLiteralType).value)
    .sort()
}

function propertyType(iface: string, key: string): ts.Type {
  const symbol = exported.find((s) => s.getName() === iface)!
  const prop = checker.getDeclaredTypeOfSymbol(symbol).getProperty(key)!
  return checker.getNonNullableType(checker.getTypeOfSymbolAtLocation(prop, file))
}

const keysOf = (s: Schema) => Object.keys(s.properties ?? {}).sort()

/** The kinds of value (null aside) a schema takes: boolean, number, string, array, object. */
function schemaKinds(s: Schema, root: Schema): string[] {
  const kinds = new Set<string>()
  const visit = (p: Schema) => {
    if (p.$ref) return visit(root.$defs![p.$ref.replace('#/$defs/', '')])
    const types = p.type === undefined ? [] : Array.isArray(p.type) ? p.type : [p.type]
    for (const t of types) if (t !== 'null') kinds.add(t === 'integer' ? 'number' : t)
    for (const v of [...(p.enum ?? []), ...('const' in p ? [p.const] : [])]) if (v !== null) kinds.add(typeof v)
    for (const b of [...(p.anyOf ?? []), ...(p.oneOf ?? [])]) visit(b)
  }
  visit(s)
  return [...kinds].sort()
}

/** The kinds of value (null and undefined aside) the declared type of an interface's property takes. */
function typeKinds(iface: string, key: string): string[] {
  const t = propertyType(iface, key)
  const kinds = new Set<string>()
  for (const u of t.isUnion() ? t.types : [t]) {
    if (u.flags & ts.TypeFlags.BooleanLike) kinds.add('boolean')
    else if (u.flags & ts.TypeFlags.NumberLike) kinds.add('number')
    else if (u.flags & ts.TypeFlags.StringLike) kinds.add('string')
    else if (checker.isArrayType(u)) kinds.add('array')
    else if (u.flags & ts.TypeFlags.Object) kinds.add('object')
    else kinds.add(checker.typeToString(u))
  }
  return [...kinds].sort()
}

/** Whether a property's schema takes null (`type: [x, "null"]`, a null branch, or null among its enum values). */
function schemaTakesNull(p: Schema & { type?: unknown; anyOf?: Schema[] }): boolean {
  const branches = [...(p.anyOf ?? []), ...(p.oneOf ?? [])] as Array<Schema & { type?: unknown }>
  return (Array.isArray(p.type) && p.type.includes('null')) || p.type === 'null' || branches.some((b) => b.type === 'null') || (p.enum ?? []).includes(null)
}

/** Whether the declared type of an interface's property takes null. */
function typeTakesNull(iface: string, key: string): boolean {
  const symbol = exported.find((s) => s.getName() === iface)!
  const prop = checker.getDeclaredTypeOfSymbol(symbol).getProperty(key)!
  const t = checker.getTypeOfSymbolAtLocation(prop, file)
  return (t.isUnion() ? t.types : [t]).some((u) => (u.flags & ts.TypeFlags.Null) !== 0)
}

describe('the public types say what the engine takes', () => {
  const smart = configSchema('smart') as Schema
  const manager = managerConfigSchema() as Schema
  // Each provider's config, by its schema's title; then the types they are made of, each with the
  // schema it is checked against and that schema's root (where its `$ref`s point).
  const providers = providerCatalogue().providers.map((p) => configSchema(p.id) as Schema)
  const cases: Array<[string, Schema, Schema]> = [
    ...providers.map((s): [string, Schema, Schema] => [String(s.title), s, s]),
    ['SmartPass', smart.$defs!.PassConfig, smart],
    ['Pricing', smart.$defs!.Pricing, smart],
    ['TruncateParams', smart.$defs!.TruncateParams, smart],
    ['ContentTypeOps', smart.$defs!.ContentTypeOps, smart],
    ['WorkingSetConfig', smart.$defs!.WorkingSetConfig, smart],
    ['Triggers', manager.$defs!.Triggers, manager],
  ]

  it("every provider of the registry has its config's interface, named by its schema's title", () => {
    expect(providers.length).toBeGreaterThan(3)
    for (const s of providers) {
      expect(s.title, JSON.stringify(s).slice(0, 80)).toMatch(/^[A-Z]\w*Config$/)
      expect(() => members(String(s.title))).not.toThrow()
    }
  })

  it.each(cases)('%s: the same keys as its schema, optional unless required', (name, schema) => {
    const m = members(name)
    expect(Object.keys(m).sort(), `${name} vs its schema`).toEqual(keysOf(schema))
    for (const key of Object.keys(m)) expect(m[key], `${name}.${key} optional`).toBe(!(schema.required ?? []).includes(key))
  })

  it.each(cases)('%s: each key takes the kinds of value its schema takes', (name, schema, root) => {
    for (const key of keysOf(schema)) {
      expect(typeKinds(name, key), `${name}.${key}`).toEqual(schemaKinds((schema.properties ?? {})[key] as Schema, root))
    }
  })

  it.each([...cases, ['ManagerConfig', manager, manager] as [string, Schema, Schema]])('%s: a key takes null exactly where its schema does', (name, schema) => {
    for (const key of keysOf(schema)) {
      expect(typeTakesNull(name, key), `${name}.${key} takes null`).toBe(schemaTakesNull((schema.properties ?? {})[key] as Schema))
    }
  })

  it("ManagerConfig: its schema's keys, plus Roo Code's earlier keys that the manager reads and the schema leaves out", () => {
    const m = members('ManagerConfig')
    const extra = Object.keys(m).filter((k) => !keysOf(manager).includes(k))
    expect(keysOf(manager).filter((k) => !(k in m))).toEqual([])
    expect(extra.sort()).toEqual(['autoCondenseContext', 'autoCondenseContextPercent', 'condensingApiConfigId', 'customCondensingPrompt'])
    // Each extra key is one the engine takes (an unknown one would be refused with its path).
    const sample: Record<string, unknown> = {
      autoCondenseContext: true,
      autoCondenseContextPercent: 80,
      condensingApiConfigId: 'p',
      customCondensingPrompt: 'x',
    }
    for (const k of extra) expect(new CondensationManager().validateConfig({ [k]: sample[k] }), k).toEqual([])
    expect(new CondensationManager().validateConfig({ surprise: 1 })[0].path).toBe('config.surprise')
    for (const key of keysOf(manager)) expect(m[key], `ManagerConfig.${key} optional`).toBe(true)
  })

  it('the enums hold exactly the schema values (presets, keep, operations)', () => {
    const presetSchema = smart.properties!.preset as Schema
    expect(literals(propertyType('SmartConfig', 'preset'))).toEqual(
      (presetSchema.enum ?? [])
        .filter((v) => v !== null)
        .map(String)
        .sort(),
    )
    const keep = (smart.$defs!.Keep.oneOf ?? []).map((b) => String(b.const)).sort()
    expect(literals(propertyType('LosslessConfig', 'keep'))).toEqual(keep)
    const operation = smart.$defs!.Operation.enum!.map(String).sort()
    const opType = exported.find((s) => s.getName() === 'Operation')!
    expect(literals(checker.getDeclaredTypeOfSymbol(opType))).toEqual(operation)
  })
})
