import { defineConfig } from 'vitest/config'

export default defineConfig({
  // graphql ships ESM and CJS builds; Pothos and yoga load the CJS one, so everything must, or the
  // schema is "from another module or realm".
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/globalSetup.ts'],
    pool: 'forks',
    // Bounds against a hang, not speed targets: a CPU-bound test on a shared two-core machine with a
    // CPU-heavy neighbour runs several times slower than on a quiet one, and must still pass.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Engine and e2e files each run their own exchange; two at a time is what two cores sustain.
    maxWorkers: 2,
  },
})
