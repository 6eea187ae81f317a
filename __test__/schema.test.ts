// The exported JSON Schemas describe what the engine accepts: every preset validates, configs
// the engine refuses do not, and the engine accepts what the schema accepts.
import Ajv2020 from 'ajv/dist/2020'
import { describe, expect, it } from 'vitest'

import { condense, configSchema, smartPreset, type SmartConfig } from '../lib/index.js'
import { loadFixture, itReal } from './helpers.js'

const PRESETS = ['conservative', 'balanced', 'aggressive', 'speed', 'quality', 'cost'] as const

describe('config schemas', () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })

  it('compile for every provider', () => {
    for (const p of ['lossless', 'truncation', 'native', 'smart'] as const) {
      expect(() => ajv.compile(configSchema(p)), p).not.toThrow()
    }
    expect(() => configSchema('magic' as never)).toThrow(/unknown provider "magic"/)
  })

  itReal('accept every preset, which the engine runs as given', async () => {
    const validate = ajv.compile(configSchema('smart'))
    const history = loadFixture('synthetic-4-mixed-ops')
    for (const name of PRESETS) {
      const preset = smartPreset(name)
      expect(validate(preset), `${name}: ${JSON.stringify(validate.errors)}`).toBe(true)
      const viaName = await condense(history, { provider: 'smart', config: { preset: name } })
      const viaConfig = await condense(history, { provider: 'smart', config: preset })
      expect(viaConfig.newContextTokens).toBe(viaName.newContextTokens)
    }
    expect(() => smartPreset('fast' as never)).toThrow(/unknown preset "fast"/)
  })

  itReal('reject what the engine rejects', async () => {
    const validate = ajv.compile(configSchema('smart'))
    const bad: Array<Record<string, unknown>> = [
      { passes: [{ id: 'p', mode: 'sideways' }] },
      { passes: [{ id: 'p', mode: 'individual', individualConfig: { defaults: { toolResults: 'shred' } } }] },
      { preset: 'balanced', targetToken: 5 },
      { passes: [{ id: 'p', mode: 'individual', selection: { type: 'preserve_recent' } }] },
    ]
    for (const config of bad) {
      expect(validate(config), JSON.stringify(config)).toBe(false)
      await expect(condense(loadFixture('synthetic-4-mixed-ops'), { provider: 'smart', config: config as SmartConfig })).rejects.toThrow(/options\.config/)
    }
    const truncation = ajv.compile(configSchema('truncation'))
    expect(truncation({})).toBe(true)
    expect(truncation({ preserveRecentCount: -1 })).toBe(false)
  })
})
