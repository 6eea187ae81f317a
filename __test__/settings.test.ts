// The settings panel (<context-condense-settings>, lib/settings/): its schema checker agrees with
// Ajv on the engine's schemas, and in headless Chromium (the demo page, examples/settings/) every
// provider's form comes from its schema, bad input is refused with its path, `change` carries
// exactly what was chosen and the engine accepts it, presets export and import, the keyboard
// alone is enough, and the previews are the engine's own numbers.
import Ajv2020 from 'ajv/dist/2020'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import type { Browser, Page } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'

import { startSettingsDemo } from '../examples/settings/server.mjs'
import { launchChromium } from '../scripts/chromium.mjs'
import { needsChromium } from './skip-when.js'
import { CondensationManager, condense, configSchema, managerConfigSchema, providerCatalogue, smartPreset, type ApiMessage } from '../lib/index.js'
import { previewOnHistory, settingsSchemas, summaryRequestFor } from '../lib/settings/schemas.js'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { childPath, parentPath, validate } from '../lib/settings/validate.mjs'

const ROOT = join(__dirname, '..')
const HISTORY = JSON.parse(readFileSync(join(ROOT, 'fixtures/examples/xml-session.json'), 'utf8')) as ApiMessage[]
const PROVIDERS = ['native', 'lossless', 'truncation', 'smart'] as const
/** The engine's registry: every provider and preset, the general presets, the default preset. */
const CATALOGUE = providerCatalogue()
const PROVIDER_IDS = CATALOGUE.providers.map((p) => p.id)
const { presets: PRESETS, generalPresets: GENERAL_PRESETS, defaultPreset: DEFAULT_PRESET } = CATALOGUE

/** A small deterministic generator (the cases are the same on every run). */
function rng(seed: number) {
  let s = seed >>> 0
  return () => (s = (s * 1664525 + 1013904223) >>> 0) / 2 ** 32
}

/** Every path to a value inside `v`. */
function paths(v: unknown, at: Array<string | number> = []): Array<Array<string | number>> {
  const out = [at]
  if (Array.isArray(v)) v.forEach((x, i) => out.push(...paths(x, [...at, i])))
  else if (v && typeof v === 'object') for (const [k, x] of Object.entries(v)) out.push(...paths(x, [...at, k]))
  return out
}

/** `base` with one place replaced, removed, or given an unknown key. */
function mutate(base: unknown, next: () => number): unknown {
  const copy = structuredClone(base)
  const all = paths(copy).filter((p) => p.length > 0)
  if (!all.length) return copy
  const p = all[Math.floor(next() * all.length)]
  let parent: any = copy
  for (const k of p.slice(0, -1)) parent = parent[k]
  const key = p[p.length - 1]
  const values = [
    -1,
    0,
    3,
    5,
    50,
    100,
    101,
    2.5,
    2 ** 33,
    'x',
    'balanced',
    'latest',
    'truncate',
    '',
    null,
    true,
    [],
    {},
    { operation: 'summarize' },
    { type: 'custom', messageIndices: [1] },
  ]
  const r = next()
  if (r < 0.15 && !Array.isArray(parent)) delete parent[key]
  else if (r < 0.25 && !Array.isArray(parent)) parent.surprise = 1
  else parent[key] = values[Math.floor(next() * values.length)]
  return copy
}

describe("the panel checks settings as the engine's schemas say", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true })
  const formats: Record<string, (n: number) => boolean> = {
    uint: (n) => Number.isInteger(n) && n >= 0,
    uint32: (n) => Number.isInteger(n) && n >= 0 && n <= 2 ** 32 - 1,
    uint64: (n) => Number.isInteger(n) && n >= 0,
    double: (n) => Number.isFinite(n),
  }
  for (const [name, check] of Object.entries(formats)) ajv.addFormat(name, { type: 'number', validate: check })

  const cases: Array<[string, Record<string, unknown>, unknown[]]> = [
    [
      'smart',
      configSchema('smart'),
      [smartPreset('conservative'), smartPreset('balanced'), smartPreset('aggressive'), { preset: 'balanced', targetTokens: 1000 }],
    ],
    ['truncation', configSchema('truncation'), [{}, { preserveRecentCount: 4, toolResults: 'suppress', maxToolResultLines: 3 }]],
    ['lossless', configSchema('lossless'), [{}, { keep: 'latest', deduplicateFileReads: false }]],
    ['native', configSchema('native'), [{}, { customPrompt: 'Summarize.', keepLast: 2, pricing: { inputPrice: 3, outputPrice: 15 } }]],
    [
      'manager',
      managerConfigSchema(),
      [
        {},
        {
          provider: 'smart',
          threshold: 80,
          profileThresholds: { a: -1, b: 70 },
          triggers: { triggerPercent: 90, minGainTokens: 100 },
          loopGuard: { maxAttempts: 2, coolDownMs: 10 },
        },
      ],
    ],
  ]
  for (const [name, schema, bases] of cases) {
    it(`agrees with Ajv on ${name} configs, valid and broken (400 cases)`, () => {
      const ajvValidate = ajv.compile(schema)
      const next = rng(name.length * 7919)
      let invalid = 0
      for (let n = 0; n < 400; n++) {
        const value = n < bases.length ? bases[n] : mutate(bases[n % bases.length], next)
        const ours = validate(schema, value)
        const theirs = ajvValidate(value)
        expect(ours.length === 0, `${JSON.stringify(value)}: ours ${JSON.stringify(ours)}, Ajv ${JSON.stringify(ajvValidate.errors)}`).toBe(theirs)
        if (!theirs) {
          invalid++
          for (const p of ours) expect(p.path).toMatch(/^settings(\.|\[|$)/)
        }
      }
      expect(invalid).toBeGreaterThan(50) // the mutations do break things
    })
  }

  it('names the place of a problem as the engine does', () => {
    expect(validate(configSchema('smart'), { passes: [{ id: 'a', mode: 'sideways' }] })).toEqual([
      expect.objectContaining({ path: 'settings.passes[0].mode', message: expect.stringContaining('"batch", "individual"') }),
    ])
    expect(validate(managerConfigSchema(), { profileThresholds: { fast: 3 } })[0].path).toBe('settings.profileThresholds.fast')
  })

  it('walks a path up to its root and stops there, whatever its keys hold', () => {
    for (const key of ['plain', 'a.b', 'x]y', 'q"]r', 'sp ace', '', '[0]']) {
      const path = childPath(childPath(childPath('settings', 'profileThresholds'), key), 3)
      const seen = [path]
      for (let p = parentPath(path); p !== null; p = parentPath(p)) seen.push(p)
      expect(seen, key).toEqual([path, childPath('settings.profileThresholds', key), 'settings.profileThresholds', 'settings'])
    }
    expect(parentPath('not a path')).toBe(null)
  })

  it('refuses settings the engine would refuse, that the schemas now say (an unknown preset, a threshold out of 5..100)', async () => {
    const smart = configSchema('smart')
    expect(validate(smart, { preset: 'fastest' })[0].path).toBe('settings.preset')
    await expect(condense(HISTORY, { provider: 'smart', config: { preset: 'fastest' as never } })).rejects.toThrow(/fastest/)
    expect(validate(managerConfigSchema(), { triggers: { triggerPercent: 2 } })[0].path).toBe('settings.triggers.triggerPercent')
    expect(() => new CondensationManager({ config: { triggers: { triggerPercent: 2 } } })).toThrow(/triggerPercent/)
  })
})

