// The settings panel's validator (lib/settings/validate.mjs, over the schemas the panel is sent)
// and the engine agree on every numeric option of every built-in provider: a value at the edge of
// its range is accepted by both, one just outside it refused by both. The options and their ranges
// are read from the schemas themselves (minimum, maximum and the integer widths schemars writes as
// formats), so an option added with a range is covered without a line here.
import { describe, expect, it } from 'vitest'

import { condense, providerCatalogue, type ApiMessage } from '../lib/index.js'
import { settingsSchemas } from '../lib/settings/schemas.js'
import { resolve, validate } from '../lib/settings/validate.mjs'

type Schema = Record<string, unknown> & {
  type?: string | string[]
  properties?: Record<string, Schema>
  required?: string[]
  items?: Schema
  oneOf?: Schema[]
  anyOf?: Schema[]
  enum?: unknown[]
  const?: unknown
  minimum?: number
  maximum?: number
  format?: string
}

/** One numeric option: where it is, its range, and a config holding a given value there. */
interface NumericOption {
  path: string
  integer: boolean
  min?: number
  max?: number
  config: (v: number) => unknown
}

/** The upper bound of the integer widths schemars names (Rust's u8, u16, u32). */
const FORMAT_MAX: Record<string, number> = { uint8: 255, uint16: 65535, uint32: 2 ** 32 - 1 }

const types = (s: Schema) => (s.type === undefined ? [] : Array.isArray(s.type) ? s.type : [s.type])

/** The smallest value `schema` accepts: its required keys filled in, the first of each choice. */
function minimal(schema: Schema, root: Schema): unknown {
  const s = resolve(schema, root) as Schema
  if ('const' in s) return s.const
  if (s.enum) return s.enum.find((v) => v !== null) ?? null
  const choice = s.oneOf ?? (s.properties ? undefined : s.anyOf)
  if (choice) return minimal(choice.find((c) => !types(resolve(c, root) as Schema).every((t) => t === 'null')) ?? choice[0], root)
  const t = types(s)
  if (t.includes('object') || s.properties) return objectAround(s, root, {})
  if (t.includes('array')) return []
  if (t.includes('string')) return 'x'
  if (t.includes('integer') || t.includes('number')) return s.minimum ?? 0
  if (t.includes('boolean')) return true
  return null
}

/**
 * `given` with the keys `s` requires filled in, and, when `s` asks for one of several keys
 * (`anyOf: [{ required: [...] }, ...]`, as Smart's config does), the first of them.
 */
function objectAround(s: Schema, root: Schema, given: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {}
  const need = [...(s.required ?? [])]
  const oneOfKeys = (s.anyOf ?? []).map((a) => a.required?.[0]).filter((k): k is string => typeof k === 'string')
  if (oneOfKeys.length > 0 && !oneOfKeys.some((k) => k in given)) need.push(oneOfKeys[0])
  for (const key of need) if (!(key in given)) out[key] = minimal(s.properties?.[key] ?? {}, root)
  return { ...out, ...given }
}

/** Every numeric option under `schema`, each with a config that holds it. */
function numericOptions(schema: Schema, root: Schema, path = 'config', seen = new Set<string>()): NumericOption[] {
  const s = resolve(schema, root) as Schema
  const t = types(s)
  const out: NumericOption[] = []
  if ((t.includes('integer') || t.includes('number')) && !s.enum) {
    const integer = t.includes('integer')
    const max = s.maximum ?? (s.format ? FORMAT_MAX[s.format] : undefined)
    const min = s.minimum
    if (min !== undefined || max !== undefined) out.push({ path, integer, min, max, config: (v) => v })
  }
  if (s.properties) {
    for (const [key, sub] of Object.entries(s.properties)) {
      const ref = typeof (sub as Schema).$ref === 'string' ? String((sub as Schema).$ref) : ''
      if (ref && seen.has(ref)) continue // a recursive definition: its options are found once
      for (const o of numericOptions(sub, root, `${path}.${key}`, ref ? new Set([...seen, ref]) : seen))
        out.push({ ...o, config: (v) => objectAround(s, root, { [key]: o.config(v) }) })
    }
  }
  if (s.items) for (const o of numericOptions(s.items, root, `${path}[0]`, seen)) out.push({ ...o, config: (v) => [o.config(v)] })
  // A choice (an enum's variants, an optional value's `anyOf: [T, null]`); Smart's `anyOf` of
  // required keys beside its properties is not one.
  if (!s.properties) for (const variant of s.oneOf ?? s.anyOf ?? []) out.push(...numericOptions(variant, root, path, seen))
  return out
}

/** What the engine says of a config: null when it takes it, else its message. */
async function engineRefusal(provider: string, config: unknown): Promise<string | null> {
  try {
    await condense([] as ApiMessage[], { provider, config } as never)
    return null
  } catch (e) {
    const err = e as Error & { errorCode?: string }
    expect(err.errorCode, err.message).toBe('invalid-options')
    return err.message
  }
}

/** What the panel's validator says: null when it takes it, else its problems. */
function panelRefusal(schema: Schema, config: unknown): string | null {
  const problems = validate(schema, config)
  return problems.length === 0 ? null : problems.map((p) => `${p.path}: ${p.message}`).join('; ')
}

const schemas = settingsSchemas().providers as Array<{ id: string; schema: Schema }>

describe('numeric ranges: the settings panel and the engine agree', () => {
  it('every built-in provider has its schema in the panel', () => {
    expect(schemas.map((p) => p.id).sort()).toEqual(
      providerCatalogue()
        .providers.map((p) => p.id)
        .sort(),
    )
  })

  for (const { id, schema } of schemas) {
    const options = numericOptions(schema, schema)
    it(`${id}: a value at each edge is taken by both, one just outside refused by both`, async () => {
      for (const o of options) {
        const step = o.integer ? 1 : 0.01
        const cases: Array<[number, boolean]> = []
        if (o.min !== undefined) cases.push([o.min, true], [o.min - step, false])
        if (o.max !== undefined) cases.push([o.max, true], [o.max + step, false])
        for (const [v, ok] of cases) {
          const config = o.config(v)
          const panel = panelRefusal(schema, config)
          const engine = await engineRefusal(id, config)
          const what = `${id} ${o.path} = ${v}: panel ${panel ?? 'takes it'}, engine ${engine ?? 'takes it'}`
          expect(panel === null, what).toBe(ok)
          expect(engine === null, what).toBe(ok)
        }
      }
    })
  }

  it('finds the options with a range beyond their type (percentages, prices)', () => {
    const paths = (id: string) => numericOptions(schemas.find((p) => p.id === id)!.schema, schemas.find((p) => p.id === id)!.schema).map((o) => o.path)
    expect(paths('smart')).toContain('config.targetReductionPercent')
    expect(paths('smart').some((p) => p.includes('keepPercentage'))).toBe(true)
    expect(paths('native')).toContain('config.pricing.inputPrice')
  })

  it('Smart targetReductionPercent: 150 is refused by the panel as the engine refuses it', async () => {
    const smart = schemas.find((p) => p.id === 'smart')!.schema
    const config = { preset: providerCatalogue().presets[0], targetReductionPercent: 150 }
    expect(await engineRefusal('smart', config)).toMatch(/options\.config\.targetReductionPercent: expected a percentage from 0 to 100, got 150/)
    expect(panelRefusal(smart, config) ?? 'the panel takes it').toMatch(/settings\.targetReductionPercent: .*100/)
  })
})
