// Event envelopes on the wire: envelopeJson writes exactly JSON.stringify(toEnvelope(e)), for every kind
// of event a randomized trading run emits, and for fields out of the ordinary.
import { describe, expect, it } from 'vitest'
import { envelopeJson, toEnvelope } from '../../src/bus/eventLog.js'
import { Engine } from '../../src/engine/engine.js'
import type { EngineEvent } from '../../src/engine/events.js'
import { T0 } from '../support/engineFixtures.js'
import { RandomTrading } from '../support/randomTrading.js'

describe('envelopeJson', () => {
  it('writes what JSON.stringify of the envelope writes, for every event of a randomized run', () => {
    const gen = new RandomTrading(20261126, T0, 8)
    const engine = new Engine()
    const types = new Set<string>()
    let events = 0
    const check = () => {
      for (const e of engine.takeChanges().events) {
        expect(envelopeJson(e)).toBe(JSON.stringify(toEnvelope(e)))
        types.add(e.eventType)
        events++
      }
    }
    for (const env of gen.setup()) engine.apply(env)
    check()
    for (let i = 0; i < 3_000; i++) {
      engine.apply(gen.next(engine.state))
      if (i % 50 === 0) check()
    }
    check()
    expect(events).toBeGreaterThan(1_000)
    expect(types.size).toBeGreaterThan(5)
  })

  it('writes unusual fields as JSON.stringify does', () => {
    const base: EngineEvent = { stream: 's', eventType: 'OrderUpdate', eventSeq: 7, engineTs: 1_795_000_000_000, sourceTs: null, correlationId: null, causationId: null, payload: { a: 1 } }
    const odd: EngineEvent[] = [
      base,
      { ...base, sourceTs: 12, correlationId: 'quote "and" \\ ☃', causationId: '\n' },
      { ...base, payload: undefined },
      { ...base, payload: { toJSON: () => undefined } },
      { ...base, payload: null },
      { ...base, payload: 'text' },
      { ...base, sourceTs: Number.NaN },
      { ...base, sourceTs: undefined as unknown as null },
      { ...base, correlationId: undefined as unknown as null },
    ]
    for (const e of odd) expect(envelopeJson(e)).toBe(JSON.stringify(toEnvelope(e)))
  })
})
