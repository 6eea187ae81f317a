// Roo Code's src/core/condense/foldedFileContext module, backed by context-condense: the folded
// file context (an outline of the definitions in each file the task read) with Roo's own
// tree-sitter service as the outline. Put this file at src/core/condense/foldedFileContext.ts.
import { generateFoldedFileContext as folded, type FoldedFileContextResult } from "context-condense/roo"

import { parseSourceCodeDefinitionsForFile } from "../../services/tree-sitter"
import type { RooIgnoreController } from "../ignore/RooIgnoreController"

export type { FoldedFileContextResult } from "context-condense/roo"
export interface FoldedFileContextOptions {
	/** The whole context's limit in characters. @default 50000 */
	maxCharacters?: number
	cwd: string
	rooIgnoreController?: RooIgnoreController
}

export function generateFoldedFileContext(
	filePaths: string[],
	options: FoldedFileContextOptions,
): Promise<FoldedFileContextResult> {
	return folded(filePaths, { ...options, outlineFile: parseSourceCodeDefinitionsForFile })
}
