// Rebuilding the engine from PostgreSQL alone, for when Redis has nothing to recover from: the tables
// are read into the snapshot's shape and restored like a snapshot, so a rebuilt engine is the engine
// that committed the last batch (same stateHash), not an approximation of it.
import type pg from 'pg'
import type { Bucket } from '../domain/buckets.js'
import { D, toMicro, toScaled } from '../domain/decimal.js'
import type { MarginMode, OrderSide, OrderStatus, OrderType, TimeInForce } from '../domain/orders.js'
import { restoreSnapshot, SNAPSHOT_VERSION, type AccountSnapshot, type EngineSnapshot, type OrderSnapshot } from '../engine/snapshot.js'
import type { EngineState } from '../engine/state.js'
import { ENGINE } from './engineOffsets.js'
import { listedMarket, numeric, type MarketRow } from './marketRows.js'

const DAY_MS = 86_400_000
const micro = (v: string) => toMicro(D(v), 'exact')!.toString()
const ms = (d: Date | null) => (d === null ? null : d.getTime())

export async function loadState(pool: pg.Pool): Promise<EngineState> {
  const offset = await pool.query<{ counters: Record<string, number> }>(`SELECT counters FROM engine_offsets WHERE name = $1`, [ENGINE])
  const counters = { ...(offset.rows[0]?.counters ?? {}) }
  const now = counters['now'] ?? 0
  delete counters['now']

  const markets = (await pool.query<MarketRow>(`SELECT * FROM markets`)).rows.map(listedMarket)
  const scales = new Map(markets.map((m) => [m.spec.id, { tick: D(m.spec.tickSize), step: D(m.spec.stepSize) }]))
  const ticks = (marketId: string, v: string | null) => (v === null ? null : toScaled(D(v), scales.get(marketId)!.tick)!)
  const lots = (marketId: string, v: string) => toScaled(D(v), scales.get(marketId)!.step)!

  const marks = await pool.query<{ marketId: string; price: string; indexPrice: string | null; source: string; sourceTimestamp: Date; createdAt: Date }>(
    `SELECT DISTINCT ON ("marketId") "marketId", price, "indexPrice", source, "sourceTimestamp", "createdAt"
     FROM mark_prices ORDER BY "marketId", id DESC`,
  )

  const accounts = new Map<string, AccountSnapshot>()
  const account = (userId: string) => {
    let a = accounts.get(userId)
    if (!a) accounts.set(userId, (a = { userId, balances: [], positions: [], clientOrderIds: [], faucetGrants: [], cancelAllAt: null, deposited: '0', withdrawn: '0' }))
    return a
  }
  for (const r of (await pool.query<{ userId: string; bucket: Bucket; amount: string }>(`SELECT "userId", bucket, amount FROM balances`)).rows) {
    const a = account(r.userId)
    if (!D(r.amount).isZero()) a.balances.push([r.bucket, micro(r.amount)])
  }
  const positions = await pool.query<{ userId: string; marketId: string; marginMode: MarginMode; quantity: string; cost: string; openTickLots: string; realizedPnl: string; fundingPayment: string; isolatedMargin: string; updatedAt: Date }>(
    `SELECT "userId", "marketId", "marginMode", quantity, cost, "openTickLots", "realizedPnl", "fundingPayment", "isolatedMargin", "updatedAt" FROM positions`,
  )
  for (const r of positions.rows) {
    account(r.userId).positions.push({
      marketId: r.marketId,
      marginMode: r.marginMode,
      lots: lots(r.marketId, r.quantity),
      cost: micro(r.cost),
      openTickLots: D(r.openTickLots).toFixed(0),
      realized: micro(r.realizedPnl),
      funding: micro(r.fundingPayment),
      isolatedMargin: micro(r.isolatedMargin),
      updatedAt: r.updatedAt.getTime(),
    })
  }
  for (const r of (await pool.query<{ userId: string; clientOrderId: string; id: string }>(`SELECT "userId", "clientOrderId", id FROM orders WHERE "clientOrderId" IS NOT NULL`)).rows) {
    account(r.userId).clientOrderIds.push([r.clientOrderId, r.id])
  }
  const grants = await pool.query<{ userId: string; createdAt: Date; amount: string }>(
    `SELECT "userId", "createdAt", amount FROM ledger_entries WHERE kind = 'faucet' AND bucket = 'wallet' AND "createdAt" > $1 ORDER BY id`,
    [new Date(now - DAY_MS)],
  )
  for (const r of grants.rows) account(r.userId).faucetGrants.push([r.createdAt.getTime(), micro(r.amount)])
  for (const r of (await pool.query<{ userId: string; cancelAt: Date }>(`SELECT "userId", "cancelAt" FROM dead_man_switches WHERE "cancelAt" IS NOT NULL`)).rows) {
    account(r.userId).cancelAllAt = r.cancelAt.getTime()
  }

  // On chain: the deposits credited (each key once), and the withdrawals completed and still pending.
  const deposits = await pool.query<{ id: string; userId: string; amount: string }>(`SELECT id, "userId", amount FROM deposits WHERE status = 'credited'`)
  const deposited = new Map<string, bigint>()
  for (const r of deposits.rows) deposited.set(r.userId, (deposited.get(r.userId) ?? 0n) + BigInt(micro(r.amount)))
  const withdrawals = await pool.query<{ id: string; userId: string; amount: string; toAddress: string; status: string; createdAt: Date }>(
    `SELECT id, "userId", amount, "toAddress", status, "createdAt" FROM withdrawals WHERE status IN ('pending', 'sent', 'completed')`,
  )
  const withdrawn = new Map<string, bigint>()
  for (const r of withdrawals.rows) if (r.status === 'completed') withdrawn.set(r.userId, (withdrawn.get(r.userId) ?? 0n) + BigInt(micro(r.amount)))
  for (const [userId, v] of deposited) account(userId).deposited = v.toString()
  for (const [userId, v] of withdrawn) account(userId).withdrawn = v.toString()

  const orders = await pool.query<Record<string, any>>(`SELECT * FROM orders WHERE status = 'open' ORDER BY seq`)
  const openOrders: OrderSnapshot[] = orders.rows.map((r) => ({
    id: r['id'],
    userId: r['userId'],
    marketId: r['marketId'],
    clientOrderId: r['clientOrderId'],
    side: r['side'] as OrderSide,
    type: r['type'] as OrderType,
    timeInForce: r['timeInForce'] as TimeInForce,
    priceTicks: ticks(r['marketId'], r['price']),
    lots: lots(r['marketId'], r['quantity']),
    filledLots: lots(r['marketId'], r['filledQuantity']),
    status: r['status'] as OrderStatus,
    postOnly: r['postOnly'],
    reduceOnly: r['reduceOnly'],
    // Option orders are stored without a margin mode; the engine keeps 'cross' for them (it means nothing).
    marginMode: r['marginMode'] ?? 'cross',
    stopTicks: ticks(r['marketId'], r['stopPrice']),
    takeProfitTicks: ticks(r['marketId'], r['takeProfitPrice']),
    stopLossTicks: ticks(r['marketId'], r['stopLossPrice']),
    triggeredAt: ms(r['triggeredAt']),
    parentOrderId: r['parentOrderId'],
    quoteId: r['quoteId'],
    mmp: r['mmp'],
    cancelReason: r['cancelReason'],
    seq: Number(r['seq']),
    createdAt: r['createdAt'].getTime(),
    updatedAt: r['updatedAt'].getTime(),
  }))

  const mmp = await pool.query<{ userId: string; underlying: string; intervalMs: number; frozenMs: number; quantityLimit: string; deltaLimit: string; window: Array<[number, number, number]>; trippedAt: Date | null; frozenUntil: Date | null }>(
    `SELECT * FROM mmp_states ORDER BY "userId", underlying`,
  )

  const snapshot: EngineSnapshot = {
    version: SNAPSHOT_VERSION,
    now,
    counters: Object.entries(counters),
    markets: markets.map((m) => ({ spec: m.spec, status: m.status, bookSeq: m.bookSeq, settledAtMs: m.settledAtMs, settlementPrice: m.settlementPrice, engineState: m.engineState })),
    marks: marks.rows.map((r) => ({
      marketId: r.marketId,
      price: numeric(r.price),
      indexPrice: numeric(r.indexPrice),
      source: r.source,
      sourceTs: r.sourceTimestamp.getTime(),
      engineTs: r.createdAt.getTime(),
    })),
    accounts: [...accounts.values()],
    orders: openOrders,
    mmp: mmp.rows.map((r) => ({
      userId: r.userId,
      underlying: r.underlying,
      intervalMs: r.intervalMs,
      frozenMs: r.frozenMs,
      quantityLimit: Number(r.quantityLimit),
      deltaLimit: Number(r.deltaLimit),
      window: r.window,
      trippedAt: ms(r.trippedAt),
      frozenUntil: ms(r.frozenUntil),
    })),
    deposits: deposits.rows.map((r) => r.id),
    withdrawals: withdrawals.rows
      .filter((r) => r.status !== 'completed')
      .map((r) => ({ id: r.id, userId: r.userId, amount: micro(r.amount), toAddress: r.toAddress, createdAt: r.createdAt.getTime() })),
  }
  return restoreSnapshot(snapshot)
}
