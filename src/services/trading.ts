// The write side of trading and wallets for every API (GraphQL resolvers, and REST through them): it
// validates with the shared validators (the spec's codes, before a round trip), turns decimals into the
// engine's integers with the market's own scales, sends the engine command, and adds to the engine's
// refusals what only PostgreSQL knows (the existing order of a duplicate clientOrderId; whether an
// order that is not open exists at all).
import { getAddress, isAddress } from 'viem'
import type { Principal } from '../auth/principal.js'
import { isUserBucket } from '../domain/buckets.js'
import { D, parseDecimal, toMicro } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import { newId } from '../domain/ids.js'
import { isLinear, type MarketSpec } from '../domain/market.js'
import { clientOrderId, parseLinearOrder, priceTicks, quantityLots, type OrderRequest, type OrderSpec, type OrderView } from '../domain/orders.js'
import type { MarketKind } from '../engine/admission.js'
import type { Command } from '../engine/commands.js'
import type { Preview } from '../engine/handlers/preview.js'
import type { AccountReads } from '../store/accountReads.js'
import type { Services } from './services.js'

export interface QuoteSide {
  price?: unknown
  quantity?: unknown
  clientOrderId?: unknown
}

export interface QuotesReply {
  marketId: string
  quoteId: string | null
  canceled: string[]
  results: Array<{ side: 'buy' | 'sell'; response: OrderView }>
}

/**
 * Linear (spot, perpetual, future) or option, as the engine's commands name it. The REST families name
 * theirs (`/perps/orders` linear, `/orders` options), so a market or order of the other kind is refused
 * as unknown; GraphQL may leave it out and let the market id decide.
 */
export type { MarketKind }

export const kindOf = (spec: Pick<MarketSpec, 'type'>): MarketKind => (isLinear(spec.type) ? 'linear' : 'option')

/** Fields of the order request that only linear orders have (SPEC.md "Order request fields"). */
const LINEAR_ONLY = ['stopPrice', 'takeProfitPrice', 'stopLossPrice'] as const

/**
 * The order for the engine: the shared validator, after an option order's own rule: no conditional
 * prices and no margin mode but `cross` (an option order has none; the engine is given `cross`).
 */
export function parseOrder(req: OrderRequest, market: MarketSpec, id: string, quoteId: string | null = null): OrderSpec {
  if (isLinear(market.type)) return parseLinearOrder(req, market, id, quoteId)
  for (const field of LINEAR_ONLY) {
    if (req[field] !== undefined && req[field] !== null) throw new DomainError('INVALID_REQUEST', `Option orders take no ${field}`, { [field]: req[field] })
  }
  if (req.marginMode !== undefined && req.marginMode !== null && req.marginMode !== 'cross') {
    throw new DomainError('INVALID_REQUEST', 'Option orders have no margin mode (the options bucket margins them together)', { marginMode: req.marginMode })
  }
  return parseLinearOrder({ ...req, marginMode: 'cross' }, market, id, quoteId)
}

const QUOTE_ID = /^[A-Za-z0-9_.:-]{1,64}$/

function quoteIdOf(v: unknown, required: boolean): string | null {
  if (v === undefined || v === null) {
    if (required) throw new DomainError('INVALID_REQUEST', 'quoteId is required')
    return null
  }
  if (typeof v === 'string' && QUOTE_ID.test(v)) return v
  throw new DomainError('INVALID_REQUEST', 'quoteId must be 1–64 characters of A–Z a–z 0–9 _ . : -')
}

/** A positive USDC amount with at most 6 decimals, as micro-USDC. */
export function usdcAmount(v: unknown): bigint {
  const d = parseDecimal(v)
  const micro = d && d.gt(0) ? toMicro(d, 'exact') : null
  if (micro === null) throw new DomainError('INVALID_REQUEST', 'amount must be a positive decimal string with at most 6 decimals', { amount: v })
  return micro
}

export class Trading {
  constructor(
    private readonly s: Pick<Services, 'config' | 'marketData' | 'commands'>,
    private readonly reads: AccountReads,
  ) {}

