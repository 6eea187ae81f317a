// Type-level check (tsc --noEmit -p tsconfig.json, npm test's test:types): context-condense/ai-sdk's
// types take the AI SDK's own (ai@6) and give back what it takes — ModelMessage[] in and out,
// createPrepareStep's function as generateText's and streamText's `prepareStep`, the SDK's
// `generateText` as the helper's. Not run: compiled only.
import { generateText, type LanguageModel, type ModelMessage, streamText } from 'ai'
import { condense, createPrepareStep, expandReferences, toEngine } from '../lib/ai-sdk'

export async function typesFit(messages: ModelMessage[], model: LanguageModel): Promise<ModelMessage[][]> {
  const condensed: ModelMessage[] = (await condense(messages, { provider: 'lossless' })).messages
  const expanded: ModelMessage[] = expandReferences(condensed)
  const restored: ModelMessage[] = toEngine(messages).restore(toEngine(messages).messages)
  const prepareStep = createPrepareStep({ contextWindow: 200_000, summarizeModel: model, generateText, anthropicCacheControl: true })
  await generateText({ model, messages, prepareStep })
  streamText({ model, messages, prepareStep })
  await prepareStep.close()
  return [condensed, expanded, restored]
}