describe("the panel's policy: the manager's policy option", () => {
  const schema = settingsSchemas().policy
  /** Whether the manager takes `policy` (its one check of it, readPolicy). */
  const managerTakes = (policy: unknown) => {
    try {
      new CondensationManager({ policy: policy as never })
      return true
    } catch (e) {
      expect((e as Error).message).toMatch(/^CondensationManager: options\.policy/)
      return false
    }
  }

  it('its schema agrees with the manager on every name and cache model, and refuses what the manager refuses (with its path)', () => {
    const names: unknown[] = ['default', 'cache-aware', 'cache-aware-strict', 'cache-aware-lax', '', null, 3, undefined]
    const caches: unknown[] = [undefined, 'anthropic', 'openai', 'gemini', null, 1, '']
    let taken = 0
    let refused = 0
    for (const name of names)
      for (const cache of caches)
        for (const extra of [false, true]) {
          const v: Record<string, unknown> = {}
          if (name !== undefined) v.name = name
          if (cache !== undefined) v.cache = cache
          if (extra) v.expected = 1
          const ours = validate(schema, v, 'policy')
          const theirs = managerTakes(v)
          expect(ours.length === 0, `${JSON.stringify(v)}: ours ${JSON.stringify(ours)}`).toBe(theirs)
          for (const p of ours) expect(p.path).toMatch(/^policy(\.|$)/)
          if (theirs) taken++
          else refused++
        }
    // Default without a cache, and each cache-aware policy with none or either model.
    expect(taken).toBe(1 + 2 * 3)
    expect(refused).toBeGreaterThan(100)
    expect(validate(schema, { name: 'cache-aware', cache: 'gemini' }, 'policy')).toEqual([
      { path: 'policy.cache', message: 'expected one of "anthropic", "openai", got "gemini"', schemaPath: '#/oneOf/1/properties/cache/enum' },
    ])
    expect(validate(schema, { name: 'default', cache: 'openai' }, 'policy').map((p) => p.path)).toEqual(['policy.cache'])
  })

  it('previewOnHistory takes it and hands it back as the manager reads it; a bad one throws naming options.policy', async () => {
    for (const policy of ['cache-aware', { name: 'cache-aware-strict', cache: 'openai' }, { name: 'default' }] as const) {
      const r = await previewOnHistory(HISTORY, {}, { policy })
      expect(r.policy).toEqual(new CondensationManager({ policy }).policy)
      expect(r.rows.map((x) => x.provider)).toEqual(PROVIDER_IDS)
    }
    expect((await previewOnHistory(HISTORY, {})).policy).toBeUndefined()
    const bad = await previewOnHistory(HISTORY, {}, { policy: { name: 'cache-aware', cache: 'gemini' } as never }).catch((e) => e)
    expect(bad).toBeInstanceOf(TypeError)
    expect(bad.message).toBe('previewOnHistory: options.policy.cache: expected "anthropic" or "openai", got "gemini"')
    expect(bad.errorCode).toBe('invalid-argument')
    const unknown = await previewOnHistory(HISTORY, {}, { policy: 'fast' as never }).catch((e) => e)
    expect(unknown.message).toBe('previewOnHistory: options.policy: expected one of default, cache-aware, cache-aware-strict, got "fast"')
  })
})