  private run<C extends Command>(cmd: C, correlationId: string) {
    return this.s.commands.execute(cmd, { correlationId })
  }

  /** A listed, unsettled market (of `kind`, when given), or INVALID_MARKET_ID. */
  private async market(marketId: unknown, kind: MarketKind | null | undefined): Promise<MarketSpec> {
    const m = typeof marketId === 'string' ? await this.s.marketData.market(marketId) : null
    if (!m || m.status === 'settled' || (kind && kindOf(m.spec) !== kind)) {
      throw new DomainError('INVALID_MARKET_ID', `Unknown ${kind ? `${kind} ` : ''}market ${String(marketId)}`, { marketId })
    }
    return m.spec
  }

  /** The caller's order as stored, when it is of `kind` (or any, without one). */
  private async ownOrder(userId: string, orderId: string, kind: MarketKind | null | undefined): Promise<OrderView | null> {
    const order = await this.reads.order(orderId)
    if (!order || order.userId !== userId) return null
    if (kind) {
      const m = await this.s.marketData.market(order.marketId)
      if (!m || kindOf(m.spec) !== kind) return null
    }
    return order
  }

  private async withExistingOrder<T>(p: Promise<T>): Promise<T> {
    try {
      return await p
    } catch (err) {
      if (err instanceof DomainError && err.code === 'DUPLICATE_CLIENT_ORDER_ID' && typeof err.details?.['existingOrderId'] === 'string') {
        const existingOrder = await this.reads.order(err.details['existingOrderId'])
        throw new DomainError('DUPLICATE_CLIENT_ORDER_ID', err.message, { existingOrder })
      }
      throw err
    }
  }

