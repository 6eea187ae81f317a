// Today's Roo Code API and January 2026's over the engine: fresh-start summaries, getEffectiveApiHistory
// and the helpers, manageContext, the positional era.
// Handlers are mocks shaped like Roo's ApiHandler; inputs are deep-compared after every call
// (__test__/roo-harness.ts).
import { describe, expect, it, vi } from 'vitest'
import { summarizeConversation, type ApiHandler, type ApiMessage, type RooToolResultBlock } from '../lib/roo-2025.js'
import * as today from '../lib/roo.js'
import * as jan2026 from '../lib/roo-2026-01.js'
import { loadFixture, itReal } from './helpers.js'
import { SUMMARY, conversation, mockHandler, guard, roleContent, quiet, tcinOptions, todayHandler } from './roo-harness.js'

describe('today: summarizeConversation with an options object (fresh start)', () => {
  it('summarizes everything since the last summary and appends one user summary; every message is tagged', async () => {
    today.configure({ defaultPrompt: 'INSTRUCTIONS', requestSystemPrompt: 'SYSTEM OF THE REQUEST' })
    const messages = guard(conversation())
    const handler = todayHandler()
    const r = await today.summarizeConversation({ messages, apiHandler: handler, systemPrompt: 'SYSTEM', taskId: 't' })
    expect(r.error).toBeUndefined()
    expect(r.summary).toBe(SUMMARY)
    expect(r.cost).toBe(0.05)
    expect(r.messages).toHaveLength(messages.length + 1)
    r.messages.slice(0, -1).forEach((m, i) => expect(m).toEqual({ ...messages[i], condenseParent: r.condenseId }))
    expect(r.messages.at(-1)).toEqual({
      role: 'user',
      content: [{ type: 'text', text: `## Conversation Summary\n${SUMMARY}` }],
      ts: 8,
      isSummary: true,
      condenseId: r.condenseId,
    })
    // The request: the configured system prompt, the messages, the instructions last as the user's, metadata as third argument.
    expect(handler.createMessage).toHaveBeenCalledWith(
      'SYSTEM OF THE REQUEST',
      [...roleContent(messages), { role: 'user', content: 'INSTRUCTIONS' }],
      undefined,
    )
    // newContextTokens: the system prompt and the summary, counted by the handler.
    expect(r.newContextTokens).toBe('SYSTEM'.length + `## Conversation Summary\n${SUMMARY}`.length)
    // What the model is sent next: the summary alone.
    expect(today.getEffectiveApiHistory(r.messages)).toEqual([r.messages.at(-1)])
  })

  it('the custom prompt is the final user message; tool blocks go as text; orphan tool calls are answered', async () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1 },
      {
        role: 'assistant',
        content: [
          { type: 'text', text: 'Reading' },
          { type: 'tool_use', id: 'a', name: 'read_file', input: { path: 'x.ts' } },
        ],
        ts: 2,
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'file body' }], ts: 3 },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'b', name: 'attempt_completion', input: { result: 'done' } }], ts: 4 },
    ])
    const handler = todayHandler()
    const r = await today.summarizeConversation({ messages, apiHandler: handler, systemPrompt: 'S', taskId: 't', customCondensingPrompt: '  Be brief.  ' })
    expect(r.error).toBeUndefined()
    const sent = handler.createMessage.mock.calls[0][1]
    expect(sent.at(-1)).toEqual({ role: 'user', content: 'Be brief.' })
    expect(sent[1].content).toEqual([
      { type: 'text', text: 'Reading' },
      { type: 'text', text: '[Tool Use: read_file]\npath: x.ts' },
    ])
    expect(sent[2].content).toEqual([{ type: 'text', text: '[Tool Result]\nfile body' }])
    expect(sent[4]).toEqual({ role: 'user', content: [{ type: 'text', text: '[Tool Result]\nContext condensation triggered. Tool execution deferred.' }] })
  })

  it("keeps <command> blocks, adds environment details on an automatic trigger only, and the host's folded file context", async () => {
    const first = { role: 'user' as const, content: 'Do it <command name="review">check the tests</command> now', ts: 1 }
    const messages = guard<ApiMessage[]>([first, ...conversation().slice(1)])
    const folded = vi.fn(async (files: string[], o: { cwd: string }) => ({
      sections: [`<system-reminder>${files.join(',')} in ${o.cwd}</system-reminder>`, '  '],
    }))
    today.configure({ foldedFileContext: folded })
    const base = {
      messages,
      apiHandler: todayHandler(),
      systemPrompt: 'S',
      taskId: 't',
      environmentDetails: '<environment_details>x</environment_details>',
      filesReadByRoo: ['a.ts'],
      cwd: '/w',
    }
    const auto = await today.summarizeConversation({ ...base, isAutomaticTrigger: true })
    const texts = (auto.messages.at(-1)!.content as Array<{ text: string }>).map((b) => b.text)
    expect(texts).toEqual([
      `## Conversation Summary\n${SUMMARY}`,
      '<system-reminder>\n## Active Workflows\nThe following directives must be maintained across all future condensings:\n<command name="review">check the tests</command>\n</system-reminder>',
      '<system-reminder>a.ts in /w</system-reminder>',
      '<environment_details>x</environment_details>',
    ])
    expect(folded).toHaveBeenCalledWith(['a.ts'], { cwd: '/w', rooIgnoreController: undefined })
    const manual = await today.summarizeConversation({ ...base, apiHandler: todayHandler(), isAutomaticTrigger: false })
    expect((manual.messages.at(-1)!.content as unknown[]).length).toBe(3)
    // A failing callback is logged; the summary stands.
    const { error } = quiet()
    today.configure({ foldedFileContext: async () => Promise.reject(new Error('no grammar')) })
    const failed = await today.summarizeConversation({ ...base, apiHandler: todayHandler() })
    expect(failed.error).toBeUndefined()
    expect(error).toHaveBeenCalledWith('[summarizeConversation] Failed to generate folded file context:', expect.any(Error))
  })

  it("errors: Roo's strings, the API failure with its details, never a throw", async () => {
    const { error } = quiet()
    expect(
      (await today.summarizeConversation({ messages: guard(conversation().slice(0, 1)), apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't' })).error,
    ).toBe('Not enough messages to condense context')
    const afterSummary = guard<ApiMessage[]>([...conversation(), { role: 'user', content: 'sum', isSummary: true, ts: 9 }])
    expect((await today.summarizeConversation({ messages: afterSummary, apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't' })).error).toBe(
      'Context was condensed recently; skipping this attempt',
    )
    const failing = {
      createMessage: () => {
        throw Object.assign(new Error('rate limited'), { status: 429 })
      },
      countTokens: async () => 1,
    } as unknown as ApiHandler
    const r = await today.summarizeConversation({ messages: guard(conversation()), apiHandler: failing, systemPrompt: 'S', taskId: 't' })
    expect(r.error).toBe('Condensing API call failed: rate limited')
    expect(r.errorDetails).toBe('Error: rate limited\n\nHTTP Status: 429')
    expect(error).toHaveBeenCalledWith('Error during condensing API call:', expect.any(Error))
  })

  itReal("summary is the model's text; the files list is an option", async () => {
    const input = guard(loadFixture('synthetic-2-heavy-read').slice(0, 12))
    const plain = await today.summarizeConversation({ messages: input, apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't' })
    expect(plain.summary).toBe(SUMMARY)
    const listed = await today.summarizeConversation({ messages: input, apiHandler: todayHandler(), systemPrompt: 'S', taskId: 't', filesList: true })
    const blocks = listed.messages.at(-1)!.content as Array<{ text: string }>
    expect(blocks[1].text).toMatch(/^---\nFiles in the summarized part of the conversation \(from the history itself\):\n- Read: package\.json/)
    // The same option on the positional API appends it to the summary text.
    const old = await summarizeConversation(input, mockHandler(), 'S', 't', 1e9, false, undefined, undefined, { filesList: true })
    expect(old.summary.startsWith(`${SUMMARY}\n\n---\nFiles in the summarized part`)).toBe(true)
  })
})

