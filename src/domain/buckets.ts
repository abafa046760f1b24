// Balance buckets (SPEC.md "Wallet"): user buckets, and the system accounts that make every ledger
// movement double-entry, so all balances together always sum to zero.

export const USER_BUCKETS = ['wallet', 'spot', 'perps', 'options'] as const
export type UserBucket = (typeof USER_BUCKETS)[number]

/**
 * The system's own buckets: `external` is the outside world (deposits, faucet, genesis grants credit a
 * user and debit it, so it goes negative), `fees` collects trading fees, `insurance` covers
 * liquidation shortfalls, `clearing` is the counterparty of realized PnL and funding, `withdrawals` holds
 * what accepted withdrawals took from wallets until they complete (to `external`) or fail (back).
 */
export const SYSTEM_BUCKETS = ['external', 'fees', 'insurance', 'clearing', 'withdrawals'] as const
export type SystemBucket = (typeof SYSTEM_BUCKETS)[number]
export type Bucket = UserBucket | SystemBucket

/** The system account's user id: the zero ULID, never a real user's. */
export const SYSTEM_USER = '00000000000000000000000000'

export function isUserBucket(v: unknown): v is UserBucket {
  return typeof v === 'string' && (USER_BUCKETS as readonly string[]).includes(v)
}

export const LEDGER_KINDS = [
  'deposit', 'withdrawal', 'transfer', 'faucet', 'genesis', 'fee', 'trade', 'realized_pnl', 'funding',
  'premium', 'settlement', 'liquidation', 'insurance',
] as const
export type LedgerKind = (typeof LEDGER_KINDS)[number]