  /** ORDER_NOT_FOUND from the engine means "not open": 409 if the caller's order (of `kind`) exists but ended. */
  private async notOpen(err: unknown, userId: string, orderId: string, kind: MarketKind | null | undefined): Promise<never> {
    if (err instanceof DomainError && err.code === 'ORDER_NOT_FOUND') {
      const order = await this.ownOrder(userId, orderId, kind)
      if (order && order.status !== 'open') {
        throw new DomainError('ORDER_NOT_CANCELABLE', `Order ${orderId} is ${order.status}`, { status: order.status })
      }
      throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`, { orderId })
    }
    throw err
  }

  /** One order on a market of `kind` (any, without one: the market id decides). */
  async placeOrder(p: Principal, req: OrderRequest & { mmp?: unknown }, correlationId: string, kind?: MarketKind | null): Promise<OrderView> {
    const market = await this.market(req.marketId, kind)
    const { mmp, ...fields } = req
    if (mmp !== undefined && mmp !== null && typeof mmp !== 'boolean') throw new DomainError('INVALID_REQUEST', 'mmp must be a boolean', { mmp })
    const order = parseOrder(fields, market, newId())
    // Market-maker protection (src/engine/mmp.ts) covers option orders only; the engine refuses it elsewhere.
    return this.withExistingOrder(this.run({ type: 'PlaceOrder', userId: p.userId, order, kind: kindOf(market), ...(mmp === true ? { mmp } : {}) }, correlationId))
  }

  /** Placement's checks without placing: the engine runs them against its live state. */
  async previewOrder(p: Principal, req: OrderRequest, correlationId: string, kind?: MarketKind | null): Promise<Preview> {
    const market = await this.market(req.marketId, kind)
    const order = parseOrder(req, market, newId())
    return this.run({ type: 'PreviewOrder', userId: p.userId, order, kind: kindOf(market) }, correlationId)
  }

  /** With `kind`, an order of the other kind is not found. */
  async cancelOrder(p: Principal, orderId: string, correlationId: string, kind?: MarketKind | null): Promise<OrderView> {
    try {
      return await this.run({ type: 'CancelOrder', userId: p.userId, orderId, ...(kind ? { kind } : {}) }, correlationId)
    } catch (err) {
      return this.notOpen(err, p.userId, orderId, kind)
    }
  }

  /** `quantity` is the new total quantity of the order (filled part included). */
  async modifyOrder(p: Principal, orderId: string, change: { price?: unknown; quantity?: unknown }, correlationId: string, kind?: MarketKind | null): Promise<OrderView> {
    if ((change.price === undefined || change.price === null) && (change.quantity === undefined || change.quantity === null)) {
      throw new DomainError('INVALID_REQUEST', 'Give a new price, a new quantity, or both')
    }
    const order = await this.ownOrder(p.userId, orderId, kind)
    if (!order) throw new DomainError('ORDER_NOT_FOUND', `No order ${orderId}`, { orderId })
    const market = await this.market(order.marketId, null)
    const cmd: Command = {
      type: 'ModifyOrder',
      userId: p.userId,
      orderId,
      priceTicks: priceTicks(market, change.price),
      lots: change.quantity === undefined || change.quantity === null ? null : quantityLots(market, change.quantity),
      ...(kind ? { kind } : {}),
    }
    try {
      return await this.run(cmd, correlationId)
    } catch (err) {
      return this.notOpen(err, p.userId, orderId, kind)
    }
  }

  /** With `kind`, only orders of that kind; a `marketId` of the other kind is INVALID_MARKET_ID. */
  async cancelAll(
    p: Principal,
    f: { marketId?: unknown; quoteId?: unknown; clientOrderId?: unknown },
    correlationId: string,
    kind?: MarketKind | null,
  ): Promise<{ canceled: number; ids: string[] }> {
    if (f.marketId !== undefined && f.marketId !== null && typeof f.marketId !== 'string') throw new DomainError('INVALID_MARKET_ID', 'marketId must be a string')
    return this.run(
      {
        type: 'CancelAll',
        userId: p.userId,
        marketId: (f.marketId as string | undefined) ?? null,
        quoteId: quoteIdOf(f.quoteId, false),
        clientOrderId: clientOrderId(f.clientOrderId),
        ...(kind ? { kind } : {}),
      },
      correlationId,
    )
  }

  private quoteOrder(market: MarketSpec, side: 'buy' | 'sell', q: QuoteSide, quoteId: string | null): OrderSpec {
    if (typeof q !== 'object' || q === null) throw new DomainError('INVALID_REQUEST', `The ${side} side of a quote must be an object`)
    return parseOrder({ side, price: q.price, quantity: q.quantity, clientOrderId: q.clientOrderId, postOnly: true }, market, newId(), quoteId)
  }

  /** A one- or two-sided quote: both sides rest or neither. */
  async placeQuote(
    p: Principal,
    q: { marketId?: unknown; quoteId?: unknown; bid?: QuoteSide | null; ask?: QuoteSide | null },
    correlationId: string,
    kind?: MarketKind | null,
  ): Promise<QuotesReply> {
    const market = await this.market(q.marketId, kind)
    const quoteId = quoteIdOf(q.quoteId, false)
    const orders: OrderSpec[] = []
    if (q.bid !== undefined && q.bid !== null) orders.push(this.quoteOrder(market, 'buy', q.bid, quoteId))
    if (q.ask !== undefined && q.ask !== null) orders.push(this.quoteOrder(market, 'sell', q.ask, quoteId))
    if (orders.length === 0) throw new DomainError('INVALID_REQUEST', 'A quote needs a bid, an ask, or both')
    return this.withExistingOrder(
      this.run({ type: 'PlaceQuotes', userId: p.userId, marketId: market.id, quoteId, orders, cancelFirst: false, kind: kindOf(market) }, correlationId),
    )
  }

  /**
   * Optionally cancels the caller's orders on the market, then posts every quote, all in one step; with
   * `amend` (and `cancelAll`) the orders are amended in place where they can be instead of replaced.
   */
  async placeBulkQuotes(
    p: Principal,
    q: { marketId?: unknown; quoteId?: unknown; cancelAll?: unknown; amend?: unknown; quotes?: unknown },
    correlationId: string,
    kind?: MarketKind | null,
  ): Promise<QuotesReply> {
    const market = await this.market(q.marketId, kind)
    const quoteId = quoteIdOf(q.quoteId, true)
    if (q.cancelAll !== undefined && typeof q.cancelAll !== 'boolean') throw new DomainError('INVALID_REQUEST', 'cancelAll must be a boolean')
    if (q.amend !== undefined && q.amend !== null && typeof q.amend !== 'boolean') throw new DomainError('INVALID_REQUEST', 'amend must be a boolean')
    if (q.amend === true && q.cancelAll !== true) throw new DomainError('INVALID_REQUEST', 'amend replaces the orders cancelAll would cancel: send it with cancelAll')
    if (!Array.isArray(q.quotes)) throw new DomainError('INVALID_REQUEST', 'quotes must be a list')
    const orders = q.quotes.map((x: unknown) => {
      const side = (x as { side?: unknown } | null)?.side
      if (side !== 'buy' && side !== 'sell') throw new DomainError('INVALID_REQUEST', 'Every quote needs a side of buy or sell')
      return this.quoteOrder(market, side, x as QuoteSide, quoteId)
    })
    return this.withExistingOrder(
      this.run(
        { type: 'PlaceQuotes', userId: p.userId, marketId: market.id, quoteId, orders, cancelFirst: q.cancelAll === true, amend: q.amend === true, kind: kindOf(market) },
        correlationId,
      ),
    )
  }

  /** A reduce-only market order for the whole position or `quantity` of it. */
  async closePosition(p: Principal, marketIdIn: unknown, quantity: unknown, correlationId: string): Promise<OrderView> {
    const market = await this.market(marketIdIn, 'linear')
    const position = await this.reads.position(p.userId, market.id)
    const held = position ? D(position.quantity.toFixed()) : D(0)
    if (held.isZero()) throw new DomainError('REDUCE_ONLY_VIOLATION', `No open position in ${market.id}`)
    const qty = quantity === undefined || quantity === null ? held.abs().toFixed() : quantity
    const req = { marketId: market.id, side: held.isPositive() ? 'sell' : 'buy', type: 'market', quantity: qty, timeInForce: 'ioc', reduceOnly: true, marginMode: position!.marginMode }
    return this.placeOrder(p, req, correlationId, 'linear')
  }

  async transfer(p: Principal, from: unknown, to: unknown, amount: unknown, correlationId: string) {
    if (!isUserBucket(from) || !isUserBucket(to)) throw new DomainError('INVALID_REQUEST', 'from and to must be wallet, spot, perps or options', { from, to })
    if (from === to) throw new DomainError('SAME_BUCKET')
    return this.run({ type: 'Transfer', userId: p.userId, from, to, amountMicro: usdcAmount(amount).toString() }, correlationId)
  }

  /** Pays `amount` out to `toAddress` (the caller's own address by default) on chain; see handlers/onchain.ts. */
  async withdraw(p: Principal, amount: unknown, toAddress: unknown, correlationId: string) {
    const to = toAddress === undefined || toAddress === null ? p.address : toAddress
    if (typeof to !== 'string' || !isAddress(to, { strict: false })) throw new DomainError('INVALID_REQUEST', 'toAddress must be an address (0x and 40 hex digits, EIP-55 checksum when mixed case)', { toAddress })
    const cmd = { type: 'RequestWithdrawal', userId: p.userId, withdrawalId: newId(), amountMicro: usdcAmount(amount).toString(), toAddress: getAddress(to) } as const
    const w = await this.run(cmd, correlationId)
    return { ...w, txHash: null, error: null }
  }

  async faucet(p: Principal, amount: unknown, correlationId: string) {
    if (!this.s.config.faucetEnabled) throw new DomainError('NOT_FOUND', 'The faucet is off on this deployment')
    return this.run(
      { type: 'Faucet', userId: p.userId, amountMicro: usdcAmount(amount).toString(), dailyCapMicro: this.s.config.faucetDailyCapMicro.toString() },
      correlationId,
    )
  }

  async cancelAllAfter(p: Principal, timeoutMs: unknown, correlationId: string) {
    if (typeof timeoutMs !== 'number' || !Number.isSafeInteger(timeoutMs)) throw new DomainError('INVALID_REQUEST', 'timeoutMs must be an integer')
    return this.run({ type: 'CancelAllAfter', userId: p.userId, timeoutMs }, correlationId)
  }
}
