// The generated types of the raw binding (index.d.ts, written by `napi build` from crates/binding/src/): no
// `any` where the type is known (a value crossing as JSON is typed with `ts_args_type` /
// `ts_return_type`, naming the hand-written types of lib/*.d.ts where they exist, `unknown` where
// the engine itself checks what it is given), and every type it names exists. Reads the .d.ts
// with the TypeScript compiler, so a word "any" in a doc comment does not count.
import { join } from 'node:path'
import ts from 'typescript'
import { describe, expect, it } from 'vitest'

const DTS = join(__dirname, '..', 'index.d.ts')
const program = ts.createProgram([DTS], {
  noEmit: true,
  strict: true,
  types: [],
  moduleResolution: ts.ModuleResolutionKind.Bundler,
  module: ts.ModuleKind.ESNext,
})
const file = program.getSourceFile(DTS)!

/** Where `any` is written as a type: the declaration it is in, by name. */
function anys(): string[] {
  const found: string[] = []
  const visit = (node: ts.Node, owner: string) => {
    const named = (node as { name?: ts.Node }).name
    const here = named && ts.isIdentifier(named) ? (owner ? `${owner}.${named.text}` : named.text) : owner
    if (node.kind === ts.SyntaxKind.AnyKeyword) found.push(here)
    ts.forEachChild(node, (child) => visit(child, here))
  }
  visit(file, '')
  return found
}

describe('the binding types (index.d.ts)', () => {
  it('write no `any`', () => {
    expect(anys()).toEqual([])
  })

  it('name only types that exist (the lib/*.d.ts types they import included)', () => {
    const problems = ts.getPreEmitDiagnostics(program).map((d) => ts.flattenDiagnosticMessageText(d.messageText, '\n'))
    expect(problems).toEqual([])
  })
})
