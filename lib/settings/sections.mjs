// The parts of the settings panel that are more than a schema form: the provider choice, Smart's
// presets with export/import, the summary prompt's checks and request preview, the per-profile
// thresholds and the preview on the current task. Each builds DOM from the panel's state and
// calls back with new values; none keeps state of its own.

import { el, field, humanize } from './form.mjs'
import { childPath } from './validate.mjs'

/** One choice of a radio group, as a card: the radio, its label and what it does. */
function radioCard({ group, id, label, help, checked, onchange }) {
  const radio = el('input', { type: 'radio', name: group, id, value: id, 'aria-describedby': `${id}-help`, onchange })
  radio.checked = checked
  return el(
    'div',
    { class: 'cc-provider' },
    radio,
    el('div', {}, el('label', { for: id, text: label }), el('div', { class: 'cc-help', id: `${id}-help`, prose: help })),
  )
}

/** The provider choice: a radio group (arrow keys move within it), each with what it does. */
export function providerChoice(panel) {
  const current = panel.value.provider ?? panel.schemas.names.defaultProvider
  const group = el(
    'div',
    { class: 'cc-providers', role: 'radiogroup', 'aria-labelledby': 'cc-h-strategy' },
    panel.schemas.providers.map((p) =>
      radioCard({
        group: 'cc-provider',
        id: `cc-provider-${p.id}`,
        label: p.name,
        help: `${p.description}${p.summarizes ? ' Calls your model.' : ' No model call.'}`,
        checked: p.id === current,
        onchange: () => panel.selectProvider(p.id),
      }),
    ),
  )
  return el(
    'section',
    { 'data-path': 'settings.provider' },
    el('h2', { id: 'cc-h-strategy', text: 'Condensing strategy' }),
    group,
    el('div', { class: 'cc-error', 'data-error-for': 'settings.provider', role: 'status' }),
  )
}

/** What a preset does, from the engine's own configuration of it. */
export function presetSummary(config) {
  const steps = []
  if (config.losslessPrelude?.enabled !== false && config.losslessPrelude) steps.push('Lossless first')
  for (const p of config.passes ?? []) steps.push(p.name ?? humanize(p.id))
  return steps.join(', then ') || 'No pass'
}

/** The messages a pass's selection picks, in words. */
function selectionText(selection) {
  if (!selection || typeof selection !== 'object') return 'the whole history'
  const n = (v) => (typeof v === 'number' ? v.toLocaleString('en-US') : '?')
  if (typeof selection.keepRecentCount === 'number') return `all but the last ${n(selection.keepRecentCount)} messages`
  if (typeof selection.keepPercentage === 'number') return `the oldest ${n(100 - selection.keepPercentage)}% of messages`
  if (Array.isArray(selection.messageIndices)) return `messages ${selection.messageIndices.join(', ')}`
  return humanize(selection.type ?? 'a selection').toLowerCase()
}

/** What an operation spec does (`"suppress"` or `{ operation, params }`). */
const operationText = (op) => (typeof op === 'string' ? op : op && typeof op === 'object' ? String(op.operation ?? 'keep') : 'keep')

/**
 * One line saying what a Smart pass does: what it selects and what it does to each content type
 * (or to the whole selection, in batch), and when it runs. Read from the pass itself.
 */
export function passLine(pass) {
  if (!pass || typeof pass !== 'object') return ''
  const parts = []
  if (pass.batchConfig) {
    const b = pass.batchConfig
    const keep = b.summarizationConfig
    const kept =
      keep && (keep.keepFirst !== undefined || keep.keepLast !== undefined) ? ` (keeps the first ${keep.keepFirst ?? 0} and last ${keep.keepLast ?? 0})` : ''
    parts.push(`${operationText(b.operation)} ${pass.selection ? selectionText(pass.selection) : 'the middle'}${kept}`)
  } else {
    const defaults = pass.individualConfig?.defaults ?? {}
    const ops = Object.entries(defaults).map(([type, op]) => `${humanize(type).toLowerCase()}: ${operationText(op)}`)
    parts.push(`in ${selectionText(pass.selection)}: ${ops.join(', ') || 'nothing changed'}`)
  }
  const threshold = pass.execution?.condition?.tokenThreshold
  if (typeof threshold === 'number') parts.push(`only when over ${threshold.toLocaleString('en-US')} tokens`)
  return parts.join('; ')
}

