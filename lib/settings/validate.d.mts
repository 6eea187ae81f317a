// Types of lib/settings/validate.mjs: the JSON Schema subset the engine's schemas use.
export interface SettingsProblem {
  /** Where, as the engine names places: `settings.providers.smart.passes[0].mode`. */
  path: string
  message: string
  /** The schema keyword that failed: `#/properties/threshold/maximum`. */
  schemaPath: string
}
export function validate(schema: unknown, value: unknown, path?: string): SettingsProblem[]
export function childPath(path: string, key: string | number): string
/** The path `childPath` made `path` from; null at the root or for text that is not such a path. */
export function parentPath(path: string): string | null
export function resolve(schema: unknown, root: unknown): Record<string, unknown>
