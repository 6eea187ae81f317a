// npm run demo: condenses a bundled history with the Lossless provider and shows what it did.
//   node examples/demo.mjs [history.json] [--native]
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const { analyze, condense, countTokens, expandReferences, validateConversation } = createRequire(import.meta.url)('../lib/index.js')

const here = dirname(fileURLToPath(import.meta.url))
const args = process.argv.slice(2)
const file =
  args.find((a) => !a.startsWith('--')) ?? join(here, '..', 'fixtures', 'examples', args.includes('--native') ? 'native-session.json' : 'xml-session.json')
const history = JSON.parse(readFileSync(file, 'utf8'))

console.log(`History: ${file}`)
console.log(`  ${history.length} messages, ${countTokens(history).toLocaleString('en-US')} tokens (o200k_base)`)
const a = analyze(history)
const top = Object.entries(a.byContentType)
  .filter(([, n]) => n > 0)
  .sort((x, y) => y[1] - x[1])
  .map(([k, n]) => `${k} ${n.toLocaleString('en-US')}`)
console.log(`  where the tokens are: ${top.join(', ')}`)
console.log('')

const result = await condense(history, { provider: 'lossless' })
console.log(result.report)
console.log('')

// Show one reference and one superseded marker as the model will read them.
const texts = result.messages.flatMap((m) =>
  typeof m.content === 'string' ? [m.content] : m.content.map((b) => b.text ?? (typeof b.content === 'string' ? b.content : '')),
)
const sample = (needle) => {
  const t = texts.find((x) => x.includes(needle))
  if (!t) return
  const at = t.indexOf(needle)
  console.log(`  …${t.slice(Math.max(0, at - 60), t.indexOf('⟩', at) + 1)}`)
}
console.log('What the model now reads in place of repeated content:')
sample('⟨ Reference:')
sample('⟨ Superseded:')
console.log('')

const valid = validateConversation(result.messages).length === 0
const lossless = await condense(history, { provider: 'lossless', config: { removeObsoleteState: false } })
const restored = JSON.stringify(expandReferences(lossless.messages)) === JSON.stringify(history)
console.log(`Output valid for the provider APIs: ${valid ? 'yes' : 'NO'}`)
console.log(`With removeObsoleteState: false, expandReferences gives back the input byte for byte: ${restored ? 'yes' : 'NO'}`)
if (!valid || !restored) process.exitCode = 1
