// Renders a form from a JSON Schema: one labelled control per setting the schema describes, none
// written by hand per provider. Objects become fieldsets, booleans checkboxes, numbers number
// fields with the schema's bounds, enums and choices of constants selects, optional settings a
// "set" switch, lists and maps rows with add/remove, and a choice between forms (a selection
// type, an operation with or without parameters) a select of the form plus its fields. Reads
// the value through `get` and writes a new one through `set`; never changes an object in place.

import { childPath, resolve } from './validate.mjs'

/** Settings shown under "Advanced" (collapsed) wherever they appear. */
const ADVANCED = new Set(['pricing', 'taskId', 'triggers', 'providerTriggers', 'profileTriggers', 'loopGuard', 'overrides', 'thresholds', 'execution'])

/** A control's id from its setting's path (the same on every render, so focus can come back). */
const idFor = (path, role) => `cc-${path.replace(/[^A-Za-z0-9_-]/g, '_')}-${role}`

/**
 * Prose with `code` spans (as the engine's descriptions write names and values) as DOM: the text
 * between backticks in <code>, the rest as text. Never parses anything else as markup.
 */
export function prose(text) {
  return String(text)
    .split(/`([^`]+)`/)
    .map((part, i) => (i % 2 ? el('code', { text: part }) : part))
    .filter((part) => part !== '')
}

/** An element: `text` its text, `prose` its text with `code` spans, `on*` listeners, the rest attributes or properties. */
export function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag)
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue
    if (k === 'text') e.textContent = v
    else if (k === 'prose') e.append(...prose(v))
    else if (k.startsWith('on')) e.addEventListener(k.slice(2), v)
    else if (k in e && typeof v !== 'string') e[k] = v
    else e.setAttribute(k, v === true ? '' : v)
  }
  for (const c of children.flat()) if (c !== undefined && c !== null && c !== false) e.append(c)
  return e
}

/** "preserveRecentCount" → "Preserve recent count". */
export function humanize(key) {
  const words = String(key)
    .replace(/([a-z0-9])([A-Z])/g, '$1 $2')
    .replace(/[_-]+/g, ' ')
    .toLowerCase()
  return words.charAt(0).toUpperCase() + words.slice(1)
}

/** The description without its "@default" note (the default is shown on its own). */
export function helpText(schema) {
  return (schema.description ?? '').replace(/\s*@default\s+\S+\s*$/, '').trim()
}

/** A value that fits `schema`, for a new list item or a newly chosen form. */
export function defaultFor(schema, root) {
  const s = resolve(schema, root)
  if (s.default !== undefined && s.default !== null) return structuredClone(s.default)
  if (s.const !== undefined) return s.const
  if (s.enum) return s.enum[0]
  const choices = s.oneOf ?? s.anyOf
  if (choices) return defaultFor(choices.find((b) => resolve(b, root).type !== 'null') ?? choices[0], root)
  const type = Array.isArray(s.type) ? s.type.find((t) => t !== 'null') : s.type
  switch (type) {
    case 'object': {
      const out = {}
      for (const r of s.required ?? []) out[r] = defaultFor(s.properties[r], root)
      return out
    }
    case 'array':
      return []
    case 'integer':
    case 'number':
      return s.minimum ?? 0
    case 'string':
      return ''
    case 'boolean':
      return false
    default:
      return null
  }
}

/** The non-null schema of an optional setting (`type: [x, "null"]` or `anyOf: [X, null]`), else null. */
function optionalInner(s, root) {
  if (Array.isArray(s.type) && s.type.includes('null') && s.type.length === 2) return { ...s, type: s.type.find((t) => t !== 'null') }
  const choices = s.anyOf
  if (choices?.length === 2) {
    const nonNull = choices.filter((b) => resolve(b, root).type !== 'null')
    if (nonNull.length === 1) return { ...resolve(nonNull[0], root), description: s.description ?? resolve(nonNull[0], root).description }
  }
  return null
}

/** A choice of constants (`oneOf` of `const`s, or `enum`): [[value, description]]. */
function constChoices(s, root) {
  if (s.enum) return s.enum.map((v) => [v, ''])
  if (s.oneOf?.every((b) => resolve(b, root).const !== undefined)) return s.oneOf.map((b) => [resolve(b, root).const, resolve(b, root).description ?? ''])
  return null
}

/** The label of one form of a choice. */
function branchLabel(b, root, i) {
  const r = resolve(b, root)
  if (r.properties?.type?.const) return humanize(r.properties.type.const)
  if (r.type === 'string' || r.enum) return 'By name'
  if (r.type === 'object') return 'With parameters'
  return r.title ?? `Form ${i + 1}`
}

/** Which form of a choice `value` is in: the discriminator's const, else the JSON type. */
function branchOf(branches, value, root) {
  const k = branches.findIndex((b) => {
    const r = resolve(b, root)
    const d = r.properties?.type?.const
    if (d !== undefined) return value && value.type === d
    if (r.type === 'object') return value && typeof value === 'object' && !Array.isArray(value)
    return typeof value === 'string' && (!r.enum || r.enum.includes(value))
  })
  return Math.max(0, k)
}

/**
 * The control(s) of one setting. `ctx` = { root, path, key, get, set, optionalKey }: `get()` is
 * the current value (undefined when not set), `set(v)` writes it (undefined removes the key).
 */
export function field(schema, ctx) {
  const { root, path } = ctx
  const s = resolve(schema, root)
  const label = ctx.label ?? humanize(ctx.key ?? '')
  const help = helpText(s)
  const inner = optionalInner(s, root)
  if (inner) return optionalField(inner, ctx, label, help)
  const id = idFor(path, 'value')
  const wrap = (control, extra = {}) =>
    el(
      'div',
      { class: 'cc-field', 'data-path': path, ...extra },
      el('label', { for: id, text: label }),
      control,
      help ? el('div', { class: 'cc-help', id: `${id}-help`, prose: help }) : null,
      el('div', { class: 'cc-error', 'data-error-for': path, role: 'status' }),
    )
  const consts = constChoices(s, root)
  if (consts) {
    const select = el(
      'select',
      { id, 'aria-describedby': help ? `${id}-help` : undefined, onchange: () => ctx.set(JSON.parse(select.value)) },
      // An <option> holds only text: a `code` span of its description is shown without its backticks.
      consts.map(([v, d]) => el('option', { value: JSON.stringify(v), text: d ? `${v} — ${d.replace(/`([^`]+)`/g, '$1')}` : String(v) })),
    )
    select.value = JSON.stringify(ctx.get() ?? defaultFor(s, root))
    return wrap(select)
  }
  // A choice between forms; an object's own anyOf (which keys it needs) is checked, not chosen.
  if ((s.oneOf || s.anyOf) && !s.properties) return choiceField(s, ctx, label, help)
  const type = Array.isArray(s.type) ? s.type[0] : s.type
  if (type === 'boolean') {
    const box = el('input', { type: 'checkbox', id, 'aria-describedby': help ? `${id}-help` : undefined, onchange: () => ctx.set(box.checked) })
    box.checked = Boolean(ctx.get() ?? s.default)
    return el(
      'div',
      { class: 'cc-field cc-check', 'data-path': path },
      box,
      el('label', { for: id, text: label }),
      help ? el('div', { class: 'cc-help', id: `${id}-help`, prose: help }) : null,
      el('div', { class: 'cc-error', 'data-error-for': path, role: 'status' }),
    )
  }
  if (type === 'integer' || type === 'number') {
    const input = el('input', {
      type: 'number',
      id,
      min: s.minimum,
      max: s.maximum,
      step: type === 'integer' ? 1 : 'any',
      'aria-describedby': help ? `${id}-help` : undefined,
    })
    const v = ctx.get()
    input.value = v === undefined ? '' : String(v)
    if (v === undefined && s.default !== undefined && s.default !== null) input.placeholder = String(s.default)
    input.addEventListener('change', () => {
      if (input.value === '') ctx.set(input.validity.badInput ? input.value : undefined)
      else ctx.set(Number(input.value))
    })
    return wrap(input)
  }
  if (type === 'string') {
    const long = /prompt/i.test(ctx.key ?? '')
    const input = long ? el('textarea', { id, rows: 6 }) : el('input', { type: 'text', id })
    if (help) input.setAttribute('aria-describedby', `${id}-help`)
    input.value = ctx.get() ?? ''
    input.addEventListener('change', () => ctx.set(input.value === '' && ctx.optional ? undefined : input.value))
    return wrap(input)
  }
  if (type === 'array') return listField(s, ctx, label, help)
  if (type === 'object') return objectField(s, ctx, label, help)
  return wrap(el('output', { id, text: JSON.stringify(ctx.get()) }))
}

