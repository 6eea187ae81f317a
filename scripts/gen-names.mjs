// Writes lib/names.d.ts, the TypeScript names of the engine's registry (src/catalogue.rs): the
// provider ids, the Smart presets, the encodings, and the options each provider takes; and the
// codes thrown errors carry (`ErrorCode` in src/error.rs). The
// hand-written .d.ts files import these instead of spelling a name. A provider's config is typed
// by the interface lib/index.d.ts exports under its schema's title when there is one (the
// built-in providers' are hand-written: they name the presets and operations and say more than
// the schemas); else its interface is generated here from its JSON Schema (doc comments from the
// schema's descriptions, with its defaults and ranges), so a provider added in Rust is typed with
// nothing written by hand. Run by `npm run build` after the addon is built (it reads the built
// addon); `__test__/names.test.ts` checks the committed file is what this writes.
// `node scripts/gen-names.mjs [file]` writes `file` (lib/names.d.ts by default).
import { readFileSync, writeFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

const here = path.dirname(fileURLToPath(import.meta.url))
const require = createRequire(import.meta.url)

const union = (names) => names.map((n) => JSON.stringify(n).replace(/"/g, "'")).join(' | ')

/** The types lib/index.d.ts exports (written by hand), by name. */
export function handWrittenTypes() {
  const text = readFileSync(path.join(here, '..', 'lib', 'index.d.ts'), 'utf8')
  return new Set([...text.matchAll(/^export (?:interface|type) (\w+)/gm)].map((m) => m[1]))
}

/** A JSON value as a TypeScript literal type. */
const literal = (v) => (typeof v === 'string' ? `'${v.replace(/\\/g, '\\\\').replace(/'/g, "\\'")}'` : JSON.stringify(v))

/** A doc comment of `lines` (none when empty), indented by `indent`. */
function doc(lines, indent) {
  const text = lines.filter(Boolean).join('\n').split('\n')
  if (text.length === 0 || text.every((l) => l.trim() === '')) return ''
  if (text.length === 1) return `${indent}/** ${text[0].replace(/\*\//g, '*\\/')} */\n`
  return `${indent}/**\n${text.map((l) => `${indent} * ${l.replace(/\*\//g, '*\\/')}`.trimEnd()).join('\n')}\n${indent} */\n`
}

/** What a property's comment says beside its description: its range and its default. */
function notes(s, types) {
  const out = []
  const integer = types.includes('integer')
  // An integer's minimum 0 is its Rust type's (unsigned), not a range of its own.
  const min = s.minimum !== undefined && !(integer && s.minimum === 0) ? s.minimum : undefined
  if (min !== undefined && s.maximum !== undefined) out.push(`From ${min} to ${s.maximum}.`)
  else if (min !== undefined) out.push(`At least ${min}.`)
  else if (s.maximum !== undefined) out.push(`At most ${s.maximum}.`)
  if (s.default !== undefined && s.default !== null && typeof s.default !== 'object' && !String(s.description ?? '').includes('@default')) {
    out.push(`@default ${JSON.stringify(s.default)}`)
  }
  return out
}

/**
 * TypeScript declarations of the types a JSON Schema (schemars' draft 2020-12) describes: `declare(name,
 * schema)` gives the name to use for it, declaring it (and the definitions it refers to) unless
 * `handWritten` has it, in which case it is imported. `declarations` holds the text, in order.
 */
export function typesFromSchemas(handWritten) {
  const declarations = new Map()
  const imports = new Set()
  const typesOf = (s) => (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type])

  function declare(name, schema, root) {
    if (handWritten.has(name)) {
      imports.add(name)
      return name
    }
    if (declarations.has(name)) return name
    declarations.set(name, '') // taken: a definition that refers to itself names itself
    const head = doc([schema.description], '')
    const body = schema.properties && !schema.oneOf && !schema.anyOf?.some((a) => !Array.isArray(a.required)) ? members(schema, root, '') : null
    declarations.set(name, body ? `${head}export interface ${name} ${body}\n` : `${head}export type ${name} = ${type(schema, root, '')}\n`)
    return name
  }

  function members(s, root, indent) {
    const required = new Set(s.required ?? [])
    const inner = `${indent}  `
    const lines = Object.entries(s.properties ?? {}).map(([key, p]) => {
      const t = type(p, root, inner)
      // The range and default beside a one-line description, on a line of their own after a longer one.
      const extra = notes(p, typesOf(p)).join(' ')
      const text = p.description && !p.description.includes('\n') && extra ? `${p.description} ${extra}` : [p.description, extra].filter(Boolean).join('\n')
      const comment = doc([text], inner)
      return `${comment}${inner}${/^[A-Za-z_$][\w$]*$/.test(key) ? key : JSON.stringify(key)}${required.has(key) ? '' : '?'}: ${t}`
    })
    return lines.length === 0 ? 'Record<string, never>' : `{\n${lines.join('\n')}\n${indent}}`
  }

  function type(s, root, indent) {
    const parts = []
    const add = (t) => {
      if (!parts.includes(t)) parts.push(t)
    }
    if (s.$ref) add(declare(s.$ref.replace('#/$defs/', ''), root.$defs[s.$ref.replace('#/$defs/', '')], root))
    if ('const' in s) add(literal(s.const))
    else if (s.enum) s.enum.forEach((v) => add(literal(v)))
    else {
      for (const t of typesOf(s)) {
        if (t === 'integer' || t === 'number') add('number')
        else if (t === 'string' || t === 'boolean' || t === 'null') add(t)
        else if (t === 'array') {
          const item = s.items ? type(s.items, root, indent) : 'unknown'
          add(/^[\w$]+$/.test(item) ? `${item}[]` : `Array<${item}>`)
        } else if (t === 'object') add(s.properties ? members(s, root, indent) : 'Record<string, unknown>')
      }
    }
    // A choice; Smart's `anyOf` of keys one of which is required beside its properties is not one.
    for (const b of s.oneOf ?? (s.properties ? [] : (s.anyOf ?? []))) add(type(b, root, indent))
    return parts.length === 0 ? 'unknown' : parts.join(' | ')
  }

  return { declare, declarations, imports }
}

/**
 * The text of lib/names.d.ts for the built addon's registry (`registry` gives another one's parts,
 * for the tests: `{ catalogue, configSchema, errorCodes, handWritten }`).
 */
export function namesDts(registry = {}) {
  const addon = () => require(path.join(here, '..', 'lib', 'index.js'))
  const catalogue = registry.catalogue ?? addon().providerCatalogue()
  const configSchema = registry.configSchema ?? addon().configSchema
  const errorCodes = registry.errorCodes ?? require(path.join(here, '..', 'lib', 'internal', 'native.js')).errorCodes()
  const types = typesFromSchemas(registry.handWritten ?? handWrittenTypes())
  const providers = catalogue.providers.map((p) => {
    const schema = configSchema(p.id)
    // A config the provider cannot run without (Smart's: a preset, passes or the prelude).
    const required = (schema.required ?? []).length > 0 || ((schema.anyOf ?? []).every((a) => Array.isArray(a.required)) && (schema.anyOf ?? []).length > 0)
    return { id: p.id, type: types.declare(schema.title, schema, schema), required }
  })
  const imported = [...types.imports].sort()
  const generated = [...types.declarations.values()]
  const q = (s) => `'${s}'`
  return `// Generated by scripts/gen-names.mjs from the engine's registry (src/catalogue.rs) and error codes (src/error.rs): do not edit.
// \`npm run build\` writes it; __test__/names.test.ts checks it is up to date.
${imported.length > 0 ? `import type { ${imported.join(', ')} } from './index'\n` : ''}
/** A built-in provider's id. */
export type ProviderId = ${union(providers.map((p) => p.id))}
/** The provider a host runs when its config names none. */
export type DefaultProvider = ${q(catalogue.defaultProvider)}
/** A Smart preset's name. */
export type SmartPreset = ${union(catalogue.presets)}
/** The preset a Smart config with neither a preset nor passes runs. */
export type DefaultPreset = ${q(catalogue.defaultPreset)}
/** A token encoding. */
export type Encoding = ${union(catalogue.encodings)}
/** The encoding used when none is given. */
export type DefaultEncoding = ${q(catalogue.defaultEncoding)}

/** The \`errorCode\` of what the library throws (an abort rejects with the signal's own reason instead). */
export type ErrorCode =
${errorCodes.map((c) => `  /** ${c.meaning} */\n  | ${q(c.code)}`).join('\n')}

/** Each built-in provider's config, by its id. */
export interface ProviderConfigs {
${providers.map((p) => `  ${p.id}: ${p.type}`).join('\n')}
}

/** A built-in provider with its config (required where the provider cannot run without one). */
export type ProviderOptions =
${providers.map((p) => `  | { provider: ${q(p.id)}; config${p.required ? '' : '?'}: ${p.type} }`).join('\n')}
${generated.length > 0 ? `\n// The configs lib/index.d.ts has no type for, from their JSON Schemas.\n\n${generated.join('\n')}` : ''}`
}

if (process.argv[1] && path.resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const out = process.argv[2] ?? path.join(here, '..', 'lib', 'names.d.ts')
  writeFileSync(out, namesDts())
}
