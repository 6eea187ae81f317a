// Roo Code's src/core/condense module, backed by context-condense.
//
// A host adapter for a Roo Code tree: put this file at src/core/condense/index.ts (in place of Roo's
// implementation) and every import of "../condense" keeps working. It connects the package's entry
// to the three things only the host has:
//   - telemetry: Roo's TelemetryService singleton (read at each call, so test mocks apply);
//   - strings: Roo's i18n `t()`, so the errors follow the user's language (the entry's defaults are
//     Roo's English strings word for word);
//   - image cleaning: Roo's maybeRemoveImageBlocks, applied to the messages of the summary request
//     with the main API handler, as Roo does;
//   - folded file context (today's Roo): ./foldedFileContext.ts, Roo's tree-sitter outlines, called
//     through that module so whatever it exports at call time runs.
// Roo Code as it is today (manageContext, fresh-start summaries) imports "context-condense/roo"; a
// Roo Code of January 2026 (positional, non-destructive) "context-condense/roo-2026-01"; a Roo Code
// of 2025 (positional, src/core/sliding-window) "context-condense/roo-2025". Nothing else differs
// (before 2026 Roo has no folded file context: drop that import and line).
import { TelemetryService } from "@roo-code/telemetry"
import { t } from "../../i18n"
import { maybeRemoveImageBlocks } from "../../api/transform/image-cleaning"
import * as folded from "./foldedFileContext"
import { createRequire } from "node:module"

const roo = createRequire(import.meta.url)("context-condense/roo")

const telemetry = {
	captureContextCondensed: (...args: unknown[]) => TelemetryService.instance.captureContextCondensed(...args),
	captureSlidingWindowTruncation: (...args: unknown[]) => TelemetryService.instance.captureSlidingWindowTruncation(...args),
}

// Roo's i18n keys (common:errors.*) the entry reports with.
const errors: Record<string, string> = {}
for (const key of Object.keys(roo.ROO_ERROR_MESSAGES)) {
	const text = t(`common:errors.${key}`)
	if (text !== `common:errors.${key}`) errors[key] = text
}

roo.configure({
	...roo.configuration(),
	telemetry,
	errors,
	prepareMessages: (messages: any[], apiHandler: any) => maybeRemoveImageBlocks(messages, apiHandler),
	foldedFileContext: (files: string[], options: any) => folded.generateFoldedFileContext(files, options),
})

export const {
	summarizeConversation,
	getMessagesSinceLastSummary,
	getEffectiveApiHistory,
	cleanupAfterTruncation,
	injectSyntheticToolResults,
	getKeepMessagesWithToolBlocks,
	extractCommandBlocks,
	convertToolBlocksToText,
	transformMessagesForCondensing,
	toolUseToText,
	toolResultToText,
	N_MESSAGES_TO_KEEP,
	MIN_CONDENSE_THRESHOLD,
	MAX_CONDENSE_THRESHOLD,
} = roo
export type SummarizeResponse = any
