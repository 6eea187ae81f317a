// Roo Code's src/core/condense module, backed by context-condense (Roo Code of 2025: positional
// summarizeConversation with a condensing API handler, src/core/sliding-window). Today's Roo: ../,
// January 2026's: ../2026-01/.
//
// A host adapter for a Roo Code tree: put this file at src/core/condense/index.ts (in place of Roo's
// implementation) and every import of "../condense" keeps working. Move Roo's SUMMARY_PROMPT
// constant, which was private to the file this one replaces, into src/core/condense/summaryPrompt.ts
// as `export const SUMMARY_PROMPT = …` (scripts/roo-swap.mjs does both). It connects the package's
// entry to what only the host has:
//   - Roo's prompt: SUMMARY_PROMPT, the summary instructions when the user set no custom condensing
//     prompt;
//   - telemetry: Roo's TelemetryService singleton (read at each call, so test mocks apply);
//   - strings: Roo's i18n `t()`, read when a message is shown, so the errors follow the user's
//     language (a key Roo's locales lack keeps the entry's English text, Roo's word for word);
//   - image cleaning: Roo's maybeRemoveImageBlocks, applied to the messages of the summary request
//     with the main API handler, as Roo does.
import { TelemetryService } from "@roo-code/telemetry"
import * as roo from "context-condense/roo-2025"

import { t } from "../../i18n"
import type { ApiHandler } from "../../api"
import type { ApiMessage } from "../task-persistence/apiMessages"
import { maybeRemoveImageBlocks } from "../../api/transform/image-cleaning"
import { SUMMARY_PROMPT } from "./summaryPrompt"

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
	defaultPrompt: SUMMARY_PROMPT,
	telemetry: {
		captureContextCondensed: (taskId, isAutomaticTrigger, usedCustomPrompt, usedCustomApiHandler) =>
			TelemetryService.instance.captureContextCondensed(taskId, isAutomaticTrigger, usedCustomPrompt, usedCustomApiHandler),
		captureSlidingWindowTruncation: (taskId) => TelemetryService.instance.captureSlidingWindowTruncation(taskId),
	},
	errors,
	prepareMessages: (messages: ApiMessage[], apiHandler: ApiHandler) => maybeRemoveImageBlocks(messages, apiHandler),
})

export const { summarizeConversation, getMessagesSinceLastSummary, N_MESSAGES_TO_KEEP, MIN_CONDENSE_THRESHOLD, MAX_CONDENSE_THRESHOLD } = roo
export type SummarizeResponse = roo.SummarizeResponse<ApiMessage>
