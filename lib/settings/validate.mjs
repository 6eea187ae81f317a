// Checks a value against the engine's JSON Schemas in the browser, where the addon is not. Covers
// exactly the part of JSON Schema 2020-12 that the engine's schemas use (type, enum, const,
// minimum/maximum, properties/required/additionalProperties, items, oneOf/anyOf, local $ref, the
// numeric formats schemars writes); a keyword outside it is an error, so a schema that grows a new
// keyword fails the tests instead of being half-checked. Never changes the value it checks.

const KNOWN = new Set([
  '$schema',
  '$defs',
  '$ref',
  'title',
  'description',
  'default',
  'type',
  'enum',
  'const',
  'minimum',
  'maximum',
  'format',
  'properties',
  'required',
  'additionalProperties',
  'items',
  'oneOf',
  'anyOf',
])

/** Rust's number types as schemars names them: whether whole, and their bounds. */
const FORMATS = {
  uint: { whole: true, min: 0 },
  uint8: { whole: true, min: 0, max: 255 },
  uint16: { whole: true, min: 0, max: 65535 },
  uint32: { whole: true, min: 0, max: 2 ** 32 - 1 },
  uint64: { whole: true, min: 0 },
  double: { whole: false },
}

/**
 * The numbers a schema allows, in a reader's words: `from 5 to 100`, `a whole number, at least
 * 0`, `a whole number from 0 to 255`; its type, `format`, `minimum` and `maximum` together.
 */
function numberRange(s) {
  const f = FORMATS[s.format] ?? {}
  const types = Array.isArray(s.type) ? s.type : [s.type]
  const whole = f.whole || (types.includes('integer') && !types.includes('number'))
  const lo = [s.minimum, f.min].filter((x) => x !== undefined)
  const hi = [s.maximum, f.max].filter((x) => x !== undefined)
  const min = lo.length ? Math.max(...lo) : undefined
  const max = hi.length ? Math.min(...hi) : undefined
  const kind = whole ? 'a whole number' : 'a number'
  if (min !== undefined && max !== undefined) return whole ? `${kind} from ${min} to ${max}` : `from ${min} to ${max}`
  if (min !== undefined) return `${kind}, at least ${min}`
  if (max !== undefined) return `${kind}, at most ${max}`
  return kind
}

/** Whether `n` is a number `s` allows (its type, format and bounds). */
function numberFits(s, n) {
  const f = FORMATS[s.format] ?? {}
  const types = Array.isArray(s.type) ? s.type : [s.type]
  if (!Number.isFinite(n)) return false
  if ((f.whole || (types.includes('integer') && !types.includes('number'))) && !Number.isInteger(n)) return false
  for (const lo of [s.minimum, f.min]) if (lo !== undefined && n < lo) return false
  for (const hi of [s.maximum, f.max]) if (hi !== undefined && n > hi) return false
  return true
}

/** `settings.providers.smart.passes[0].mode` style paths, as the engine's own errors name places. */
export function childPath(path, key) {
  if (typeof key === 'number') return `${path}[${key}]`
  return /^[A-Za-z_$][\w$]*$/.test(key) ? `${path}.${key}` : `${path}[${JSON.stringify(key)}]`
}

/**
 * The path `childPath` made `path` from: `settings.a[0]["b c"]` → `settings.a[0]`; null when
 * `path` has no parent (`settings`) or is not a path `childPath` writes. Each call is strictly
 * shorter, so a walk up from any path ends.
 */
export function parentPath(path) {
  const m = /(?:\.[A-Za-z_$][\w$]*|\[\d+\]|\["(?:[^"\\]|\\.)*"\])$/.exec(path)
  return m && m.index > 0 ? path.slice(0, m.index) : null
}