/** An optional setting: a switch that sets it (to its default) or removes it, then its control. */
function optionalField(inner, ctx, label, help) {
  const id = idFor(ctx.path, 'set')
  const value = ctx.get()
  const on = value !== undefined && value !== null
  const box = el('input', {
    type: 'checkbox',
    id,
    'aria-describedby': help ? `${id}-help` : undefined,
    onchange: () => ctx.set(box.checked ? defaultFor(inner, ctx.root) : undefined),
  })
  box.checked = on
  return el(
    'div',
    { class: 'cc-field cc-optional', 'data-path': ctx.path },
    el('div', { class: 'cc-check' }, box, el('label', { for: id, text: `Set ${label.charAt(0).toLowerCase()}${label.slice(1)}` })),
    help ? el('div', { class: 'cc-help', id: `${id}-help`, prose: help }) : null,
    on ? field(inner, { ...ctx, label, optional: true }) : el('div', { class: 'cc-error', 'data-error-for': ctx.path, role: 'status' }),
  )
}

/** A choice between forms: a select of the form, then the chosen form's fields. */
function choiceField(s, ctx, label, help) {
  const branches = s.oneOf ?? s.anyOf
  const id = idFor(ctx.path, 'form')
  const current = branchOf(branches, ctx.get(), ctx.root)
  const select = el(
    'select',
    { id, onchange: () => ctx.set(defaultFor(branches[Number(select.value)], ctx.root)) },
    branches.map((b, i) => el('option', { value: String(i), text: branchLabel(b, ctx.root, i) })),
  )
  select.value = String(current)
  const chosen = resolve(branches[current], ctx.root)
  let body
  if (chosen.type === 'object') {
    body = objectField(
      { ...chosen, properties: Object.fromEntries(Object.entries(chosen.properties ?? {}).filter(([, p]) => resolve(p, ctx.root).const === undefined)) },
      { ...ctx, label: undefined },
      '',
      '',
    )
  } else {
    body = field(chosen, { ...ctx, label: humanize(ctx.key ?? 'value') })
  }
  return el(
    'fieldset',
    { class: 'cc-choice', 'data-path': ctx.path },
    el('legend', { text: label }),
    help ? el('div', { class: 'cc-help', prose: help }) : null,
    el('div', { class: 'cc-field' }, el('label', { for: id, text: `${label}: form` }), select),
    body,
  )
}

