import { describe, expect, it } from 'vitest'
import { get_encoding } from 'tiktoken'

import { countTokens, countTokensAsync, type ApiMessage } from '../lib/index.js'
import { FIXTURES, HAVE_PROBES, itProbes, loadFixture, itReal } from './helpers.js'
import { referenceCount } from './reference-count.js'
// The raw binding's own walk over messages, to check the JavaScript walk against it.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const native = require('../index.js') as { countMessages(m: unknown, e?: string): number }

describe('countTokens', () => {
  itReal('agrees to the token with the npm tiktoken package on every real history, in both encodings', () => {
    for (const name of FIXTURES) {
      const h = loadFixture(name)
      expect(countTokens(h)).toBe(referenceCount(h, 'o200k_base'))
      expect(countTokens(h, { encoding: 'cl100k_base' })).toBe(referenceCount(h, 'cl100k_base'))
    }
  })

  ;(HAVE_PROBES ? itReal : itProbes)('matches the engine’s own walk over messages (one definition in JS and Rust; needs the probes build)', () => {
    for (const name of FIXTURES) {
      const h = loadFixture(name)
      expect(countTokens(h)).toBe(native.countMessages(h))
    }
    const mixed: ApiMessage[] = [
      { role: 'user', content: 'plain' },
      {
        role: 'assistant',
        content: [
          { type: 'thinking', thinking: 'hmm', signature: 's' },
          { type: 'tool_use', id: 't', name: 'read_file', input: { path: 'a.ts', n: 1.5, deep: { x: [1, 'é'] } } },
        ],
      },
      {
        role: 'user',
        content: [
          {
            type: 'tool_result',
            tool_use_id: 't',
            content: [
              { type: 'text', text: 'ok' },
              { type: 'image', source: { type: 'base64', data: 'QUJD' } },
            ],
          },
          { type: 'image', source: { type: 'url', url: 'http://x' } },
          { type: 'redacted_thinking', data: 'zzz' },
        ],
      },
    ]
    expect(countTokens(mixed)).toBe(native.countMessages(mixed))
    expect(countTokens(mixed)).toBe(referenceCount(mixed, 'o200k_base'))
  })

  it('treats special tokens as plain text and counts strings', () => {
    expect(countTokens('<|endoftext|>')).toBeGreaterThan(1)
    expect(countTokens('')).toBe(0)
  })

  itReal('has an async variant with the same answer', async () => {
    const h = loadFixture('natural-mini-uncondensed')
    expect(await countTokensAsync(h)).toBe(countTokens(h))
    expect(await countTokensAsync('hello world', { encoding: 'cl100k_base' })).toBe(countTokens('hello world', { encoding: 'cl100k_base' }))
  })

  it('rejects bad input with the place named', () => {
    expect(() => countTokens(42 as never)).toThrow(/^countTokens: input: expected a string or an array of messages, got number 42$/)
    expect(() => countTokens([null] as never)).toThrow(/^countTokens: input\[0\]: expected a message object, got null$/)
    expect(() => countTokens('x', { encoding: 'gpt2' as never })).toThrow(/unknown encoding "gpt2"/)
  })
})

describe('countTokens on one very long pre-token (counted by the linear engine)', () => {
  /** `n` pseudo-random picks from `alphabet` (xorshift, seeded). */
  const random = (alphabet: string[], n: number, seed: number) => {
    let x = seed >>> 0 || 1
    const out: string[] = []
    for (let i = 0; i < n; i++) {
      x ^= x << 13
      x >>>= 0
      x ^= x >>> 17
      x ^= x << 5
      x >>>= 0
      out.push(alphabet[x % alphabet.length])
    }
    return out.join('')
  }
  const letters = 'abcdefghijklmnopqrstuvwxyz'.split('')
  // Just over the 64 KiB the engine switches at: npm tiktoken itself takes about 5 s on each
  // (its merge is quadratic). The Rust tests cover every kind of long run against tiktoken-rs.
  const cases: [string, string][] = [
    ['random letters', random(letters, 67_000, 1)],
    ['whitespace then a word', random([' ', '\n', '\t'], 67_000, 4) + 'word'],
    ['CJK inside code', `const a = 1;\n${random(['日', '本', '語', '文', '字'], 22_500, 2)}\n// done 123\n`],
  ]
  it('agrees to the token with the npm tiktoken package, in both encodings', () => {
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const enc = get_encoding(encoding)
      for (const [what, text] of cases) {
        expect(countTokens(text, { encoding }), `${encoding}: ${what}`).toBe(enc.encode_ordinary(text).length)
      }
      enc.free()
    }
  }, 120_000)
})
