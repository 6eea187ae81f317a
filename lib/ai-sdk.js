// `context-condense/ai-sdk`: the library for Vercel AI SDK histories (`ModelMessage[]` of the `ai`
// package). `toEngine` / `fromEngine` convert between the SDK's messages and the Anthropic form the
// engine condenses; `condense` and `expandReferences` take and give SDK messages (a message the
// engine left alone comes back as the caller's own object); `createPrepareStep` condenses an agent
// loop's messages step by step with the manager's policy. The conversion is lib/ai-sdk/format.js,
// the `prepareStep` lib/ai-sdk/step.js. It never imports the `ai` package: a host that wants
// summaries from a model passes its own `generateText` (or its own `summarize` callback). It never
// mutates the caller's messages.
'use strict'

const lib = require('./functions.js')
const { coded } = require('./internal/errors.js')
const { checkMessagesArray } = require('./internal/checks.js')
const { Form, convert, written, located } = require('./ai-sdk/format.js')
const { createPrepareStep } = require('./ai-sdk/step.js')
const { isObject } = require('./internal/values.js')

/** Converts SDK messages to the Anthropic form the engine condenses (see `AiSdkConversion`). */
function toEngine(messages) {
  checkMessagesArray(messages, 'toEngine')
  return convert(new Form('toEngine'), messages)
}

/** An Anthropic (Roo Code) history as SDK messages: tool_result blocks become tool messages. */
function fromEngine(messages) {
  checkMessagesArray(messages, 'fromEngine')
  const names = new Map()
  return messages.flatMap((m) => (isObject(m) ? written(m, names) : [m]))
}

async function condenseUncoded(messages, options) {
  checkMessagesArray(messages, 'condense')
  if (isObject(options) && 'format' in options) throw new TypeError('condense: options.format: context-condense/ai-sdk reads AI SDK messages; leave format out')
  const conversion = convert(new Form('condense'), messages)
  let result
  try {
    result = await lib.condense(conversion.messages, options)
  } catch (e) {
    throw located(e, conversion)
  }
  return conversion.finish(result)
}

function expandReferencesUncoded(messages) {
  checkMessagesArray(messages, 'expandReferences')
  const conversion = convert(new Form('expandReferences'), messages)
  let expanded
  try {
    expanded = lib.expandReferences(conversion.messages)
  } catch (e) {
    throw located(e, conversion)
  }
  return conversion.restore(expanded)
}

// The public functions throw with `errorCode` set (lib/errors.js), as the library's other entries
// do. Each is written out: Node's ESM import of this file finds named exports only in such forms.
const toEngineCoded = coded(toEngine)
const fromEngineCoded = coded(fromEngine)
const condense = coded(condenseUncoded)
const expandReferences = coded(expandReferencesUncoded)
const createPrepareStepCoded = coded(createPrepareStep)
module.exports = {
  toEngine: toEngineCoded,
  fromEngine: fromEngineCoded,
  condense,
  expandReferences,
  createPrepareStep: createPrepareStepCoded,
}
