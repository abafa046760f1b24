import { describe, expect, it } from 'vitest'
import { Engine } from '../../src/engine/engine.js'
import type { CommandEnvelope } from '../../src/engine/commands.js'
import { restoreSnapshot, serializeSnapshot, stateHash, takeSnapshot } from '../../src/engine/snapshot.js'
import { commandStream, T0 } from '../support/engineFixtures.js'
import { RandomTrading } from '../support/randomTrading.js'

function run(engine: Engine, stream: readonly CommandEnvelope[]) {
  const replies = stream.map((env) => engine.apply(env))
  return { replies, events: engine.takeChanges().events }
}

describe('engine: determinism', () => {
  it.each([1, 7, 42])('replaying seed %i twice gives the same state hash, replies and events, byte for byte', (seed) => {
    const stream = commandStream(seed, 2_000)
    const a = run(new Engine(), stream)
    const b = run(new Engine(), stream)
    expect(JSON.stringify(b.replies)).toBe(JSON.stringify(a.replies))
    expect(JSON.stringify(b.events)).toBe(JSON.stringify(a.events))
    expect(a.replies.some((r) => !r.ok)).toBe(true) // the stream holds refusals too
  })

  it('continuing from a snapshot taken midway reaches the state of an uninterrupted run', () => {
    const stream = commandStream(3, 2_000)
    const whole = new Engine()
    run(whole, stream)

    const first = new Engine()
    run(first, stream.slice(0, 777))
    const snapshot = JSON.parse(serializeSnapshot(first.state))
    const resumed = new Engine(restoreSnapshot(snapshot))
    run(resumed, stream.slice(777))
    expect(stateHash(resumed.state)).toBe(stateHash(whole.state))
  })

  it('resumed from a snapshot of a trading state, emits the events of an uninterrupted run: every stream carries on its sequence', () => {
    const gen = new RandomTrading(11, T0)
    const whole = new Engine()
    const recorded = gen.setup()
    run(whole, recorded)
    for (let i = 0; i < 1_500; i++) {
      const env = gen.next(whole.state)
      recorded.push(env)
      whole.apply(env)
    }
    const split = recorded.length
    whole.takeChanges()
    for (let i = 0; i < 1_500; i++) {
      const env = gen.next(whole.state)
      recorded.push(env)
      whole.apply(env)
    }
    const tail = whole.takeChanges().events

    const first = new Engine()
    run(first, recorded.slice(0, split))
    const resumed = new Engine(restoreSnapshot(JSON.parse(serializeSnapshot(first.state))))
    const resumedTail = run(resumed, recorded.slice(split)).events
    expect(JSON.stringify(resumedTail)).toBe(JSON.stringify(tail))
    // Private and public streams that were already running before the snapshot.
    for (const type of ['Fill', 'OrderUpdate', 'BalanceUpdate', 'Trade']) {
      expect(tail.filter((e) => e.eventType === type && e.eventSeq > 10).length, type).toBeGreaterThan(0)
    }
  })

  it('round-trips a snapshot exactly', () => {
    const engine = new Engine()
    run(engine, commandStream(9, 500))
    const text = serializeSnapshot(engine.state)
    expect(serializeSnapshot(restoreSnapshot(JSON.parse(text)))).toBe(text)
  })

  it('hashes differently when anything differs', () => {
    const stream = commandStream(5, 300)
    const a = new Engine()
    const b = new Engine()
    run(a, stream)
    run(b, stream.slice(0, -1))
    expect(stateHash(a.state)).not.toBe(stateHash(b.state))
    expect(takeSnapshot(a.state).markets.length).toBeGreaterThan(100)
  })
})
