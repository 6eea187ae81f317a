// Roo Code's src/core/condense module, backed by context-condense (Roo Code as it is today:
// fresh-start summaries, manageContext). For Roo Code of January 2026 see ./2026-01/, of 2025 ./2025/.
//
// A host adapter for a Roo Code tree: put this file at src/core/condense/index.ts (in place of Roo's
// implementation) and every import of "../condense" keeps working. Move Roo's SUMMARY_PROMPT
// constant, which was private to the file this one replaces, into src/core/condense/summaryPrompt.ts
// as `export const SUMMARY_PROMPT = …` (scripts/roo-swap.mjs does both). It connects the package's
// entry to what only the host has:
//   - Roo's prompts: supportPrompt.default.CONDENSE (the summary instructions when the user set no
//     custom condensing prompt) and SUMMARY_PROMPT (the summary request's system prompt);
//   - telemetry: Roo's TelemetryService singleton (read at each call, so test mocks apply);
//   - strings: Roo's i18n `t()`, read when a message is shown, so the errors follow the user's
//     language (a key Roo's locales lack keeps the entry's English text, Roo's word for word);
//   - image cleaning: Roo's maybeRemoveImageBlocks, applied to the messages of the summary request
//     with the main API handler, as Roo does;
//   - folded file context: ./foldedFileContext.ts, Roo's tree-sitter outlines, called through that
//     module so whatever it exports at call time runs.
import { TelemetryService } from "@roo-code/telemetry"
import * as roo from "context-condense/roo"

import { t } from "../../i18n"
import type { ApiHandler } from "../../api"
import type { ApiMessage } from "../task-persistence/apiMessages"
import { maybeRemoveImageBlocks } from "../../api/transform/image-cleaning"
import { supportPrompt } from "../../shared/support-prompt"
import { SUMMARY_PROMPT } from "./summaryPrompt"
import * as folded from "./foldedFileContext"

export type { FoldedFileContextResult, FoldedFileContextOptions } from "./foldedFileContext"

const errors = {} as Record<roo.RooErrorKey, string>
for (const key of Object.keys(roo.ROO_ERROR_MESSAGES) as roo.RooErrorKey[]) {
	Object.defineProperty(errors, key, {
		enumerable: true,
		get: () => {
			const text = t(`common:errors.${key}`)
			return text === `common:errors.${key}` ? roo.ROO_ERROR_MESSAGES[key] : text
		},
	})
}

roo.configure({
	...roo.configuration(),
	defaultPrompt: supportPrompt.default.CONDENSE,
	requestSystemPrompt: SUMMARY_PROMPT,
	telemetry: {
		captureContextCondensed: (taskId, isAutomaticTrigger, usedCustomPrompt) =>
			TelemetryService.instance.captureContextCondensed(taskId, isAutomaticTrigger, usedCustomPrompt),
		captureSlidingWindowTruncation: (taskId) => TelemetryService.instance.captureSlidingWindowTruncation(taskId),
	},
	errors,
	prepareMessages: (messages: ApiMessage[], apiHandler: ApiHandler) => maybeRemoveImageBlocks(messages, apiHandler),
	foldedFileContext: (files: string[], options: folded.FoldedFileContextOptions) => folded.generateFoldedFileContext(files, options),
})

export const {
	summarizeConversation,
	getMessagesSinceLastSummary,
	getEffectiveApiHistory,
	cleanupAfterTruncation,
	injectSyntheticToolResults,
	extractCommandBlocks,
	convertToolBlocksToText,
	transformMessagesForCondensing,
	toolUseToText,
	toolResultToText,
	MIN_CONDENSE_THRESHOLD,
	MAX_CONDENSE_THRESHOLD,
} = roo
export type SummarizeResponse = roo.SummarizeResponse<ApiMessage>
export type SummarizeConversationOptions = roo.SummarizeConversationOptions<ApiMessage>