describe('what the Node side hands the panel', () => {
  it('every preset the engine has, in its order, each as the engine defines it', () => {
    const { presets } = settingsSchemas()
    expect(presets.map((p) => p.name)).toEqual(PRESETS)
    expect(presets.filter((p) => p.general).map((p) => p.name)).toEqual(GENERAL_PRESETS)
    for (const p of presets) expect(p.config).toEqual(smartPreset(p.name))
  })

  it('previews every provider on the history without a failure, Smart with the default preset when it is given nothing', async () => {
    const summarize = async () => 'A short summary of the task so far.'
    for (const settings of [{}, { provider: 'smart' as const }, { providers: { lossless: { keep: 'latest' as const } } }]) {
      const result = await previewOnHistory(HISTORY, settings, { summarize })
      expect(result.rows.map((r) => r.provider)).toEqual(PROVIDER_IDS)
      for (const row of result.rows) {
        expect(row.note, `${JSON.stringify(settings)}: ${row.provider}`).toBeUndefined()
        expect(typeof row.tokensAfter, row.provider).toBe('number')
        expect(row.tokensAfter!, row.provider).toBeLessThan(result.tokensBefore)
      }
      const smart = result.rows.find((r) => r.provider === 'smart')!
      expect(smart.tokensAfter).toBe((await condense(HISTORY, { provider: 'smart', config: { preset: DEFAULT_PRESET }, summarize })).metrics.tokensAfter)
    }
  })
})

/** WCAG 2 contrast ratio of two `rgb(...)`/`rgba(...)` colours (opaque ones). */
function contrast(a: string, b: string): number {
  const luminance = (css: string) => {
    const [r, g, b] = css
      .match(/[\d.]+/g)!
      .slice(0, 3)
      .map(Number)
    const lin = (c: number) => {
      const v = c / 255
      return v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4
    }
    return 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b)
  }
  const [hi, lo] = [luminance(a), luminance(b)].sort((x, y) => y - x)
  return (hi + 0.05) / (lo + 0.05)
}

let browser: Browser
let demo: { url: string; close(): Promise<void> }

/** A fresh demo page; `settings` replaces the demo's starting settings. */
async function open(settings?: unknown): Promise<Page> {
  const page = await browser.newPage({ viewport: { width: 1000, height: 900 } })
  const errors: string[] = []
  page.on('pageerror', (e) => errors.push(e.message))
  await page.goto(demo.url)
  await page.waitForFunction(() => (window as any).panelReady)
  if (settings)
    await page.evaluate((s) => {
      ;(document.getElementById('panel') as any).settings = s
    }, settings)
  ;(page as any).pageErrors = errors
  return page
}
const lastChange = (page: Page) => page.evaluate(() => (window as any).lastChange ?? null)
const settle = (page: Page) => page.waitForTimeout(50)

