// The caller's own records, read from PostgreSQL: orders, fills, positions, balances. Everything here
// is committed (the engine replies only after its commit), so a client reads what it was told.
import type { OrderView } from '../domain/orders.js'
import type { PrismaClient } from './prisma.js'
import { numeric } from './marketRows.js'
import type { Order, Fill, Position } from '../generated/prisma/client.js'

export const MAX_PAGE = 200
export const DEFAULT_PAGE = 100

export interface Page<T> {
  items: T[]
  /** Pass as `cursor` for the next page; null when this is the last one. */
  nextCursor: string | null
}

export interface TradeView {
  tradeId: string
  marketId: string
  orderId: string
  side: 'buy' | 'sell'
  price: string
  quantity: string
  fee: string
  feeBps: string
  role: 'taker' | 'maker'
  type: 'trade'
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
    quoteId: r.quoteId,
    cancelReason: r.cancelReason,
    createdAt: r.createdAt.toISOString(),
    updatedAt: r.updatedAt.toISOString(),
  }
}

export function tradeView(f: Fill): TradeView {
  return {
    tradeId: f.id,
    marketId: f.marketId,
    orderId: f.orderId,
    side: f.side as TradeView['side'],
    price: numeric(f.price),
    quantity: numeric(f.quantity),
    fee: numeric(f.fee),
    feeBps: numeric(f.feeBps),
    role: f.role as TradeView['role'],
    type: 'trade',
    createdAt: f.createdAt.toISOString(),
  }
}

/** Newest first, keyed by the ULID-ordered id: `cursor` is the last id of the previous page. */
function page<T extends { id: string }, V>(rows: T[], limit: number, view: (r: T) => V): Page<V> {
  const more = rows.length > limit
  const items = more ? rows.slice(0, limit) : rows
  return { items: items.map(view), nextCursor: more ? items.at(-1)!.id : null }
}

export class AccountReads {
  constructor(private readonly prisma: PrismaClient) {}

  async order(id: string): Promise<OrderView | null> {
    const r = await this.prisma.order.findUnique({ where: { id } })
    return r ? orderView(r) : null
  }

  async orders(userId: string, f: { marketId?: string | null; marginMode?: string | null; status?: string | null; limit: number; cursor?: string | null }): Promise<Page<OrderView>> {
    const rows = await this.prisma.order.findMany({
      where: {
        userId,
        ...(f.marketId ? { marketId: f.marketId } : {}),
        ...(f.marginMode ? { marginMode: f.marginMode } : {}),
        ...(f.status ? { status: f.status } : {}),
        ...(f.cursor ? { id: { lt: f.cursor } } : {}),
      },
      orderBy: { id: 'desc' },
      take: f.limit + 1,
    })
    return page(rows, f.limit, orderView)
  }

  async trades(userId: string, f: { marketId?: string | null; limit: number; cursor?: string | null }): Promise<Page<TradeView>> {
    const rows = await this.prisma.fill.findMany({
      where: { userId, ...(f.marketId ? { marketId: f.marketId } : {}), ...(f.cursor ? { id: { lt: f.cursor } } : {}) },
      orderBy: { id: 'desc' },
      take: f.limit + 1,
    })
    return page(rows, f.limit, tradeView)
  }

  /** Open positions (non-zero quantity). */
  positions(userId: string): Promise<Position[]> {
    return this.prisma.position.findMany({ where: { userId, NOT: { quantity: 0 } }, orderBy: { marketId: 'asc' } })
  }

  async position(userId: string, marketId: string): Promise<Position | null> {
    return this.prisma.position.findUnique({ where: { userId_marketId: { userId, marketId } } })
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
}
