// `npm run bench`: every benchmark in turn, each printing its own lines.
import { benchAuth } from './auth.js'
import { benchBook } from './book.js'
import { benchEngine } from './engine.js'
import { benchFanout } from './fanout.js'
import { benchMargin } from './margin.js'

await benchBook()
await benchEngine()
await benchMargin()
await benchAuth()
await benchFanout()
