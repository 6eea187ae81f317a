// Stand-in for @roo-code/types: the one value Roo's condensing code reads (types are erased).
export const ANTHROPIC_DEFAULT_MAX_TOKENS = 8192
export type ModelInfo = any
