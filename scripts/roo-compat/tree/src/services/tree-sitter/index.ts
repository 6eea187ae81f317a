// Stand-in for Roo's tree-sitter service (the specs that use it mock it).
export async function parseSourceCodeDefinitionsForFile(_path: string, _controller?: unknown): Promise<string | undefined> {
  return undefined
}