/** An object: a fieldset of its properties (advanced ones collapsed), or a map's rows. */
function objectField(s, ctx, label, help) {
  const value = ctx.get() ?? {}
  const props = s.properties ?? {}
  const children = []
  const advanced = []
  for (const [k, p] of Object.entries(props)) {
    if (ctx.omit?.includes(k)) continue // the panel shows it its own way (Smart's preset)
    const f = field(p, {
      root: ctx.root,
      key: k,
      path: childPath(ctx.path, k),
      compact: ctx.compact?.[k],
      get: () => (ctx.get() ?? {})[k],
      set: (v) => {
        const next = { ...(ctx.get() ?? {}) }
        if (v === undefined) delete next[k]
        else next[k] = v
        ctx.set(next)
      },
    })
    ;(ADVANCED.has(k) ? advanced : children).push(f)
  }
  if (s.additionalProperties && typeof s.additionalProperties === 'object' && !Object.keys(props).length) {
    children.push(mapRows(s.additionalProperties, ctx, value))
  }
  const parts = [...children]
  if (advanced.length) parts.push(el('details', { class: 'cc-advanced' }, el('summary', { text: 'Advanced' }), advanced))
  if (label === undefined || label === '') return el('div', { class: 'cc-object', 'data-path': ctx.path }, parts)
  return el(
    'fieldset',
    { class: 'cc-object', 'data-path': ctx.path },
    el('legend', { text: label }),
    help ? el('div', { class: 'cc-help', prose: help }) : null,
    parts,
    el('div', { class: 'cc-error', 'data-error-for': ctx.path, role: 'status' }),
  )
}

