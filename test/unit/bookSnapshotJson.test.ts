// The depth mirror's text: bookSnapshotJson writes exactly JSON.stringify(bookSnapshot(…)), for every book
// of a randomized run (spot, perpetuals, futures, options; empty, one-sided and deep books).
import { describe, expect, it } from 'vitest'
import { bookSnapshot, bookSnapshotJson } from '../../src/bus/mirrors.js'
import { Engine } from '../../src/engine/engine.js'
import { T0 } from '../support/engineFixtures.js'
import { RandomTrading } from '../support/randomTrading.js'

describe('bookSnapshotJson', () => {
  it('writes what JSON.stringify of the snapshot writes', () => {
    const gen = new RandomTrading(20261127, T0, 8)
    const engine = new Engine()
    for (const env of gen.setup()) engine.apply(env)
    let levels = 0
    for (let i = 0; i < 3_000; i++) {
      engine.apply(gen.next(engine.state))
      if (i % 300 !== 0) continue
      for (const m of engine.state.markets.values()) {
        const snapshot = bookSnapshot(m, engine.state.now)
        levels += snapshot.bids.length + snapshot.asks.length
        expect(bookSnapshotJson(m, engine.state.now)).toBe(JSON.stringify(snapshot))
      }
    }
    expect(levels).toBeGreaterThan(100)
  })
})
