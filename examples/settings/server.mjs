// The settings panel's demo: serves a page that mounts <context-condense-settings> over a bundled
// history, with the schemas and the previews computed here by the engine. Run with
// `npm run demo:settings` (prints the address); the Chromium tests start it on a free port.
// Serves only the files it names; listens on the loopback interface only.
import { readFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..', '..')
const require = createRequire(import.meta.url)
const { settingsSchemas, previewOnHistory, summaryRequestFor } = require('../../lib/settings/schemas.js')

const FILES = {
  '/': ['examples/settings/index.html', 'text/html; charset=utf-8'],
  ...Object.fromEntries(
    ['element', 'form', 'sections', 'style', 'validate'].map((m) => [`/lib/settings/${m}.mjs`, [`lib/settings/${m}.mjs`, 'text/javascript; charset=utf-8']]),
  ),
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    let text = ''
    req.setEncoding('utf8')
    req.on('data', (c) => {
      text += c
      if (text.length > 1e6) reject(new Error('body too large'))
    })
    req.on('end', () => resolve(text))
    req.on('error', reject)
  })
}

/** Starts the demo; resolves to `{ url, close() }`. `history` defaults to the bundled XML session. */
export async function startSettingsDemo({ port = 0, history } = {}) {
  const messages = history ?? JSON.parse(readFileSync(join(ROOT, 'fixtures/examples/xml-session.json'), 'utf8'))
  const schemas = JSON.stringify(settingsSchemas())
  const server = createServer(async (req, res) => {
    const send = (status, type, body) => {
      res.writeHead(status, { 'content-type': type, 'cache-control': 'no-store' })
      res.end(body)
    }
    try {
      const path = new URL(req.url, 'http://localhost').pathname
      if (req.method === 'GET' && FILES[path]) return send(200, FILES[path][1], readFileSync(join(ROOT, FILES[path][0])))
      if (req.method === 'GET' && path === '/schemas.json') return send(200, 'application/json', schemas)
      if (req.method === 'GET' && path === '/profiles.json')
        return send(
          200,
          'application/json',
          JSON.stringify([
            { id: 'default', name: 'Default (Claude)' },
            { id: 'fast', name: 'Fast (GPT mini)' },
          ]),
        )
      if (req.method === 'POST' && path === '/preview') {
        // { settings, policy }: the manager's config and its policy option, as the panel hands them.
        const { settings, policy } = JSON.parse(await readBody(req))
        return send(200, 'application/json', JSON.stringify(await previewOnHistory(messages, settings, policy === undefined ? {} : { policy })))
      }
      if (req.method === 'POST' && path === '/request')
        return send(200, 'application/json', JSON.stringify(await summaryRequestFor(messages, JSON.parse(await readBody(req)))))
      send(404, 'text/plain', 'not found')
    } catch (e) {
      send(500, 'text/plain', String(e?.message ?? e))
    }
  })
  await new Promise((resolve) => server.listen(port, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${server.address().port}/`
  return { url, close: () => new Promise((resolve) => server.close(resolve)) }
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { url } = await startSettingsDemo({ port: Number(process.env.PORT ?? 4173) })
  console.log(`Settings panel demo: ${url}  (Ctrl+C to stop)`)
}
