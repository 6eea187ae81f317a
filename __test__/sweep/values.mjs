// The hostile sweep's values and its way of seeing whether an argument changed: the hostile values
// (each made fresh per call, from the valid value it replaces when it is a variant of it: a sparse
// copy, a deep-frozen copy, a copy with a getter that throws), a deep snapshot of a value that never
// calls a getter and keeps identities (functions, cycles, prototypes, frozenness), and its
// comparison. Pure: touches nothing but what it makes.

/** The message a getter planted by the sweep throws with (an error the host made, passed through is fine). */
export const GETTER_ERROR = 'sweep: a getter the host wrote threw'

const isPlain = (v) => {
  if (v === null || typeof v !== 'object') return false
  const p = Object.getPrototypeOf(v)
  return p === Object.prototype || p === null || p === Array.prototype
}

/** A deep copy of plain objects and arrays (anything else, functions and signals included, is shared). */
export function plainCopy(v, seen = new Map()) {
  if (!isPlain(v)) return v
  if (seen.has(v)) return seen.get(v)
  const out = Array.isArray(v) ? new Array(v.length) : Object.create(Object.getPrototypeOf(v))
  seen.set(v, out)
  for (const key of Reflect.ownKeys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, key)
    if ('value' in d) d.value = plainCopy(d.value, seen)
    Object.defineProperty(out, key, d)
  }
  return out
}

/** Freezes every plain object and array reachable from `v` (other objects, an AbortSignal, functions, are left alone). */
export function deepFreeze(v, seen = new Set()) {
  if (!isPlain(v) || seen.has(v)) return v
  seen.add(v)
  for (const key of Reflect.ownKeys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, key)
    if ('value' in d) deepFreeze(d.value, seen)
  }
  return Object.freeze(v)
}

/** The JavaScript kind of a value, as `admits` in surface.cjs names kinds. */
export function kindOf(v) {
  if (v === null) return 'null'
  if (Array.isArray(v)) return 'array'
  return typeof v
}

/**
 * Whether the declared type (`admits`, from surface.cjs) admits `v`: its kind, and for a union of
 * string, number or boolean literals one of them. An object or array of the right kind is admitted
 * whatever it holds (the sweep does not judge the inside of a value by its type).
 */
export function admitted(admits, v) {
  if (admits.any) return true
  const a = admits[kindOf(v)]
  if (a === undefined) return false
  if (a === true) return true
  return a.some((x) => Object.is(x, v))
}

/**
 * The hostile values, each `{ name, make(valid) }`: `valid` is the valid value the hostile one
 * replaces (undefined where there is none), so that the variants of it (sparse, frozen, with a
 * throwing getter, with an unknown key) differ from a valid call in that one respect.
 * `hugeChars`: the length of the huge string.
 */
export function hostileValues({ hugeChars }) {
  const cyclic = () => {
    const o = { type: 'text', text: 'cyclic' }
    o.self = o
    return o
  }
  return [
    { name: 'undefined', make: () => undefined },
    { name: 'null', make: () => null },
    { name: 'NaN', make: () => Number.NaN },
    { name: 'Infinity', make: () => Number.POSITIVE_INFINITY },
    { name: '-Infinity', make: () => Number.NEGATIVE_INFINITY },
    { name: '-1', make: () => -1 },
    { name: '2^31', make: () => 2 ** 31 },
    { name: '2^53+2', make: () => 2 ** 53 + 2 },
    { name: 'bigint', make: () => 5n },
    { name: '"5"', make: () => '5' },
    { name: 'lone surrogate', make: () => 'lone \uD800 surrogate \uDC00' },
    { name: 'huge string', make: () => 'x'.repeat(hugeChars) },
    { name: 'cyclic object', make: cyclic },
    {
      name: 'sparse array',
      // The valid array with a hole at index 1 (or, for anything else, [1, <hole>, 3]).
      make: (valid) => {
        if (!Array.isArray(valid) || valid.length < 2) {
          const a = [1, 2, 3]
          delete a[1]
          return a
        }
        const a = plainCopy(valid)
        delete a[1]
        return a
      },
    },
    {
      name: 'deep-frozen',
      // The valid value itself, deep-frozen: a call must take it as it takes the valid one.
      variant: true,
      make: (valid) => (isPlain(valid) ? deepFreeze(plainCopy(valid)) : NOT_HERE),
    },
    {
      name: 'throwing getter',
      // The valid value with its first key (or index 0) read through a getter that throws.
      make: (valid) => {
        const out = isPlain(valid) ? plainCopy(valid) : {}
        const key = Array.isArray(out) ? 0 : (Object.keys(out)[0] ?? 'value')
        Object.defineProperty(out, key, {
          enumerable: true,
          configurable: true,
          get() {
            throw new Error(GETTER_ERROR)
          },
        })
        return out
      },
    },
  ]
}

