// The caller's own records, read from PostgreSQL: orders, fills, positions, balances. Everything here
// is committed (the engine replies only after its commit), so a client reads what it was told.
import type { OrderView } from '../domain/orders.js'
import type { PrismaClient } from './prisma.js'
import { numeric } from './marketRows.js'
import type { Order, Position, PositionEvent } from '../generated/prisma/client.js'

export const MAX_PAGE = 200
export const DEFAULT_PAGE = 100

/** Which markets a read covers: those listed, or all but those listed (the caller knows which are which). */
export type MarketFilter = { in: readonly string[] } | { notIn: readonly string[] }

export interface Page<T> {
  items: T[]
  /** Pass as `cursor` for the next page; null when this is the last one. */
  nextCursor: string | null
}

/**
 * One row of trade history: a fill (`trade`, or `liquidation` when the engine's liquidation order made
 * it), a funding payment (`funding`: amount signed, negative when paid) or a futures settlement.
 */
export interface TradeView {
  tradeId: string
  marketId: string
  orderId: string | null
  side: 'buy' | 'sell'
  price: string
  quantity: string
  fee: string
  feeBps: string
  /** Option fills: the USDC premium moved from buyer to seller, and the spot index it was priced at. */
  premium: string | null
  indexPrice: string | null
  role: 'taker' | 'maker' | null
  type: 'trade' | 'liquidation' | 'funding' | 'settlement'
  /** Funding and settlement: the signed USDC amount credited (negative: paid). */
  amount: string | null
  fundingRate: string | null
  createdAt: string
}

export interface LiquidationView {
  id: string
  marketId: string
  orderId: string | null
  marginMode: string
  /** Signed position before the step, and what the step closed. */
  quantity: string
  closedQuantity: string
  price: string | null
  realizedPnl: string
  fee: string
  insurance: string
  equity: string | null
  maintenanceMargin: string | null
  createdAt: string
}

const iso = (d: Date | null) => (d === null ? null : d.toISOString())

export function orderView(r: Order): OrderView {
  return {
    id: r.id,
    userId: r.userId,
    marketId: r.marketId,
    clientOrderId: r.clientOrderId,
    side: r.side as OrderView['side'],
    type: r.type as OrderView['type'],
    timeInForce: r.timeInForce as OrderView['timeInForce'],
    price: numeric(r.price),
    quantity: numeric(r.quantity),
    filledQuantity: numeric(r.filledQuantity),
    status: r.status as OrderView['status'],
    postOnly: r.postOnly,
    reduceOnly: r.reduceOnly,
    marginMode: r.marginMode as OrderView['marginMode'],
    stopPrice: numeric(r.stopPrice),
    takeProfitPrice: numeric(r.takeProfitPrice),
    stopLossPrice: numeric(r.stopLossPrice),
    triggeredAt: iso(r.triggeredAt),
    parentOrderId: r.parentOrderId,
    quoteId: r.quoteId,
    cancelReason: r.cancelReason as OrderView['cancelReason'],
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }
}

type N = string | { toFixed(): string }
interface HistoryRow {
  id: string
  type: TradeView['type']
  marketId: string
  orderId: string | null
  side: string
  price: N
  quantity: N
  fee: N
  feeBps: N
  premium: N | null
  indexPrice: N | null
  role: string | null
  amount: N | null
  rate: N | null
  createdAt: Date
}

function tradeView(r: HistoryRow): TradeView {
  return {
    tradeId: r.id,
    marketId: r.marketId,
    orderId: r.orderId,
    side: r.side as TradeView['side'],
    price: numeric(r.price),
    quantity: numeric(r.quantity),
    fee: numeric(r.fee),
    feeBps: numeric(r.feeBps),
    premium: r.premium === null ? null : numeric(r.premium),
    indexPrice: r.indexPrice === null ? null : numeric(r.indexPrice),
    role: r.role as TradeView['role'],
    type: r.type,
    amount: r.amount === null ? null : numeric(r.amount),
    fundingRate: r.rate === null ? null : numeric(r.rate),
    createdAt: r.createdAt.toISOString(),
  }
}

function liquidationView(r: PositionEvent): LiquidationView {
  return {
    id: r.id,
    marketId: r.marketId,
    orderId: r.orderId,
    marginMode: r.marginMode,
    quantity: numeric(r.quantity),
    closedQuantity: numeric(r.closedQuantity),
    price: numeric(r.price),
    realizedPnl: numeric(r.realizedPnl),
    fee: numeric(r.fee),
    insurance: numeric(r.insurance),
    equity: numeric(r.equity),
    maintenanceMargin: numeric(r.maintenanceMargin),
    createdAt: r.createdAt.toISOString(),
  }
}

/** Newest first, keyed by the ULID-ordered id: `cursor` is the last id of the previous page. */
function page<T extends { id: string }, V>(rows: T[], limit: number, view: (r: T) => V): Page<V> {
  const more = rows.length > limit
  const items = more ? rows.slice(0, limit) : rows
  return { items: items.map(view), nextCursor: more ? items.at(-1)!.id : null }
}

