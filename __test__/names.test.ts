// The engine's registry (src/catalogue.rs) is the one place a provider, preset or encoding is
// named: lib/names.d.ts is generated from it and up to date, and no other file of lib/ or bin/
// (code, comments, hand-written types) spells one of its names as a quoted string; they read
// lib/internal/registry.js (or the generated types) instead.
import { readdirSync, readFileSync, statSync } from 'node:fs'
import { join, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

import { providerCatalogue } from '../lib/index.js'
// @ts-expect-error: a build script without types
import { namesDts } from '../scripts/gen-names.mjs'

const ROOT = join(__dirname, '..')

/** The files that may spell the names: the registry's JavaScript reader and the generated types. */
const NAMING = new Set(['lib/internal/registry.js', 'lib/names.d.ts'])

/**
 * Quoted strings that are one of the names but mean something else, each with why: a preset is
 * called "cost", and so is a summarize reply's cost field.
 */
const NOT_NAMES: Array<{ file: string; text: string; why: string }> = [
  { file: 'lib/internal/summarize.js', text: "const REPLY_NUMBERS = ['cost',", why: "a reply's numeric fields: its cost" },
  { file: 'lib/replay/run.js', text: "sum('cost')", why: "the requests' cost field" },
]

function files(dir: string): string[] {
  const out: string[] = []
  for (const name of readdirSync(dir)) {
    const path = join(dir, name)
    if (statSync(path).isDirectory()) out.push(...files(path))
    else if (/\.(js|mjs|cjs|ts|mts)$/.test(name)) out.push(path)
  }
  return out
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

describe('names come from the registry', () => {
  it('lib/names.d.ts is what scripts/gen-names.mjs writes from the built engine (npm run build writes it)', () => {
    expect(readFileSync(join(ROOT, 'lib/names.d.ts'), 'utf8')).toBe(namesDts())
  })

  it('no file of lib/ or bin/ but the registry module and the generated types spells a provider, preset or encoding', () => {
    const catalogue = providerCatalogue()
    const names = [...catalogue.providers.map((p) => p.id), ...catalogue.presets, ...catalogue.encodings]
    expect(names.length).toBeGreaterThan(8)
    const quoted = new RegExp(`(['"\`])(${names.map(escapeRegExp).join('|')})\\1`, 'g')
    const found: string[] = []
    for (const file of [...files(join(ROOT, 'lib')), ...files(join(ROOT, 'bin'))]) {
      const rel = relative(ROOT, file)
      if (NAMING.has(rel)) continue
      readFileSync(file, 'utf8')
        .split('\n')
        .forEach((line, i) => {
          if (!quoted.test(line)) return
          quoted.lastIndex = 0
          if (NOT_NAMES.some((n) => n.file === rel && line.includes(n.text))) return
          found.push(`${rel}:${i + 1}: ${line.trim()}`)
        })
      quoted.lastIndex = 0
    }
    expect(found).toEqual([])
  })

  it('the CLI usage lists the providers, presets and encodings the registry has', async () => {
    const { execFileSync } = await import('node:child_process')
    const usage = execFileSync(process.execPath, [join(ROOT, 'bin/context-condense.mjs'), '--help'], { encoding: 'utf8' })
    const catalogue = providerCatalogue()
    expect(usage).toContain(catalogue.providers.map((p) => p.id).join(' | '))
    expect(usage).toContain(catalogue.presets.join(' | '))
    expect(usage).toContain(`${catalogue.defaultEncoding} (default)`)
  })
})