describe('today: getEffectiveApiHistory and the helpers', () => {
  it('getMessagesSinceLastSummary: a user summary starts it; an assistant summary (older Roo) is preceded by the task, in every entry', () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1 },
      { role: 'assistant', content: 'Old-style summary', ts: 2, isSummary: true },
      { role: 'user', content: 'Fresh summary', ts: 3, isSummary: true },
      { role: 'assistant', content: 'Next', ts: 4 },
    ])
    expect(today.getMessagesSinceLastSummary(messages)).toEqual(messages.slice(2))
    expect(today.getMessagesSinceLastSummary(messages.slice(0, 2))).toEqual(messages.slice(0, 2))
    expect(jan2026.getMessagesSinceLastSummary(messages.slice(0, 2))).toEqual(messages.slice(0, 2))
  })

  it('from the last fresh-start summary on, without tool_results whose tool_use is gone', () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1, condenseParent: 'c' },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'old', name: 'read_file', input: {} }], ts: 2, condenseParent: 'c' },
      { role: 'user', content: [{ type: 'text', text: 'summary' }], ts: 3, isSummary: true, condenseId: 'c' },
      {
        role: 'user',
        content: [
          { type: 'tool_result', tool_use_id: 'old', content: 'x' },
          { type: 'text', text: 'and more' },
        ],
        ts: 4,
      },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'old', content: 'y' }], ts: 5 },
      { role: 'assistant', content: [{ type: 'tool_use', id: 'new', name: 'read_file', input: {} }], ts: 6 },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'new', content: 'z' }], ts: 7 },
    ])
    const sent = today.getEffectiveApiHistory(messages)
    expect(sent).toEqual([messages[2], { ...messages[3], content: [{ type: 'text', text: 'and more' }] }, messages[5], messages[6]])
    expect(sent[0]).toBe(messages[2])
    expect(sent[3]).toBe(messages[6])
  })

  it('tool blocks as text, command blocks, synthetic results', () => {
    expect(today.toolUseToText({ type: 'tool_use', id: 'i', name: 'write', input: { path: 'a', opts: { x: 1 } } })).toBe(
      '[Tool Use: write]\npath: a\nopts: {\n  "x": 1\n}',
    )
    expect(
      today.toolResultToText({
        type: 'tool_result',
        tool_use_id: 'i',
        is_error: true,
        content: [
          { type: 'text', text: 'bad' },
          { type: 'image', source: {} },
        ],
      } as unknown as RooToolResultBlock),
    ).toBe('[Tool Result (Error)]\nbad\n[Image]')
    expect(
      today.extractCommandBlocks({
        role: 'user',
        content: [
          { type: 'text', text: 'a <command>x</command>' },
          { type: 'text', text: '<command n="2">y</command>' },
        ],
      }),
    ).toBe('<command>x</command>\n<command n="2">y</command>')
    expect(today.extractCommandBlocks({ role: 'user', content: 'none' })).toBe('')
    const paired = guard<ApiMessage[]>([
      { role: 'assistant', content: [{ type: 'tool_use', id: 'a', name: 'n', input: {} }] },
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 'a', content: 'r' }] },
    ])
    expect(today.injectSyntheticToolResults(paired)).toBe(paired)
  })
})