/** The schema a local `$ref` names (`#/$defs/Name`). */
export function resolve(schema, root) {
  let s = schema
  for (let hops = 0; s && typeof s.$ref === 'string'; hops++) {
    if (hops > 32 || !s.$ref.startsWith('#/')) throw new Error(`unsupported $ref ${s.$ref}`)
    let target = root
    for (const part of s.$ref.slice(2).split('/')) target = target?.[part.replace(/~1/g, '/').replace(/~0/g, '~')]
    if (!target) throw new Error(`$ref ${s.$ref} names nothing`)
    // Keywords beside the $ref (a description, a default) stay with it.
    const { $ref, ...beside } = s
    s = { ...target, ...beside }
  }
  return s
}

function typeOf(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  if (typeof v === 'number') return Number.isInteger(v) ? 'integer' : 'number'
  return typeof v
}

function typeMatches(type, v) {
  const t = typeOf(v)
  return type === t || (type === 'number' && t === 'integer')
}

function show(v) {
  if (typeof v === 'bigint') return `${v}n`
  let text
  try {
    text = JSON.stringify(v)
  } catch {
    // A cycle: JSON has no text for it.
    return 'a value that contains itself'
  }
  return text === undefined ? String(v) : text.length > 40 ? `${text.slice(0, 37)}...` : text
}

/**
 * A refusal of an argument, as the package's other entries throw it: a TypeError with
 * `errorCode: "invalid-argument"` (this module runs in the browser too, without lib/internal/errors.js).
 */
function refused(message) {
  const e = new TypeError(message)
  Object.defineProperty(e, 'errorCode', { value: 'invalid-argument', enumerable: true, writable: true, configurable: true })
  return e
}

/**
 * Every problem of `value` under `schema` (a JSON Schema of the subset above: an object, or a
 * boolean; its `$defs` are what the refs name), each as `{ path, message, schemaPath }`; an empty
 * list when it is valid. `path` names the value in the problems (`settings` by default). A schema
 * that is not one, or uses a keyword outside the subset, is refused with a TypeError naming it.
 */
export function validate(schema, value, path = 'settings') {
  if (typeof schema !== 'boolean' && (schema === null || typeof schema !== 'object' || Array.isArray(schema)))
    throw refused(`validate: schema: expected a JSON Schema (an object or a boolean), got ${describeArgument(schema)}`)
  if (typeof path !== 'string') throw refused(`validate: path: expected a string (the name of the value in the problems), got ${describeArgument(path)}`)
  try {
    return check(schema, value, path, schema, '#')
  } catch (e) {
    if (e instanceof SchemaError) throw refused(`validate: schema: ${e.message}`)
    throw e
  }
}

/** A schema outside the subset this module checks. */
class SchemaError extends Error {}

function describeArgument(v) {
  if (v === null || v === undefined) return String(v)
  if (Array.isArray(v)) return 'an array'
  if (typeof v === 'object') return 'an object'
  if (typeof v === 'string') return `string ${show(v)}`
  return `${typeof v} ${show(v)}`
}