/** A map (`additionalProperties` schema): one row per key, a key field and an add button. */
function mapRows(valueSchema, ctx, value) {
  const rows = Object.keys(value).map((k) =>
    el(
      'div',
      { class: 'cc-row' },
      field(valueSchema, {
        root: ctx.root,
        key: k,
        label: k,
        path: childPath(ctx.path, k),
        get: () => (ctx.get() ?? {})[k],
        set: (v) => ctx.set({ ...(ctx.get() ?? {}), [k]: v }),
      }),
      el('button', {
        type: 'button',
        text: `Remove ${k}`,
        onclick: () => {
          const n = { ...(ctx.get() ?? {}) }
          delete n[k]
          ctx.set(n)
        },
      }),
    ),
  )
  const id = idFor(ctx.path, 'newkey')
  const key = el('input', { type: 'text', id, placeholder: ctx.keyHint ?? 'id' })
  const add = el('button', {
    type: 'button',
    text: 'Add',
    onclick: () => {
      if (key.value.trim()) ctx.set({ ...(ctx.get() ?? {}), [key.value.trim()]: defaultFor(valueSchema, ctx.root) })
    },
  })
  return el('div', { class: 'cc-map' }, rows, el('div', { class: 'cc-row' }, el('label', { for: id, text: 'New key' }), key, add))
}

/**
 * A list: each item's fields with move and remove buttons, and an add button. With `ctx.compact`
 * (`{ line(item) → text, open: Set of paths }`) each item is one line saying what it is, that
 * expands to its fields; the items open are remembered in `open` across renders.
 */
function listField(s, ctx, label, help) {
  const items = ctx.get() ?? []
  const update = (fn) => {
    const next = [...(ctx.get() ?? [])]
    fn(next)
    ctx.set(next)
  }
  const rows = items.map((item, i) => {
    const itemLabel = item && typeof item === 'object' && (item.name || item.id) ? `${i + 1}. ${item.name || item.id}` : `${label} ${i + 1}`
    const path = childPath(ctx.path, i)
    const compact = ctx.compact
    const body = [
      field(s.items, {
        root: ctx.root,
        key: String(i),
        label: itemLabel,
        path,
        get: () => (ctx.get() ?? [])[i],
        set: (v) =>
          update((n) => {
            n[i] = v
          }),
      }),
      el(
        'div',
        { class: 'cc-row' },
        el('button', {
          type: 'button',
          text: 'Move up',
          disabled: i === 0,
          'aria-label': `Move ${itemLabel} up`,
          onclick: () => update((n) => n.splice(i - 1, 0, n.splice(i, 1)[0])),
        }),
        el('button', { type: 'button', text: 'Remove', 'aria-label': `Remove ${itemLabel}`, onclick: () => update((n) => n.splice(i, 1)) }),
      ),
    ]
    if (!compact) return el('div', { class: 'cc-item' }, body)
    return el(
      'details',
      {
        class: 'cc-item cc-compact',
        'data-item': path,
        open: compact.open.has(path) || undefined,
        ontoggle: (e) => (e.target.open ? compact.open.add(path) : compact.open.delete(path)),
      },
      el('summary', {}, el('strong', { text: itemLabel }), el('span', { class: 'cc-line', text: compact.line(item) })),
      body,
    )
  })
  return el(
    'fieldset',
    { class: 'cc-list', 'data-path': ctx.path },
    el('legend', { text: label }),
    help ? el('div', { class: 'cc-help', prose: help }) : null,
    rows,
    el('button', { type: 'button', text: `Add to ${label.toLowerCase()}`, onclick: () => update((n) => n.push(defaultFor(s.items, ctx.root))) }),
    el('div', { class: 'cc-error', 'data-error-for': ctx.path, role: 'status' }),
  )
}
