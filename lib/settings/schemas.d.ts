// Types of lib/settings/schemas.js: the Node side of the settings panel.
import type { ApiMessage, ManagerConfig, SmartConfig, SummarizeCallback, SummarizeRequest } from '../index'
import type { CacheAwarePolicy, ManagerPolicyName } from '../manager'
import type { ProviderId, SmartPreset } from '../names'

export interface ProviderEntry {
  id: ProviderId
  name: string
  description: string
  /** Whether it calls the host's model. */
  summarizes: boolean
  /** `configSchema(id)`. */
  schema: Record<string, unknown>
}

/** Everything the panel renders from, as plain JSON (send it to the webview as it is). */
export interface SettingsSchemas {
  providers: ProviderEntry[]
  /** `managerConfigSchema()`. */
  manager: Record<string, unknown>
  /** Every preset the engine has, in its order, each as the engine defines it (`smartPreset(name)`); `general` for the all-round ones. */
  presets: Array<{ name: SmartPreset; general: boolean; config: SmartConfig }>
  /** The JSON Schema of the manager's `policy` option as the panel offers it (`PanelPolicy`): one
   * branch per policy name (`title`, `description`), the cache-aware ones with the prompt-cache model. */
  policy: Record<string, unknown>
  /** The prompts used when a config gives none. */
  prompts: { conversation: string; content: string }
  /** The names the panel needs: the provider shown when the settings name none, the one with presets, its default preset. */
  names: { defaultProvider: ProviderId; presetProvider: ProviderId; defaultPreset: SmartPreset; defaultPolicy: 'default' }
}

/** The policy as the panel offers and emits it: the manager's `policy` option in its object form. */
export type PanelPolicy = { name: 'default' } | { name: Exclude<ManagerPolicyName, 'default'>; cache?: 'anthropic' | 'openai' }

export interface PreviewRow {
  provider: string
  name: string
  /** Null when the provider was not run (Native without a summarizer) or failed (see `note`). */
  tokensAfter: number | null
  messagesChanged?: number
  note?: string
}

export interface PreviewResult {
  tokensBefore: number
  rows: PreviewRow[]
  /** With `options.policy`: the policy as the manager reads it (`manager.policy`, its defaults filled in). */
  policy?: { name: 'default' } | CacheAwarePolicy
}

export function settingsSchemas(): SettingsSchemas
/** `options.policy`: the manager's `policy` option, checked as the manager checks it (a TypeError naming `options.policy`). */
export function previewOnHistory(
  messages: ApiMessage[],
  settings?: ManagerConfig,
  options?: { summarize?: SummarizeCallback; policy?: ManagerPolicyName | CacheAwarePolicy },
): Promise<PreviewResult>
export function summaryRequestFor(messages: ApiMessage[], settings?: ManagerConfig): Promise<SummarizeRequest | null>
