// Roo Code's src/core/condense/foldedFileContext module, backed by context-condense: the folded
// file context (an outline of the definitions in each file the task read) with Roo's own
// tree-sitter service as the outline. Put this file at src/core/condense/foldedFileContext.ts.
import { parseSourceCodeDefinitionsForFile } from "../../services/tree-sitter"
import { createRequire } from "node:module"

const roo = createRequire(import.meta.url)("context-condense/roo")

export type FoldedFileContextResult = {
	content: string
	sections: string[]
	filesProcessed: number
	filesSkipped: number
	characterCount: number
}
export type FoldedFileContextOptions = { maxCharacters?: number; cwd: string; rooIgnoreController?: unknown }

export function generateFoldedFileContext(filePaths: string[], options: FoldedFileContextOptions): Promise<FoldedFileContextResult> {
	return roo.generateFoldedFileContext(filePaths, { ...options, outlineFile: parseSourceCodeDefinitionsForFile })
}
