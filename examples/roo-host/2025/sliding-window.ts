// Roo Code's src/core/sliding-window module (2025), backed by context-condense. Put this file at
// src/core/sliding-window/index.ts beside the condense adapter (./condense.ts in this folder, at
// src/core/condense/index.ts in Roo's tree).
//
// The one seam: Roo's truncateConversationIfNeeded calls summarizeConversation through the condense
// module, and Roo's own specs spy on that module. Passing the module's function as
// `summarizeConversation` keeps the same seam: whatever the condense module exports at call time is
// what runs.
import * as roo from "context-condense/roo-2025"

import * as condense from "../condense"

roo.configure({
	...roo.configuration(),
	summarizeConversation: (...args) => condense.summarizeConversation(...args),
})

export const { truncateConversationIfNeeded, truncateConversation, estimateTokenCount, TOKEN_BUFFER_PERCENTAGE } = roo
