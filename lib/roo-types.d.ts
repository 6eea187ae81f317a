// The type names of lib/roo.d.ts that every era's entry shares (lib/roo-2025.d.ts and
// lib/roo-2026-01.d.ts re-export them), without values: a value one era lacks must not be promised.
// The names whose shape differs by era (the options with the era's summarizeConversation seam,
// context management's options) are declared by each entry's own .d.ts.
export type {
  ApiMessage,
  ContentBlock,
  RooErrorKey,
  RooTextBlock,
  RooImageBlock,
  RooToolUseBlock,
  RooToolResultBlock,
  RooOtherBlock,
  RooContentBlock,
  RooMessage,
  ApiStreamTextChunk,
  ApiStreamUsageChunk,
  ApiStreamOtherChunk,
  ApiStreamChunk,
  ApiRequestMessage,
  ApiHandler,
  RooTelemetry,
  RooProvider,
  SummarizeResponse,
  TruncationOptions,
  TruncationResult,
  TruncateResponse,
  FoldedFileContextResult,
} from './roo'