describe('today: manageContext and willManageContext', () => {
  const opts = (over: Record<string, unknown> = {}) => ({
    messages: guard(conversation()),
    totalTokens: 1000,
    contextWindow: 100_000,
    maxTokens: 10_000,
    apiHandler: todayHandler(),
    autoCondenseContext: true,
    autoCondenseContextPercent: 100,
    systemPrompt: 'SYSTEM',
    taskId: 'task-1',
    profileThresholds: {},
    currentProfileId: 'default',
    ...over,
  })

  it('condenses with the fresh-start summary from the threshold on; nothing below it', async () => {
    const below = await today.manageContext(opts())
    expect(below).toEqual({ messages: below.messages, summary: '', cost: 0, prevContextTokens: 1000 + 'Tell me more'.length, error: undefined })
    const o = opts({ totalTokens: 60_000, autoCondenseContextPercent: 50 })
    const r = await today.manageContext(o)
    expect(r.error).toBeUndefined()
    expect(r.messages.at(-1)!.isSummary).toBe(true)
    expect(r.messages.at(-1)!.role).toBe('user')
    expect(r.prevContextTokens).toBe(60_012)
    expect(today.willManageContext({ ...o, lastMessageTokens: 12 })).toBe(true)
    expect(today.willManageContext({ ...opts(), lastMessageTokens: 12 })).toBe(false)
  })

  it('past the allowed size with a failed summary: the non-destructive window, its context counted with the system prompt', async () => {
    const r = await today.manageContext(opts({ totalTokens: 85_000, apiHandler: todayHandler({ text: '' }) }))
    expect(r.error).toBe('Failed to condense context')
    expect(r.messagesRemoved).toBe(2)
    expect(r.messages.filter((m) => m.truncationParent === r.truncationId)).toHaveLength(2)
    // 'SYSTEM' and the messages neither hidden nor the marker: Hello, I'm good, What's new?, Not much, Tell me more.
    expect(r.newContextTokensAfterTruncation).toBe(6 + 5 + 8 + 11 + 8 + 12)
  })
})

