// Group commit: everything one batch of engine commands changed, written in ONE transaction together
// with the batch's last stream id, and only if this leader's fencing token is still the current one.
// Rows go as JSON arrays expanded by json_populate_recordset: one statement per table, any batch size.
import type pg from 'pg'
import { D, formatDecimal, microToString } from '../domain/decimal.js'
import type { Changes } from '../engine/changes.js'
import type { MarketRuntime } from '../engine/marketRuntime.js'
import type { EngineState } from '../engine/state.js'
import { rateString } from '../engine/perpetual.js'
import { marketEngineState } from '../engine/snapshot.js'
import { optionsLocked } from '../engine/optionMargin.js'
import { optionLinks } from '../engine/optionPricing.js'
import { isoTime } from '../engine/views.js'
import { ENGINE } from './engineOffsets.js'
import { isConnectionLoss } from './pg.js'

/** The batch was written by a leader that has since been replaced: nothing of it was committed. */
export class FencedOutError extends Error {}

export interface BatchPosition {
  epoch: string
  streamId: string
  fencingToken: string
}

const iso = (ms: number | null) => (ms === null ? null : isoTime(ms))
const json = (rows: unknown[]) => JSON.stringify(rows)

function marketRow(m: MarketRuntime) {
  const s = m.spec
  return {
    id: s.id, family: s.family, assetClass: s.assetClass, type: s.type, base: s.base, quote: s.quote,
    status: m.status, tickSize: s.tickSize, stepSize: s.stepSize, minQuantity: s.minQuantity,
    priceBandBps: s.priceBandBps, takerFeeBps: s.takerFeeBps, makerFeeBps: s.makerFeeBps,
    fundingIntervalMs: s.fundingIntervalMs, fundingMaxRateBps: s.fundingMaxRateBps, expiry: iso(s.expiryMs),
    strike: s.strike, optionType: s.optionType, staleMarkMs: s.staleMarkMs, initialMarginPct: s.initialMarginPct,
    maintenanceMarginPct: s.maintenanceMarginPct, listedAt: iso(s.listedAtMs), settledAt: iso(m.settledAtMs),
    settlementPrice: m.settlementPrice, bookSeq: m.bookSeq, engineState: marketEngineState(m),
    pricing: s.pricing ?? null,
  }
}

/** Average price for display: cost over quantity, in quote units, to 18 decimals. */
function avgPrice(m: MarketRuntime, cost: bigint, lots: number): string {
  if (lots === 0) return '0'
  return formatDecimal(D(cost.toString()).div(D(Math.abs(lots)).mul(m.step).mul(1_000_000)).toDecimalPlaces(18))
}

/** An option position's average price, in underlying units: its open tick·lots over its lots. */
function optionAvgPrice(m: MarketRuntime, openTickLots: bigint, lots: number): string {
  if (lots === 0) return '0'
  return formatDecimal(D(openTickLots.toString()).mul(m.tick).div(Math.abs(lots)).toDecimalPlaces(18))
}

type Statement = [sql: string, rows: unknown[]]