/** What a hostile value's `make` answers where it has no meaning (a frozen copy of a valid value that is not an object). */
export const NOT_HERE = Symbol('not here')

/** The value an object gains as an unknown key. */
export const UNKNOWN_KEY = 'sweepUnknownKey'

/**
 * A snapshot of `v` that never calls a getter: primitives by value, every object by its prototype,
 * extensibility, frozenness and own property descriptors (values recursively, getters and setters
 * by identity), functions and objects not plain by identity too. Cycles are kept as references to
 * the object's first place.
 */
export function snapshot(v, seen = new Map(), path = '$') {
  if (v === null || (typeof v !== 'object' && typeof v !== 'function')) return { p: v }
  if (seen.has(v)) return { ref: seen.get(v) }
  seen.set(v, path)
  if (typeof v === 'function' || !isPlain(v)) return { id: v }
  const props = []
  for (const key of Reflect.ownKeys(v)) {
    const d = Object.getOwnPropertyDescriptor(v, key)
    const shown = typeof key === 'symbol' ? key.toString() : key
    props.push([
      key,
      'value' in d
        ? { value: snapshot(d.value, seen, `${path}.${shown}`), w: d.writable, e: d.enumerable, c: d.configurable }
        : { get: d.get, set: d.set, e: d.enumerable, c: d.configurable },
    ])
  }
  return { proto: Object.getPrototypeOf(v), ext: Object.isExtensible(v), frozen: Object.isFrozen(v), props, self: v }
}

/** The first difference between two snapshots, as a path and what changed; undefined when none. */
export function difference(a, b, path = '$') {
  if ('p' in a || 'p' in b) return 'p' in a && 'p' in b && Object.is(a.p, b.p) ? undefined : `${path}: ${show(a)} became ${show(b)}`
  if ('ref' in a || 'ref' in b) return a.ref === b.ref ? undefined : `${path}: a reference changed`
  if ('id' in a || 'id' in b) return a.id === b.id ? undefined : `${path}: an object was swapped`
  if (a.self !== b.self) return `${path}: an object was swapped`
  if (a.proto !== b.proto) return `${path}: its prototype changed`
  if (a.ext !== b.ext || a.frozen !== b.frozen) return `${path}: it was frozen or sealed`
  const keysA = a.props.map(([k]) => k)
  const keysB = b.props.map(([k]) => k)
  const added = keysB.filter((k) => !keysA.includes(k))
  const removed = keysA.filter((k) => !keysB.includes(k))
  if (added.length || removed.length)
    return `${path}: keys ${added.length ? `added ${added.map(String).join(', ')}` : ''}${removed.length ? ` removed ${removed.map(String).join(', ')}` : ''}`
  const byKey = new Map(b.props)
  for (const [k, da] of a.props) {
    const db = byKey.get(k)
    const at = `${path}${typeof k === 'string' && /^\d+$/.test(k) ? `[${k}]` : `.${String(k)}`}`
    if ('get' in da || 'get' in db) {
      if (da.get !== db.get || da.set !== db.set) return `${at}: an accessor changed`
      continue
    }
    if (da.w !== db.w || da.e !== db.e || da.c !== db.c) return `${at}: its attributes changed`
    const d = difference(da.value, db.value, at)
    if (d) return d
  }
  return undefined
}

function show(s) {
  if ('p' in s) {
    if (typeof s.p === 'string') return s.p.length > 40 ? `a string of ${s.p.length} characters` : JSON.stringify(s.p)
    if (typeof s.p === 'bigint') return `${s.p}n`
    return String(s.p)
  }
  return 'an object'
}

/** A short description of a value for a repro line. */
export function describeValue(v) {
  if (typeof v === 'string') return v.length > 40 ? `a string of ${v.length} characters` : JSON.stringify(v)
  if (typeof v === 'bigint') return `${v}n`
  if (typeof v === 'function') return 'a function'
  if (v === null || typeof v !== 'object') return String(v)
  return Array.isArray(v) ? 'an array' : 'an object'
}
