import { defineConfig } from 'vitest/config'

// The size cases (npm run test:slow): a million messages and more, one file at a time.
export default defineConfig({
  test: {
    include: ['__test__/slow/**/*.slow.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    fileParallelism: false,
  },
})
