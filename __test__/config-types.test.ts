// A provider's config is typed with nothing written by hand: scripts/gen-names.mjs generates the
// interface of a config lib/index.d.ts has no type for from its JSON Schema. Generated from the
// four built-in providers' schemas, the types are the very types of the hand-written interfaces
// (which stay, for their names and longer notes), checked by the TypeScript compiler; generated
// for the example provider of docs/ARCHITECTURE.md (its schema, which the engine's own test holds
// to the Rust type, in example-provider-schema.json), the interface carries its descriptions,
// defaults, ranges and optionality, and ProviderOptions takes it.
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import ts from 'typescript'
import { afterAll, describe, expect, it } from 'vitest'

import { configSchema, providerCatalogue } from '../lib/index.js'
// @ts-expect-error: a build script without types
import { handWrittenTypes, namesDts } from '../scripts/gen-names.mjs'

const ROOT = join(__dirname, '..')
const dir = mkdtempSync(join(tmpdir(), 'config-types-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The compiler's complaints about `files` (name -> text) written to a scratch folder. */
function problems(files: Record<string, string>): string[] {
  for (const [name, text] of Object.entries(files)) writeFileSync(join(dir, name), text)
  const program = ts.createProgram(
    Object.keys(files).map((n) => join(dir, n)),
    { noEmit: true, strict: true, types: [], moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext },
  )
  return ts
    .getPreEmitDiagnostics(program)
    .map((d) => `${d.file ? d.file.fileName.replace(dir, '') : ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`)
}

/** names.d.ts as generated, importing lib/index.d.ts from where it is. */
const placed = (text: string) => text.replace("from './index'", `from '${join(ROOT, 'lib', 'index')}'`)

describe('config types generated from the schemas', () => {
  it('for the built-in providers: the same types as the hand-written interfaces', () => {
    const titles = providerCatalogue().providers.map((p) => String((configSchema(p.id) as { title: string }).title))
    const generated: string = namesDts({ handWritten: new Set() })
    expect(generated).not.toContain("from './index'")
    for (const t of titles) expect(generated).toContain(`export interface ${t} {`)
    // The check tells types apart: the same names with one key typed otherwise differ.
    const off = generated.replace(/(export interface LosslessConfig \{[^}]*?keep\?: )Keep/, "$1'first'")
    expect(off).not.toBe(generated)
    const check = [
      "import type * as G from './names'",
      "import type * as Off from './off'",
      `import type * as H from '${join(ROOT, 'lib', 'index')}'`,
      'type Same<A, B> = [A] extends [B] ? ([B] extends [A] ? true : false) : false',
      ...titles.map((t) => `export const ${t}: Same<G.${t}, H.${t}> = true`),
      'export const off: Same<Off.LosslessConfig, H.LosslessConfig> = false',
    ].join('\n')
    expect(problems({ 'names.d.ts': generated, 'off.d.ts': off, 'check.ts': check })).toEqual([])
  })

  it('the committed names.d.ts generates nothing: every built-in config is hand-written', () => {
    const titles = providerCatalogue().providers.map((p) => String((configSchema(p.id) as { title: string }).title))
    for (const t of titles) expect(handWrittenTypes().has(t), t).toBe(true)
    expect(readFileSync(join(ROOT, 'lib', 'names.d.ts'), 'utf8')).not.toContain('from their JSON Schemas')
  })

  it('for a provider added in Rust (the example): its interface, and ProviderOptions takes it', () => {
    const schema = JSON.parse(readFileSync(join(__dirname, 'example-provider-schema.json'), 'utf8'))
    const catalogue = providerCatalogue()
    const text: string = namesDts({
      catalogue: { ...catalogue, providers: [...catalogue.providers, { id: 'example' }] },
      configSchema: (id: string) => (id === 'example' ? schema : configSchema(id as never)),
    })
    expect(text).toContain(
      [
        "/** The example's config: every key optional, each with its default. */",
        'export interface ExampleConfig {',
        '  /** Most recent messages whose tool results stay whole. @default 4 */',
        '  keepRecent?: number',
        '  /** Stop after a pass once the context is this much smaller, in percent. From 0 to 100. */',
        '  targetReductionPercent?: number | null',
        '}',
      ].join('\n'),
    )
    expect(text).toContain('  example: ExampleConfig\n')
    expect(text).toContain("  | { provider: 'example'; config?: ExampleConfig }\n")
    const check = [
      "import type { ProviderOptions } from './names'",
      "export const taken: ProviderOptions = { provider: 'example', config: { keepRecent: 2, targetReductionPercent: 50 } }",
      // The directive holds only if the line after it is an error: a key of the wrong type is refused.
      '// @ts-expect-error',
      "export const refused: ProviderOptions = { provider: 'example', config: { keepRecent: 'two' } }",
    ].join('\n')
    expect(problems({ 'names.d.ts': placed(text), 'check.ts': check })).toEqual([])
  })
})