function statements(state: EngineState, c: Changes): Statement[] {
  const out: Statement[] = []
  const market = (id: string) => state.markets.get(id)!
  if (c.markets.size > 0) {
    out.push([
      `INSERT INTO markets SELECT * FROM json_populate_recordset(NULL::markets, $1::json)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, "bookSeq" = EXCLUDED."bookSeq",
         "settledAt" = EXCLUDED."settledAt", "settlementPrice" = EXCLUDED."settlementPrice", "engineState" = EXCLUDED."engineState"`,
      [...c.markets].map((id) => marketRow(market(id))),
    ])
  }
  if (c.marks.length > 0) {
    out.push([
      `INSERT INTO mark_prices ("marketId", price, "indexPrice", source, "sourceTimestamp", "createdAt")
       SELECT "marketId", price, "indexPrice", source, "sourceTimestamp", "createdAt" FROM json_populate_recordset(NULL::mark_prices, $1::json)`,
      c.marks.map((m) => ({ marketId: m.marketId, price: m.price, indexPrice: m.indexPrice, source: m.source, sourceTimestamp: iso(m.sourceTs), createdAt: iso(m.engineTs) })),
    ])
  }
  if (c.orders.length > 0) {
    out.push([
      `INSERT INTO orders SELECT * FROM json_populate_recordset(NULL::orders, $1::json)
       ON CONFLICT (id) DO UPDATE SET price = EXCLUDED.price, quantity = EXCLUDED.quantity,
         "filledQuantity" = EXCLUDED."filledQuantity", status = EXCLUDED.status, "stopPrice" = EXCLUDED."stopPrice",
         "triggeredAt" = EXCLUDED."triggeredAt", "cancelReason" = EXCLUDED."cancelReason", seq = EXCLUDED.seq,
         "updatedAt" = EXCLUDED."updatedAt"`,
      c.orders.map((o) => {
        const m = market(o.marketId)
        const price = (t: number | null) => (t === null ? null : m.prices.format(t))
        return {
          id: o.id, userId: o.userId, marketId: o.marketId, clientOrderId: o.clientOrderId, side: o.side, type: o.type,
          timeInForce: o.timeInForce, price: price(o.priceTicks), quantity: m.quantities.format(o.lots),
          filledQuantity: m.quantities.format(o.filledLots), status: o.status, postOnly: o.postOnly, reduceOnly: o.reduceOnly,
          marginMode: m.linear ? o.marginMode : null, stopPrice: price(o.stopTicks), takeProfitPrice: price(o.takeProfitTicks),
          stopLossPrice: price(o.stopLossTicks), triggeredAt: iso(o.triggeredAt), parentOrderId: o.parentOrderId,
          quoteId: o.quoteId, cancelReason: o.cancelReason, mmp: o.mmp, seq: o.seq, createdAt: iso(o.createdAt), updatedAt: iso(o.updatedAt),
        }
      }),
    ])
  }
  if (c.fills.length > 0) {
    out.push([
      `INSERT INTO fills SELECT * FROM json_populate_recordset(NULL::fills, $1::json)`,
      c.fills.map((f) => {
        const m = market(f.marketId)
        return {
          id: f.id, matchId: f.matchId, marketId: f.marketId, orderId: f.orderId, userId: f.userId, side: f.side, role: f.role,
          price: m.prices.format(f.priceTicks), quantity: m.quantities.format(f.lots), fee: microToString(f.fee),
          feeBps: f.feeBps, premium: f.premium === null ? null : microToString(f.premium),
          indexPrice: f.indexTicks === null ? null : optionLinks(state, m).spot.prices.format(f.indexTicks), createdAt: iso(f.at),
        }
      }),
    ])
    out.push(candleStatement(state, c))
  }
  if (c.positions.length > 0) {
    out.push([
      `INSERT INTO positions SELECT * FROM json_populate_recordset(NULL::positions, $1::json)
       ON CONFLICT ("userId", "marketId") DO UPDATE SET "marginMode" = EXCLUDED."marginMode", quantity = EXCLUDED.quantity,
         "avgPrice" = EXCLUDED."avgPrice", cost = EXCLUDED.cost, "openTickLots" = EXCLUDED."openTickLots", "realizedPnl" = EXCLUDED."realizedPnl",
         "fundingPayment" = EXCLUDED."fundingPayment", "isolatedMargin" = EXCLUDED."isolatedMargin", "updatedAt" = EXCLUDED."updatedAt"`,
      c.positions.map((p) => {
        const m = market(p.marketId)
        return {
          userId: p.userId, marketId: p.marketId, marginMode: p.marginMode, quantity: m.quantities.format(p.lots),
          avgPrice: m.linear ? avgPrice(m, p.cost, p.lots) : optionAvgPrice(m, p.openTickLots, p.lots), cost: microToString(p.cost),
          openTickLots: p.openTickLots.toString(), realizedPnl: microToString(p.realized),
          fundingPayment: microToString(p.funding), isolatedMargin: microToString(p.isolatedMargin), updatedAt: iso(p.updatedAt),
        }
      }),
    ])
  }
  if (c.balances.length > 0) {
    out.push([
      `INSERT INTO balances SELECT * FROM json_populate_recordset(NULL::balances, $1::json)
       ON CONFLICT ("userId", bucket) DO UPDATE SET amount = EXCLUDED.amount, locked = EXCLUDED.locked, "updatedAt" = EXCLUDED."updatedAt"`,
      c.balances.flatMap((a) => {
        const locked = optionsLocked(state, a)
        const rows = [...a.balances].map(([bucket, amount]) => ({
          userId: a.userId, bucket, amount: microToString(amount), locked: microToString(bucket === 'options' ? locked : 0n), updatedAt: iso(state.now),
        }))
        // A bucket never credited has no row; an options lock with no options balance still shows.
        if (locked !== 0n && !a.balances.has('options')) rows.push({ userId: a.userId, bucket: 'options', amount: '0', locked: microToString(locked), updatedAt: iso(state.now) })
        return rows
      }),
    ])
  }
  if (c.ledger.length > 0) {
    out.push([
      `INSERT INTO ledger_entries ("userId", bucket, amount, "balanceAfter", kind, "refId", "createdAt")
       SELECT "userId", bucket, amount, "balanceAfter", kind, "refId", "createdAt" FROM json_populate_recordset(NULL::ledger_entries, $1::json)`,
      c.ledger.map((l) => ({
        userId: l.userId, bucket: l.bucket, amount: microToString(l.amount), balanceAfter: microToString(l.balanceAfter),
        kind: l.kind, refId: l.refId, createdAt: iso(l.at),
      })),
    ])
  }
  if (c.funding.length > 0) {
    out.push([
      `INSERT INTO funding_payments SELECT * FROM json_populate_recordset(NULL::funding_payments, $1::json)`,
      c.funding.map((f) => {
        const m = market(f.marketId)
        return {
          id: f.id, userId: f.userId, marketId: f.marketId, periodEnd: iso(f.periodEnd), rate: rateString(f.rate),
          quantity: m.quantities.format(f.lots), markPrice: m.prices.format(f.markTicks), amount: microToString(f.amount), createdAt: iso(f.at),
        }
      }),
    ])
  }
  if (c.positionEvents.length > 0) {
    out.push([
      `INSERT INTO position_events SELECT * FROM json_populate_recordset(NULL::position_events, $1::json)`,
      c.positionEvents.map((e) => {
        const m = market(e.marketId)
        return {
          id: e.id, kind: e.kind, userId: e.userId, marketId: e.marketId, orderId: e.orderId, marginMode: e.marginMode,
          quantity: m.quantities.format(e.lots), closedQuantity: m.quantities.format(e.closedLots),
          price: e.closedLots === 0 ? null : avgPrice(m, e.notional, e.closedLots), realizedPnl: microToString(e.pnl),
          fee: microToString(e.fee), insurance: microToString(e.insurance),
          equity: e.equity === null ? null : microToString(e.equity),
          maintenanceMargin: e.maintenanceMargin === null ? null : microToString(e.maintenanceMargin), createdAt: iso(e.at),
        }
      }),
    ])
  }
  if (c.deposits.length > 0) {
    // The indexer wrote the row when it saw the log; the credit marks it (or writes it, if it did not).
    out.push([
      `INSERT INTO deposits SELECT * FROM json_populate_recordset(NULL::deposits, $1::json)
       ON CONFLICT ("txHash", "logIndex") DO UPDATE SET status = 'credited', "userId" = EXCLUDED."userId", "creditedAt" = EXCLUDED."creditedAt"`,
      c.deposits.map((d) => ({
        id: d.id, txHash: d.txHash, logIndex: d.logIndex, blockNumber: d.blockNumber, fromAddress: d.fromAddress, userId: d.userId,
        amount: microToString(d.amount), status: 'credited', createdAt: iso(d.at), creditedAt: iso(d.at),
      })),
    ])
  }
  if (c.withdrawals.length > 0) {
    // The worker's columns (nonce, rawTx, and txHash once sent) are kept; the engine's final hash wins.
    // One row per withdrawal (an upsert may not touch a row twice): its latest state in the batch.
    const latest = new Map(c.withdrawals.map((w) => [w.id, w]))
    out.push([
      `INSERT INTO withdrawals SELECT * FROM json_populate_recordset(NULL::withdrawals, $1::json)
       ON CONFLICT (id) DO UPDATE SET status = EXCLUDED.status, "txHash" = COALESCE(EXCLUDED."txHash", withdrawals."txHash"),
         error = EXCLUDED.error, "updatedAt" = EXCLUDED."updatedAt"`,
      [...latest.values()].map((w) => ({
        id: w.id, userId: w.userId, amount: microToString(w.amount), toAddress: w.toAddress, status: w.status, txHash: w.txHash,
        nonce: null, rawTx: null, error: w.error, createdAt: iso(w.createdAt), updatedAt: iso(w.updatedAt),
      })),
    ])
  }
  if (c.deadman.size > 0) {
    out.push([
      `INSERT INTO dead_man_switches SELECT * FROM json_populate_recordset(NULL::dead_man_switches, $1::json)
       ON CONFLICT ("userId") DO UPDATE SET "cancelAt" = EXCLUDED."cancelAt", "updatedAt" = EXCLUDED."updatedAt"`,
      [...c.deadman].map((a) => ({ userId: a.userId, cancelAt: iso(a.cancelAllAt), updatedAt: iso(state.now) })),
    ])
  }
  if (c.mmp.length > 0) {
    const idle = c.mmp.filter((m) => m.intervalMs === 0 && m.trippedAt === null)
    const live = c.mmp.filter((m) => !(m.intervalMs === 0 && m.trippedAt === null))
    if (idle.length > 0) {
      out.push([
        `DELETE FROM mmp_states m USING json_populate_recordset(NULL::mmp_states, $1::json) d WHERE m."userId" = d."userId" AND m.underlying = d.underlying`,
        idle.map((m) => ({ userId: m.userId, underlying: m.underlying })),
      ])
    }
    if (live.length > 0) {
      out.push([
        `INSERT INTO mmp_states SELECT * FROM json_populate_recordset(NULL::mmp_states, $1::json)
         ON CONFLICT ("userId", underlying) DO UPDATE SET "intervalMs" = EXCLUDED."intervalMs", "frozenMs" = EXCLUDED."frozenMs",
           "quantityLimit" = EXCLUDED."quantityLimit", "deltaLimit" = EXCLUDED."deltaLimit", "window" = EXCLUDED."window",
           "trippedAt" = EXCLUDED."trippedAt", "frozenUntil" = EXCLUDED."frozenUntil", "updatedAt" = EXCLUDED."updatedAt"`,
        live.map((m) => ({
          userId: m.userId, underlying: m.underlying, intervalMs: m.intervalMs, frozenMs: m.frozenMs, quantityLimit: m.quantityLimit,
          deltaLimit: m.deltaLimit, window: m.window, trippedAt: iso(m.trippedAt), frozenUntil: iso(m.frozenUntil), updatedAt: iso(state.now),
        })),
      ])
    }
  }
  return out
}

