// The type names of lib/roo.d.ts, without its values: what the entries of Roo's earlier eras
// (lib/roo-2025.d.ts, lib/roo-2026-01.d.ts) share with today's, where a value one era lacks must not
// be promised.
export type {
  ApiMessage,
  ContentBlock,
  RooErrorKey,
  ApiStreamTextChunk,
  ApiStreamUsageChunk,
  ApiStreamOtherChunk,
  ApiStreamChunk,
  ApiRequestMessage,
  ApiHandler,
  RooTelemetry,
  RooProvider,
  RooOptions,
  RooCallOptions,
  SummarizeResponse,
  SummarizeConversationOptions,
  TruncationOptions,
  TruncationResult,
  TruncateOptions,
  TruncateResponse,
  TruncateConversationIfNeeded,
  ManageContextOptions,
  GetKeepMessagesWithToolBlocks,
  FoldedFileContextResult,
} from './roo'
