// The manager's `policy` option read for another entry (the Roo entries, the settings panel's
// preview): the manager's own reading of it (`readPolicy`, lib/internal/cache-aware.js, the one check
// of the option), its problems named where that entry's caller gave it. Reads only.
'use strict'

const { readPolicy } = require('./cache-aware.js')

/** How readPolicy names the option in its errors (the manager's constructor option). */
const MANAGER_AT = 'CondensationManager: options.policy'

/**
 * The checked policy (readPolicy's answer: undefined for the default), a problem thrown as a
 * TypeError naming it under `at` (`manageContext: options.policy.cache: expected ...`); a value
 * that cannot be read (a getter that throws) is refused naming it too.
 */
function readPolicyAt(value, at) {
  try {
    return readPolicy(value)
  } catch (e) {
    if (e instanceof TypeError) throw new TypeError(e.message.startsWith(MANAGER_AT) ? `${at}${e.message.slice(MANAGER_AT.length)}` : `${at}: ${e.message}`)
    throw new TypeError(`${at}: could not be read: ${e && e.message ? e.message : String(e)}`)
  }
}

module.exports = { readPolicyAt }
