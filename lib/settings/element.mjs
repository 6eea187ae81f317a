// <context-condense-settings>: the condensing settings panel a host's webview embeds. It is given
// the engine's schemas (from `settingsSchemas()` on the Node side), the current settings (the
// manager's configuration) and the host's API profiles; it renders every setting from those
// schemas, checks each change against them and emits `change` with the new settings only when
// they are valid (errors are shown beside their field, with their path). Framework-free, no
// network, themed by VS Code's CSS variables when present. Never changes the objects it is given.

import { el, field, humanize } from './form.mjs'
import { STYLE } from './style.mjs'
import {
  condensingProfile,
  exportImport,
  managerField,
  passLine,
  policyChoice,
  presetChoice,
  previewSection,
  profileThresholds,
  promptTools,
  providerChoice,
} from './sections.mjs'
import { childPath, parentPath, validate } from './validate.mjs'

/** Manager settings under "Advanced", in this order. */
const ADVANCED_KEYS = ['triggers', 'providerTriggers', 'profileTriggers', 'fallback', 'cutUntilFits', 'loopGuard']

const clone = (v) => (v === undefined ? undefined : JSON.parse(JSON.stringify(v)))

/**
 * `v` with every object and array in it frozen (as lib/internal/values.js's deepFreeze, which the browser
 * cannot load): what the panel holds and hands out (`value`, `errors`, `profiles`) is never
 * changed in place, so a host that edits what it was handed changes nothing behind the checks.
 */
function deepFreeze(v) {
  if (v !== null && typeof v === 'object' && !Object.isFrozen(v)) {
    Object.freeze(v)
    for (const x of Object.values(v)) deepFreeze(x)
  }
  return v
}
const frozenCopy = (v) => deepFreeze(clone(v))

// Outside a browser (Node loading the package's entries) there is no HTMLElement: the class still
// loads, so the module can be imported anywhere, but only a browser can define and use it.
const Base = typeof HTMLElement === 'undefined' ? class {} : HTMLElement

export class ContextCondenseSettings extends Base {
  constructor() {
    super()
    this.attachShadow({ mode: 'open' })
    this._schemas = null
    this._value = deepFreeze({})
    /** The manager's `policy` option, in its object form; `{ name }` of the default until one is given. */
    this._policy = undefined
    this._profiles = []
    this._errors = deepFreeze([])
    this._preview = null
    this.previewRequest = null
    /** The list items (Smart's passes) expanded, by path: they stay so across renders. */
    this._openItems = new Set()
  }

  /** `async (settings, { policy }) => ({ tokensBefore, rows, policy? })`: runs the providers on the current task. */
  get preview() {
    return this._preview
  }
  set preview(fn) {
    this._preview = typeof fn === 'function' ? fn : null
    this.render()
  }

  /** `settingsSchemas()` from `context-condense/settings/schemas`, as JSON. */
  get schemas() {
    return this._schemas
  }
  set schemas(v) {
    this._schemas = v
    this.render()
  }

  /** The current settings (a copy): the manager configuration, `providers` holding each provider's config. */
  get settings() {
    return clone(this._value)
  }
  set settings(v) {
    this._value = frozenCopy(v ?? {})
    this.render()
  }
  /**
   * The manager's `policy` option (a copy), in its object form: `{ name: "default" }`, or
   * `{ name: "cache-aware" | "cache-aware-strict", cache }`. Given as a name, it is held as `{ name }`.
   * The host passes it to the manager beside the settings: `new CondensationManager({ config, policy })`.
   */
  get policy() {
    return clone(this.policyValue)
  }
  set policy(v) {
    this._policy = frozenCopy(typeof v === 'string' ? { name: v } : v)
    this._errors = deepFreeze(this._schemas ? this.check(this._value) : [])
    this.render()
  }
  /** The policy as the panel holds it (frozen). */
  get policyValue() {
    return this._policy ?? deepFreeze({ name: this._schemas?.names.defaultPolicy ?? 'default' })
  }

  /** The current settings as the panel holds them (frozen: edit them through `settings` or `update`). */
  get value() {
    return this._value
  }

  /** The host's API profiles: `[{ id, name }]`. */
  get profiles() {
    return this._profiles
  }
  set profiles(v) {
    this._profiles = deepFreeze(Array.isArray(v) ? v.map((p) => ({ id: String(p.id), name: String(p.name ?? p.id) })) : [])
    this.render()
  }

  /** The problems of the current settings (empty when valid). */
  get errors() {
    return this._errors.slice()
  }

  connectedCallback() {
    this.render()
  }

  /** Problems of a provider's config under its schema, paths from `settings.providers.<id>`. */
  checkProviderConfig(id, config) {
    const p = this._schemas?.providers.find((x) => x.id === id)
    return p ? validate(p.schema, config, `settings.providers.${id}`) : []
  }

