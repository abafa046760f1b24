// The engine state as one canonical JSON value: what the runner saves to Redis, what recovery loads,
// and what stateHash() digests. Canonical means sorted collections and fixed key order, so two engines
// with the same state produce the same bytes whichever way they got there (replay or rebuild).
import { createHash } from 'node:crypto'
import { canonicalSpec, type MarketSpec, type MarketStatus } from '../domain/market.js'
import { MarketRuntime } from './marketRuntime.js'
import { EngineState, type Mark } from './state.js'

export const SNAPSHOT_VERSION = 1

export interface EngineSnapshot {
  version: number
  now: number
  counters: Array<[string, number]>
  markets: Array<{
    spec: MarketSpec
    status: MarketStatus
    bookSeq: number
    settledAtMs: number | null
    settlementPrice: string | null
  }>
  marks: Mark[]
}

const byKey = <T>(key: (t: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0)

export function takeSnapshot(state: EngineState): EngineSnapshot {
  return {
    version: SNAPSHOT_VERSION,
    now: state.now,
    counters: [...state.counters.entries()].sort(byKey(([k]) => k)),
    markets: [...state.markets.values()]
      .map((m) => ({
        spec: canonicalSpec(m.spec),
        status: m.status,
        bookSeq: m.bookSeq,
        settledAtMs: m.settledAtMs,
        settlementPrice: m.settlementPrice,
      }))
      .sort(byKey((m) => m.spec.id)),
    marks: [...state.marks.values()]
      .map((m) => ({
        marketId: m.marketId,
        price: m.price,
        indexPrice: m.indexPrice,
        source: m.source,
        sourceTs: m.sourceTs,
        engineTs: m.engineTs,
      }))
      .sort(byKey((m) => m.marketId)),
  }
}

export function restoreSnapshot(snap: EngineSnapshot): EngineState {
  if (snap.version !== SNAPSHOT_VERSION) throw new Error(`snapshot version ${snap.version} is not ${SNAPSHOT_VERSION}`)
  const state = new EngineState()
  state.now = snap.now
  for (const [k, v] of snap.counters) state.counters.set(k, v)
  for (const m of snap.markets) {
    const market = new MarketRuntime(canonicalSpec(m.spec), m.status, m.bookSeq)
    market.settledAtMs = m.settledAtMs
    market.settlementPrice = m.settlementPrice
    state.markets.set(m.spec.id, market)
  }
  for (const mark of snap.marks) state.marks.set(mark.marketId, { ...mark })
  return state
}

export function serializeSnapshot(state: EngineState): string {
  return JSON.stringify(takeSnapshot(state))
}

/** SHA-256 hex of the canonical snapshot: equal exactly when the states are equal. */
export function stateHash(state: EngineState): string {
  return createHash('sha256').update(serializeSnapshot(state)).digest('hex')
}
