// Counts the reference markers that break their promise over chains of condensing runs: a marker
// in any output is either expanded by expandReferences to exactly the bytes it stood for, or is
// an explicit "Omitted" note (the check: __test__/reference-chains.mjs). Each chain is Lossless
// (keep first or latest) and then one lossy run, over generated histories (seeds 1-3, both tool
// formats), in Anthropic's format and in OpenAI's:
//   node scripts/reference-chains.mjs            (prints one line per chain and the totals)
//   node scripts/reference-chains.mjs --verbose  (and each broken marker)
// Reads only; needs the built addon.
import { generateHistory } from '../fixtures/generate.mjs'
import { runChain } from '../__test__/reference-chains.mjs'

const verbose = process.argv.includes('--verbose')
const totals = {}
for (const format of ['anthropic', 'openai']) {
  let bad = 0
  let badFinal = 0
  let chains = 0
  let markers = 0
  for (const seed of [1, 2, 3])
    for (const tools of ['xml', 'native'])
      for (const keep of ['first', 'latest'])
        for (const second of ['truncation', 'smart-balanced', 'smart-aggressive']) {
          const history = generateHistory({ seed, format: tools, targetTokens: 60_000 + seed * 20_000 })
          const { checks } = await runChain(history, [`lossless-${keep}`, second], format)
          const last = checks[checks.length - 1]
          const kinds = {}
          for (const b of checks.flatMap((c) => c.bad)) kinds[b.kind] = (kinds[b.kind] ?? 0) + 1
          const n = checks.reduce((a, c) => a + c.bad.length, 0)
          console.log(
            `${format} seed ${seed} ${tools} keep:${keep} -> ${second}: ${n} broken (${JSON.stringify(kinds)}), final markers ${last.markers}, omitted ${last.omitted}`,
          )
          if (verbose) for (const c of checks) for (const b of c.bad) console.log('   ', JSON.stringify(b))
          bad += n
          badFinal += last.bad.length
          markers += checks.reduce((a, c) => a + c.markers, 0)
          chains++
        }
  // Markers over every run's output (each chain's Lossless output and its lossy one), broken ones
  // among them, and broken ones in the chains' final outputs.
  totals[format] = { chains, markers, broken: bad, brokenInFinal: badFinal }
}
console.log(JSON.stringify(totals))