/** A Transfer of USDC-T to the vault from the caller's address: `pending` until it has the confirmations,
 * `confirmed` once final (credited as soon as its sender has an account), `credited` when the money moved. */
export interface DepositView {
  id: string
  txHash: string
  logIndex: number
  blockNumber: number
  amount: string
  confirmations: number
  status: 'pending' | 'confirmed' | 'credited'
  createdAt: string
  creditedAt: string | null
}

export interface WithdrawalView {
  id: string
  amount: string
  toAddress: string
  status: 'pending' | 'sent' | 'completed' | 'failed'
  txHash: string | null
  /** Why a failed withdrawal failed (it was refunded). */
  error: string | null
  createdAt: string
  updatedAt: string
}

export class AccountReads {
  constructor(private readonly prisma: PrismaClient) {}

  async order(id: string): Promise<OrderView | null> {
    const r = await this.prisma.order.findUnique({ where: { id } })
    return r ? orderView(r) : null
  }

  /** The orders among `ids` that exist, in the order of `ids`. */
  async ordersById(ids: readonly string[]): Promise<OrderView[]> {
    const rows = new Map((await this.prisma.order.findMany({ where: { id: { in: [...ids] } } })).map((r) => [r.id, r]))
    return ids.flatMap((id) => (rows.has(id) ? [orderView(rows.get(id)!)] : []))
  }

  /** The caller's orders a bulk quote replaced: canceled by it at the moment its own orders were made. */
  async replacedByQuote(userId: string, marketId: string, at: string, excluding: readonly string[]): Promise<string[]> {
    const rows = await this.prisma.order.findMany({
      where: { userId, marketId, cancelReason: 'replaced_by_quote', updatedAt: new Date(at), id: { notIn: [...excluding] } },
      select: { id: true },
      orderBy: { seq: 'asc' },
    })
    return rows.map((r) => r.id)
  }

  async orders(
    userId: string,
    f: { marketId?: string | null; markets?: MarketFilter; marginMode?: string | null; status?: string | null; limit: number; cursor?: string | null },
  ): Promise<Page<OrderView>> {
    const markets = f.markets ? ('in' in f.markets ? { in: [...f.markets.in] } : { notIn: [...f.markets.notIn] }) : undefined
    const rows = await this.prisma.order.findMany({
      where: {
        userId,
        ...(f.marketId ? { marketId: f.marketId } : {}),
        ...(markets ? { AND: [{ marketId: markets }] } : {}),
        ...(f.marginMode ? { marginMode: f.marginMode } : {}),
        ...(f.status ? { status: f.status } : {}),
        ...(f.cursor ? { id: { lt: f.cursor } } : {}),
      },
      orderBy: { id: 'desc' },
      take: f.limit + 1,
    })
    return page(rows, f.limit, orderView)
  }

  /** The caller's open orders with a quoteId in `marketIds`, oldest first. */
  async openQuoteOrders(userId: string, marketIds: readonly string[]): Promise<OrderView[]> {
    const rows = await this.prisma.order.findMany({
      where: { userId, status: 'open', quoteId: { not: null }, marketId: { in: [...marketIds] } },
      orderBy: { seq: 'asc' },
    })
    return rows.map(orderView)
  }

  /** Fills, funding payments and settlements together, newest first (all their ids sort by time). */
  async trades(userId: string, f: { marketId?: string | null; markets?: MarketFilter; limit: number; cursor?: string | null }): Promise<Page<TradeView>> {
    const only = f.markets && 'in' in f.markets ? [...f.markets.in] : null
    const except = f.markets && 'notIn' in f.markets ? [...f.markets.notIn] : null
    const rows = await this.prisma.$queryRaw<HistoryRow[]>`
      SELECT * FROM (
        SELECT f.id, CASE WHEN pe.id IS NULL THEN 'trade' ELSE 'liquidation' END AS type, f."marketId", f."orderId", f.side,
               f.price, f.quantity, f.fee, f."feeBps", f.premium, f."indexPrice", f.role, NULL::numeric AS amount, NULL::numeric AS rate, f."createdAt"
        FROM fills f LEFT JOIN position_events pe ON pe."orderId" = f."orderId" AND pe.kind = 'liquidation'
        WHERE f."userId" = ${userId}
        UNION ALL
        SELECT fp.id, 'funding', fp."marketId", NULL, CASE WHEN fp.quantity > 0 THEN 'buy' ELSE 'sell' END,
               fp."markPrice", abs(fp.quantity), 0, 0, NULL, NULL, NULL, fp.amount, fp.rate, fp."createdAt"
        FROM funding_payments fp WHERE fp."userId" = ${userId}
        UNION ALL
        SELECT s.id, 'settlement', s."marketId", NULL, CASE WHEN s.quantity > 0 THEN 'sell' ELSE 'buy' END,
               s.price, s."closedQuantity", 0, 0, NULL, NULL, NULL, s."realizedPnl", NULL, s."createdAt"
        FROM position_events s WHERE s."userId" = ${userId} AND s.kind = 'settlement'
      ) h
      WHERE (${f.marketId ?? null}::text IS NULL OR h."marketId" = ${f.marketId ?? null})
        AND (${only}::text[] IS NULL OR h."marketId" = ANY(${only}::text[]))
        AND (${except}::text[] IS NULL OR h."marketId" <> ALL(${except}::text[]))
        AND (${f.cursor ?? null}::text IS NULL OR h.id < ${f.cursor ?? null})
      ORDER BY h.id DESC LIMIT ${f.limit + 1}`
    return page(rows, f.limit, tradeView)
  }

