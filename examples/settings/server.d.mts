// Types of the settings demo server (examples/settings/server.mjs).
export function startSettingsDemo(options?: { port?: number; history?: unknown[] }): Promise<{ url: string; close(): Promise<void> }>
