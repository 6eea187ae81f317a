// Types of __test__/reference-chains.mjs (the chain runner and the marker check), for the TypeScript tests.
export interface BrokenMarker {
  message: number
  kind: 'malformed' | 'unexpandable' | 'wrong'
  marker: string
  bytes?: string
  error?: string
}
export interface MarkerCheck {
  markers: number
  expanded: number
  omitted: number
  bad: BrokenMarker[]
}
export type ChainFormat = 'anthropic' | 'openai'
export interface ChainStep {
  name: string
  prevContextTokens?: number
}
export function textsOf(message: unknown): string[]
export function checkMarkers(histories: unknown[] | unknown[][], output: unknown[], format?: ChainFormat): MarkerCheck
export function fakeSummarize(req: { messages?: unknown[] }): Promise<{ text: string; cost: number }>
export function runOptions(name: string): Record<string, unknown>
export function runChain(
  anthropic: unknown[],
  steps: Array<string | ChainStep>,
  format?: ChainFormat,
  onRun?: (step: ChainStep, input: unknown[], result: any, check: MarkerCheck, snapshot: unknown[]) => void | Promise<void>,
): Promise<{ original: unknown[]; final: unknown[]; checks: MarkerCheck[] }>