describe("context-condense/roo-2026-01: January 2026's positional API", () => {
  it('keeps the tool_use a kept tool_result needs inside an array summary, non-destructively', async () => {
    const messages = guard<ApiMessage[]>([
      { role: 'user', content: 'Task', ts: 1 },
      { role: 'assistant', content: 'a', ts: 2 },
      { role: 'user', content: 'b', ts: 3 },
      {
        role: 'assistant',
        content: [
          { type: 'reasoning', text: 'think' },
          { type: 'tool_use', id: 't1', name: 'read_file', input: {} },
        ],
        ts: 4,
      } as unknown as ApiMessage,
      { role: 'user', content: [{ type: 'tool_result', tool_use_id: 't1', content: 'body' }], ts: 5 },
      { role: 'assistant', content: 'c', ts: 6 },
      { role: 'user', content: 'd', ts: 7 },
    ])
    const r = await jan2026.summarizeConversation(messages, mockHandler(), 'S', 't', 1e9)
    expect(r.error).toBeUndefined()
    const summary = r.messages.find((m) => m.isSummary)!
    expect(summary.role).toBe('assistant')
    expect(summary.ts).toBe(4)
    expect(summary.content).toEqual([
      { type: 'reasoning', text: 'Condensing conversation context. The summary below captures the key information from the prior conversation.' },
      { type: 'reasoning', text: 'think' },
      { type: 'text', text: SUMMARY },
      { type: 'tool_use', id: 't1', name: 'read_file', input: {} },
    ])
    expect(jan2026.getEffectiveApiHistory(r.messages)).toEqual([messages[0], summary, ...messages.slice(4)])
    expect(jan2026.getKeepMessagesWithToolBlocks(messages, 3).toolUseBlocksToPreserve).toEqual([{ type: 'tool_use', id: 't1', name: 'read_file', input: {} }])
  })

  it('its manageContext asks for the positional summary; a positional call on context-condense/roo is a fresh start', async () => {
    const seam = vi.fn(async () => ({ messages: [], summary: 's', cost: 0, newContextTokens: 1 }))
    jan2026.configure({ summarizeConversation: seam })
    const o = { ...tcinOptions({ totalTokens: 85_000 }) }
    await jan2026.manageContext(o)
    expect(seam).toHaveBeenCalledWith(o.messages, o.apiHandler, 'SYSTEM', 'task-1', 85_012, true, undefined)
    // A call's own options go through the seam after Roo's arguments (and only then).
    const controller = new AbortController()
    await jan2026.manageContext({ ...o, timeoutMs: 5000, signal: controller.signal })
    expect(seam).toHaveBeenLastCalledWith(
      o.messages,
      o.apiHandler,
      'SYSTEM',
      'task-1',
      85_012,
      true,
      undefined,
      expect.objectContaining({ timeoutMs: 5000, signal: controller.signal }),
    )
    const fresh = await today.summarizeConversation(guard(conversation()), mockHandler(), 'S', 't', 10_000)
    expect(fresh.messages.at(-1)!.role).toBe('user')
    // That call counts as its Roo did: output tokens and the system prompt, under prevContextTokens.
    expect(fresh.newContextTokens).toBe(50 + 1)
    expect((await today.summarizeConversation(guard(conversation()), mockHandler(), 'S', 't', 51)).error).toBe(
      'Context size increased during condensing; skipping this attempt',
    )
  })
})

// ---------------------------------------------------------------------------------------------
// Host calls bounded, bad numbers refused.
