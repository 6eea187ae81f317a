// How the CLI reads and writes files, in this process. Writing --out and --html (bin/cli/condense.mjs
// writeAtomically): the temporary beside the target is created exclusively under an unpredictable
// name, so a symbolic link planted where a temporary would go is never opened or followed, in a
// shared folder too. Reading (bin/cli/input.mjs): a text longer than the longest string Node.js
// holds is refused with its size and the limit (here with a small limit; the spawned CLI's checks
// on a sparse file of that size are in cli-errors.test.ts).
import { existsSync, lstatSync, mkdtempSync, readFileSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { Readable } from 'node:stream'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it, vi } from 'vitest'

// The random parts the writer draws, when a test plans them (else the real ones).
const planned = vi.hoisted(() => [] as Buffer[])
vi.mock('node:crypto', async (importOriginal) => {
  const real = await importOriginal<typeof import('node:crypto')>()
  const randomBytes = (n: number) => planned.shift() ?? real.randomBytes(n)
  return { ...real, default: { ...real, randomBytes }, randomBytes }
})

// @ts-expect-error: the CLI's modules have no type declarations
const { writeAtomically } = (await import('../bin/cli/condense.mjs')) as { writeAtomically: (file: string, text: string) => void }

// @ts-expect-error: the CLI's modules have no type declarations
const { readStdin, readTextFile } = (await import('../bin/cli/input.mjs')) as {
  readStdin: (stream: Readable, limit: number) => Promise<string>
  readTextFile: (file: string, name: string, limit: number) => string
}

const root = mkdtempSync(join(tmpdir(), 'context-condense-write-'))
afterAll(() => rmSync(root, { recursive: true, force: true }))
let n = 0
const folder = () => mkdtempSync(join(root, `case-${n++}-`))

describe('writing an output file', () => {
  it('a symbolic link planted at the name temporaries once had (.<name>.context-condense-<pid>.tmp) is not written through', () => {
    const dir = folder()
    const victim = join(dir, 'victim.txt')
    writeFileSync(victim, 'precious')
    symlinkSync(victim, join(dir, `.h.json.context-condense-${process.pid}.tmp`))
    const file = join(dir, 'h.json')
    writeAtomically(file, '[1]')
    expect(readFileSync(victim, 'utf8')).toBe('precious')
    expect(lstatSync(file).isSymbolicLink()).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('[1]')
  })

  it('a name already taken (a link to a file, a link to nothing) is neither opened nor followed: another random name is drawn', () => {
    const dir = folder()
    const victim = join(dir, 'victim.txt')
    writeFileSync(victim, 'precious')
    const name = (hex: string) => `.h.json.context-condense-${process.pid}-${hex}.tmp`
    symlinkSync(victim, join(dir, name('ab'.repeat(8))))
    symlinkSync(join(dir, 'created-by-the-link.txt'), join(dir, name('cd'.repeat(8))))
    planned.push(Buffer.alloc(8, 0xab), Buffer.alloc(8, 0xcd), Buffer.alloc(8, 0xef))
    const file = join(dir, 'h.json')
    writeAtomically(file, '[2]')
    expect(planned).toEqual([]) // three names drawn: two were taken
    expect(readFileSync(victim, 'utf8')).toBe('precious')
    expect(existsSync(join(dir, 'created-by-the-link.txt'))).toBe(false)
    expect(lstatSync(file).isSymbolicLink()).toBe(false)
    expect(readFileSync(file, 'utf8')).toBe('[2]')
    // The planted links are left alone (not ours); our temporary is gone.
    expect(readdirSync(dir).sort()).toEqual([name('ab'.repeat(8)), name('cd'.repeat(8)), 'h.json', 'victim.txt'].sort())
  })
})

describe('reading an input', () => {
  it('standard input past the limit is refused as soon as it passes it, naming the limit', async () => {
    const chunks = ['[', '"0123456789"', ',', '"0123456789"', ']']
    const read: string[] = []
    const stream = Readable.from(
      (function* () {
        for (const c of chunks) {
          read.push(c)
          yield Buffer.from(c)
        }
      })(),
    )
    await expect(readStdin(stream, 20)).rejects.toThrow(
      /^standard input is too large: more than the 20 bytes the CLI reads as one JSON text \(the longest string Node\.js can hold\)$/,
    )
    expect(read.length).toBeLessThan(chunks.length) // it stopped reading there
    expect(await readStdin(Readable.from([Buffer.from('[1,'), Buffer.from('2]')]), 20)).toBe('[1,2]')
  })

  it('a file past the limit is refused by its size, before it is read', () => {
    const file = join(folder(), 'h.json')
    writeFileSync(file, '["0123456789","0123456789"]')
    expect(() => readTextFile(file, 'h.json', 20)).toThrow(/^h\.json is too large: 27 bytes, more than the 20 bytes/)
    expect(readTextFile(file, 'h.json', 27)).toBe('["0123456789","0123456789"]')
  })
})