/** Smart's presets: choosing one replaces the config by `{ preset }`; "custom" is any other. */
export function presetChoice(panel, config) {
  const chosen = typeof config.preset === 'string' ? config.preset : null
  const radios = panel.schemas.presets.map((p) =>
    radioCard({
      group: 'cc-preset',
      id: `cc-preset-${p.name}`,
      label: humanize(p.name),
      help: p.description || presetSummary(p.config),
      checked: chosen === p.name,
      onchange: () => panel.setProviderConfig(panel.schemas.names.presetProvider, { preset: p.name }),
    }),
  )
  radios.push(
    radioCard({
      group: 'cc-preset',
      id: 'cc-preset-custom',
      label: 'Custom',
      help: 'Your own passes. Editing any setting of a preset below makes it custom.',
      checked: chosen === null,
      onchange: () => panel.setProviderConfig(panel.schemas.names.presetProvider, panel.displayedConfig(panel.schemas.names.presetProvider)),
    }),
  )
  return el(
    'fieldset',
    { 'data-path': `settings.providers.${panel.schemas.names.presetProvider}.preset` },
    el('legend', { text: 'Start from a preset' }),
    el('div', { class: 'cc-providers', role: 'radiogroup', 'aria-label': 'Smart preset' }, radios),
  )
}

/** Export the provider's config as JSON, and import one (checked by its schema before use). */
export function exportImport(panel, providerId) {
  const id = `cc-json-${providerId}`
  const area = el('textarea', { id, rows: 6, spellcheck: 'false' })
  const status = el('div', { class: 'cc-error', role: 'status', 'data-error-for': `import.${providerId}` })
  const exportIt = () => {
    area.value = JSON.stringify(panel.value.providers?.[providerId] ?? {}, null, 2)
    panel.dispatchEvent(new CustomEvent('export', { detail: { provider: providerId, json: area.value } }))
  }
  const importIt = () => {
    status.textContent = ''
    let parsed
    try {
      parsed = JSON.parse(area.value)
    } catch (e) {
      status.textContent = `import: not JSON (${e.message})`
      return
    }
    const problems = panel.checkProviderConfig(providerId, parsed)
    if (problems.length) {
      status.textContent = problems.map((p) => `${p.path}: ${p.message}`).join('\n')
      return
    }
    panel.setProviderConfig(providerId, parsed)
  }
  return el(
    'details',
    { class: 'cc-json' },
    el('summary', { text: 'Export or import as JSON' }),
    el('div', { class: 'cc-field' }, el('label', { for: id, text: `${humanize(providerId)} configuration (JSON)` }), area),
    el(
      'div',
      { class: 'cc-row' },
      el('button', { type: 'button', text: 'Export', onclick: exportIt }),
      el('button', { type: 'button', text: 'Import', onclick: importIt }),
    ),
    status,
  )
}

/** About this many characters make a token in English prose and code. */
const CHARS_PER_TOKEN = 4
/** A prompt past this is sent with every summary: said, not refused. */
const LONG_PROMPT_CHARS = 8000

/** The summary prompt: its length, the default it replaces, and the request it makes. */
export function promptTools(panel, providerId, prompt, defaultPrompt) {
  const custom = typeof prompt === 'string' && prompt.trim() !== ''
  const text = custom ? prompt : defaultPrompt
  const notes = []
  if (typeof prompt === 'string' && !custom) notes.push('This prompt is blank, so the default below is used.')
  if (text.length > LONG_PROMPT_CHARS) notes.push(`Long: ${text.length} characters are sent with every summary.`)
  const out = el('div', { class: 'cc-request', hidden: true, 'aria-live': 'polite' })
  const show = async () => {
    out.hidden = false
    out.textContent = 'Preparing the request…'
    try {
      const request = panel.previewRequest
        ? await panel.previewRequest(panel.value)
        : { purpose: 'conversation', systemPrompt: text, messages: [{ role: 'user', content: '(the messages being summarized, as plain text)' }] }
      out.replaceChildren(...requestView(request))
    } catch (e) {
      out.textContent = `The host could not prepare the request: ${e?.message ?? e}`
    }
  }
  return el(
    'div',
    { class: 'cc-prompt', 'data-prompt-for': providerId },
    el('div', {
      class: 'cc-status',
      'data-prompt-length': String(text.length),
      text: `${custom ? 'Custom prompt' : 'Default prompt'}: ${text.length} characters, about ${Math.ceil(text.length / CHARS_PER_TOKEN)} tokens.`,
    }),
    notes.map((n) => el('div', { class: 'cc-help cc-prompt-note', text: n })),
    el('details', {}, el('summary', { text: 'Default prompt' }), el('pre', { text: defaultPrompt })),
    el('button', { type: 'button', text: 'Preview the summary request', onclick: show }),
    out,
  )
}

/** A message's content as text: a string as it is, blocks by their text (others as JSON). */
function contentText(content) {
  if (typeof content === 'string') return content
  if (!Array.isArray(content)) return JSON.stringify(content, null, 2)
  return content.map((b) => (b && typeof b.text === 'string' ? b.text : JSON.stringify(b, null, 2))).join('\n\n')
}

