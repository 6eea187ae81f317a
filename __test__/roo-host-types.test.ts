// The Roo entries' types against the host's own types, as Roo Code's tree has them: Anthropic's SDK
// message and block params (interfaces without index signatures, @anthropic-ai/sdk 0.37, restated
// below as the SDK declares them) and Roo's ApiMessage and ApiHandler. A Roo maintainer imports the
// entries with a typed static import; `tsc --noEmit -p tsconfig.json` (npm run test:types) checks
// this file, so every call here must type-check with the caller's types going in and coming back
// out unchanged. The calls also run, against a handler that answers at once.
import { describe, expect, it } from 'vitest'

import * as roo2025 from '../lib/roo-2025.js'
import * as jan2026 from '../lib/roo-2026-01.js'
import * as today from '../lib/roo.js'

// ---------------------------------------------------------------------------------------------
// The host's types, as @anthropic-ai/sdk 0.37 (resources/messages/messages.d.ts) declares them.

interface CacheControlEphemeral {
  type: 'ephemeral'
}
interface TextBlockParam {
  text: string
  type: 'text'
  cache_control?: CacheControlEphemeral | null
  citations?: Array<{ cited_text: string; type: 'char_location' }> | null
}
interface ImageBlockParam {
  source: { data: string; media_type: 'image/jpeg' | 'image/png' | 'image/gif' | 'image/webp'; type: 'base64' }
  type: 'image'
  cache_control?: CacheControlEphemeral | null
}
interface ToolUseBlockParam {
  id: string
  input: unknown
  name: string
  type: 'tool_use'
  cache_control?: CacheControlEphemeral | null
}
interface ToolResultBlockParam {
  tool_use_id: string
  type: 'tool_result'
  cache_control?: CacheControlEphemeral | null
  content?: string | Array<TextBlockParam | ImageBlockParam>
  is_error?: boolean
}
interface ThinkingBlockParam {
  signature: string
  thinking: string
  type: 'thinking'
}
type ContentBlockParam = TextBlockParam | ImageBlockParam | ToolUseBlockParam | ToolResultBlockParam | ThinkingBlockParam
interface MessageParam {
  content: string | Array<ContentBlockParam>
  role: 'user' | 'assistant'
}

// Roo Code's (src/core/task-persistence/apiMessages.ts, src/api/index.ts, src/api/transform/stream.ts).
type ApiMessage = MessageParam & {
  ts?: number
  isSummary?: boolean
  id?: string
  type?: 'reasoning'
  reasoning_details?: unknown[]
  condenseId?: string
  condenseParent?: string
  truncationId?: string
  truncationParent?: string
  isTruncationMarker?: boolean
}
interface ApiStreamTextChunk {
  type: 'text'
  text: string
}
interface ApiStreamUsageChunk {
  type: 'usage'
  inputTokens: number
  outputTokens: number
  totalCost?: number
}
interface ApiStreamReasoningChunk {
  type: 'reasoning'
  text: string
  signature?: string
}
interface ApiStreamToolCallChunk {
  type: 'tool_call'
  id: string
  name: string
  arguments: string
}
type ApiStream = AsyncGenerator<ApiStreamTextChunk | ApiStreamUsageChunk | ApiStreamReasoningChunk | ApiStreamToolCallChunk>
interface ApiHandlerCreateMessageMetadata {
  taskId: string
  mode?: string
  tools?: Array<{ type: 'function'; function: { name: string } }>
}
interface ApiHandler {
  createMessage(systemPrompt: string, messages: MessageParam[], metadata?: ApiHandlerCreateMessageMetadata): ApiStream
  getModel(): { id: string; info: { supportsImages?: boolean } }
  countTokens(content: Array<ContentBlockParam>): Promise<number>
}
interface RooIgnoreController {
  validateAccess(path: string): boolean
}

// ---------------------------------------------------------------------------------------------
// The host's objects.

class Handler implements ApiHandler {
  requests: MessageParam[][] = []
  async *createMessage(_systemPrompt: string, messages: MessageParam[]): ApiStream {
    this.requests.push(messages)
    yield { type: 'reasoning', text: 'thinking' }
    yield { type: 'text', text: 'The summary.' }
    yield { type: 'usage', inputTokens: 100, outputTokens: 5, totalCost: 0.01 }
  }
  getModel() {
    return { id: 'model', info: { supportsImages: false } }
  }
  async countTokens(content: ContentBlockParam[]): Promise<number> {
    return content.reduce((n, b) => n + (b.type === 'text' ? Math.ceil(b.text.length / 4) : 10), 0)
  }
}

