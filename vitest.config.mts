import { defineConfig } from 'vitest/config'

export default defineConfig({
  test: {
    include: ['__test__/**/*.test.ts'],
    testTimeout: 60_000,
    pool: 'forks',
    // The default report, then one plain line naming the real-history tests skipped (if any).
    reporters: ['default', './__test__/skip-reporter.ts'],
  },
})