/** A summary request as a reader reads it: the system prompt, then each message under its role, text wrapped. */
function requestView(request) {
  if (!request) return [el('div', { class: 'cc-help', text: 'No request: the history is too short to summarize.' })]
  const message = (role, heading, body) =>
    el('section', { class: 'cc-msg', 'data-role': role }, el('div', { class: 'cc-msg-role', text: heading }), el('div', { class: 'cc-msg-text', text: body }))
  const messages = request.messages ?? []
  return [
    el('div', {
      class: 'cc-help',
      text: `${request.purpose ? `Purpose: ${request.purpose}. ` : ''}${messages.length} message${messages.length === 1 ? '' : 's'} after the system prompt.`,
    }),
    message('system', 'System prompt', request.systemPrompt ?? ''),
    ...messages.map((m, i) => message(m.role, `${i + 1}. ${m.role}`, contentText(m.content))),
  ]
}

/** Per API profile: inherit the global threshold (-1) or its own percentage. */
export function profileThresholds(panel) {
  const value = panel.value.profileThresholds ?? {}
  const profiles = [...panel.profiles]
  for (const id of Object.keys(value)) if (!profiles.some((p) => p.id === id)) profiles.push({ id, name: id })
  const set = (id, v) => panel.update({ ...panel.value, profileThresholds: { ...(panel.value.profileThresholds ?? {}), [id]: v } })
  const rows = profiles.map((p) => {
    const path = childPath('settings.profileThresholds', p.id)
    const current = value[p.id]
    const inherit = current === undefined || current === -1
    const boxId = `cc-inherit-${p.id}`
    const numId = `cc-threshold-${p.id}`
    const box = el('input', { type: 'checkbox', id: boxId, onchange: () => set(p.id, box.checked ? -1 : (panel.value.threshold ?? 100)) })
    box.checked = inherit
    const num = el('input', { type: 'number', id: numId, min: 5, max: 100, step: 'any', disabled: inherit })
    num.value = inherit ? '' : String(current)
    num.placeholder = String(panel.value.threshold ?? 100)
    num.addEventListener('change', () => set(p.id, num.value === '' ? -1 : Number(num.value)))
    return el(
      'tr',
      { 'data-path': path },
      el('th', { scope: 'row', text: p.name }),
      el('td', {}, el('div', { class: 'cc-check' }, box, el('label', { for: boxId, text: `Inherit global for ${p.name}` }))),
      el(
        'td',
        {},
        el('label', { for: numId, class: 'cc-help', text: `Threshold for ${p.name} (%)` }),
        num,
        el('div', { class: 'cc-error', 'data-error-for': path, role: 'status' }),
      ),
    )
  })
  return el(
    'fieldset',
    { 'data-path': 'settings.profileThresholds' },
    el('legend', { text: 'Thresholds per API profile' }),
    profiles.length ? el('table', {}, el('tbody', {}, rows)) : el('div', { class: 'cc-help', text: 'The host passed no API profiles.' }),
    el('div', { class: 'cc-error', 'data-error-for': 'settings.profileThresholds', role: 'status' }),
  )
}

/** The profile whose model writes summaries. */
export function condensingProfile(panel) {
  const id = 'cc-condensing-profile'
  const select = el(
    'select',
    {
      id,
      onchange: () => {
        const next = { ...panel.value }
        if (select.value === '') delete next.condensingProfileId
        else next.condensingProfileId = select.value
        panel.update(next)
      },
    },
    el('option', { value: '', text: "The task's own profile" }),
    panel.profiles.map((p) => el('option', { value: p.id, text: p.name })),
  )
  select.value = panel.value.condensingProfileId ?? ''
  return el(
    'div',
    { class: 'cc-field', 'data-path': 'settings.condensingProfileId' },
    el('label', { for: id, text: 'Profile that writes summaries' }),
    select,
    el('div', { class: 'cc-error', 'data-error-for': 'settings.condensingProfileId', role: 'status' }),
  )
}

/**
 * The manager's policy (`settingsSchemas().policy`): a radio group of the default and each
 * cache-aware policy, and for those the prompt-cache model. Sets the panel's policy
 * (`panel.updatePolicy`), in the manager's object form.
 */
