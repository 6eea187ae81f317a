// Types of lib/settings/element.mjs: the <context-condense-settings> custom element (browser).
import type { ManagerConfig, SummarizeRequest } from '../index.js'
import type { PreviewResult, SettingsSchemas } from './schemas.js'
import type { SettingsProblem } from './validate.mjs'

export type { PreviewResult, SettingsSchemas, SettingsProblem }
export { validate } from './validate.mjs'

export declare class ContextCondenseSettings extends HTMLElement {
  /** `settingsSchemas()` from `context-condense/settings/schemas`, sent from the extension host. */
  schemas: SettingsSchemas | null
  /** The current settings (a copy): the manager configuration, each provider's config in `providers`. */
  settings: ManagerConfig
  /** The host's API profiles, for the per-profile thresholds and the summarizing profile. */
  profiles: Array<{ id: string; name?: string }>
  /** Runs the providers on the current task (e.g. `previewOnHistory` over a message to the host). */
  preview: ((settings: ManagerConfig) => Promise<PreviewResult>) | null
  /** The request the summarizer would get (e.g. `summaryRequestFor`). */
  previewRequest: ((settings: ManagerConfig) => Promise<SummarizeRequest | null>) | null
  /** Problems of the current settings; empty when they are valid. */
  readonly errors: SettingsProblem[]
  /** Problems of `settings` under the schemas. */
  check(settings: unknown): SettingsProblem[]
}

/** Defines the element under `name` unless something is defined there already. */
export function defineSettingsElement(name?: string): CustomElementConstructor

declare global {
  interface HTMLElementTagNameMap {
    'context-condense-settings': ContextCondenseSettings
  }
}
