// Types of lib/settings/element.mjs: the <context-condense-settings> custom element (browser).
import type { ManagerConfig, SummarizeRequest } from '../index.js'
import type { PanelPolicy, PreviewResult, SettingsSchemas } from './schemas.js'
import type { SettingsProblem } from './validate.mjs'

export type { PanelPolicy, PreviewResult, SettingsSchemas, SettingsProblem }
export { validate } from './validate.mjs'

export declare class ContextCondenseSettings extends HTMLElement {
  /** `settingsSchemas()` from `context-condense/settings/schemas`, sent from the extension host. */
  schemas: SettingsSchemas | null
  /** The current settings (a copy): the manager configuration, each provider's config in `providers`. */
  settings: ManagerConfig
  /** The manager's `policy` option (a copy, object form; a name given is held as `{ name }`): pass it
   * beside the settings, `new CondensationManager({ config: settings, policy })`. @default { name: "default" } */
  policy: PanelPolicy
  /** The host's API profiles, for the per-profile thresholds and the summarizing profile. */
  profiles: Array<{ id: string; name?: string }>
  /** Runs the providers on the current task (e.g. `previewOnHistory` over a message to the host). */
  preview: ((settings: ManagerConfig, options: { policy: PanelPolicy }) => Promise<PreviewResult>) | null
  /** The request the summarizer would get (e.g. `summaryRequestFor`). */
  previewRequest: ((settings: ManagerConfig) => Promise<SummarizeRequest | null>) | null
  /** Problems of the current settings; empty when they are valid. */
  readonly errors: SettingsProblem[]
  /** Problems of `settings` (and of `policy`, the panel's own when not given) under the schemas. */
  check(settings: unknown, policy?: unknown): SettingsProblem[]
}

/** Defines the element under `name` unless something is defined there already. */
export function defineSettingsElement(name?: string): CustomElementConstructor

declare global {
  interface HTMLElementTagNameMap {
    'context-condense-settings': ContextCondenseSettings
  }
}
