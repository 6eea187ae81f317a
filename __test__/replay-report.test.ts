// The replay section of the HTML report (lib/report/replay.js): a table of the policies replayed
// (the cheapest marked, each against Roo Code's default) and per policy a chart with a bar per
// request split by cache read / write / uncached cost, a mark per condensing; escapes what it
// shows; refuses what is not a replay result, naming where. Checked on hand-made results whose
// figures are known, and on real replays of the bundled example.
import { existsSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'

import { condense, replay, type ApiMessage, type ReplayResult } from '../lib/index.js'
import { renderHtmlReport, renderReplayReport } from '../lib/report-html.js'
import { cli, tmp } from './cli-harness.js'
import { assertInvariants } from './helpers.js'

const HOSTILE = '</script><img src=x onerror=alert(1)>'
const pricing = { inputPrice: 3, outputPrice: 15, cacheWritesPrice: 3.75, cacheReadsPrice: 0.3 }

/** A result of `requests` requests of 10,000 tokens each: the first written, the rest read. */
function made(policy: string, billedInputCost: number, requests: number, condensingTurns: number[] = []): ReplayResult {
  const perRequest = Array.from({ length: requests }, (_, turn) => {
    const write = turn === 0 ? 10_000 : 0
    const read = 10_000 - write
    return { turn, tokens: 10_000, cachedRead: read, cacheWrite: write, uncached: 0, cost: (read * 0.3 + write * 3.75) / 1e6, firstChanged: 0 }
  })
  const check = { total: 2, kept: 1, missing: [{ message: 3, text: `typed ${HOSTILE}` }] }
  return {
    policy: policy as ReplayResult['policy'],
    description: `what ${policy} does ${HOSTILE}`,
    requests,
    inputTokens: requests * 10_000,
    cachedReadTokens: (requests - 1) * 10_000,
    cacheWriteTokens: 10_000,
    uncachedTokens: 0,
    cacheHitRate: (requests - 1) / requests,
    requestsCost: billedInputCost,
    summaryInputCost: 0,
    billedInputCost,
    sendOnceCost: billedInputCost / 2,
    floorCost: billedInputCost / 2,
    cacheFloorCost: billedInputCost / 2,
    summaryOutputCost: 0,
    summaryCost: 0,
    billedCost: billedInputCost,
    summaryCacheWriteTokens: 0,
    summaries: condensingTurns.length,
    summaryCalls: {},
    summaryInputTokens: 0,
    summaryOutputTokens: 0,
    condensings: condensingTurns.map((turn) => ({ turn, role: 'main', provider: 'native', tokensBefore: 9_000, tokensAfter: 3_000, firstChanged: 1 })),
    peakContext: 10_000,
    requestsOverLimit: 0,
    requestsOverWindow: 0,
    requestsOverWindowUnavoidable: 0,
    checks: { typed: check, errors: { total: 0, kept: 0, missing: [] }, workingSet: { total: 4, kept: 4, missing: [] } },
    perRequest,
    messages: [],
    settings: {
      contextWindow: 200_000,
      threshold: 100,
      maxTokens: 8192,
      systemTokens: 10_000,
      summaryTokens: 2000,
      cache: 'anthropic',
      lookbackBlocks: 20,
      cacheTtl: '5m',
      requestTimes: 'spaced',
      pricing,
      allowedTokens: 172_627,
      summarizer: 'stand-in',
    },
    timeMs: 1,
  }
}

const row = (html: string, policy: string) => html.match(new RegExp(`<tr data-policy="${policy}".*?</tr>`))?.[0] ?? ''
const count = (html: string, needle: string | RegExp) => html.split(needle).length - 1
const section = (html: string) => html.slice(html.indexOf('<section class="replay"'), html.indexOf('</section>', html.indexOf('<section class="replay"')))

describe('replay section', () => {
  it('compares the policies: the cheapest marked, each against Roo Code’s default', () => {
    const html = renderReplayReport([
      made('roo-default', 2, 5, [2]),
      made('cache-aware', 1, 5),
      { ...made('smart-balanced', 3, 5, [1, 3]), requestsOverWindow: 3 },
    ])
    const s = section(html)
    expect(count(s, '<tr data-policy=')).toBe(3)
    expect(s).toMatch(/<tr data-policy="cache-aware" class="rp-best">/)
    expect(count(s, 'rp-best')).toBe(1)
    // 1 / 2 and 3 / 2 of the default's cost; none beside the default itself.
    expect(row(s, 'cache-aware')).toContain('$1.0000 <span class="rp-x">0.50x</span>')
    expect(row(s, 'smart-balanced')).toContain('$3.0000 <span class="rp-x">1.50x</span>')
    expect(row(s, 'roo-default')).toContain('$2.0000</td>')
    expect(row(s, 'roo-default')).not.toContain('rp-x')
    // Ranked and compared by what is billed, the summary calls' output included: a policy whose
    // input is cheapest but whose summaries' output makes it dearer is not the cheapest.
    const withOutput = section(
      renderReplayReport([
        made('roo-default', 2, 5, [2]),
        { ...made('cache-aware', 1, 5), summaryOutputCost: 1.5, summaryCost: 1.5, billedCost: 2.5 },
        made('smart-aggressive', 1.2, 5),
      ]),
    )
    expect(withOutput).toMatch(/<tr data-policy="smart-aggressive" class="rp-best">/)
    expect(row(withOutput, 'cache-aware')).toContain('$2.5000 <span class="rp-x">1.25x</span>')
    // The requests each left larger than the window.
    expect(row(s, 'smart-balanced')).toContain('data-field="requestsOverWindow" data-value="3">3</td>')
    expect(row(s, 'roo-default')).toContain('data-field="requestsOverWindow" data-value="0">0</td>')
    // What the checks found: kept of total, and what was not kept in the cell's title.
    expect(s).toContain('>1 / 2</td>')
    expect(s).toContain('>4 / 4</td>')
    expect(s).toMatch(/title="not kept: #3: typed &lt;\/script&gt;/)
  })

  it('draws a bar per request, split by what the cache did, and a mark per condensing', () => {
    const s = section(renderReplayReport([made('roo-default', 2, 7, [2, 5]), made('cache-aware', 1, 7)]))
    const figures = s.split('<figure').slice(1)
    expect(figures).toHaveLength(2)
    for (const f of figures) {
      expect(count(f, /<g><title>request \d+:/)).toBe(7)
      // The first request writes the cache, the others read it; nothing uncached.
      expect(count(f, 'class="rp-write"')).toBe(1)
      expect(count(f, 'class="rp-read"')).toBe(6)
      expect(count(f, 'class="rp-fresh"')).toBe(0)
    }
    expect(count(figures[0], 'class="rp-mark"')).toBe(2)
    expect(figures[0]).toContain('before request 3: native (main), 9,000 → 3,000 tokens')
    expect(count(figures[1], 'class="rp-mark"')).toBe(0)
    // One scale for every chart, the write of 10,000 tokens at $3.75 per million (each chart says
    // it twice: its label for screen readers and its axis).
    for (const f of figures) expect(count(f, 'scale: $0.0375')).toBe(2)
  })

  it('shares a bar between consecutive requests past 1,200 of them', () => {
    const s = section(renderReplayReport(made('roo-default', 2, 2500, [2400])))
    // ceil(2500 / 1200) = 3 requests a bar: 834 bars, the last of one request.
    expect(count(s, /<g><title>requests? \d/)).toBe(834)
    expect(s).toContain('requests 1–3:')
    expect(s).toContain('<title>request 2500:')
    expect(s).toContain('3 requests a bar')
    expect(count(s, 'class="rp-mark"')).toBe(1)
  })

  it('escapes what it shows and loads nothing', () => {
    const html = renderReplayReport(made('roo-default', 2, 3), { title: HOSTILE, source: HOSTILE })
    expect(html).not.toContain(HOSTILE)
    expect(html).not.toMatch(/<img/i)
    expect(html).not.toMatch(/(src|href)="https?:/)
    expect(html).toContain("default-src 'none'")
  })

  it('refuses what is not a replay result, naming where', () => {
    expect(() => renderReplayReport([])).toThrow('renderReplayReport: results: expected a result of replay()')
    expect(() => renderReplayReport([made('roo-default', 1, 2), { policy: 'x' } as unknown as ReplayResult])).toThrow(
      'renderReplayReport: results[1]: expected a result of replay()',
    )
    const before: ApiMessage[] = [{ role: 'user', content: 'hi' }]
    expect(() => renderHtmlReport(before, {} as never, { replay: 'no' as unknown as ReplayResult })).toThrow(
      'renderHtmlReport: options.replay: expected a result of replay()',
    )
  })

  it('is a section of the condensation report when given, and absent otherwise', async () => {
    const history = JSON.parse(readFileSync(join(__dirname, '..', 'fixtures', 'examples', 'xml-session.json'), 'utf8')) as ApiMessage[]
    const snapshot = structuredClone(history)
    const result = await condense(history, { provider: 'lossless', provenance: true })
    assertInvariants(history, snapshot, result)
    const results = [
      await replay(history, { policy: 'roo-default', contextWindow: 32_000 }),
      await replay(history, { policy: 'cache-aware', contextWindow: 32_000 }),
    ]
    const without = renderHtmlReport(history, result)
    expect(without).not.toContain('<section class="replay"')
    const html = renderHtmlReport(history, result, { replay: results })
    const s = section(html)
    expect(html.indexOf('<section class="replay"')).toBeGreaterThan(html.indexOf('id="passes"'))
    const figures = s.split('<figure').slice(1)
    expect(figures).toHaveLength(2)
    for (const [i, r] of results.entries()) {
      expect(r.requests).toBeGreaterThan(10)
      expect(count(figures[i], /<g><title>request \d+:/)).toBe(r.requests)
      expect(count(figures[i], 'class="rp-mark"')).toBe(r.condensings.length)
    }
    // The default condenses on this task at this window, so the chart marks something.
    expect(results[0].condensings.length).toBeGreaterThan(0)
  })
})

describe('context-condense replay --html', () => {
  it('writes the page of the policies replayed, and will not overwrite it without --force', async () => {
    const file = join(__dirname, '..', 'fixtures', 'examples', 'xml-session.json')
    const out = join(tmp, 'replay.html')
    const args = ['replay', file, '--policy', 'all', '--context-window', '16000', '--system-tokens', '3000', '--max-tokens', '2000', '--html', out]
    const r = await cli([...args, '--json'])
    expect(r.stderr, r.stdout).toBe('')
    expect(r.code).toBe(0)
    const json = JSON.parse(r.stdout)
    expect(json.out.file).toBe(out)
    const html = readFileSync(out, 'utf8')
    expect(json.out.bytes).toBe(Buffer.byteLength(html))
    const s = section(html)
    expect(count(s, '<tr data-policy=')).toBe(json.results.length)
    const figures = s.split('<figure').slice(1)
    for (const [i, res] of (json.results as ReplayResult[]).entries()) {
      expect(figures[i]).toContain(`data-policy="${res.policy}"`)
      expect(count(figures[i], /<g><title>request \d+:/)).toBe(res.requests)
      expect(count(figures[i], 'class="rp-mark"')).toBe(res.condensings.length)
    }
    const again = await cli(args)
    expect(again.code).toBe(2)
    expect(again.stderr).toContain('exists')
    const forced = await cli([...args.slice(0, 2), '--html', out, '--force'])
    expect(forced.code).toBe(0)
    expect(forced.stdout).toContain(`Wrote ${out}`)
    expect(existsSync(out)).toBe(true)
  }, 60_000)
})
