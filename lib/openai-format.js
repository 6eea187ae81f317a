// The OpenAI chat format, the public entry (`context-condense/openai-format`): telling the two
// formats apart and converting a history both ways, its reference markers renumbered for the
// converted history. The conversion itself is lib/internal/openai-format.js, which the library's
// own functions (`format` in condense, analyze, countTokens) use too.
'use strict'

const { detectFormat, toAnthropic, fromAnthropic, route, readFormat } = require('./internal/openai-format.js')

module.exports = { detectFormat, toAnthropic, fromAnthropic, route, readFormat }
