// Where the simulated traders' money comes from. The house is minted its starting USDC and spot inventory
// once, by the engine's Genesis command (a test network's mint, like a deposit: not a trading path), only
// while its account holds nothing; the taker takes the public faucet like any user. Both then move USDC
// from `wallet` into `spot` and `perps` through POST /wallet/transfer, topping buckets up to a target.
import type { Command } from '../../engine/commands.js'
import { D, formatDecimal } from '../../domain/decimal.js'
import { ApiError, type ExchangeClient } from './exchangeClient.js'

export interface WalletBalance {
  walletBalance: string
  spotBalance: string
  perpsBalance: string
  optionsBalance: string
}

export interface SpotMarketMark {
  marketId: string
  stepSize: string
  /** Latest mark; null when the market has none yet. */
  mark: string | null
}

export interface BucketTargets {
  spot: number
  perps: number
}

/** The house's mint: 50M USDC-T, and about 10M USDC-T worth of each spot base asset at its mark. */
export const HOUSE_GENESIS_USDC = 50_000_000
export const HOUSE_INVENTORY_NOTIONAL = 10_000_000
export const HOUSE_BUCKETS: BucketTargets = { spot: 15_000_000, perps: 30_000_000 }
/** The taker's working capital, refilled from the faucet when a bucket falls under half its target. */
export const TAKER_BUCKETS: BucketTargets = { spot: 30_000, perps: 60_000 }
const FAUCET_REQUEST = 100_000

const total = (b: WalletBalance) => D(b.walletBalance).add(b.spotBalance).add(b.perpsBalance).add(b.optionsBalance)

/** True while the account holds no USDC in any bucket: the house has not had its genesis yet. */
export async function needsGenesis(api: ExchangeClient): Promise<boolean> {
  return total(await api.get<WalletBalance>('/wallet/balance')).isZero()
}

/**
 * The house's Genesis command: its USDC and, per spot market, about HOUSE_INVENTORY_NOTIONAL of the base
 * asset at the mark. Null while a spot market has no mark, so its inventory cannot be sized yet.
 */
export function genesisCommand(userId: string, spot: readonly SpotMarketMark[]): Extract<Command, { type: 'Genesis' }> | null {
  if (spot.length === 0 || spot.some((m) => m.mark === null)) return null
  return {
    type: 'Genesis',
    userId,
    usdcMicro: (BigInt(HOUSE_GENESIS_USDC) * 1_000_000n).toString(),
    holdings: spot.map((m) => ({ marketId: m.marketId, lots: D(HOUSE_INVENTORY_NOTIONAL).div(m.mark!).div(m.stepSize).floor().toNumber() })),
  }
}

/** Moves USDC from `wallet` into every bucket under its target, as far as the wallet reaches. */
export async function topUpBuckets(api: ExchangeClient, targets: BucketTargets): Promise<WalletBalance> {
  const balance = await api.get<WalletBalance>('/wallet/balance')
  let wallet = D(balance.walletBalance)
  for (const [bucket, have] of [['perps', balance.perpsBalance], ['spot', balance.spotBalance]] as const) {
    // Whole micro-USDC only: the wire refuses a seventh decimal.
    const amount = D.min(D(targets[bucket]).sub(have), wallet).toDecimalPlaces(6, D.ROUND_DOWN)
    if (!amount.gt(0)) continue
    await api.post('/wallet/transfer', { from: 'wallet', to: bucket, amount: formatDecimal(amount) })
    wallet = wallet.sub(amount)
  }
  return api.get<WalletBalance>('/wallet/balance')
}

/**
 * Keeps the taker funded from the public faucet: when a bucket is under half its target, asks the faucet
 * for what the targets miss (within the daily cap), then tops the buckets up. False when the faucet is
 * off or spent for the day and the buckets are still low.
 */
export async function fundFromFaucet(api: ExchangeClient, targets: BucketTargets): Promise<boolean> {
  const low = (b: WalletBalance) => D(b.perpsBalance).lt(targets.perps / 2) || D(b.spotBalance).lt(targets.spot / 2)
  let balance = await api.get<WalletBalance>('/wallet/balance')
  if (!low(balance)) return true
  const missing = D(targets.perps).sub(balance.perpsBalance).add(targets.spot).sub(balance.spotBalance).sub(balance.walletBalance)
  if (missing.gt(0)) {
    const ask = D.min(missing.ceil(), FAUCET_REQUEST)
    try {
      await api.post('/wallet/faucet', { amount: formatDecimal(ask) })
    } catch (err) {
      if (!(err instanceof ApiError) || (err.code !== 'FAUCET_LIMIT' && err.code !== 'NOT_FOUND')) throw err
      // Over today's cap: take what it still allows. NOT_FOUND: the faucet is off.
      const remaining = err.code === 'FAUCET_LIMIT' ? D(String(err.details?.['remaining'] ?? '0')).toDecimalPlaces(6, D.ROUND_DOWN) : D(0)
      if (remaining.gt(0)) await api.post('/wallet/faucet', { amount: formatDecimal(remaining) })
    }
  }
  balance = await topUpBuckets(api, targets)
  return !low(balance)
}
