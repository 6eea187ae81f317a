// An agent built on the Vercel AI SDK (`generateText` with tools, several steps) whose history is
// condensed before each step by context-condense/ai-sdk's `createPrepareStep`. It runs offline:
// the task is a generated coding session (fixtures/generate.mjs, converted to the SDK's messages)
// and the model is the SDK's own mock (`ai/test`), which reads two files and then answers.
//   node examples/ai-sdk-agent.mjs [tokens] [contextWindow]
// (`ai` is a devDependency of this repository; a host installs it itself.)
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import { generateText, jsonSchema, stepCountIs, tool } from 'ai'
import { MockLanguageModelV3 } from 'ai/test'
import { generateHistory } from '../fixtures/generate.mjs'

const { createPrepareStep, fromEngine } = createRequire(import.meta.url)('../lib/ai-sdk.js')

const usage = (input, output) => ({
  inputTokens: { total: input, noCache: input, cacheRead: undefined, cacheWrite: undefined },
  outputTokens: { total: output, text: output, reasoning: undefined },
})

/** The generated task as AI SDK messages, with a last request from the user. */
export function agentTask(tokens, seed = 11) {
  const history = fromEngine(generateHistory({ seed, format: 'native', targetTokens: tokens }))
  const files = []
  for (const m of history)
    if (m.role === 'assistant' && Array.isArray(m.content))
      for (const p of m.content) if (p.type === 'tool-call' && p.toolName === 'read_file' && !files.includes(p.input.path)) files.push(p.input.path)
  const request = `Before we finish: read ${files[0]} and ${files[files.length - 1]} again and tell me whether the fix still holds.`
  history.push({ role: 'user', content: [{ type: 'text', text: request }] })
  return { messages: history, files: [files[0], files[files.length - 1]], request }
}

/** The text of a file as the read_file tool answers it (numbered lines, made up from its path). */
export function fileText(path) {
  return Array.from({ length: 40 }, (_, i) => `${i + 1} | // ${path}: line ${i + 1} of the file as it is now`).join('\n')
}

/**
 * Runs the agent over the generated task. `helper`: createPrepareStep's options beside
 * contextWindow; `onPrompt(prompt, step)` sees what the model receives at each step, and
 * `onPrepared(messages, step)` the messages prepareStep handed the SDK.
 */
export async function runAgent({ tokens = 300_000, contextWindow = 128_000, helper = {}, onPrompt, onPrepared } = {}) {
  const { messages, files, request } = agentTask(tokens)
  let step = 0
  const model = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const at = step++
      if (onPrompt) onPrompt(options.prompt, at)
      if (at < files.length) {
        const call = { type: 'tool-call', toolCallId: `call_${at}`, toolName: 'read_file', input: JSON.stringify({ path: files[at] }) }
        return { content: [call], finishReason: { unified: 'tool-calls', raw: 'tool_use' }, usage: usage(1000, 20), warnings: [] }
      }
      return {
        content: [{ type: 'text', text: 'Both files read again: the fix holds.' }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(1000, 10),
        warnings: [],
      }
    },
  })
  // The model that writes summaries when the provider asks for one (Smart's batch passes, Native).
  const summarizer = new MockLanguageModelV3({
    doGenerate: async (options) => {
      const asked = JSON.stringify(options.prompt).length
      return {
        content: [{ type: 'text', text: `Summary of the work so far (${asked} characters were summarized).` }],
        finishReason: { unified: 'stop', raw: 'stop' },
        usage: usage(asked, 20),
        warnings: [],
      }
    },
  })
  // A host's own `summarize` callback replaces the model.
  const summaries = helper.summarize ? {} : { summarizeModel: summarizer, generateText }
  const prepareStep = createPrepareStep({ contextWindow, ...summaries, ...helper })
  const tools = {
    read_file: tool({
      description: 'Reads a file of the project',
      inputSchema: jsonSchema({ type: 'object', properties: { path: { type: 'string' } }, required: ['path'] }),
      execute: async ({ path }) => fileText(path),
    }),
  }
  try {
    const result = await generateText({
      model,
      system: 'You are a coding agent working in /home/dev/project.',
      messages,
      tools,
      stopWhen: stepCountIs(files.length + 1),
      prepareStep: async (options) => {
        const prepared = await prepareStep(options)
        if (onPrepared) onPrepared(prepared ? prepared.messages : options.messages, options.stepNumber, options.messages)
        return prepared
      },
    })
    return { result, steps: prepareStep.steps, messages, files, request, summaryCalls: summarizer.doGenerateCalls.length }
  } finally {
    await prepareStep.close()
  }
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const tokens = Number(process.argv[2] ?? 300_000)
  const contextWindow = Number(process.argv[3] ?? 128_000)
  const { result, steps, messages, summaryCalls } = await runAgent({ tokens, contextWindow })
  console.log(
    `Task: ${messages.length} AI SDK messages of a generated session (~${tokens.toLocaleString('en-US')} tokens), window ${contextWindow.toLocaleString('en-US')}`,
  )
  for (const s of steps) {
    const what = s.condensed
      ? `condensed by ${s.provider}: ${s.prevContextTokens} -> ${s.newContextTokens} tokens`
      : `left as is (${s.skipped ?? s.error ?? 'under the threshold'})`
    console.log(`  step ${s.stepNumber}: ${s.messagesIn} messages in, ${s.messagesOut} to the model, ${what}`)
  }
  console.log(`The summary model was asked ${summaryCalls} time(s) (through generateText)`)
  console.log(`The model answered: ${result.text}`)
}