  async liquidations(userId: string, f: { limit: number; cursor?: string | null }): Promise<Page<LiquidationView>> {
    const rows = await this.prisma.positionEvent.findMany({
      where: { userId, kind: 'liquidation', ...(f.cursor ? { id: { lt: f.cursor } } : {}) },
      orderBy: { id: 'desc' },
      take: f.limit + 1,
    })
    return page(rows, f.limit, liquidationView)
  }

  /** Open positions (non-zero quantity). */
  positions(userId: string): Promise<Position[]> {
    return this.prisma.position.findMany({ where: { userId, NOT: { quantity: 0 } }, orderBy: { marketId: 'asc' } })
  }

  async position(userId: string, marketId: string): Promise<Position | null> {
    return this.prisma.position.findUnique({ where: { userId_marketId: { userId, marketId } } })
  }

  /** The options bucket: its total and what the engine holds of it for open orders and short options. */
  async optionsBalance(userId: string): Promise<{ total: string; locked: string }> {
    const r = await this.prisma.balance.findUnique({ where: { userId_bucket: { userId, bucket: 'options' } } })
    return r ? { total: numeric(r.amount), locked: numeric(r.locked) } : { total: '0', locked: '0' }
  }

  async balances(userId: string): Promise<Record<string, string>> {
    const rows = await this.prisma.balance.findMany({ where: { userId } })
    return Object.fromEntries(rows.map((r) => [r.bucket, numeric(r.amount)]))
  }

  async depositTotal(userId: string): Promise<string> {
    const r = await this.prisma.deposit.aggregate({ where: { userId, status: 'credited' }, _sum: { amount: true } })
    return r._sum.amount ? numeric(r._sum.amount) : '0'
  }

  async pendingWithdrawalTotal(userId: string): Promise<string> {
    const r = await this.prisma.withdrawal.aggregate({ where: { userId, status: { in: ['pending', 'sent'] } }, _sum: { amount: true } })
    return r._sum.amount ? numeric(r._sum.amount) : '0'
  }

  async openOrderCount(userId: string): Promise<number> {
    return this.prisma.order.count({ where: { userId, status: 'open' } })
  }

  /** Deposits sent from `address`, newest block first; the cursor is the last item's id. */
  async deposits(address: string, f: { limit: number; cursor?: string | null }): Promise<Page<DepositView>> {
    const after = f.cursor ? await this.prisma.deposit.findUnique({ where: { id: f.cursor } }) : null
    const [rows, cursor] = await Promise.all([
      this.prisma.deposit.findMany({
        where: {
          fromAddress: address,
          ...(after ? { OR: [{ blockNumber: { lt: after.blockNumber } }, { blockNumber: after.blockNumber, logIndex: { lt: after.logIndex } }] } : {}),
        },
        orderBy: [{ blockNumber: 'desc' }, { logIndex: 'desc' }],
        take: f.limit + 1,
      }),
      this.prisma.chainCursor.findUnique({ where: { name: 'deposits' } }),
    ])
    const head = cursor ? cursor.headBlock : null
    return page(rows, f.limit, (r) => ({
      id: r.id,
      txHash: r.txHash,
      logIndex: r.logIndex,
      blockNumber: Number(r.blockNumber),
      amount: numeric(r.amount),
      confirmations: head === null ? 0 : Math.max(0, Number(head - r.blockNumber) + 1),
      status: r.status as DepositView['status'],
      createdAt: r.createdAt.toISOString(),
      creditedAt: r.creditedAt?.toISOString() ?? null,
    }))
  }

  /** The caller's withdrawals, newest first (ids are ULIDs). */
  async withdrawals(userId: string, f: { limit: number; cursor?: string | null }): Promise<Page<WithdrawalView>> {
    const rows = await this.prisma.withdrawal.findMany({
      where: { userId, ...(f.cursor ? { id: { lt: f.cursor } } : {}) },
      orderBy: { id: 'desc' },
      take: f.limit + 1,
    })
    return page(rows, f.limit, (r) => ({
      id: r.id,
      amount: numeric(r.amount),
      toAddress: r.toAddress,
      status: r.status as WithdrawalView['status'],
      txHash: r.txHash,
      error: r.error,
      createdAt: r.createdAt.toISOString(),
      updatedAt: r.updatedAt.toISOString(),
    }))
  }
}