  /**
   * Every problem of `settings`: the manager's schema, then each known provider's, then the
   * policy's (`policy`, the panel's own when not given) under its schema, paths from `policy`.
   */
  check(settings, policy = this.policyValue) {
    if (!this._schemas) return []
    const problems = validate(this._schemas.manager, settings, 'settings')
    for (const [id, config] of Object.entries(settings.providers ?? {})) problems.push(...this.checkProviderConfig(id, config))
    if (this._schemas.policy) problems.push(...validate(this._schemas.policy, policy, 'policy'))
    return problems
  }

  /** Takes new settings: shown at once; `change` only when they are valid, `invalid` otherwise. */
  update(next) {
    this._value = frozenCopy(next)
    this.changed()
  }

  /** Takes a new policy (the manager's `policy` option, object form), as `update` takes settings. */
  updatePolicy(next) {
    this._policy = frozenCopy(next)
    this.changed()
  }

  /** After an edit: the problems again, and `change` with the settings and the policy, or `invalid`. */
  changed() {
    this._errors = deepFreeze(this.check(this._value))
    this.scheduleRender()
    if (this._errors.length === 0)
      this.dispatchEvent(new CustomEvent('change', { detail: { settings: clone(this._value), policy: this.policy }, bubbles: true, composed: true }))
    else this.dispatchEvent(new CustomEvent('invalid', { detail: { errors: this._errors.slice() }, bubbles: true, composed: true }))
  }

  /** Switches provider at once; the provider with presets, with no configuration yet, starts from the default preset. */
  selectProvider(id) {
    const next = { ...this._value, provider: id }
    const { presetProvider, defaultPreset } = this._schemas.names
    if (id === presetProvider && !next.providers?.[id]) next.providers = { ...(next.providers ?? {}), [id]: { preset: defaultPreset } }
    this.update(next)
  }

  setProviderConfig(id, config) {
    const providers = { ...(this._value.providers ?? {}) }
    if (config === undefined) delete providers[id]
    else providers[id] = config
    this.update({ ...this._value, providers })
  }

  /** What the form shows for a provider: a preset's configuration spelled out, keys beside it on top. */
  displayedConfig(id) {
    const config = this._value.providers?.[id] ?? {}
    if (id !== this._schemas.names.presetProvider || typeof config.preset !== 'string') return config
    const preset = this._schemas.presets.find((p) => p.name === config.preset)
    const { preset: _name, ...beside } = config
    return preset ? { ...clone(preset.config), ...beside } : config
  }

  /** Renders after the event that caused a change has finished (so focus has settled). */
  scheduleRender() {
    if (this._pending) return
    this._pending = true
    setTimeout(() => {
      this._pending = false
      this.render()
    }, 0)
  }

  render() {
    if (!this.shadowRoot) return
    const focus = this.focusKey()
    const root = this.shadowRoot
    // A constructed stylesheet where the browser has them: a webview's Content-Security-Policy
    // governs <style> elements but not these.
    if ('adoptedStyleSheets' in root && typeof CSSStyleSheet === 'function') {
      this._sheet ??= new CSSStyleSheet()
      if (!this._sheet.cssRules.length) this._sheet.replaceSync(STYLE)
      root.adoptedStyleSheets = [this._sheet]
      root.replaceChildren()
    } else root.replaceChildren(el('style', { text: STYLE }))
    if (!this._schemas) {
      root.append(el('div', { class: 'cc-help', text: 'Waiting for the settings schemas from the host.' }))
      return
    }
    const errorsBox = el('div', { class: 'cc-errors', role: 'alert' })
    root.append(
      errorsBox,
      providerChoice(this),
      this.providerSection(),
      this.whenSection(),
      el(
        'details',
        {
          class: 'cc-advanced',
          open: this._advancedOpen || undefined,
          ontoggle: (e) => {
            this._advancedOpen = e.target.open
          },
        },
        el('summary', { text: 'Advanced: triggers, fallback, cutting to fit, loop guard' }),
        ADVANCED_KEYS.map((k) => managerField(this, k)),
      ),
      previewSection(this),
    )
    const unplaced = this.showErrors()
    if (this._errors.length) {
      const placed = this._errors.length - unplaced.length
      errorsBox.append(el('strong', { text: 'Not saved: ' }))
      if (placed) errorsBox.append(`${placed === 1 ? 'a setting is' : `${placed} settings are`} not allowed (shown beside ${placed === 1 ? 'it' : 'them'}).`)
      if (unplaced.length)
        errorsBox.append(
          el(
            'ul',
            {},
            unplaced.map((e) => el('li', { text: this.describeError(e) })),
          ),
        )
    }
    this.restoreFocus(focus)
  }

