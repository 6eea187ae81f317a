// The errorCodes the library documents for what it throws: the string literals of the
// `ErrorCode` type in lib/names.d.ts (generated from the engine's list, src/error.rs; lib/index.d.ts
// names it `ThrownErrorCode`), read with the TypeScript compiler, so a code added there is accepted
// by the sweep and the model-based tests without a second list. Reads files only.
'use strict'

const { join } = require('node:path')

function thrownErrorCodes() {
  const ts = require('typescript')
  const file = join(__dirname, '..', '..', 'lib', 'names.d.ts')
  const program = ts.createProgram([file], { noEmit: true, types: [] })
  const source = program.getSourceFile(file)
  const codes = []
  ts.forEachChild(source, (node) => {
    if (ts.isTypeAliasDeclaration(node) && node.name.text === 'ErrorCode' && ts.isUnionTypeNode(node.type)) {
      for (const t of node.type.types) if (ts.isLiteralTypeNode(t) && ts.isStringLiteral(t.literal)) codes.push(t.literal.text)
    }
  })
  if (codes.length === 0) throw new Error(`${file}: no ErrorCode union of string literals found`)
  return codes
}

module.exports = { thrownErrorCodes }
