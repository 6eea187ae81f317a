// The summarize callback under concurrency, for benchmark/bench.mjs: 50 old tool results summarized
// in one Smart pass with a cap of 8 concurrent calls of 10 ms each. Reads nothing; writes nothing.

/** The span of the calls in each of `runs` runs (ms), and the ideal: ceil(50 / 8) * 10 ms. */
export async function summarizeConcurrency(lib, runs) {
  const RUNS = runs
  const body = 'output line\n'.repeat(400)
  const input = [{ role: 'user', content: [{ type: 'text', text: '<task>\nrun the checks\n</task>' }] }]
  for (let i = 0; i < 50; i++) {
    input.push({ role: 'assistant', content: [{ type: 'tool_use', id: `toolu_${i}`, name: 'execute_command', input: { command: `check ${i}` } }] })
    input.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: `toolu_${i}`, content: `${body}run ${i}\n` }] })
  }
  input.push({ role: 'assistant', content: 'all checks ran' })
  const spans = []
  for (let i = 0; i < RUNS; i++) {
    let first = Infinity
    let last = 0
    let peak = 0
    let active = 0
    const summarize = async () => {
      first = Math.min(first, performance.now())
      peak = Math.max(peak, ++active)
      await new Promise((r) => setTimeout(r, 10))
      active--
      last = performance.now()
      return 'ok'
    }
    const r = await lib.condense(input, {
      provider: 'smart',
      config: {
        passes: [
          {
            id: 's',
            mode: 'individual',
            selection: { type: 'preserve_recent', keepRecentCount: 1 },
            individualConfig: { defaults: { toolResults: 'summarize' } },
          },
        ],
      },
      summarize,
      summarizeOptions: { concurrency: 8 },
    })
    if (r.metrics.callbackCalls !== 50 || peak !== 8) throw new Error(`summarize under concurrency: ${r.metrics.callbackCalls} calls, peak ${peak}`)
    spans.push(last - first)
  }
  return { spans, ideal: Math.ceil(50 / 8) * 10 }
}
