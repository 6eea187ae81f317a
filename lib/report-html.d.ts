// Types of lib/report-html.js: the visual condensation report (one self-contained HTML page).
import type { ApiMessage, CondenseOptions, CondenseResult, Encoding, OperationMetrics, SummarizeCallback } from './index'

/** The history after one pass (cumulative); the last stage is the result. */
export interface ReportStage {
  /** The pass's id in `metrics.passes` (undefined: the whole condensation at once). */
  id?: string
  name: string
  messages: ApiMessage[]
}

export interface TraceResult {
  /** What `condense(messages, options)` resolved to. */
  result: CondenseResult
  /** The history after each pass; null when the passes could not be told apart. */
  stages: ReportStage[] | null
  /** Whether `stages` are exact (else the report infers which pass did what). */
  traced: boolean
  /** Why not traced. */
  note?: string
}

/**
 * Condenses and records the history after each pass. For Smart, each pass's state comes from
 * running the passes up to it (a summarize callback is asked each request once: its answers are
 * reused); for the other providers their single pass is the result. `condense` defaults to the
 * library's. Rejects as `condense` does.
 */
export function traceCondense(
  messages: ApiMessage[],
  options: CondenseOptions,
  hooks?: { condense?: (messages: ApiMessage[], options: CondenseOptions) => Promise<CondenseResult> },
): Promise<TraceResult>

export interface ReportOptions {
  /** @default "Condensation report" */
  title?: string
  /** Where the history came from, shown under the title. */
  source?: string
  /** The Smart preset, shown beside the provider. */
  preset?: string
  /** From `traceCondense`: which pass did what, exactly. */
  stages?: ReportStage[] | null
  /** A note shown above the passes. */
  note?: string
  /** A date shown in the header (none by default: the page is reproducible). */
  generatedAt?: string
  encoding?: Encoding
}

/**
 * The report: one HTML page, no network, no external assets. `before` is the history that was
 * condensed (Anthropic format), `result` what `condense(before, …)` resolved to.
 */
export function renderHtmlReport(before: ApiMessage[], result: CondenseResult, options?: ReportOptions): string

export type ReportActionKind = 'deduplicated' | 'superseded' | 'omitted' | 'truncated' | 'suppressed' | 'summarized' | 'removed' | 'changed'

export interface ReportAction {
  kind: ReportActionKind
  /** The pass's id; null when it could not be told. */
  pass: string | null
  passName: string
  /** The engine's marker that says so. */
  marker?: string
  /** The message the marker names (`message #N`): the kept copy, or the newer one. */
  ref?: number
  /** The Lossless operation behind a reference or superseded marker. */
  operation?: OperationMetrics['id']
  /** Its name: "repeated file reads", "identical tool results", "superseded state". */
  operationName?: string
  /** For a message replaced by a summary: the summary's index in that pass's history. */
  into?: number
  whole?: boolean
}

export type ContentTypeKey = 'userText' | 'assistantText' | 'thinking' | 'toolCalls' | 'toolResults' | 'environmentDetails' | 'images' | 'summaries' | 'other'

export interface ReportPart {
  label: string
  text: string
}

export interface ReportMessage {
  index: number
  role: string
  tokens: number
  types: Partial<Record<ContentTypeKey, number>>
  preview: string
  isSummary?: boolean
  /** Full text (absent for an unchanged message after: see `same`). */
  parts?: ReportPart[]
}

export interface ReportBeforeMessage extends ReportMessage {
  parts: ReportPart[]
  actions: ReportAction[]
}

export interface ReportAfterMessage extends ReportMessage {
  /** Unchanged: the index of the same message before. */
  same?: number
  /** The message before it comes from. */
  from?: number
  /** A summary: the first and last messages before it replaced. */
  covers?: [number, number] | null
  inserted?: boolean
}

export interface ReportPassRow {
  id: string
  name: string
  tokensBefore: number
  tokensAfter: number
  tokensSaved: number
  suppressed: number
  truncated: number
  summarized: number
  summarizeFallbacks: number
  callbackCalls: number
  cost: number
  skipped?: string
  errors?: string[]
  /** Messages this pass changed. */
  messagesChanged: number
  /** What it did, by kind: messages (an action per marker). */
  actions: Partial<Record<ReportActionKind, number>>
}

export interface ReportData {
  title: string
  source?: string
  provider: string
  preset?: string
  encoding: Encoding
  generatedAt?: string
  note?: string
  error?: string
  totals: {
    tokensBefore: number
    tokensAfter: number
    tokensSaved: number
    reductionPercent: number
    reversibleTokensSaved: number
    supersededTokensSaved: number
    messagesBefore: number
    messagesAfter: number
    messagesChanged: number
    messagesRemoved: number
    /** Messages before that anything happened to (changed, summarized, removed). */
    messagesAffected: number
    callbackCalls: number
    cost: number
    durationMs: number
  }
  operations: Array<{ id: OperationMetrics['id']; name: string; count: number; tokensSaved: number; reversibleTokensSaved: number; supersededTokensSaved: number }>
  passes: ReportPassRow[]
  unattributed?: { messagesChanged: number; actions: Partial<Record<ReportActionKind, number>> }
  /** Messages by what happened to them (a message can count under several kinds). */
  kinds: Partial<Record<ReportActionKind | 'kept', number>>
  contentTypes: Array<{ key: ContentTypeKey; label: string; color: string }>
  before: ReportBeforeMessage[]
  after: ReportAfterMessage[]
  /** The side-by-side rows: a message before and its version after (a summary spans `span` rows). */
  rows: Array<{ before: number | null; after: number | null; span?: number; covered?: boolean }>
  maxTokens: number
}

/** The data the page shows (embedded in it as JSON). */
export function buildReportData(before: ApiMessage[], result: CondenseResult, options?: ReportOptions): ReportData

export interface Alignment {
  after: Array<{ kind: 'same' | 'changed' | 'summary' | 'inserted'; from?: number; covers?: [number, number] | null }>
  /** Per message before: its index after (undefined when summarized or removed). */
  beforeToAfter: Array<number | undefined>
  /** Per message before: the index after of the summary that replaced it. */
  summarizedInto: Array<number | undefined>
}

/** Where each message of a condensed history came from. */
export function alignHistories(before: ApiMessage[], after: ApiMessage[]): Alignment

/** A summarize callback that answers a request it has seen with its first answer (failures are asked again). */
export function memoizeSummarize<T extends SummarizeCallback>(summarize: T): SummarizeCallback & { memoized: true; calls: number; failures: number }

export function escapeHtml(value: unknown): string

export const CONTENT_TYPES: ReadonlyArray<readonly [ContentTypeKey, string, string]>
