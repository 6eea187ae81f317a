// The package's entries (from package.json `exports`) and the names each one's .d.ts exports as
// values, read with the TypeScript compiler: what the export test and the pack-and-install check
// hold the run time to. Reads files only.
'use strict'

const { readFileSync } = require('node:fs')
const { join } = require('node:path')

const root = join(__dirname, '..')

/** Each entry of `exports` (patterns aside): its import specifier, types file and JavaScript file. */
function packageEntries() {
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'))
  return Object.entries(pkg.exports)
    .filter(([key, v]) => !key.includes('*') && v && typeof v === 'object')
    .map(([key, v]) => ({ specifier: key === '.' ? pkg.name : `${pkg.name}/${key.slice(2)}`, subpath: key, types: v.types, js: v.default }))
}

/** The names a .d.ts exports as values (classes, functions, constants), not types only. */
function valueExports(dts) {
  const ts = require('typescript')
  const program = ts.createProgram([dts], { noEmit: true, types: [], moduleResolution: ts.ModuleResolutionKind.Bundler, module: ts.ModuleKind.ESNext })
  const checker = program.getTypeChecker()
  const file = program.getSourceFile(dts)
  if (!file) throw new Error(`${dts}: not found`)
  const moduleSymbol = checker.getSymbolAtLocation(file)
  if (!moduleSymbol) throw new Error(`${dts}: not a module`)
  return checker
    .getExportsOfModule(moduleSymbol)
    .filter((s) => ((s.flags & ts.SymbolFlags.Alias ? checker.getAliasedSymbol(s) : s).flags & ts.SymbolFlags.Value) !== 0)
    .map((s) => s.getName())
    .filter((n) => n !== 'default')
    .sort()
}

module.exports = { packageEntries, valueExports, root }