function check(schema, value, path, root, schemaPath) {
  const errors = []
  let s
  try {
    s = resolve(schema, root)
  } catch (e) {
    throw new SchemaError(`${schemaPath}: ${e.message}`)
  }
  if (s === true || s === undefined) return errors
  if (s === false) return [{ path, message: 'not allowed here', schemaPath }]
  if (s === null || typeof s !== 'object' || Array.isArray(s))
    throw new SchemaError(`${schemaPath}: expected a schema (an object or a boolean), got ${describeArgument(s)}`)
  for (const k of Object.keys(s)) if (!KNOWN.has(k)) throw new SchemaError(`${schemaPath}: schema keyword "${k}" is not supported`)
  const at = (message, keyword) => errors.push({ path, message, schemaPath: `${schemaPath}/${keyword}` })
  if (s.type !== undefined) {
    const types = Array.isArray(s.type) ? s.type : [s.type]
    if (!types.some((t) => typeMatches(t, value))) {
      // A number where a whole number is wanted is said as its range, as an out-of-range one is.
      const numeric = typeof value === 'number' && types.includes('integer')
      at(numeric ? `${numberRange(s)}; got ${value}` : `expected ${types.join(' or ')}, got ${show(value)}`, 'type')
      return errors
    }
  }
  if (s.const !== undefined && JSON.stringify(s.const) !== JSON.stringify(value)) at(`expected ${show(s.const)}, got ${show(value)}`, 'const')
  if (s.enum && !s.enum.some((e) => JSON.stringify(e) === JSON.stringify(value)))
    at(`expected one of ${s.enum.map(show).join(', ')}, got ${show(value)}`, 'enum')
  // A number out of what its type, format and bounds allow is one problem, saying the range.
  if (typeof value === 'number' && !numberFits(s, value)) {
    const keyword = s.minimum !== undefined && value < s.minimum ? 'minimum' : s.maximum !== undefined && value > s.maximum ? 'maximum' : 'format'
    at(`${numberRange(s)}; got ${value}`, keyword)
  }
  if (typeOf(value) === 'object') {
    const props = s.properties ?? {}
    for (const r of s.required ?? []) if (!(r in value)) at(`${r} is required`, 'required')
    for (const [k, v] of Object.entries(value)) {
      if (k in props) errors.push(...check(props[k], v, childPath(path, k), root, `${schemaPath}/properties/${k}`))
      else if (s.additionalProperties === false)
        errors.push({
          path: childPath(path, k),
          message: `unknown key, expected one of ${Object.keys(props).join(', ')}`,
          schemaPath: `${schemaPath}/additionalProperties`,
        })
      else if (s.additionalProperties && s.additionalProperties !== true)
        errors.push(...check(s.additionalProperties, v, childPath(path, k), root, `${schemaPath}/additionalProperties`))
    }
  }
  if (Array.isArray(value) && s.items !== undefined) value.forEach((v, i) => errors.push(...check(s.items, v, childPath(path, i), root, `${schemaPath}/items`)))
  for (const keyword of ['oneOf', 'anyOf']) {
    if (!s[keyword]) continue
    const results = s[keyword].map((branch, i) => check(branch, value, path, root, `${schemaPath}/${keyword}/${i}`))
    const passing = results.filter((r) => r.length === 0).length
    if (keyword === 'anyOf' ? passing > 0 : passing === 1) continue
    if (passing > 1) {
      at(`matches ${passing} of the allowed forms, expected exactly one`, keyword)
      continue
    }
    // Report the branch that came closest: the one whose problems lie deepest, then the fewest.
    const depth = (r) => Math.max(...r.map((e) => e.path.length))
    const best = results.reduce((a, b) => (depth(b) > depth(a) || (depth(b) === depth(a) && b.length < a.length) ? b : a))
    if (depth(best) > path.length) errors.push(...best)
    else at(describeChoices(s[keyword], root, value), keyword)
  }
  return errors
}

/**
 * What a failed choice whose branches all failed at the top allows: a number's range first, then
 * each constant with what it means (its description): `from 5 to 100 (or -1: inherit the global
 * threshold); got 3`.
 */
function describeChoices(branches, root, value) {
  const forms = []
  const specials = []
  for (const b of branches) {
    const r = resolve(b, root)
    if (r.const !== undefined) {
      const meaning = (r.description ?? '').replace(/\.\s*$/, '')
      specials.push(meaning ? `${show(r.const)}: ${meaning.charAt(0).toLowerCase()}${meaning.slice(1)}` : show(r.const))
      continue
    }
    const types = Array.isArray(r.type) ? r.type : r.type ? [r.type] : []
    if (r.enum) forms.push(`one of ${r.enum.map(show).join(', ')}`)
    else if (r.type === 'object' && r.properties?.type?.const) forms.push(`{ type: ${show(r.properties.type.const)}, ... }`)
    else if (types.includes('number') || types.includes('integer')) forms.push(numberRange(r))
    else forms.push(types.length ? types.join(' or ') : 'another form')
  }
  const allowed = forms.length ? `${forms.join(' or ')}${specials.length ? ` (or ${specials.join(', or ')})` : ''}` : `one of ${specials.join(', ')}`
  return `${allowed}; got ${show(value)}`
}