export function policyChoice(panel) {
  const schema = panel.schemas.policy
  const current = panel.policyValue
  const chosen = schema.oneOf.find((b) => b.properties.name.const === current.name)
  const cacheOf = (p, branch) => (typeof p.cache === 'string' ? p.cache : branch.properties.cache.default)
  const group = el(
    'div',
    { class: 'cc-providers', role: 'radiogroup', 'aria-labelledby': 'cc-h-policy' },
    schema.oneOf.map((b) => {
      const name = b.properties.name.const
      return radioCard({
        group: 'cc-policy',
        id: `cc-policy-${name}`,
        label: b.title,
        help: b.description,
        checked: current.name === name,
        // The cache model chosen is kept across the cache-aware policies.
        onchange: () => panel.updatePolicy(b.properties.cache ? { name, cache: cacheOf(current, b) } : { name }),
      })
    }),
  )
  let cache = null
  if (chosen?.properties.cache) {
    const id = 'cc-policy-cache'
    const c = chosen.properties.cache
    const select = el(
      'select',
      { id, 'aria-describedby': `${id}-help`, onchange: () => panel.updatePolicy({ ...panel.policyValue, cache: select.value }) },
      c.enum.map((m) => el('option', { value: m, text: humanize(m) })),
    )
    select.value = cacheOf(current, chosen)
    cache = el(
      'div',
      { class: 'cc-field', 'data-path': 'policy.cache' },
      el('label', { for: id, text: 'Prompt cache model' }),
      select,
      el('div', { class: 'cc-help', id: `${id}-help`, prose: c.description }),
      el('div', { class: 'cc-error', 'data-error-for': 'policy.cache', role: 'status' }),
    )
  }
  return el(
    'fieldset',
    { 'data-path': 'policy' },
    el('legend', { id: 'cc-h-policy', text: schema.title }),
    group,
    cache,
    el('div', { class: 'cc-error', 'data-error-for': 'policy', role: 'status' }),
  )
}

/** One manager setting rendered from the manager's schema. */
export function managerField(panel, key) {
  return field(panel.schemas.manager.properties[key], {
    root: panel.schemas.manager,
    key,
    path: `settings.${key}`,
    get: () => panel.value[key],
    set: (v) => {
      const next = { ...panel.value }
      if (v === undefined) delete next[key]
      else next[key] = v
      panel.update(next)
    },
  })
}

/** A bar `width` wide, set through the CSSOM (a style attribute would need 'unsafe-inline'). */
function bar(width) {
  const b = el('div', { class: 'cc-bar' })
  b.style.width = width
  return b
}

const fmt = (n) => (typeof n === 'number' ? n.toLocaleString('en-US') : '—')

/** What each provider would remove on the current task, with before/after bars. */
export function previewSection(panel) {
  const body = el('div', { 'aria-live': 'polite' })
  const draw = (result) => {
    const before = result.tokensBefore
    const policy = result.policy
    body.replaceChildren(
      policy
        ? el('div', {
            class: 'cc-help',
            'data-policy': policy.name,
            text: `Policy: ${policy.name}${policy.cache ? ` (${policy.cache} prompt cache)` : ''}; the rows are what each strategy removes at the threshold.`,
          })
        : null,
      el(
        'table',
        {},
        el(
          'thead',
          {},
          el(
            'tr',
            {},
            el('th', { text: 'Provider' }),
            el('th', { class: 'num', text: 'Tokens after' }),
            el('th', { class: 'num', text: 'Removed' }),
            el('th', { text: `Before (${fmt(before)}) / after` }),
          ),
        ),
        el(
          'tbody',
          {},
          result.rows.map((r) => {
            const after = r.tokensAfter
            const pct = typeof after === 'number' && before > 0 ? `${(((before - after) * 100) / before).toFixed(1)}%` : '—'
            const width = typeof after === 'number' && before > 0 ? `${Math.max(0.5, (after * 100) / before)}%` : '0'
            return el(
              'tr',
              { 'data-provider': r.provider },
              el('th', { scope: 'row', text: r.name ?? humanize(r.provider) }),
              el('td', { class: 'num', text: fmt(after) }),
              el('td', { class: 'num', text: pct }),
              el(
                'td',
                {},
                el('div', { class: 'cc-bars', title: r.note ?? '' }, el('div', { class: 'cc-bar before' }), bar(width)),
                r.note ? el('div', { class: 'cc-help', text: r.note }) : null,
              ),
            )
          }),
        ),
      ),
    )
  }
  const run = async () => {
    body.replaceChildren(el('div', { class: 'cc-status', text: 'Measuring on the current task…' }))
    try {
      draw(await panel.preview(panel.value, { policy: panel.policy }))
    } catch (e) {
      body.replaceChildren(el('div', { class: 'cc-error', text: `The preview failed: ${e?.message ?? e}` }))
    }
  }
  return el(
    'section',
    {},
    el('h2', { text: 'Preview on this task' }),
    panel.preview
      ? [el('button', { type: 'button', class: 'cc-primary', text: 'Preview what each strategy removes', onclick: run }), body]
      : el('div', { class: 'cc-help', text: 'The host gives no preview.' }),
  )
}