/** Roo's maybeRemoveImageBlocks, as typed in Roo. */
function maybeRemoveImageBlocks(messages: ApiMessage[], apiHandler: ApiHandler): ApiMessage[] {
  const supportsImages = apiHandler.getModel().info.supportsImages
  return messages.map((m) =>
    Array.isArray(m.content) && !supportsImages
      ? { ...m, content: m.content.map((b): ContentBlockParam => (b.type === 'image' ? { type: 'text', text: '[image]' } : b)) }
      : m,
  )
}

const text = (t: string): TextBlockParam => ({ type: 'text', text: t, cache_control: { type: 'ephemeral' } })
const history = (): ApiMessage[] => [
  { role: 'user', content: [text('<task>Fix the parser</task>')], ts: 1 },
  { role: 'assistant', content: [text('Reading it.'), { type: 'tool_use', id: 't1', name: 'read_file', input: { path: 'a.ts' } }], ts: 2 },
  {
    role: 'user',
    content: [
      { type: 'tool_result', tool_use_id: 't1', content: [text('export const a = 1\n'.repeat(40))] },
      { type: 'image', source: { type: 'base64', media_type: 'image/png', data: 'AAAA' } },
    ],
    ts: 3,
  },
  { role: 'assistant', content: 'Found it.', ts: 4 },
  { role: 'user', content: [text('Go on')], ts: 5 },
  { role: 'assistant', content: [{ type: 'thinking', thinking: 'hm', signature: 's' }, text('Done.')], ts: 6 },
  { role: 'user', content: 'Thanks', ts: 7 },
]
const management = {
  totalTokens: 90_000,
  contextWindow: 100_000,
  maxTokens: 8000,
  autoCondenseContext: true,
  autoCondenseContextPercent: 50,
  systemPrompt: 'SYSTEM',
  taskId: 'task',
  profileThresholds: {},
  currentProfileId: 'default',
}