/** Folds the batch's trades (one taker fill per match) into one-minute candles. */
function candleStatement(state: EngineState, c: Changes): Statement {
  const candles = new Map<string, { marketId: string; start: number; open: number; high: number; low: number; close: number; lots: number; trades: number }>()
  for (const f of c.fills) {
    if (f.role !== 'taker') continue
    const start = Math.floor(f.at / 60_000) * 60_000
    const key = `${f.marketId}|${start}`
    const k = candles.get(key)
    if (!k) candles.set(key, { marketId: f.marketId, start, open: f.priceTicks, high: f.priceTicks, low: f.priceTicks, close: f.priceTicks, lots: f.lots, trades: 1 })
    else {
      k.high = Math.max(k.high, f.priceTicks)
      k.low = Math.min(k.low, f.priceTicks)
      k.close = f.priceTicks
      k.lots += f.lots
      k.trades++
    }
  }
  return [
    `INSERT INTO candles SELECT * FROM json_populate_recordset(NULL::candles, $1::json)
     ON CONFLICT ("marketId", start) DO UPDATE SET high = GREATEST(candles.high, EXCLUDED.high),
       low = LEAST(candles.low, EXCLUDED.low), close = EXCLUDED.close, volume = candles.volume + EXCLUDED.volume,
       trades = candles.trades + EXCLUDED.trades`,
    [...candles.values()].map((k) => {
      const m = state.markets.get(k.marketId)!
      return {
        marketId: k.marketId, start: iso(k.start), open: m.prices.format(k.open), high: m.prices.format(k.high),
        low: m.prices.format(k.low), close: m.prices.format(k.close), volume: m.quantities.format(k.lots), trades: k.trades,
      }
    }),
  ]
}

