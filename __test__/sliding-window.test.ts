// Roo Code's sliding window has one cut (lib/internal/window.js `windowCut`) applied two ways: the
// destructive form removes the messages (slidingWindow, the manager's last resort, the Roo
// entries' truncation before 2026) and the non-destructive one tags them `truncationParent`
// behind a marker (the Roo entries since 2026). Model-based: on random histories (some messages
// already hidden by an earlier truncation, with its marker) and random fractions, the messages the
// non-destructive form hides are exactly those the destructive form removes from the messages the
// model is still sent, and its marker stands just before the first message kept after the first.
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'

import { slidingWindow } from '../lib/index.js'
import { truncateConversation, type ApiMessage } from '../lib/roo-2025.js'

type Message = ApiMessage & { id: number; truncationParent?: string; isTruncationMarker?: boolean; truncationId?: string }

/** A history of `n` messages, each with its id; `earlier` hides some of them behind an earlier truncation's marker. */
const history = fc
  .record({
    n: fc.integer({ min: 0, max: 40 }),
    earlier: fc.option(fc.record({ from: fc.integer({ min: 1, max: 40 }), count: fc.integer({ min: 1, max: 20 }) }), { nil: undefined }),
  })
  .map(({ n, earlier }) => {
    const messages: Message[] = Array.from({ length: n }, (_, i) => ({ id: i, role: i % 2 ? 'assistant' : 'user', content: `message ${i}` }) as Message)
    if (!earlier || earlier.from >= n) return messages
    const end = Math.min(n, earlier.from + earlier.count)
    for (let i = earlier.from; i < end; i++) messages[i] = { ...messages[i], truncationParent: 'earlier' }
    messages.splice(end, 0, { id: -1, role: 'user', content: '[Sliding window truncation]', isTruncationMarker: true, truncationId: 'earlier' } as Message)
    return messages
  })

const ids = (messages: Message[]) => messages.map((m) => m.id)
/** A fraction to remove: Roo's own (0.5), the ends, ones that round to an odd count, any from 0 to 3. */
const fraction = fc.oneof(fc.constantFrom(0, 0.5, 1 / 3, 0.75, 1, 1.5), fc.double({ min: 0, max: 3, noNaN: true }))

describe('one sliding window: the destructive and the non-destructive forms agree on the cut', () => {
  it('on random histories and fractions, the hidden messages are the removed ones, the marker before the first kept', () => {
    fc.assert(
      fc.property(history, fraction, (messages, frac) => {
        const visible = messages.filter((m) => !m.truncationParent && !m.isTruncationMarker)
        const kept = ids(truncateConversation(visible, frac, 't', { nonDestructive: false }) as Message[])
        const removed = ids(visible).filter((id) => !kept.includes(id))
        const t = truncateConversation(messages, frac, 't', { nonDestructive: true, generateId: () => 'now' })
        const out = t.messages as Message[]
        expect(ids(out.filter((m) => m.truncationParent === 'now'))).toEqual(removed)
        if (frac <= 1) {
          // The manager's slidingWindow is the same destructive cut.
          expect(ids(slidingWindow(visible, frac) as Message[])).toEqual(kept)
          expect(t.messagesRemoved).toBe(removed.length)
        }
        const marker = out.findIndex((m) => m.truncationId === 'now')
        if (removed.length === 0) {
          expect(marker).toBe(-1)
          expect(out).toBe(messages)
          return
        }
        // Just before the first message kept after the first (at the end when none is).
        const next = out.slice(marker + 1).find((m) => !m.truncationParent && !m.isTruncationMarker)
        expect(next?.id).toBe(kept[1])
        // Nothing else changed: every message is there, in order, the marker added.
        expect(ids(out.filter((_, i) => i !== marker))).toEqual(ids(messages))
      }),
      { seed: 20261127, numRuns: 1000 },
    )
  })
})
