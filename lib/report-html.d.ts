// Types of lib/report-html.js: the visual condensation report (one self-contained HTML page).
import type { Act, ApiMessage, CondenseResult, Encoding } from './index'
import type { ReplayResult } from './replay'

export interface ReportOptions {
  /** @default "Condensation report" */
  title?: string
  /** Where the history came from, shown under the title. */
  source?: string
  /** The Smart preset, shown beside the provider. */
  preset?: string
  /** A note shown above the passes. */
  note?: string
  /** A date shown in the header (none by default: the page is reproducible). */
  generatedAt?: string
  encoding?: Encoding
  /** Results of `replay()` on the same task: adds a section on what the whole task cost under each
   * policy (billed input, cache hits, summaries, the end-of-task checks, each request's cost). */
  replay?: ReplayResult | ReplayResult[]
}

/**
 * The report: one HTML page, no network, no external assets. `before` is the history that was
 * condensed (Anthropic format), `result` what `condense(before, { …, provenance: true })` resolved to
 * (it throws without `result.provenance`: which pass did what is read from it, never guessed).
 */
export function renderHtmlReport(before: ApiMessage[], result: CondenseResult, options?: ReportOptions): string

/** A page of the replay section alone (one result or several, on the same task). */
export function renderReplayReport(results: ReplayResult | ReplayResult[], options?: { title?: string; source?: string; generatedAt?: string }): string

export type ReportActionKind = 'deduplicated' | 'superseded' | 'omitted' | 'truncated' | 'suppressed' | 'summarized' | 'removed' | 'changed'

export interface ReportAction {
  kind: ReportActionKind
  /** The pass's id; null for a change no pass made (a reference renumbered after a summary). */
  pass: string | null
  passName: string
  /** The kind of content changed (absent for `changed` and `removed`). */
  content?: Act['content']
  tokensSaved?: number
  /** The message holding the kept copy, or the newer content. */
  ref?: number
  /** For a message replaced by a summary: the summary's index in the result. */
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
  /** What it did, by action: the engine's counts (the same acts as the messages' badges). */
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
  passes: ReportPassRow[]
  unattributed?: { messagesChanged: number; actions: Partial<Record<ReportActionKind, number>> }
  /** Changes by action, summed over the passes (`metrics.actions`), plus `kept`: messages nothing happened to. */
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

export function escapeHtml(value: unknown): string

export const CONTENT_TYPES: ReadonlyArray<readonly [ContentTypeKey, string, string]>
