// Deposits and withdrawals through real batches: what the batch writer stores (deposit rows marked
// credited, withdrawal rows with their status) is enough for PostgreSQL alone to rebuild the very engine
// that ran (same stateHash), pending withdrawals and the deposits already counted included.
import { describe, expect, it } from 'vitest'
import { stateHash } from '../../src/engine/snapshot.js'
import { loadState } from '../../src/store/engineRebuild.js'
import { TradingHarness } from '../support/tradingFixtures.js'
import { batchDatabase } from '../support/batchDatabase.js'

const USDC = 1_000_000n
const ADDR = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

const store = batchDatabase('onchain-test')

const commit = (h: TradingHarness) => store.commit(h)

describe('on-chain money in PostgreSQL', () => {
  it('stores credits and withdrawals so that a rebuild is the same engine', async () => {
    const h = new TradingHarness()
    const credit = (userId: string, n: number, logIndex: number, usdc: bigint) =>
      h.ok({ type: 'CreditDeposit', userId, txHash: tx(n), logIndex, blockNumber: 10 + n, fromAddress: ADDR, amountMicro: String(usdc * USDC) })
    // The indexer saw the first log before the engine credited it: the credit marks its row.
    await store.pool.query(
      `INSERT INTO deposits (id, "txHash", "logIndex", "blockNumber", "fromAddress", amount, status, "createdAt") VALUES ($1, $2, 0, 11, $3, 700, 'confirmed', now())`,
      [`${tx(1)}:0`, tx(1), ADDR],
    )
    credit('alice', 1, 0, 700n)
    credit('alice', 1, 1, 300n)
    credit('bob', 2, 0, 50n)
    await commit(h)
    // Requested and completed in one batch, requested and failed, and one left pending.
    h.ok({ type: 'RequestWithdrawal', userId: 'alice', withdrawalId: 'w1', amountMicro: String(100n * USDC), toAddress: ADDR })
    h.ok({ type: 'CompleteWithdrawal', withdrawalId: 'w1', txHash: tx(7) })
    h.ok({ type: 'RequestWithdrawal', userId: 'alice', withdrawalId: 'w2', amountMicro: String(200n * USDC), toAddress: ADDR })
    h.ok({ type: 'RequestWithdrawal', userId: 'bob', withdrawalId: 'w3', amountMicro: String(50n * USDC), toAddress: ADDR })
    await commit(h)
    h.ok({ type: 'FailWithdrawal', withdrawalId: 'w3', txHash: null, reason: 'cannot be sent' })
    await commit(h)

    const deposits = await store.pool.query(`SELECT id, "userId", amount::text, status FROM deposits ORDER BY id`)
    expect(deposits.rows).toEqual([
      { id: `${tx(1)}:0`, userId: 'alice', amount: '700.000000', status: 'credited' },
      { id: `${tx(1)}:1`, userId: 'alice', amount: '300.000000', status: 'credited' },
      { id: `${tx(2)}:0`, userId: 'bob', amount: '50.000000', status: 'credited' },
    ])
    const withdrawals = await store.pool.query(`SELECT id, status, "txHash", error FROM withdrawals ORDER BY id`)
    expect(withdrawals.rows).toEqual([
      { id: 'w1', status: 'completed', txHash: tx(7), error: null },
      { id: 'w2', status: 'pending', txHash: null, error: null },
      { id: 'w3', status: 'failed', txHash: null, error: 'cannot be sent' },
    ])
    const rebuilt = await loadState(store.pool)
    expect(stateHash(rebuilt)).toBe(stateHash(h.engine.state))
    expect(rebuilt.accounts.get('alice')).toMatchObject({ deposited: 1_000n * USDC, withdrawn: 100n * USDC, withdrawing: 200n * USDC })
    expect(rebuilt.creditedDeposits.size).toBe(3)
  })
})
