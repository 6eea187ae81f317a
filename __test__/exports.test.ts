// Every named value export the types promise, for every entry of the package's `exports`, exists at
// run time both through require() and through an ESM import (Node finds a CommonJS module's named
// exports by reading its source, so a name the types promise can type-check and still be missing).
// And nothing internal is exported. Reads the .d.ts files with the TypeScript compiler; spawns Node.
import { spawnSync } from 'node:child_process'
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
      'context-condense/settings',
      'context-condense/settings/schemas',
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

  it('the main entry exports nothing internal, and nothing the types do not name', () => {
    const main = entries[0]
    const names = valueExports(join(root, main.types))
    const r = node(['-e', `console.log(JSON.stringify(Object.getOwnPropertyNames(require('context-condense')).sort()))`])
    const runtime: string[] = JSON.parse(r.stdout)
    expect(runtime.filter((n) => n.startsWith('_'))).toEqual([])
    expect(runtime).toEqual(names)
  })
})