describe("the Roo entries take and give back the host's own types", () => {
  it("today's: summarizeConversation, manageContext, the sliding window and the helpers", async () => {
    const handler = new Handler()
    const metadata: ApiHandlerCreateMessageMetadata = { taskId: 'task', tools: [{ type: 'function', function: { name: 'read_file' } }] }
    const controller: RooIgnoreController = { validateAccess: () => true }
    const previous = today.configure({
      ...today.configuration(),
      prepareMessages: (messages: ApiMessage[], apiHandler: ApiHandler) => maybeRemoveImageBlocks(messages, apiHandler),
      telemetry: {
        captureContextCondensed: (taskId, isAutomaticTrigger, usedCustomPrompt) => void [taskId.length, isAutomaticTrigger, usedCustomPrompt],
        captureSlidingWindowTruncation: (taskId) => void taskId.length,
      },
      outlineFile: async (path: string, rooIgnoreController?: RooIgnoreController) =>
        rooIgnoreController?.validateAccess(path) ? `outline of ${path}` : undefined,
      summarizeConversation: (options) => today.summarizeConversation(options),
    })
    try {
      const r = await today.summarizeConversation({
        messages: history(),
        apiHandler: handler,
        systemPrompt: 'SYSTEM',
        taskId: 'task',
        metadata,
        rooIgnoreController: controller,
      })
      const stored: ApiMessage[] = r.messages
      expect(r.error).toBeUndefined()
      expect(stored.at(-1)?.isSummary).toBe(true)
      // The image went through the host's image cleaning.
      expect(JSON.stringify(handler.requests[0])).toContain('[image]')
      const sent: MessageParam[] = today.getEffectiveApiHistory(stored)
      expect(sent).toHaveLength(1)

      const m = await today.manageContext({ ...management, messages: history(), apiHandler: handler, metadata, rooIgnoreController: controller })
      const managed: ApiMessage[] = m.messages
      expect(managed.some((x) => x.isSummary)).toBe(true)

      const cut = today.truncateConversation(history(), 0.5, 'task')
      const kept: ApiMessage[] = cut.messages
      expect(cut.messagesRemoved).toBe(2)
      expect(kept.filter((x) => x.truncationParent === cut.truncationId)).toHaveLength(2)
      const restored: ApiMessage[] = today.cleanupAfterTruncation(kept.filter((x) => !x.isTruncationMarker))
      expect(restored.some((x) => x.truncationParent)).toBe(false)

      const blocks: ContentBlockParam[] = [text('hello')]
      expect(await today.estimateTokenCount(blocks, handler)).toBe(2)
      const use: ToolUseBlockParam = { type: 'tool_use', id: 'x', name: 'read_file', input: { path: 'a' } }
      expect(today.toolUseToText(use)).toBe('[Tool Use: read_file]\npath: a')
      const result: ToolResultBlockParam = { type: 'tool_result', tool_use_id: 'x', content: [text('ok')] }
      expect(today.toolResultToText(result)).toBe('[Tool Result]\nok')
      const asText: ApiMessage[] = today.transformMessagesForCondensing(history())
      expect(asText[1].content).toEqual([text('Reading it.'), { type: 'text', text: '[Tool Use: read_file]\npath: a.ts' }])
      const answered: ApiMessage[] = today.injectSyntheticToolResults(history().slice(0, 2))
      expect(answered).toHaveLength(3)
      expect(today.extractCommandBlocks(history()[0])).toBe('')
      const since: ApiMessage[] = today.getMessagesSinceLastSummary(stored)
      expect(since).toHaveLength(1)
      expect(today.willManageContext({ ...management, autoCondenseContext: false, lastMessageTokens: 10 })).toBe(true)
      const folded = await today.generateFoldedFileContext(['/w/a.ts'], {
        cwd: '/w',
        rooIgnoreController: controller,
        outlineFile: async (path: string, c?: RooIgnoreController) => (c?.validateAccess(path) ? 'export const a' : undefined),
      })
      expect(folded.filesProcessed).toBe(1)
    } finally {
      today.configure(previous)
    }
  })

  it("January 2026's: positional summarizeConversation, manageContext, getKeepMessagesWithToolBlocks", async () => {
    const handler = new Handler()
    const previous = jan2026.configure({
      ...jan2026.configuration(),
      summarizeConversation: (...args) => jan2026.summarizeConversation(...args),
    })
    try {
      const r = await jan2026.summarizeConversation(history(), handler, 'SYSTEM', 'task', 100_000)
      const stored: ApiMessage[] = r.messages
      expect(r.error).toBeUndefined()
      expect(stored.some((x) => x.isSummary)).toBe(true)
      const m = await jan2026.manageContext({ ...management, messages: history(), apiHandler: handler })
      const managed: ApiMessage[] = m.messages
      expect(managed.some((x) => x.isSummary)).toBe(true)
      // The manager's policy, by name or in its object form; its report typed as the manager's.
      const withPolicy = await jan2026.manageContext({
        ...management,
        messages: history(),
        apiHandler: handler,
        policy: { name: 'cache-aware-strict', cache: 'openai' },
      })
      const policyManaged: ApiMessage[] = withPolicy.messages
      const steps: string[] | undefined = withPolicy.policy?.steps.map((s) => `${s.role}: ${s.why}`)
      expect(withPolicy.error).toBeUndefined()
      expect(policyManaged.length + (steps?.length ?? 0)).toBeGreaterThan(0)
      jan2026.configure({ ...jan2026.configuration(), policy: 'cache-aware' })
      expect(jan2026.configuration().policy).toBe('cache-aware')
      const keep = jan2026.getKeepMessagesWithToolBlocks(history().slice(0, 3), 1)
      const kept: ApiMessage[] = keep.keepMessages
      const uses: ToolUseBlockParam[] = keep.toolUseBlocksToPreserve
      expect(kept).toHaveLength(1)
      expect(uses.map((u) => u.id)).toEqual(['t1'])
    } finally {
      jan2026.configure(previous)
    }
  })

  it("2025's: positional summarizeConversation with a condensing handler, truncateConversationIfNeeded", async () => {
    const handler = new Handler()
    const previous = roo2025.configure({
      ...roo2025.configuration(),
      summarizeConversation: (...args) => roo2025.summarizeConversation(...args),
    })
    try {
      const r = await roo2025.summarizeConversation(history(), handler, 'SYSTEM', 'task', 100_000, false, undefined, handler)
      const stored: ApiMessage[] = r.messages
      expect(r.error).toBeUndefined()
      expect(stored.some((x) => x.isSummary)).toBe(true)
      const withPolicy = await roo2025.truncateConversationIfNeeded({ ...management, messages: history(), apiHandler: handler, policy: 'cache-aware' })
      const policyManaged: ApiMessage[] = withPolicy.messages
      expect(withPolicy.error).toBeUndefined()
      expect(policyManaged.length).toBeGreaterThan(0)
      const t = await roo2025.truncateConversationIfNeeded({ ...management, messages: history(), apiHandler: handler, condensingApiHandler: handler })
      const managed: ApiMessage[] = t.messages
      expect(managed.some((x) => x.isSummary)).toBe(true)
      const cut: ApiMessage[] = roo2025.truncateConversation(history(), 0.5, 'task')
      expect(cut).toHaveLength(5)
    } finally {
      roo2025.configure(previous)
    }
  })
})
