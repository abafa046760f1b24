// The engine's durable side in PostgreSQL: claiming a fencing token, committing one batch of effects in
// one transaction together with the batch's last stream id, and rebuilding the whole engine state from
// the tables when Redis has nothing to recover from.
import type pg from 'pg'
import type { Changes } from '../engine/changes.js'
import { MarketRuntime } from '../engine/marketRuntime.js'
import { EngineState } from '../engine/state.js'
import { listedMarket, numeric, type MarketRow } from './marketRows.js'
import { inTransaction } from './pg.js'

const ENGINE = 'engine'

/** The batch was written by a leader that has since been replaced: nothing of it was committed. */
export class FencedOutError extends Error {}

export interface EngineOffset {
  epoch: string
  lastStreamId: string
  fencingToken: string
}

export interface BatchPosition {
  epoch: string
  streamId: string
  fencingToken: string
}

export async function readOffset(pool: pg.Pool): Promise<EngineOffset | null> {
  const { rows } = await pool.query<EngineOffset>(
    `SELECT epoch, "lastStreamId", "fencingToken" FROM engine_offsets WHERE name = $1`,
    [ENGINE],
  )
  return rows[0] ?? null
}

/** Takes the next fencing token: from now on a batch written with an older token is refused. */
export async function claimFencingToken(pool: pg.Pool): Promise<string> {
  const { rows } = await pool.query<{ fencingToken: string }>(
    `INSERT INTO engine_offsets (name, epoch, "lastStreamId", "fencingToken", counters, "updatedAt")
     VALUES ($1, '', '0-0', 1, '{}', now())
     ON CONFLICT (name) DO UPDATE SET "fencingToken" = engine_offsets."fencingToken" + 1, "updatedAt" = now()
     RETURNING "fencingToken"`,
    [ENGINE],
  )
  return rows[0]!.fencingToken
}

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString())

function marketRow(m: MarketRuntime) {
  const s = m.spec
  return {
    id: s.id,
    family: s.family,
    assetClass: s.assetClass,
    type: s.type,
    base: s.base,
    quote: s.quote,
    status: m.status,
    tickSize: s.tickSize,
    stepSize: s.stepSize,
    minQuantity: s.minQuantity,
    priceBandBps: s.priceBandBps,
    takerFeeBps: s.takerFeeBps,
    makerFeeBps: s.makerFeeBps,
    fundingIntervalMs: s.fundingIntervalMs,
    fundingMaxRateBps: s.fundingMaxRateBps,
    expiry: iso(s.expiryMs),
    strike: s.strike,
    optionType: s.optionType,
    staleMarkMs: s.staleMarkMs,
    listedAt: iso(s.listedAtMs),
    settledAt: iso(m.settledAtMs),
    settlementPrice: m.settlementPrice,
    bookSeq: m.bookSeq,
  }
}

/**
 * Writes everything the batch changed and moves the offset to its last stream id, atomically. Refused
 * with FencedOutError when another leader has claimed a newer token since ours.
 */
export async function commitBatch(pool: pg.Pool, state: EngineState, changes: Changes, at: BatchPosition): Promise<void> {
  const counters: Record<string, number> = { now: state.now }
  for (const name of state.dirtyCounters) counters[name] = state.counters.get(name)!
  await inTransaction(pool, async (db) => {
    const fenced = await db.query(
      `UPDATE engine_offsets SET epoch = $2, "lastStreamId" = $3, counters = counters || $4::jsonb, "updatedAt" = now()
       WHERE name = $1 AND "fencingToken" = $5`,
      [ENGINE, at.epoch, at.streamId, JSON.stringify(counters), at.fencingToken],
    )
    if (fenced.rowCount !== 1) throw new FencedOutError(`fencing token ${at.fencingToken} is no longer current`)
    if (changes.markets.size > 0) {
      const rows = [...changes.markets].map((id) => marketRow(state.markets.get(id)!))
      await db.query(
        `INSERT INTO markets SELECT * FROM json_populate_recordset(NULL::markets, $1::json)
         ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, "bookSeq" = EXCLUDED."bookSeq",
           "settledAt" = EXCLUDED."settledAt", "settlementPrice" = EXCLUDED."settlementPrice"`,
        [JSON.stringify(rows)],
      )
    }
    if (changes.marks.length > 0) {
      const rows = changes.marks.map((m) => ({
        marketId: m.marketId,
        price: m.price,
        indexPrice: m.indexPrice,
        source: m.source,
        sourceTimestamp: iso(m.sourceTs),
        createdAt: iso(m.engineTs),
      }))
      await db.query(
        `INSERT INTO mark_prices ("marketId", price, "indexPrice", source, "sourceTimestamp", "createdAt")
         SELECT "marketId", price, "indexPrice", source, "sourceTimestamp", "createdAt"
         FROM json_populate_recordset(NULL::mark_prices, $1::json)`,
        [JSON.stringify(rows)],
      )
    }
  })
  state.dirtyCounters.clear()
}

/** The engine state as of the offset's last committed batch, read from the tables alone. */
export async function loadState(pool: pg.Pool): Promise<EngineState> {
  const state = new EngineState()
  const offset = await pool.query<{ counters: Record<string, number> }>(
    `SELECT counters FROM engine_offsets WHERE name = $1`,
    [ENGINE],
  )
  for (const [name, value] of Object.entries(offset.rows[0]?.counters ?? {})) {
    if (name === 'now') state.now = value
    else state.counters.set(name, value)
  }
  const markets = await pool.query<MarketRow>(`SELECT * FROM markets`)
  for (const row of markets.rows) {
    const m = listedMarket(row)
    const market = new MarketRuntime(m.spec, m.status, m.bookSeq)
    market.settledAtMs = m.settledAtMs
    market.settlementPrice = m.settlementPrice
    state.markets.set(m.spec.id, market)
  }
  const marks = await pool.query<{
    marketId: string
    price: string
    indexPrice: string | null
    source: string
    sourceTimestamp: Date
    createdAt: Date
  }>(`SELECT DISTINCT ON ("marketId") "marketId", price, "indexPrice", source, "sourceTimestamp", "createdAt"
      FROM mark_prices ORDER BY "marketId", id DESC`)
  for (const r of marks.rows) {
    state.marks.set(r.marketId, {
      marketId: r.marketId,
      price: numeric(r.price)!,
      indexPrice: numeric(r.indexPrice),
      source: r.source,
      sourceTs: r.sourceTimestamp.getTime(),
      engineTs: r.createdAt.getTime(),
    })
  }
  return state
}
