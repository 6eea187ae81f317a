// Roo Code's src/core/context-management module (src/core/sliding-window in 2025), backed by
// context-condense. Put this file at src/core/context-management/index.ts beside the condense
// adapter (./condense.ts in this folder, at src/core/condense/index.ts in Roo's tree).
//
// The one seam: Roo's truncateConversationIfNeeded calls summarizeConversation through the condense
// module, and Roo's own specs spy on that module. Passing the module's function as
// `summarizeConversation` keeps the same seam: whatever the condense module exports at call time is
// what runs.
import * as condense from "../condense"
import { createRequire } from "node:module"

const roo = createRequire(import.meta.url)("context-condense/roo")

roo.configure({
	...roo.configuration(),
	summarizeConversation: (...args: unknown[]) => (condense.summarizeConversation as any)(...args),
})

export const {
	truncateConversationIfNeeded,
	truncateConversation,
	manageContext,
	willManageContext,
	estimateTokenCount,
	TOKEN_BUFFER_PERCENTAGE,
} = roo
