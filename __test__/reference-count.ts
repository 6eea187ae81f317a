// The token count of a history as the npm tiktoken package gives it (what Roo Code uses), walked
// over the messages independently of the engine: the reference the suites compare countTokens to.
import { get_encoding } from 'tiktoken'

import type { ApiMessage } from '../lib/index.js'

export function referenceCount(messages: ApiMessage[], encoding: 'o200k_base' | 'cl100k_base'): number {
  const enc = get_encoding(encoding)
  let total = 0
  const text = (t: string) => {
    total += enc.encode_ordinary(t).length
  }
  const block = (b: Record<string, unknown>) => {
    if (b.type === 'text' && typeof b.text === 'string') text(b.text)
    else if (b.type === 'thinking' && typeof b.thinking === 'string') text(b.thinking)
    else if (b.type === 'tool_use') text(String(b.name ?? '') + JSON.stringify(b.input))
    else if (b.type === 'tool_result') {
      if (typeof b.content === 'string') text(b.content)
      else if (Array.isArray(b.content)) b.content.forEach(block)
    } else if (b.type === 'image') {
      const data = (b.source as { data?: unknown } | undefined)?.data
      total += typeof data === 'string' ? Math.ceil(Math.sqrt(data.length)) : 300
    }
  }
  for (const m of messages) {
    if (typeof m.content === 'string') text(m.content)
    else m.content.forEach((b) => block(b as Record<string, unknown>))
  }
  enc.free()
  return total
}
