// The exported JSON Schemas describe what the engine accepts: every preset validates, configs
// the engine refuses do not, and the engine accepts what the schema accepts.
import Ajv2020 from 'ajv/dist/2020'
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { condense, configSchema, managerConfigSchema, smartPreset, type ApiMessage, type SmartConfig } from '../lib/index.js'

const PRESETS = ['conservative', 'balanced', 'aggressive', 'speed', 'quality', 'cost'] as const

/** The numeric formats schemars writes (Rust's integer and float types), checked as such. */
const NUMBER_FORMATS: Record<string, (n: number) => boolean> = {
  uint: (n) => Number.isInteger(n) && n >= 0,
  uint32: (n) => Number.isInteger(n) && n >= 0 && n <= 2 ** 32 - 1,
  uint64: (n) => Number.isInteger(n) && n >= 0,
  double: (n) => Number.isFinite(n),
}

/** Every `format` a schema uses. */
function formatsIn(value: unknown, out = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((v) => formatsIn(v, out))
  else if (value && typeof value === 'object') {
    const format = (value as { format?: unknown }).format
    if (typeof format === 'string') out.add(format)
    Object.values(value).forEach((v) => formatsIn(v, out))
  }
  return out
}

// Any valid history does here (a generated one, so these run on a plain clone too).
const history = () => generateHistory({ seed: 4, format: 'xml', targetTokens: 30_000 }) as ApiMessage[]

describe('config schemas', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  for (const [name, validate] of Object.entries(NUMBER_FORMATS)) ajv.addFormat(name, { type: 'number', validate })

  it('use only formats the validator knows, and those formats check the numbers', () => {
    const used = new Set<string>()
    for (const p of ['lossless', 'truncation', 'native', 'smart'] as const) formatsIn(configSchema(p), used)
    formatsIn(managerConfigSchema(), used)
    expect([...used].filter((f) => !(f in NUMBER_FORMATS))).toEqual([])
    const truncation = ajv.compile(configSchema('truncation'))
    expect(truncation({ preserveRecentCount: 2 })).toBe(true)
    expect(truncation({ preserveRecentCount: 2.5 })).toBe(false)
  })

  it('compile for every provider', () => {
    for (const p of ['lossless', 'truncation', 'native', 'smart'] as const) {
      expect(() => ajv.compile(configSchema(p)), p).not.toThrow()
    }
    expect(() => configSchema('magic' as never)).toThrow(/unknown provider "magic"/)
  })

  it('accept every preset, which the engine runs as given', async () => {
    const validate = ajv.compile(configSchema('smart'))
    const input = history()
    for (const name of PRESETS) {
      const preset = smartPreset(name)
      expect(validate(preset), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true)
      const viaName = await condense(input, { provider: 'smart', config: { preset: name } })
      const viaConfig = await condense(input, { provider: 'smart', config: preset })
      expect(viaConfig.newContextTokens).toBe(viaName.newContextTokens)
    }
    expect(() => smartPreset('fast' as never)).toThrow(/unknown preset "fast"/)
  })

  it('reject what the engine rejects', async () => {
    const validate = ajv.compile(configSchema('smart'))
    const bad: Array<Record<string, unknown>> = [
      { passes: [{ id: 'p', mode: 'sideways' }] },
      { passes: [{ id: 'p', mode: 'individual', individualConfig: { defaults: { toolResults: 'shred' } } }] },
      { preset: 'balanced', targetToken: 5 },
      { passes: [{ id: 'p', mode: 'individual', selection: { type: 'preserve_recent' } }] },
    ]
    for (const config of bad) {
      expect(validate(config), JSON.stringify(config)).toBe(false)
      await expect(condense(history(), { provider: 'smart', config: config as SmartConfig })).rejects.toThrow(/options\.config/)
    }
    const truncation = ajv.compile(configSchema('truncation'))
    expect(truncation({})).toBe(true)
    expect(truncation({ preserveRecentCount: -1 })).toBe(false)
  })
})
