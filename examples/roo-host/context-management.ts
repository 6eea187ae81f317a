// Roo Code's src/core/context-management module, backed by context-condense (Roo Code as it is
// today). Put this file at src/core/context-management/index.ts beside the condense adapter
// (./condense.ts in this folder, at src/core/condense/index.ts in Roo's tree).
//
// The one seam: Roo's manageContext calls summarizeConversation through the condense module, and
// Roo's own specs spy on that module. Passing the module's function as `summarizeConversation`
// keeps the same seam: whatever the condense module exports at call time is what runs.
import * as roo from "context-condense/roo"

import type { ApiMessage } from "../task-persistence/apiMessages"
import * as condense from "../condense"

roo.configure({
	...roo.configuration(),
	summarizeConversation: (options) => condense.summarizeConversation(options),
})

export const { manageContext, willManageContext, truncateConversation, estimateTokenCount, TOKEN_BUFFER_PERCENTAGE } = roo
export type TruncationResult = roo.TruncationResult<ApiMessage>
export type WillManageContextOptions = roo.WillManageContextOptions
export type ContextManagementOptions = roo.ManageContextOptions<ApiMessage>
export type ContextManagementResult = roo.TruncateResponse<ApiMessage>
