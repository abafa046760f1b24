import { defineConfig } from 'vitest/config'

// Three projects; `npm test` runs them all.
//   unit         pure code in seconds: no PostgreSQL, no Redis, no build (`npm run test:unit`)
//   random       the long seeded randomized runs of pure code (the book against its reference, the
//                engine's invariants over 50,000 commands): no services either, but minutes of CPU
//   integration  test/integration and test/e2e: real PostgreSQL and Redis, and the bundle the
//                process-level tests start, all prepared once per run by the global setup
export default defineConfig({
  // graphql ships ESM and CJS builds; Pothos and yoga load the CJS one, so everything must, or the
  // schema is "from another module or realm".
  resolve: { alias: { graphql: 'graphql/index.js' } },
  test: {
    pool: 'forks',
    // Bounds against a hang, not speed targets: a CPU-bound test on a shared two-core machine with a
    // CPU-heavy neighbour runs several times slower than on a quiet one, and must still pass.
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Engine and e2e files each run their own exchange; two at a time is what two cores sustain.
    maxWorkers: 2,
    projects: [
      {
        extends: true,
        test: {
          name: 'unit',
          include: ['test/unit/**/*.test.ts'],
          // Pure code: the files share one module graph per worker thread (half the CPU of a fresh
          // process per file). A test that changes module state (timers, mocks) puts it back.
          pool: 'threads',
          isolate: false,
          // Services nobody listens on (port 1 refuses at once): a unit test that reaches for a
          // database or Redis fails here instead of passing on a developer's machine and not in CI.
          env: {
            DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/unit',
            TEST_DATABASE_URL: 'postgresql://postgres@127.0.0.1:1/postgres',
            REDIS_URL: 'redis://127.0.0.1:1',
            TEST_REDIS_URL: 'redis://127.0.0.1:1',
          },
        },
      },
      { extends: true, test: { name: 'random', include: ['test/random/**/*.test.ts'] } },
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts', 'test/e2e/**/*.test.ts'],
          // Only here: the root project's global setup would run even for `--project unit`.
          globalSetup: ['test/support/globalSetup.ts'],
        },
      },
    ],
  },
})
