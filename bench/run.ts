// `npm run bench`: every benchmark in turn, each printing its own lines; `npm run bench -- book engine`
// runs only the named ones. npm runs this as a bundle (no tsx in the measured code, as in production).
import { benchAuth } from './auth.js'
import { benchBook } from './book.js'
import { benchEngine } from './engine.js'
import { benchFanout } from './fanout.js'
import { benchMargin } from './margin.js'

const BENCHMARKS: Record<string, () => Promise<void>> = {
  book: benchBook,
  engine: () => benchEngine(),
  margin: benchMargin,
  auth: benchAuth,
  fanout: benchFanout,
}

const wanted = process.argv.slice(2)
const unknown = wanted.filter((name) => !(name in BENCHMARKS))
if (unknown.length > 0) {
  console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`)
  process.exit(2)
}
for (const [name, run] of Object.entries(BENCHMARKS)) {
  if (wanted.length === 0 || wanted.includes(name)) await run()
}
