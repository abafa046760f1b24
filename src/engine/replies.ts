// What each command answers when it succeeds: the engine's dispatch is checked against this table, and
// callers of the command bus get the type of the command they sent, not `unknown`. Order views are null
// when nobody waits for the reply (the engine builds views only for a reply).
import type { OrderView } from '../domain/orders.js'
import type { UserBucket } from '../domain/buckets.js'
import type { Command } from './commands.js'
import type { Preview } from './handlers/preview.js'
import type { QuotesResult } from './handlers/quotes.js'
import type { MmpView } from './mmp.js'
import type { WithdrawalOutcome, WithdrawalView } from './handlers/onchain.js'

type Balances = Record<UserBucket, string>

export interface Replies {
  ListMarkets: { listed: string[] }
  SetMarketStatus: { marketId: string; status: string }
  ExpireMarket: { marketId: string; status: string }
  UpdateMarks: { accepted: number }
  Tick: { deadmanFired: number }
  Faucet: { amount: string; walletBalance: string; remainingToday: string }
  Genesis: { balances: Balances }
  Transfer: { from: UserBucket; to: UserBucket; amount: string; balances: Balances }
  /** credited: false when this (txHash, logIndex) was credited before (nothing moved). */
  CreditDeposit: { credited: boolean; amount: string; walletBalance: string }
  RequestWithdrawal: WithdrawalView
  CompleteWithdrawal: WithdrawalOutcome
  FailWithdrawal: WithdrawalOutcome
  PlaceOrder: OrderView | null
  PreviewOrder: Preview
  CancelOrder: OrderView | null
  ModifyOrder: OrderView | null
  CancelAll: { canceled: number; ids: string[] }
  PlaceQuotes: QuotesResult
  CancelAllAfter: { timeoutMs: number; cancelAt: string | null }
  SetMmpConfig: MmpView
  ResetMmp: MmpView
}

/** The successful reply of command `C`. */
export type ReplyOf<C extends Command> = Replies[C['type']]

/** A reply as its waiting caller receives it: every order view built (the engine builds them only when
 * someone waits, and a caller of the command bus always does). */
export type Replied<T> = [T] extends [OrderView | null]
  ? OrderView
  : T extends readonly (infer E)[]
    ? Replied<E>[]
    : T extends object
      ? { [K in keyof T]: Replied<T[K]> }
      : T
