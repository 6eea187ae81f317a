// The names the engine's registry defines (src/catalogue.rs), read once from the native module:
// the built-in providers' ids and the default one, the Smart presets and the default one, the
// encodings and the default one. Every other module of lib/ and bin/ takes a provider, preset or
// encoding name from here and spells none itself (a Smart config that names neither a preset nor
// passes runs the default preset: the engine reads it so, src/providers/smart); this is the one place that names a provider
// for its role (the summary Roo writes, the lossless one, the one with presets), and each such
// name is checked against the engine's list when this module loads. Reads only.
'use strict'

const native = require('./native.js')
const { deepFreeze } = require('./values.js')

const catalogue = native.providerCatalogue()

/** The built-in providers' ids, in the order hosts offer them. */
const PROVIDER_IDS = deepFreeze(catalogue.providers.map((p) => p.id))

/** The id of a built-in provider this library gives a role, checked against the engine's list. */
function builtIn(id) {
  if (!PROVIDER_IDS.includes(id)) throw new Error(`context-condense: the engine has no provider "${id}" (it has ${PROVIDER_IDS.join(', ')})`)
  return id
}

/** The providers by their role. */
const PROVIDER = Object.freeze({
  /** Roo Code's summary: one LLM summary of the middle of the history. */
  native: builtIn('native'),
  /** Only what is repeated or superseded, with references that expand back. */
  lossless: builtIn('lossless'),
  /** Mechanical shortening of old tool output, no LLM. */
  truncation: builtIn('truncation'),
  /** Passes over content types, configured by a preset or by passes. */
  smart: builtIn('smart'),
})

/** The Smart presets, in the order the README lists them. */
const PRESETS = deepFreeze([...catalogue.presets])

module.exports = {
  PROVIDER_IDS,
  PROVIDER,
  /** The provider a host runs when its config names none. */
  DEFAULT_PROVIDER: catalogue.defaultProvider,
  PRESETS,
  /** The preset a Smart config with neither a preset nor passes runs (the engine's rule). */
  DEFAULT_PRESET: catalogue.defaultPreset,
  /** The presets a settings panel offers as starting points (the general ones; the others are for one use). */
  GENERAL_PRESETS: deepFreeze([...catalogue.generalPresets]),
  /** The token encodings, the default first. */
  ENCODINGS: deepFreeze([...catalogue.encodings]),
  DEFAULT_ENCODING: catalogue.defaultEncoding,
}
