import { defineConfig } from 'vitest/config'

export default defineConfig({
  // graphql ships ESM and CJS builds; Pothos and yoga load the CJS one, so everything must, or the
  // schema is "from another module or realm".
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    testTimeout: 30_000,
    hookTimeout: 60_000,
    // Engine and e2e files each run their own exchange; two at a time is what two cores sustain.
    maxWorkers: 2,
  },
})
