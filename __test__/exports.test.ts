// Every named value export the types promise, for every entry of the package's `exports`, exists at
// run time both through require() and through an ESM import (Node finds a CommonJS module's named
// exports by reading its source, so a name the types promise can type-check and still be missing).
// And nothing internal is exported. Reads the .d.ts files with the TypeScript compiler; spawns Node.
import { spawnSync } from 'node:child_process'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

// eslint-disable-next-line @typescript-eslint/no-require-imports
const { packageEntries, valueExports, root } = require('../scripts/dts-exports.cjs') as {
  packageEntries(): Array<{ specifier: string; types: string; js: string }>
  valueExports(dts: string): string[]
  root: string
}

const node = (args: string[]) => spawnSync(process.execPath, args, { cwd: root, encoding: 'utf8' })

describe('named exports at run time match the types', () => {
  const entries = packageEntries()

  it('covers the main entry and each sub-path', () => {
    expect(entries.map((e) => e.specifier)).toEqual([
      'context-condense',
      'context-condense/roo',
      'context-condense/roo-2025',
      'context-condense/roo-2026-01',
      'context-condense/openai-client',
      'context-condense/openai-format',
      'context-condense/ai-sdk',
      'context-condense/settings',
      'context-condense/settings/schemas',
      'context-condense/report-html',
    ])
  })

  it.each(entries)('$specifier: every value export of its .d.ts, through require and import', ({ specifier, types }) => {
    const names = valueExports(join(root, types))
    expect(names.length).toBeGreaterThan(2)
    const cjs = node([
      '-e',
      `const m = require(${JSON.stringify(specifier)}); console.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => m[n] === undefined)))`,
    ])
    expect(cjs.stderr).toBe('')
    expect(JSON.parse(cjs.stdout), `${specifier}: missing through require`).toEqual([])
    // A static named import fails to link when Node does not find a name; the dynamic import's
    // keys show which.
    const esm = node([
      '--input-type=module',
      '-e',
      `import { ${names.join(', ')} } from ${JSON.stringify(specifier)}\nconst m = await import(${JSON.stringify(specifier)})\nconsole.log(JSON.stringify(${JSON.stringify(names)}.filter((n) => !(n in m) || m[n] === undefined)))`,
    ])
    expect(esm.stderr).toBe('')
    expect(JSON.parse(esm.stdout), `${specifier}: missing through import`).toEqual([])
  })

  // A host type-checks against an entry's .d.ts: a name exported at run time but not typed cannot be
  // used, one typed but not exported is undefined at run time (the test above).
  it.each(entries.filter((e) => e.specifier.startsWith('context-condense/roo')))('$specifier: exports exactly what its .d.ts names', ({ specifier, types }) => {
    const r = node(['-e', `console.log(JSON.stringify(Object.keys(require(${JSON.stringify(specifier)})).sort()))`])
    expect(r.stderr).toBe('')
    expect(JSON.parse(r.stdout)).toEqual(valueExports(join(root, types)))
  })

  it("the package's internal modules are not part of it: context-condense/lib/… is not exported", () => {
    // Through the package's self-reference, as a host's require or import of the installed package resolves it.
    for (const specifier of ['context-condense/lib/run.js', 'context-condense/lib/index.js', 'context-condense/lib/roo/host.js']) {
      const cjs = node(['-e', `try { require(${JSON.stringify(specifier)}); console.log('loaded') } catch (e) { console.log(e.code) }`])
      expect(cjs.stdout.trim(), `require('${specifier}')`).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED')
      const esm = node(['--input-type=module', '-e', `import(${JSON.stringify(specifier)}).then(() => console.log('loaded'), (e) => console.log(e.code))`])
      expect(esm.stdout.trim(), `import('${specifier}')`).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED')
    }
  })

  it('the main entry exports nothing internal, and nothing the types do not name', () => {
    const main = entries[0]
    const names = valueExports(join(root, main.types))
    const r = node(['-e', `console.log(JSON.stringify(Object.getOwnPropertyNames(require('context-condense')).sort()))`])
    const runtime: string[] = JSON.parse(r.stdout)
    expect(runtime.filter((n) => n.startsWith('_'))).toEqual([])
    expect(runtime).toEqual(names)
  })
})

describe('no data shared with every caller can be changed by one of them', () => {
  /** Paths of the objects reachable from `v` (through object keys, and a function's own keys) that are not frozen. */
  function unfrozen(v: unknown, path: string, seen = new Set<unknown>()): string[] {
    if (v === null || (typeof v !== 'object' && typeof v !== 'function') || seen.has(v)) return []
    seen.add(v)
    const out = typeof v === 'object' && !Object.isFrozen(v) ? [path] : []
    for (const [k, x] of Object.entries(v as object)) out.push(...unfrozen(x, `${path}.${k}`, seen))
    return out
  }

  it('every object exported by any module of the package (reachable from its entries, or by a path into the installed folder) is deep-frozen', async () => {
    const files = readdirSync(join(root, 'lib'), { recursive: true, encoding: 'utf8' }).filter((f) => /\.(m?js)$/.test(f))
    expect(files.length).toBeGreaterThan(40)
    const found: string[] = []
    for (const f of files) {
      const m = f.endsWith('.mjs') ? await import(join(root, 'lib', f)) : require(join(root, 'lib', f))
      for (const [name, value] of Object.entries(m)) found.push(...unfrozen(value, `lib/${f}: ${name}`))
    }
    expect(found).toEqual([])
  })

  it('REPLAY_POLICIES cannot be edited: what replay accepts stays the same for everyone', async () => {
    const { REPLAY_POLICIES, replay } = require('../lib/index.js') as typeof import('../lib/index.js')
    const before = [...REPLAY_POLICIES]
    expect(() => (REPLAY_POLICIES as string[]).push('made-up')).toThrow(TypeError)
    expect(() => {
      ;(REPLAY_POLICIES as string[])[0] = 'made-up'
    }).toThrow(TypeError)
    expect([...REPLAY_POLICIES]).toEqual(before)
    const history = [
      { role: 'user', content: 'hello' },
      { role: 'assistant', content: 'hi' },
    ]
    await expect(replay(history as never, { policy: 'made-up' as never })).rejects.toThrow(/policy/)
  })

  it('catalogues and schemas come fresh from each call: one caller editing its copy changes nothing for the next', () => {
    const cc = require('../lib/index.js') as typeof import('../lib/index.js')
    const { settingsSchemas } = require('../lib/settings/schemas.js') as typeof import('../lib/settings/schemas.js')
    const calls: Array<[string, () => unknown]> = [
      ['providerCatalogue', () => cc.providerCatalogue()],
      ['configSchema', () => cc.configSchema('smart')],
      ['smartPreset', () => cc.smartPreset('balanced')],
      ['managerConfigSchema', () => cc.managerConfigSchema()],
      ['settingsSchemas', () => settingsSchemas()],
    ]
    for (const [name, call] of calls) {
      const first = call() as Record<string, unknown>
      const pristine = structuredClone(first)
      for (const k of Object.keys(first)) delete first[k]
      expect(call(), name).toEqual(pristine)
    }
  })
})
