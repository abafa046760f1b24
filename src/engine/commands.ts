// The engine's input vocabulary. Every change to trading or account state is one of these commands,
// appended to the Redis command stream by an API node, the scheduler or the indexer, and applied by the
// engine in stream order. A command carries its own time; the engine never reads a clock.
import type { ErrorCode, ErrorDetails } from '../domain/errors.js'
import type { UserBucket } from '../domain/buckets.js'
import type { MarketSpec } from '../domain/market.js'
import type { OrderSpec } from '../domain/orders.js'
import type { MarketKind } from './admission.js'
import type { DepositInput } from './handlers/onchain.js'

export interface MarkInput {
  marketId: string
  /** Canonical positive decimal string. */
  price: string
  source: string
  /** Upstream time of the observation, unix ms. */
  sourceTs: number
}

export type Command =
  // markets and marks
  | { type: 'ListMarkets'; markets: MarketSpec[] }
  | { type: 'SetMarketStatus'; marketId: string; status: 'active' | 'halted' }
  | { type: 'ExpireMarket'; marketId: string }
  | { type: 'UpdateMarks'; marks: MarkInput[] }
  /** The scheduler's heartbeat: time-driven work (dead man's switches) happens at its timestamp. */
  | { type: 'Tick' }
  // money (amounts in micro-USDC as integer strings)
  | { type: 'Faucet'; userId: string; amountMicro: string; dailyCapMicro: string }
  | { type: 'Genesis'; userId: string; usdcMicro: string; holdings: Array<{ marketId: string; lots: number }> }
  | { type: 'Transfer'; userId: string; from: UserBucket; to: UserBucket; amountMicro: string }
  // on chain (handlers/onchain.ts): the indexer credits final deposits; an API node requests a withdrawal
  // (its id drawn there); the withdrawal worker completes or fails it
  | ({ type: 'CreditDeposit' } & DepositInput)
  | { type: 'RequestWithdrawal'; userId: string; withdrawalId: string; amountMicro: string; toAddress: string }
  | { type: 'CompleteWithdrawal'; withdrawalId: string; txHash: string }
  | { type: 'FailWithdrawal'; withdrawalId: string; txHash: string | null; reason: string }
  // orders: `kind` says which paths a command came by (`/orders` options, `/perps/...` linear); a market or
  // order of the other kind is refused as unknown. Without it: linear markets to place, any order to cancel.
  /** `mmp`: the order is under market-maker protection (options only; quotes on options always are). */
  | { type: 'PlaceOrder'; userId: string; order: OrderSpec; kind?: MarketKind; mmp?: boolean }
  /** Runs PlaceOrder's checks and changes nothing. */
  | { type: 'PreviewOrder'; userId: string; order: OrderSpec; kind?: MarketKind }
  | { type: 'CancelOrder'; userId: string; orderId: string; kind?: MarketKind }
  | { type: 'ModifyOrder'; userId: string; orderId: string; priceTicks: number | null; lots: number | null; kind?: MarketKind }
  | { type: 'CancelAll'; userId: string; marketId?: string | null; quoteId?: string | null; clientOrderId?: string | null; kind?: MarketKind }
  | { type: 'PlaceQuotes'; userId: string; marketId: string; quoteId: string | null; orders: OrderSpec[]; cancelFirst: boolean; amend?: boolean; kind?: MarketKind }
  | { type: 'CancelAllAfter'; userId: string; timeoutMs: number }
  // market-maker protection (mmp.ts); limits in millionths of the underlying
  | { type: 'SetMmpConfig'; userId: string; underlying: string; intervalMs: number; frozenMs: number; quantityLimit: number; deltaLimit: number }
  | { type: 'ResetMmp'; userId: string; underlying: string }

export type CommandType = Command['type']

export interface CommandEnvelope {
  /** Unique id chosen by the producer; the reply carries it back. */
  id: string
  /** Producer's clock, unix ms. The engine clock is the running maximum of these. */
  ts: number
  /** Correlation id of the request that caused the command, copied onto its events. */
  correlationId?: string
  /** Reply channel of the producing node; absent when nobody waits for the result. */
  replyTo?: string
  cmd: Command
}

export type Reply =
  | { ok: true; value: unknown }
  | { ok: false; code: ErrorCode; message: string; details?: ErrorDetails }
