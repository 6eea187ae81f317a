import { defineConfig } from 'vitest/config'

// The size cases (npm run test:slow): a million messages and more, one file at a time, with a heap
// large enough for the history, its snapshot and the results side by side.
export default defineConfig({
  test: {
    include: ['__test__/slow/**/*.slow.ts'],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    execArgv: ['--max-old-space-size=16384'],
    fileParallelism: false,
  },
})
