// `npm run bench`: every benchmark in turn, each in a fresh process (no heap, JIT or RSS carried over
// from the one before) and printing its own lines; `npm run bench -- book engine` runs only those.
// npm runs this as a bundle (no tsx in the measured code, as in production).
import { spawnSync } from 'node:child_process'
import { fileURLToPath } from 'node:url'

// Loaded on demand: a benchmark's process holds its own code only (with the server's modules loaded
// beside it, V8 inlined the book's hot path differently and the book ran 20–25% slower).
const BENCHMARKS: Record<string, () => Promise<void>> = {
  book: async () => (await import('./book.js')).benchBook(),
  engine: async () => (await import('./engine.js')).benchEngine(),
  margin: async () => (await import('./margin.js')).benchMargin(),
  auth: async () => (await import('./auth.js')).benchAuth(),
  fanout: async () => (await import('./fanout.js')).benchFanout(),
  optionQuotes: async () => (await import('./optionQuotes.js')).benchOptionQuotes(),
  simGrowth: async () => (await import('./simGrowth.js')).benchSimGrowth(),
  http: async () => (await import('./http.js')).benchHttp(),
  engineIo: async () => (await import('./engineIo.js')).benchEngineIo(),
  requests: async () => (await import('./requests.js')).benchRequests(),
}

const wanted = process.argv.slice(2)
const unknown = wanted.filter((name) => !(name in BENCHMARKS))
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`)
  process.exit(2)
}
const names = wanted.length === 0 ? Object.keys(BENCHMARKS) : wanted
if (names.length === 1) {
  await BENCHMARKS[names[0]!]!()
} else {
  for (const name of names) {
    const run = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url), name], { stdio: 'inherit' })
    if (run.status !== 0) process.exit(run.status ?? 1)
  }
}