  providerSection() {
    const id = this._value.provider ?? this._schemas.names.defaultProvider
    const p = this._schemas.providers.find((x) => x.id === id)
    if (!p)
      return el(
        'section',
        {},
        el('h2', { text: 'Provider settings' }),
        el('div', { class: 'cc-help', text: `"${id}" is provided by the host: it has no settings here.` }),
      )
    const shown = this.displayedConfig(id)
    const form = field(p.schema, {
      root: p.schema,
      key: id,
      label: '',
      path: `settings.providers.${id}`,
      omit: id === this._schemas.names.presetProvider ? ['preset'] : [],
      // Smart's passes: one line each (what it selects, what it does), expanding to its fields.
      compact: id === this._schemas.names.presetProvider ? { passes: { line: passLine, open: this._openItems } } : undefined,
      get: () => this.displayedConfig(id),
      set: (v) => this.setProviderConfig(id, v),
    })
    const prompt = p.schema.properties?.customPrompt ? promptTools(this, id, shown.customPrompt, this._schemas.prompts.conversation) : null
    return el(
      'section',
      { 'data-provider': id },
      el('h2', { text: `${p.name} settings` }),
      id === this._schemas.names.presetProvider ? presetChoice(this, this._value.providers?.[id] ?? {}) : null,
      form,
      prompt,
      exportImport(this, id),
    )
  }

  whenSection() {
    return el(
      'section',
      {},
      el('h2', { text: 'When to condense' }),
      this._schemas.policy ? policyChoice(this) : null,
      managerField(this, 'autoCondense'),
      managerField(this, 'threshold'),
      profileThresholds(this),
      condensingProfile(this),
    )
  }

  /**
   * A problem in the user's words: the setting's label, then what it allows and what it got
   * (`Threshold: from 5 to 100; got 150`). `label` is the label its field shows; without one
   * (the field is not on screen) the last key of its path, humanized.
   */
  problemText(e, label) {
    const key = /(?:\.([A-Za-z_$][\w$]*)|\[(\d+)\]|\[("(?:[^"\\]|\\.)*")\])$/.exec(e.path)
    const name = label || (key ? humanize(key[1] ?? (key[3] ? JSON.parse(key[3]) : `item ${Number(key[2]) + 1}`)) : 'Settings')
    return `${name}: ${e.message}`
  }

  /**
   * A problem the summary at the top lists (its field is not on screen): for a provider whose
   * form is not shown (its settings are kept while another provider is selected) the provider's
   * name first, so it can be found: `Truncation (not the selected provider; select it to edit): Preserve recent count: ...`.
   */
  describeError(e) {
    const text = this.problemText(e)
    const shown = this._value.provider ?? this._schemas.names.defaultProvider
    const within = (path, base) => path === base || path.startsWith(`${base}.`) || path.startsWith(`${base}[`)
    const hidden = this._schemas.providers.find((p) => p.id !== shown && within(e.path, childPath('settings.providers', p.id)))
    return hidden ? `${hidden.name} (not the selected provider; select it to edit): ${text}` : text
  }

  /**
   * Puts each problem beside its field (the nearest one that exists for its path), once, in the
   * field's own words; answers the problems that have no field on screen (the summary lists them).
   */
  showErrors() {
    const root = this.shadowRoot
    const unplaced = []
    for (const e of this._errors) {
      const slotFor = (path) => root.querySelector(`[data-error-for="${CSS.escape(path)}"]`)
      let at = e.path
      let slot = slotFor(at)
      while (!slot && at) {
        at = parentPath(at)
        if (at) slot = slotFor(at)
      }
      if (!slot) {
        unplaced.push(e)
        continue
      }
      const holder = slot.parentElement
      const own = at === e.path ? holder?.querySelector(':scope > label, :scope > legend, :scope > .cc-check > label')?.textContent : undefined
      const text = this.problemText(e, own)
      const lines = slot.textContent ? slot.textContent.split('\n') : []
      if (!lines.includes(text)) slot.textContent = [...lines, text].join('\n')
      holder?.classList.add('cc-invalid')
      // A problem inside a collapsed part (a pass, "Advanced") opens it, so it is seen.
      for (let d = slot.closest('details'); d; d = d.parentElement?.closest('details') ?? null) d.open = true
      const control = holder?.querySelector('input,select,textarea')
      control?.setAttribute('aria-invalid', 'true')
    }
    return unplaced
  }

  /** Where focus is, as a key that survives a re-render: the field's path and the control's place in it. */
  focusKey() {
    const active = this.shadowRoot?.activeElement
    if (!active) return null
    if (active.id) return { id: active.id }
    const holder = active.closest('[data-path]')
    if (!holder) return null
    const controls = [...holder.querySelectorAll('input,select,textarea,button,summary')]
    return { path: holder.getAttribute('data-path'), index: controls.indexOf(active) }
  }

  restoreFocus(key) {
    if (!key) return
    let target = null
    if (key.id) target = this.shadowRoot.getElementById(key.id)
    else {
      const holder = this.shadowRoot.querySelector(`[data-path="${CSS.escape(key.path)}"]`)
      target = holder ? holder.querySelectorAll('input,select,textarea,button,summary')[key.index] : null
    }
    target?.focus()
  }
}

/** Defines the element once (a second import, or a host that defined it first, is left alone). */
export function defineSettingsElement(name = 'context-condense-settings') {
  if (typeof customElements === 'undefined') throw new Error('defineSettingsElement: needs a browser (customElements is not defined here)')
  if (!customElements.get(name)) customElements.define(name, class extends ContextCondenseSettings {})
  return customElements.get(name)
}

if (typeof customElements !== 'undefined') defineSettingsElement()
export { validate }