/**
 * A string as an SQL literal, exactly as pg's `escapeLiteral` writes it (quotes doubled; with a
 * backslash, backslashes doubled too and the literal prefixed ` E`). pg's builds it one character at a
 * time, a rope of single-character strings that must be flattened: for a batch's rows (kilobytes of JSON)
 * that was ~60 µs and a garbage object per character (docs/decisions.md, D-214).
 */
export function sqlLiteral(s: string): string {
  if (s.indexOf('\\') === -1) return s.indexOf("'") === -1 ? `'${s}'` : `'${s.replace(/'/g, "''")}'`
  return ` E'${s.replace(/\\/g, '\\\\').replace(/'/g, "''")}'`
}

/** SQLSTATE the fencing statement raises when the offset row no longer carries this leader's token. */
const FENCED_OUT = 'EXF01'

/** A batch's transaction as text: its fencing statement, then its writes and COMMIT. */
export interface SealedBatch {
  readonly fence: string
  readonly rest: string
}

/**
 * The batch's transaction, written from the state as the batch left it. Sealing is synchronous, so the
 * engine may apply the next batch while this one commits: nothing here reads the state again. The
 * counters the batch changed count as persisted from here on; a batch that then fails to commit is
 * retried with this same text, or the leader drops its state and recovers from what is durable.
 */
