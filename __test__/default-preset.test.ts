// A Smart config that names neither a preset nor passes runs the default preset (the engine reads
// it so, in one place): every surface given such a config gives what it gives with the default
// preset named — condense, a held conversation, the manager (its target included), the Roo entry's
// first step, the settings panel's check and preview, and the CLI.
import { readFileSync, writeFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

import { generateHistory } from '../fixtures/generate.mjs'
import { CondensationManager, condense, configSchema, countTokens, openConversation, providerCatalogue, type ApiMessage } from '../lib/index.js'
import { summarizeConversation } from '../lib/roo-2025.js'
import { previewOnHistory } from '../lib/settings/schemas.js'
import { validate } from '../lib/settings/validate.mjs'
import { cli, out } from './cli-harness.js'
import { mockHandler } from './roo-harness.js'

const DEFAULT_PRESET = providerCatalogue().defaultPreset
const HISTORY = generateHistory({ seed: 11, format: 'xml', targetTokens: 60_000, thinking: false }) as ApiMessage[]
/** Smart's configs that name nothing to run, each with what it is once the default preset is named. */
const UNNAMED: Array<[string, Record<string, unknown> | undefined, Record<string, unknown>]> = [
  ['no config', undefined, { preset: DEFAULT_PRESET }],
  ['{}', {}, { preset: DEFAULT_PRESET }],
  ['a null preset', { preset: null }, { preset: DEFAULT_PRESET }],
  ['other keys only', { preserveErrors: false, targetReductionPercent: 5 }, { preset: DEFAULT_PRESET, preserveErrors: false, targetReductionPercent: 5 }],
]
const withConfig = (config: Record<string, unknown> | undefined) => (config === undefined ? {} : { config })

describe('a Smart config naming neither a preset nor passes is the default preset, on every surface', () => {
  it('condense and a held conversation', async () => {
    for (const [label, config, named] of UNNAMED) {
      const want = await condense(HISTORY, { provider: 'smart', config: named as never })
      expect(want.metrics.tokensAfter, label).toBeLessThan(want.metrics.tokensBefore)
      const got = await condense(HISTORY, { provider: 'smart', ...withConfig(config) } as never)
      expect(got.messages, label).toEqual(want.messages)
      expect(got.newContextTokens, label).toBe(want.newContextTokens)
      const conversation = await openConversation(HISTORY)
      try {
        const held = await conversation.condense({ provider: 'smart', ...withConfig(config) } as never)
        expect(held.messages, label).toEqual(want.messages)
      } finally {
        conversation.close()
      }
    }
  })

  it('the manager: the same run, its target given as to the preset named', async () => {
    const tokens = countTokens(HISTORY)
    const contextWindow = tokens + 20_000
    // A target the default preset meets before its last pass, so a run without it differs.
    const stopPercent = Math.floor((90 * tokens) / contextWindow)
    const run = (smart: Record<string, unknown>) =>
      new CondensationManager({ config: { provider: 'smart', providers: { smart }, triggers: { triggerPercent: 50, stopPercent } } }).condenseIfNeeded(
        HISTORY,
        { contextWindow, force: true },
      )
    const want = await run({ preset: DEFAULT_PRESET })
    expect(want.provider).toBe('smart')
    const untargeted = await condense(HISTORY, { provider: 'smart', config: { preset: DEFAULT_PRESET } as never })
    expect(want.newContextTokens).toBeGreaterThan(untargeted.newContextTokens)
    for (const [label, config] of UNNAMED.slice(1, 3)) {
      const got = await run(config!)
      expect(got.provider, label).toBe('smart')
      expect(got.messages, label).toEqual(want.messages)
    }
    expect(new CondensationManager().validateConfig({ providers: { smart: {} } })).toEqual([])
  })

  it("the Roo entry's first step", async () => {
    const before = countTokens(HISTORY)
    const call = (providerConfig: Record<string, unknown>) =>
      summarizeConversation(HISTORY, mockHandler(), '', 't', before, true, undefined, undefined, { provider: 'smart', providerConfig } as never)
    const want = await call({ preset: DEFAULT_PRESET })
    expect(want.error).toBeUndefined()
    expect((await call({})).messages).toEqual(want.messages)
  })

  it("the settings panel: the schema accepts it and the preview shows the default preset's figures", async () => {
    expect(validate(configSchema('smart'), {})).toEqual([])
    expect(String((configSchema('smart').properties as Record<string, { description?: string }>).preset.description)).toContain(`"${DEFAULT_PRESET}"`)
    const want = await condense(HISTORY, { provider: 'smart', config: { preset: DEFAULT_PRESET } as never })
    for (const settings of [{}, { providers: { smart: {} } }]) {
      const row = (await previewOnHistory(HISTORY, settings)).rows.find((r) => r.provider === 'smart')!
      expect(row.tokensAfter).toBe(want.metrics.tokensAfter)
    }
  })

  it('the CLI: condense --provider smart without --preset runs the default preset', async () => {
    const file = out('default-preset-in.json')
    writeFileSync(file, JSON.stringify(HISTORY))
    const plain = await cli(['condense', file, '-p', 'smart', '-o', out('default-preset-plain.json')])
    expect(plain.stderr).toBe('')
    expect(plain.code).toBe(0)
    const named = await cli(['condense', file, '-p', 'smart', '--preset', DEFAULT_PRESET, '-o', out('default-preset-named.json')])
    expect(named.code).toBe(0)
    expect(readFileSync(out('default-preset-plain.json'), 'utf8')).toBe(readFileSync(out('default-preset-named.json'), 'utf8'))
  })
})