describe('the panel in Chromium', () => {
  // Without Chromium (outside CI) each test here is skipped, saying so; the ones above still run.
  const launch = needsChromium()
  beforeAll(async () => {
    if (!launch) return
    demo = await startSettingsDemo()
    browser = await launchChromium()
  })
  afterAll(async () => {
    await browser?.close()
    await demo?.close()
  })

  it("renders every provider's form from its schema, and a control for every manager setting", async () => {
    const page = await open()
    const schemas = settingsSchemas()
    for (const id of PROVIDERS) {
      await page.getByRole('radio', { name: schemas.providers.find((p) => p.id === id)!.name, exact: true }).check()
      await settle(page)
      const keys = Object.keys((schemas.providers.find((p) => p.id === id)!.schema as any).properties).filter((k) => !(id === 'smart' && k === 'preset'))
      for (const k of keys) expect(await page.locator(`[data-path="settings.providers.${id}.${k}"]`).count(), `${id}.${k}`).toBeGreaterThan(0)
      expect(await page.locator('h2', { hasText: `settings` }).first().textContent()).toContain(schemas.providers.find((p) => p.id === id)!.name)
    }
    // Smart's preset has its own radio group; every manager setting has a control.
    expect(await page.getByRole('radiogroup', { name: 'Smart preset' }).count()).toBe(1)
    for (const k of Object.keys((schemas.manager as any).properties)) {
      const selector = k === 'providers' ? '[data-provider]' : `[data-path="settings.${k}"]`
      expect(await page.locator(selector).count(), k).toBeGreaterThan(0)
    }
    expect((page as any).pageErrors).toEqual([])
    await page.close()
  })

  it("sends exactly what was chosen, and the engine's manager takes it", async () => {
    const page = await open({ provider: 'lossless', autoCondense: true, threshold: 80 })
    await page.getByRole('checkbox', { name: 'Deduplicate file reads' }).uncheck()
    await settle(page)
    const chosen = await lastChange(page)
    expect(chosen).toEqual({ provider: 'lossless', autoCondense: true, threshold: 80, providers: { lossless: { deduplicateFileReads: false } } })
    expect(() => new CondensationManager({ config: chosen })).not.toThrow()
    expect(new CondensationManager().validateConfig(chosen)).toEqual([])
    await page.close()
  })

  it('refuses bad input with its path beside the field, and sends nothing', async () => {
    const page = await open({ provider: 'truncation' })
    const field = page.locator('[data-path="settings.providers.truncation.preserveRecentCount"]')
    await field.getByRole('spinbutton').fill('-3')
    await field.getByRole('spinbutton').press('Enter')
    await settle(page)
    await expect.poll(() => field.locator('.cc-error').first().textContent()).toBe('Preserve recent count: a whole number, at least 0; got -3')
    expect(await field.getByRole('spinbutton').getAttribute('aria-invalid')).toBe('true')
    const last = await lastChange(page)
    expect(last?.providers?.truncation?.preserveRecentCount).not.toBe(-3)
    expect(await page.getByRole('alert').textContent()).toContain('Not saved: a setting is not allowed (shown beside it).')
    // The global threshold is a percentage from 5 to 100.
    const threshold = page.locator('[data-path="settings.threshold"]').getByRole('spinbutton')
    await threshold.fill('150')
    await threshold.press('Enter')
    await settle(page)
    expect(await page.locator('[data-path="settings.threshold"] .cc-error').textContent()).toBe('Threshold: from 5 to 100; got 150')
    expect(await page.getByRole('alert').textContent()).toContain('2 settings are not allowed (shown beside them).')
    await page.close()
  })

  it('stays responsive when a provider that is not shown has a bad value, and names that provider in the summary', async () => {
    // Each wait is bounded: a page whose script never returns would otherwise hold the test forever.
    const within = <T>(what: string, p: Promise<T>) =>
      Promise.race([p, new Promise<never>((_, reject) => setTimeout(() => reject(new Error(`the page did not respond within 10 s: ${what}`)), 10_000))])
    const alertText = (page: Page) => within('reading the summary', page.getByRole('alert').textContent({ timeout: 10_000 }))
    // A value made invalid in Truncation's form, then another provider chosen.
    const page = await open({ provider: 'truncation' })
    const count = page.locator('[data-path="settings.providers.truncation.preserveRecentCount"]').getByRole('spinbutton')
    await count.fill('-1')
    await count.press('Enter')
    await settle(page)
    await within('choosing Lossless', page.getByRole('radio', { name: 'Lossless', exact: true }).check({ timeout: 10_000 }))
    await within('settling', settle(page))
    expect(await alertText(page)).toContain(
      'Truncation (not the selected provider; select it to edit): Preserve recent count: a whole number, at least 0; got -1',
    )
    expect(await within('reading the heading', page.locator('section[data-provider] h2').textContent({ timeout: 10_000 }))).toBe('Lossless settings')
    await page.close({ runBeforeUnload: false })
    // Settings from the host that are invalid for another provider, then any change.
    const hosted = await open({ provider: 'lossless', providers: { truncation: { preserveRecentCount: -1 }, smart: { passes: 3 } } })
    await within('unchecking', hosted.getByRole('checkbox', { name: 'Deduplicate file reads' }).uncheck({ timeout: 10_000 }))
    await within('settling', settle(hosted))
    const text = await alertText(hosted)
    expect(text).toContain('Truncation (not the selected provider; select it to edit): Preserve recent count: a whole number, at least 0; got -1')
    expect(text).toContain('Smart (not the selected provider; select it to edit): Passes: expected array or null, got 3')
    // Choosing the provider puts its problem beside its field again.
    await within('choosing Truncation', hosted.getByRole('radio', { name: 'Truncation', exact: true }).check({ timeout: 10_000 }))
    await within('settling', settle(hosted))
    const field = hosted.locator('[data-path="settings.providers.truncation.preserveRecentCount"]')
    expect(await within('reading the field', field.locator('.cc-error').first().textContent({ timeout: 10_000 }))).toContain('a whole number, at least 0')
    expect(await alertText(hosted)).not.toContain('Truncation (not the selected provider')
    expect((hosted as any).pageErrors).toEqual([])
    await hosted.close({ runBeforeUnload: false })
  })

  it('what the panel hands out (value, errors, profiles) cannot be edited behind its checks', async () => {
    const page = await open({ provider: 'truncation', threshold: 80 })
    const count = page.locator('[data-path="settings.providers.truncation.preserveRecentCount"]').getByRole('spinbutton')
    await count.fill('-1')
    await count.press('Enter')
    await settle(page)
    const attempts = await page.evaluate(() => {
      'use strict'
      const panel = document.getElementById('panel') as any
      const refused = (edit: () => void) => {
        try {
          edit()
          return false
        } catch (e) {
          return e instanceof TypeError
        }
      }
      return {
        threshold: refused(() => {
          panel.value.threshold = 3
        }),
        nested: refused(() => {
          panel.value.providers.truncation.preserveRecentCount = 4
        }),
        error: refused(() => {
          panel.errors[0].message = 'fine'
        }),
        profile: refused(() => {
          panel.profiles[0].name = 'renamed'
        }),
        after: { threshold: panel.settings.threshold, count: panel.settings.providers.truncation.preserveRecentCount, error: panel.errors[0].message },
      }
    })
    expect(attempts).toEqual({
      threshold: true,
      nested: true,
      error: true,
      profile: true,
      after: { threshold: 80, count: -1, error: 'a whole number, at least 0; got -1' },
    })
    expect((page as any).pageErrors).toEqual([])
    await page.close()
  })

  it('starts Smart from a preset, turns an edited preset into a custom config, and exports/imports it', async () => {
    const page = await open({ provider: 'lossless' })
    await page.getByRole('radio', { name: 'Smart', exact: true }).check()
    await settle(page)
    expect((await lastChange(page)).providers.smart).toEqual({ preset: 'balanced' })
    await page.getByRole('radio', { name: 'Aggressive' }).check()
    await settle(page)
    expect((await lastChange(page)).providers.smart).toEqual({ preset: 'aggressive' })
    // Edit one setting of the preset (its first pass expanded): the config becomes the preset spelled out, with the edit.
    await page.locator('details[data-item="settings.providers.smart.passes[0]"] > summary').click()
    const keep = page.locator('[data-path="settings.providers.smart.passes[0].selection"]').getByRole('spinbutton').first()
    await keep.fill('9')
    await keep.press('Enter')
    await settle(page)
    const custom = (await lastChange(page)).providers.smart
    const expected = structuredClone(smartPreset('aggressive')) as any
    expected.passes[0].selection.keepRecentCount = 9
    expect(custom).toEqual(expected)
    expect(await page.getByRole('radio', { name: 'Custom' }).isChecked()).toBe(true)
    // Export, then import into a fresh panel.
    await page.getByText('Export or import as JSON').click()
    await page.getByRole('button', { name: 'Export' }).click()
    const json = await page.getByLabel('Smart configuration (JSON)').inputValue()
    expect(JSON.parse(json)).toEqual(custom)
    const fresh = await open({ provider: 'smart', providers: { smart: { preset: 'conservative' } } })
    await fresh.getByText('Export or import as JSON').click()
    await fresh.getByLabel('Smart configuration (JSON)').fill(json)
    await fresh.getByRole('button', { name: 'Import' }).click()
    await settle(fresh)
    expect((await lastChange(fresh)).providers.smart).toEqual(custom)
    // A config the schema refuses is not imported: its problem is shown with its path.
    await fresh.getByText('Export or import as JSON').click()
    await fresh.getByLabel('Smart configuration (JSON)').fill('{"passes":[{"id":"p","mode":"sideways"}]}')
    await fresh.getByRole('button', { name: 'Import' }).click()
    await settle(fresh)
    expect(await fresh.locator('[data-error-for="import.smart"]').textContent()).toContain('settings.providers.smart.passes[0].mode')
    expect((await lastChange(fresh)).providers.smart).toEqual(custom)
    await page.close()
    await fresh.close()
  })

  it('offers the policy (default, cache-aware, strict) with the cache model; change carries it, the manager takes it, the preview hands it back', async () => {
    const page = await open({ provider: 'lossless', threshold: 80 })
    const group = page.getByRole('radiogroup', { name: 'Policy' })
    expect(await group.getByRole('radio').count()).toBe(3)
    expect(await group.getByRole('radio', { name: 'Default', exact: true }).isChecked()).toBe(true)
    expect(await page.getByRole('combobox', { name: 'Prompt cache model' }).count()).toBe(0)
    await group.getByRole('radio', { name: 'Cache-aware', exact: true }).check()
    await settle(page)
    const lastPolicy = () => page.evaluate(() => (window as any).lastPolicy ?? null)
    expect(await lastPolicy()).toEqual({ name: 'cache-aware', cache: 'anthropic' })
    expect(await lastChange(page)).toEqual({ provider: 'lossless', threshold: 80 })
    await page.getByRole('combobox', { name: 'Prompt cache model' }).selectOption('openai')
    await settle(page)
    expect(await lastPolicy()).toEqual({ name: 'cache-aware', cache: 'openai' })
    // The cache model chosen stays with the strict policy.
    await group.getByRole('radio', { name: 'Cache-aware, strict', exact: true }).check()
    await settle(page)
    const policy = await lastPolicy()
    expect(policy).toEqual({ name: 'cache-aware-strict', cache: 'openai' })
    const manager = new CondensationManager({ config: await lastChange(page), policy })
    expect(manager.policy).toMatchObject(policy)
    // Through the host's preview and back.
    await page.getByRole('button', { name: 'Preview what each strategy removes' }).click()
    await page.locator('[data-policy]').waitFor()
    expect(await page.locator('[data-policy]').textContent()).toBe(
      'Policy: cache-aware-strict (openai prompt cache); the rows are what each strategy removes at the threshold.',
    )
    // Back to the default: no cache model.
    await group.getByRole('radio', { name: 'Default', exact: true }).check()
    await settle(page)
    expect(await lastPolicy()).toEqual({ name: 'default' })
    expect(await page.getByRole('combobox', { name: 'Prompt cache model' }).count()).toBe(0)
    expect((page as any).pageErrors).toEqual([])
    await page.close()
  })

  it('shows a policy the host gives, a name as { name }, and refuses a bad one beside its field without sending it', async () => {
    const page = await open({ provider: 'lossless' })
    const panel = (p: unknown) =>
      page.evaluate((v) => {
        ;(document.getElementById('panel') as any).policy = v
      }, p)
    await panel('cache-aware')
    await settle(page)
    expect(await page.evaluate(() => (document.getElementById('panel') as any).policy)).toEqual({ name: 'cache-aware' })
    expect(await page.getByRole('radio', { name: 'Cache-aware', exact: true }).isChecked()).toBe(true)
    expect(await page.getByRole('combobox', { name: 'Prompt cache model' }).inputValue()).toBe('anthropic')
    await panel({ name: 'cache-aware', cache: 'gemini' })
    await settle(page)
    expect(await page.locator('[data-path="policy.cache"] .cc-error').textContent()).toBe(
      'Prompt cache model: expected one of "anthropic", "openai", got "gemini"',
    )
    expect(await page.evaluate(() => (document.getElementById('panel') as any).errors.map((e: any) => e.path))).toEqual(['policy.cache'])
    // An edit elsewhere is not sent while the policy is bad.
    await page.getByRole('checkbox', { name: 'Deduplicate file reads' }).uncheck()
    await settle(page)
    expect(await lastChange(page)).toBeNull()
    await page.getByRole('combobox', { name: 'Prompt cache model' }).selectOption('openai')
    await settle(page)
    expect(await page.evaluate(() => (window as any).lastPolicy)).toEqual({ name: 'cache-aware', cache: 'openai' })
    expect((await lastChange(page)).providers.lossless).toEqual({ deduplicateFileReads: false })
    await page.close()
  })

  it('works from the keyboard alone', async () => {
    const page = await open({ provider: 'native' })
    // Tab from the top of the page reaches the provider choice; arrows move within it.
    for (let n = 0; n < 10 && !(await page.evaluate(() => (document.getElementById('panel') as any).shadowRoot.activeElement?.name === 'cc-provider')); n++)
      await page.keyboard.press('Tab')
    await page.keyboard.press('ArrowRight') // Native → Lossless
    await settle(page)
    expect((await lastChange(page)).provider).toBe('lossless')
    // Tab on to the first Lossless setting and toggle it with Space.
    let reached = false
    for (let n = 0; n < 12 && !reached; n++) {
      await page.keyboard.press('Tab')
      reached = await page.evaluate(
        () => (document.getElementById('panel') as any).shadowRoot.activeElement?.id === 'cc-settings_providers_lossless_deduplicateFileReads-value',
      )
    }
    expect(reached).toBe(true)
    await page.keyboard.press('Space')
    await settle(page)
    expect((await lastChange(page)).providers.lossless).toEqual({ deduplicateFileReads: false })
    // Focus stays on the control after the panel re-renders.
    expect(await page.evaluate(() => (document.getElementById('panel') as any).shadowRoot.activeElement?.id)).toBe(
      'cc-settings_providers_lossless_deduplicateFileReads-value',
    )
    await page.close()
  })

  it('sets a threshold per API profile, -1 to inherit', async () => {
    const page = await open({ provider: 'native', threshold: 80 })
    await page.getByRole('checkbox', { name: 'Inherit global for Fast (GPT mini)' }).uncheck()
    await settle(page)
    expect((await lastChange(page)).profileThresholds).toEqual({ fast: 80 })
    const fast = page.getByRole('spinbutton', { name: 'Threshold for Fast (GPT mini) (%)' })
    await fast.fill('3')
    await fast.press('Enter')
    await settle(page)
    expect(await page.locator('[data-path="settings.profileThresholds.fast"] .cc-error').textContent()).toBe(
      'Threshold for Fast (GPT mini) (%): from 5 to 100 (or -1: inherit the global threshold); got 3',
    )
    await page.getByRole('spinbutton', { name: 'Threshold for Fast (GPT mini) (%)' }).fill('70')
    await page.getByRole('spinbutton', { name: 'Threshold for Fast (GPT mini) (%)' }).press('Enter')
    await settle(page)
    expect((await lastChange(page)).profileThresholds).toEqual({ fast: 70 })
    await page.getByRole('checkbox', { name: 'Inherit global for Fast (GPT mini)' }).check()
    await settle(page)
    expect((await lastChange(page)).profileThresholds).toEqual({ fast: -1 })
    await page.close()
  })

  it("edits the summary prompt, shows its length and the default, and previews the engine's request", async () => {
    const page = await open({ provider: 'native' })
    const prompts = settingsSchemas().prompts
    expect(await page.locator('.cc-prompt pre').first().textContent()).toBe(prompts.conversation)
    expect(await page.locator('[data-prompt-length]').getAttribute('data-prompt-length')).toBe(String(prompts.conversation.length))
    await page.getByRole('checkbox', { name: 'Set custom prompt' }).check()
    await settle(page)
    await page.getByLabel('Custom prompt', { exact: true }).fill('Summarize tersely.')
    await page.getByLabel('Custom prompt', { exact: true }).blur()
    await settle(page)
    expect((await lastChange(page)).providers.native).toEqual({ customPrompt: 'Summarize tersely.' })
    expect(await page.locator('[data-prompt-length]').getAttribute('data-prompt-length')).toBe('18')
    await page.getByRole('button', { name: 'Preview the summary request' }).click()
    // The request as a reader reads it: the system prompt, then each message under its role.
    await expect.poll(() => page.locator('.cc-request .cc-msg[data-role="system"] .cc-msg-text').textContent()).toBe('Summarize tersely.')
    const request = await summaryRequestFor(HISTORY, { provider: 'native', providers: { native: { customPrompt: 'Summarize tersely.' } } })
    const shown = page.locator('.cc-request .cc-msg:not([data-role="system"])')
    expect(await shown.count()).toBe(request!.messages.length)
    expect(request!.messages.length).toBeGreaterThan(10) // the engine's request over the bundled history
    expect(await shown.first().locator('.cc-msg-role').textContent()).toBe(`1. ${request!.messages[0].role}`)
    expect(await shown.first().locator('.cc-msg-text').textContent()).toBe(request!.messages[0].content)
    // Real line breaks, wrapped: no JSON escapes, no line wider than the panel.
    const text = (await page.locator('.cc-request').textContent())!
    expect(text).not.toContain('\\n')
    expect(text).not.toContain('"role"')
    expect(await page.locator('.cc-request').evaluate((e) => e.scrollWidth <= e.clientWidth)).toBe(true)
    await page.close()
  })

  it("previews each provider on the current task with the engine's numbers", async () => {
    const page = await open() // as the demo sets it up: the preview function given last
    await page.getByRole('button', { name: 'Preview what each strategy removes' }).click()
    await page.locator('tr[data-provider="lossless"]').waitFor()
    const lossless = await condense(HISTORY, { provider: 'lossless' })
    const cell = await page.locator('tr[data-provider="lossless"] td.num').first().textContent()
    expect(cell).toBe(lossless.metrics.tokensAfter.toLocaleString('en-US'))
    const truncation = await condense(HISTORY, { provider: 'truncation' })
    expect(await page.locator('tr[data-provider="truncation"] td.num').first().textContent()).toBe(truncation.metrics.tokensAfter.toLocaleString('en-US'))
    expect(await page.locator('tr[data-provider="native"]').textContent()).toContain('not run in the preview')
    await page.close()
  })

  it("runs under a webview's strict Content-Security-Policy (no inline script or style allowed), styled", async () => {
    const page = await browser.newPage()
    const violations: string[] = []
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) violations.push(m.text())
    })
    const csp = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'"
    await page.route(`${demo.url}csp`, (r) =>
      r.fulfill({
        contentType: 'text/html',
        headers: { 'content-security-policy': csp },
        body: '<!doctype html><context-condense-settings id="panel"></context-condense-settings><script type="module" src="/csp.mjs"></script>',
      }),
    )
    await page.route(`${demo.url}csp.mjs`, (r) =>
      r.fulfill({
        contentType: 'text/javascript',
        body: "import '/lib/settings/element.mjs'\nconst p = document.getElementById('panel')\np.schemas = await (await fetch('/schemas.json')).json()\np.settings = { provider: 'lossless' }\nwindow.panelReady = true\n",
      }),
    )
    await page.goto(`${demo.url}csp`)
    await page.waitForFunction(() => (window as any).panelReady)
    await page.waitForTimeout(100)
    // The stylesheet applies: empty error slots are hidden, the provider cards are a grid.
    const styles = await page.evaluate(() => {
      const root = (document.getElementById('panel') as any).shadowRoot
      return [getComputedStyle(root.querySelector('.cc-error')).display, getComputedStyle(root.querySelector('.cc-providers')).display]
    })
    expect(styles).toEqual(['none', 'grid'])
    expect(violations).toEqual([])
    await page.close()
  })

  it('offers every preset the engine has, and selects and shows the one given', async () => {
    const page = await open({ provider: 'smart', providers: { smart: { preset: 'speed' } } })
    const group = page.getByRole('radiogroup', { name: 'Smart preset' })
    expect(await group.getByRole('radio').count()).toBe(PRESETS.length + 1) // and Custom
    expect(await group.getByRole('radio', { name: 'Speed' }).isChecked()).toBe(true)
    expect(await group.getByRole('radio', { name: 'Custom' }).isChecked()).toBe(false)
    // Its passes are the ones shown below.
    const passes = (smartPreset('speed') as any).passes as Array<{ name: string }>
    const shown = page.locator('[data-path="settings.providers.smart.passes"] > .cc-item > summary > strong')
    expect(await shown.allTextContents()).toEqual(passes.map((p, i) => `${i + 1}. ${p.name}`))
    await group.getByRole('radio', { name: 'Cost' }).check()
    await settle(page)
    expect((await lastChange(page)).providers.smart).toEqual({ preset: 'cost' })
    await page.close()
  })

  it('reads in a plain browser, dark and light, without VS Code variables (text against its background 4.5:1 or more)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'cc-settings-contrast-'))
    for (const colorScheme of ['dark', 'light'] as const) {
      const page = await open({ provider: 'truncation' })
      await page.emulateMedia({ colorScheme })
      const count = page.locator('[data-path="settings.providers.truncation.preserveRecentCount"]').getByRole('spinbutton')
      await count.fill('-3')
      await count.press('Enter')
      await settle(page)
      await page.getByText('Export or import as JSON').click()
      await settle(page)
      const measured = await page.evaluate(() => {
        const root = (document.getElementById('panel') as any).shadowRoot as ShadowRoot
        for (const name of ['--vscode-foreground', '--vscode-input-background'])
          if (getComputedStyle(root.host).getPropertyValue(name) !== '') return { error: `${name} is defined` }
        /** The background the element is drawn on: its own, else the nearest ancestor's (through the shadow root), else the page's. */
        const backgroundOf = (e: Element | null): string => {
          for (let n: Element | null = e; n; n = n.parentElement ?? (n.getRootNode() as ShadowRoot).host ?? null) {
            const c = getComputedStyle(n).backgroundColor
            if (c !== 'rgba(0, 0, 0, 0)' && c !== 'transparent') return c
          }
          return getComputedStyle(document.documentElement).backgroundColor
        }
        const kinds: Record<string, string> = {
          input: 'input[type=text], input[type=number], select, textarea',
          button: 'button:not(:disabled)',
          label: 'label, legend, h2',
          help: '.cc-help',
          error: '.cc-error:not(:empty)',
        }
        const out: Array<{ kind: string; text: string; color: string; background: string }> = []
        for (const [kind, selector] of Object.entries(kinds))
          for (const e of root.querySelectorAll(selector)) {
            if (!(e as HTMLElement).offsetParent) continue // not on screen (a closed <details>)
            out.push({
              kind,
              text: (e.textContent || (e as HTMLInputElement).value || e.id).slice(0, 40),
              color: getComputedStyle(e).color,
              background: backgroundOf(e),
            })
          }
        return { out }
      })
      expect((measured as any).error).toBeUndefined()
      const rows = (measured as any).out as Array<{ kind: string; text: string; color: string; background: string }>
      for (const kind of ['input', 'button', 'label', 'help', 'error'])
        expect(
          rows.some((r) => r.kind === kind),
          `${colorScheme}: a ${kind} measured`,
        ).toBe(true)
      for (const r of rows)
        expect(contrast(r.color, r.background), `${colorScheme} ${r.kind} "${r.text}": ${r.color} on ${r.background}`).toBeGreaterThanOrEqual(4.5)
      await page.screenshot({ path: join(dir, `panel-${colorScheme}.png`), fullPage: true })
      await page.close()
    }
    console.log(`settings panel screenshots: ${dir}`)
  })

  it("says a refused value once, beside its field, in the field's words; help shows code as code", async () => {
    const page = await open({ provider: 'truncation', profileThresholds: { cheap: 3 } })
    const count = page.locator('[data-path="settings.providers.truncation.preserveRecentCount"]').getByRole('spinbutton')
    await count.fill('-3')
    await count.press('Enter')
    await settle(page)
    const panelText = () => page.evaluate(() => (document.getElementById('panel') as any).shadowRoot.textContent as string)
    const threshold = 'Threshold for cheap (%): from 5 to 100 (or -1: inherit the global threshold); got 3'
    const recent = 'Preserve recent count: a whole number, at least 0; got -3'
    expect(await page.locator('[data-path="settings.profileThresholds.cheap"] .cc-error').textContent()).toBe(threshold)
    expect(await page.locator('[data-path="settings.providers.truncation.preserveRecentCount"] .cc-error').textContent()).toBe(recent)
    const text = await panelText()
    for (const said of [threshold, recent]) expect(text.split(said).length - 1, said).toBe(1)
    for (const path of ['settings.providers', 'settings.profileThresholds']) expect(text).not.toContain(path)
    expect(text).not.toContain('null')
    expect(await page.getByRole('alert').textContent()).toBe('Not saved: 2 settings are not allowed (shown beside them).')
    // Help texts: `code` as <code>, no backtick left.
    await page.getByRole('radio', { name: 'Smart', exact: true }).check()
    await settle(page)
    const help = await page.evaluate(() => {
      const root = (document.getElementById('panel') as any).shadowRoot as ShadowRoot
      const all = [...root.querySelectorAll('.cc-help')]
      return { backticks: all.filter((e) => e.textContent!.includes('`')).map((e) => e.textContent), codes: root.querySelectorAll('.cc-help code').length }
    })
    expect(help.backticks).toEqual([])
    expect(help.codes).toBeGreaterThan(0)
    // A choice's descriptions in a select (an <option> holds only text): names without backticks.
    await page.evaluate(() => {
      ;(document.getElementById('panel') as any).settings = { provider: 'native', providers: { native: { pricing: { inputPrice: 3 } } } }
    })
    await settle(page)
    const options = await page.locator('[data-path="settings.providers.native.pricing.accounting"] option').allTextContents()
    expect(options.length).toBeGreaterThan(1)
    expect(options.filter((o) => o.includes('`'))).toEqual([])
    expect((page as any).pageErrors).toEqual([])
    await page.close()
  })

  it("shows a preset's passes one line each (what it selects, what it does), each expanding to edit and staying open", async () => {
    const page = await open({ provider: 'smart', providers: { smart: { preset: 'aggressive' } } })
    const section = page.locator('section[data-provider="smart"]')
    // Compact: the whole Smart section fits in well under two screens (the nested form was ~5,300 px).
    expect(await section.evaluate((e) => e.getBoundingClientRect().height)).toBeLessThan(1800)
    const passes = (smartPreset('aggressive') as any).passes as Array<any>
    const items = section.locator('details.cc-compact')
    expect(await items.count()).toBe(passes.length)
    const lines = await items.locator('> summary .cc-line').allTextContents()
    const individual = passes.findIndex((p) => p.mode === 'individual')
    const keepRecent = passes[individual].selection.keepRecentCount
    expect(lines[individual]).toBe(
      `in all but the last ${keepRecent} messages: ${Object.entries(passes[individual].individualConfig.defaults)
        .map(([type, op]: [string, any]) => `${type.replace(/([A-Z])/g, ' $1').toLowerCase()}: ${typeof op === 'string' ? op : op.operation}`)
        .join(', ')}`,
    )
    const batch = passes.findIndex((p) => p.mode === 'batch')
    expect(lines[batch]).toContain(passes[batch].batchConfig.operation)
    expect(lines[batch]).toContain(`over ${passes[batch].execution.condition.tokenThreshold.toLocaleString('en-US')} tokens`)
    // Collapsed, its fields are not on screen; expanded, they are, and an edit keeps it open.
    const first = section.locator('details[data-item="settings.providers.smart.passes[0]"]')
    const count = first.locator('[data-path="settings.providers.smart.passes[0].selection"]').getByRole('spinbutton').first()
    expect(await count.isVisible()).toBe(false)
    await first.locator('> summary').click()
    await count.fill('9')
    await count.press('Enter')
    await settle(page)
    expect((await lastChange(page)).providers.smart.passes[0].selection.keepRecentCount).toBe(9)
    expect(await count.isVisible()).toBe(true)
    expect(await first.locator('> summary .cc-line').textContent()).toContain('all but the last 9 messages')
    // A problem inside a collapsed pass opens it, so it is seen beside its field.
    await first.locator('> summary').click()
    await page.evaluate(() => {
      const panel = document.getElementById('panel') as any
      const next = structuredClone(panel.settings)
      next.providers.smart.passes[1].execution.condition.tokenThreshold = -5
      panel.update(next)
    })
    await settle(page)
    expect(await section.locator(`details[data-item="settings.providers.smart.passes[${batch}]"]`).evaluate((d) => (d as HTMLDetailsElement).open)).toBe(true)
    expect(await section.locator('.cc-error:not(:empty)').first().isVisible()).toBe(true)
    expect((page as any).pageErrors).toEqual([])
    await page.close()
  })

  it('previews every provider in the demo without a failure', async () => {
    const page = await open({ provider: 'lossless' })
    await page.getByRole('button', { name: 'Preview what each strategy removes' }).click()
    await page.locator('tr[data-provider="smart"]').waitFor()
    const smart = await condense(HISTORY, { provider: 'smart', config: { preset: DEFAULT_PRESET } })
    expect(await page.locator('tr[data-provider="smart"] td.num').first().textContent()).toBe(smart.metrics.tokensAfter.toLocaleString('en-US'))
    expect(await page.locator('tr[data-provider="smart"] .cc-help').count()).toBe(0)
    await page.close()
  })

  it("takes VS Code's theme variables when the page defines them", async () => {
    const page = await open()
    await page.evaluate(() => document.documentElement.style.setProperty('--vscode-foreground', 'rgb(1, 2, 3)'))
    expect(await page.evaluate(() => getComputedStyle((document.getElementById('panel') as any).shadowRoot.querySelector('h2')).color)).toBe('rgb(1, 2, 3)')
    await page.close()
  })
})