export function sealBatch(state: EngineState, changes: Changes, at: BatchPosition): SealedBatch {
  const counters: Record<string, number> = { now: state.now }
  for (const [name, value] of state.dirtyCounters()) counters[name] = value
  state.markCountersPersisted()
  const writes = statements(state, changes)
  const lit = sqlLiteral
  const fence = `DO $fence$ BEGIN
    UPDATE engine_offsets SET epoch = ${lit(at.epoch)}, "lastStreamId" = ${lit(at.streamId)},
      counters = counters || ${lit(JSON.stringify(counters))}::jsonb, "updatedAt" = now()
    WHERE name = ${lit(ENGINE)} AND "fencingToken" = ${lit(at.fencingToken)}::bigint;
    IF NOT FOUND THEN RAISE EXCEPTION 'fencing token % is no longer current', ${lit(at.fencingToken)} USING ERRCODE = '${FENCED_OUT}'; END IF;
  END $fence$`
  const rest = [...writes.map(([sql, rows]) => sql.replace('$1::json', `${lit(json(rows))}::json`)), 'COMMIT'].join(';\n')
  return { fence, rest }
}

/**
 * Writes everything the batch changed and moves the offset to its last stream id, atomically. Refused
 * with FencedOutError when another leader has claimed a newer token since ours.
 *
 * The transaction travels as ONE simple-protocol query (`BEGIN; fence; writes; COMMIT`, the rows inlined
 * as escaped JSON literals): the same statements in the same transaction, in one round trip instead of
 * one per statement. The engine shares its event loop with the API in a one-process deployment, and
 * each round trip waited for a turn of that loop (see docs/decisions.md "Performance"). The fencing
 * update raises when it matches no row, which aborts the transaction before any write.
 */
export async function commitSealed(
  pool: pg.Pool,
  { fence, rest }: SealedBatch,
  /** Test seam: awaited inside the transaction, after the fencing update (which holds the offset row's lock). */
  inCommit?: () => Promise<void>,
): Promise<void> {
  const client = await pool.connect()
  let broken: Error | undefined
  try {
    if (inCommit) {
      await client.query(`BEGIN;\n${fence}`)
      await inCommit()
      await client.query(rest)
    } else {
      await client.query(`BEGIN;\n${fence};\n${rest}`)
    }
  } catch (err) {
    if (isConnectionLoss(err)) broken = err as Error
    else await client.query('ROLLBACK').catch((e: Error) => (broken = e))
    if ((err as { code?: string }).code === FENCED_OUT) throw new FencedOutError((err as Error).message)
    throw err
  } finally {
    // A client whose session died is destroyed, not returned to the pool for the next caller to fail on.
    client.release(broken)
  }
}

/** Seals and commits in one step: for callers that apply nothing meanwhile. */
export function commitBatch(pool: pg.Pool, state: EngineState, changes: Changes, at: BatchPosition): Promise<void> {
  return commitSealed(pool, sealBatch(state, changes, at))
}
