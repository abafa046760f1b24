// Money across the chain in the pure engine: deposits credited once by (txHash, logIndex), withdrawals
// held in the system's `withdrawals` bucket until they complete or fail, faucet credits never withdrawable,
// refusals that move nothing, and a snapshot that carries it all.
import { beforeEach, describe, expect, it } from 'vitest'
import { SYSTEM_USER } from '../../src/domain/buckets.js'
import type { Command } from '../../src/engine/commands.js'
import { restoreSnapshot, serializeSnapshot, stateHash } from '../../src/engine/snapshot.js'
import { Engine } from '../../src/engine/engine.js'
import { TradingHarness } from '../support/tradingFixtures.js'

const USDC = 1_000_000n
const ALICE_ADDR = '0x70997970C51812dc3A010C7d01b50e0d17dc79C8'
const tx = (n: number) => `0x${n.toString(16).padStart(64, '0')}`

let h: TradingHarness
beforeEach(() => {
  h = new TradingHarness()
})

const deposit = (userId: string, usdc: bigint, txHash: string, logIndex = 0): Command => ({
  type: 'CreditDeposit', userId, txHash, logIndex, blockNumber: 7, fromAddress: ALICE_ADDR, amountMicro: String(usdc * USDC),
})
const withdraw = (userId: string, id: string, usdc: bigint, toAddress = ALICE_ADDR): Command => ({
  type: 'RequestWithdrawal', userId, withdrawalId: id, amountMicro: String(usdc * USDC), toAddress,
})
const system = (bucket: 'external' | 'withdrawals') => h.engine.state.accounts.get(SYSTEM_USER)?.balance(bucket) ?? 0n
/** Everything users hold plus the house's fees, insurance and clearing: what came in less what left. */
const held = () => {
  let sum = 0n
  for (const a of h.engine.state.accounts.values()) {
    for (const [bucket, v] of a.balances) if (a.userId !== SYSTEM_USER || (bucket !== 'external' && bucket !== 'withdrawals')) sum += v
  }
  return sum
}

describe('deposits', () => {
  it('credit the wallet bucket once per (txHash, logIndex): a repeat moves nothing, a second log of one transaction is a second deposit', () => {
    h.engine.takeChanges()
    expect(h.ok(deposit('alice', 250n, tx(1)))).toEqual({ credited: true, amount: '250', walletBalance: '250' })
    expect(h.ok(deposit('alice', 250n, tx(1)))).toEqual({ credited: false, amount: '250', walletBalance: '250' })
    // Hashes compare without regard to case.
    expect(h.ok(deposit('alice', 250n, tx(1).toUpperCase().replace('0X', '0x')))).toMatchObject({ credited: false })
    expect(h.ok(deposit('alice', 100n, tx(1), 1))).toMatchObject({ credited: true, walletBalance: '350' })
    expect(h.balance('alice', 'wallet')).toBe(350n * USDC)
    expect(system('external')).toBe(-350n * USDC)
    const c = h.engine.takeChanges()
    expect(c.deposits.map((d) => [d.id, d.amount])).toEqual([[`${tx(1)}:0`, 250n * USDC], [`${tx(1)}:1`, 100n * USDC]])
    expect(c.ledger.filter((l) => l.kind === 'deposit').map((l) => [l.userId, l.bucket, l.amount])).toEqual([
      [SYSTEM_USER, 'external', -250n * USDC], ['alice', 'wallet', 250n * USDC],
      [SYSTEM_USER, 'external', -100n * USDC], ['alice', 'wallet', 100n * USDC],
    ])
    // The credit is news on the user's balance stream.
    expect(c.events.filter((e) => e.eventType === 'BalanceUpdate').length).toBe(2)
  })

  it('open an account for a first-time depositor', () => {
    expect(h.engine.state.accounts.has('newbie')).toBe(false)
    h.ok(deposit('newbie', 5n, tx(2)))
    expect(h.balance('newbie', 'wallet')).toBe(5n * USDC)
  })

  it.each([
    ['a malformed hash', { txHash: '0x1234' }],
    ['a negative log index', { logIndex: -1 }],
    ['a zero amount', { amountMicro: '0' }],
    ['a non-integer amount', { amountMicro: '1.5' }],
    ['a bad sender', { fromAddress: 'alice' }],
  ])('refuse %s and change nothing', (_name, patch) => {
    const before = stateHash(h.engine.state)
    expect(h.send({ ...deposit('alice', 1n, tx(3)), ...patch } as Command)).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(stateHash(h.engine.state)).toBe(before)
  })
})

describe('withdrawals', () => {
  beforeEach(() => {
    h.ok(deposit('alice', 1_000n, tx(10)))
    h.ok({ type: 'Faucet', userId: 'alice', amountMicro: String(5_000n * USDC), dailyCapMicro: String(100_000n * USDC) })
  })

  it('refuse more than the wallet bucket holds with INSUFFICIENT_BALANCE, and faucet money with WITHDRAWAL_NOT_ALLOWED, moving nothing', () => {
    const before = stateHash(h.engine.state)
    expect(h.send(withdraw('alice', 'w1', 6_001n))).toMatchObject({ ok: false, code: 'INSUFFICIENT_BALANCE' })
    expect(h.send(withdraw('alice', 'w1', 1_001n))).toMatchObject({
      ok: false, code: 'WITHDRAWAL_NOT_ALLOWED',
      details: { requested: '1001', withdrawable: '1000', depositedTotal: '1000', withdrawnTotal: '0', pendingWithdrawalTotal: '0' },
    })
    expect(h.send(withdraw('alice', 'w1', 1n, 'not-an-address'))).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })
    expect(h.send(withdraw('nobody', 'w1', 1n))).toMatchObject({ ok: false, code: 'ACCOUNT_NOT_FOUND' })
    expect(stateHash(h.engine.state)).toBe(before)
  })

  it('move an accepted amount from wallet to pending, count pending against the limit, and pay it out on completion', () => {
    const inBefore = held()
    expect(h.ok(withdraw('alice', 'w1', 600n))).toMatchObject({ id: 'w1', amount: '600', toAddress: ALICE_ADDR, status: 'pending' })
    expect(h.balance('alice', 'wallet')).toBe(5_400n * USDC)
    expect(system('withdrawals')).toBe(600n * USDC)
    expect(held()).toBe(inBefore - 600n * USDC)
    // 1000 deposited, 600 pending: 400 may still go.
    expect(h.send(withdraw('alice', 'w2', 401n))).toMatchObject({ ok: false, code: 'WITHDRAWAL_NOT_ALLOWED', details: { withdrawable: '400', pendingWithdrawalTotal: '600' } })
    expect(h.send(withdraw('alice', 'w1', 1n))).toMatchObject({ ok: false, code: 'INVALID_REQUEST' })

    h.engine.takeChanges()
    expect(h.ok({ type: 'CompleteWithdrawal', withdrawalId: 'w1', txHash: tx(99) })).toEqual({ id: 'w1', status: 'completed', changed: true })
    expect(system('withdrawals')).toBe(0n)
    expect(system('external')).toBe(-(1_000n + 5_000n - 600n) * USDC)
    expect(h.engine.takeChanges().withdrawals).toMatchObject([{ id: 'w1', status: 'completed', txHash: tx(99) }])
    // Completed once: a repeat (or a late failure) moves nothing.
    const after = stateHash(h.engine.state)
    expect(h.ok({ type: 'CompleteWithdrawal', withdrawalId: 'w1', txHash: tx(99) })).toMatchObject({ changed: false })
    expect(h.ok({ type: 'FailWithdrawal', withdrawalId: 'w1', txHash: null, reason: 'late' })).toMatchObject({ changed: false })
    expect(stateHash(h.engine.state)).toBe(after)
    expect(h.send(withdraw('alice', 'w3', 401n))).toMatchObject({ ok: false, code: 'WITHDRAWAL_NOT_ALLOWED', details: { withdrawable: '400', withdrawnTotal: '600' } })
    expect(h.ok(withdraw('alice', 'w3', 400n))).toMatchObject({ status: 'pending' })
  })

  it('refund the wallet bucket when one fails, and free its amount for the next', () => {
    h.ok(withdraw('alice', 'w1', 1_000n))
    expect(h.ok({ type: 'FailWithdrawal', withdrawalId: 'w1', txHash: tx(5), reason: 'reverted' })).toEqual({ id: 'w1', status: 'failed', changed: true })
    expect(h.balance('alice', 'wallet')).toBe(6_000n * USDC)
    expect(system('withdrawals')).toBe(0n)
    expect(h.ok(withdraw('alice', 'w2', 1_000n))).toMatchObject({ status: 'pending' })
  })

  it('keep what the house holds equal to faucet credits + deposits − completed − pending withdrawals', () => {
    h.ok(withdraw('alice', 'w1', 300n))
    h.ok(withdraw('alice', 'w2', 200n))
    h.ok({ type: 'CompleteWithdrawal', withdrawalId: 'w1', txHash: tx(1) })
    expect(held()).toBe((5_000n + 1_000n - 300n - 200n) * USDC)
    expect(-system('external') - system('withdrawals')).toBe(held())
  })
})

describe('the snapshot', () => {
  it('carries credited deposits, on-chain totals and pending withdrawals: a restored engine refuses the same repeats', () => {
    h.ok(deposit('alice', 1_000n, tx(10)))
    h.ok({ type: 'Faucet', userId: 'alice', amountMicro: String(5_000n * USDC), dailyCapMicro: String(100_000n * USDC) })
    h.ok(withdraw('alice', 'w1', 300n))
    h.ok(withdraw('alice', 'w2', 200n))
    h.ok({ type: 'CompleteWithdrawal', withdrawalId: 'w1', txHash: tx(1) })
    const snap = JSON.parse(serializeSnapshot(h.engine.state))
    expect(snap.deposits).toEqual([`${tx(10)}:0`])
    expect(snap.withdrawals).toMatchObject([{ id: 'w2', userId: 'alice', amount: String(200n * USDC) }])
    expect(snap.accounts.find((a: { userId: string }) => a.userId === 'alice')).toMatchObject({ deposited: String(1_000n * USDC), withdrawn: String(300n * USDC) })

    const restored = new Engine(restoreSnapshot(snap))
    expect(stateHash(restored.state)).toBe(stateHash(h.engine.state))
    expect(restored.state.accounts.get('alice')!.withdrawing).toBe(200n * USDC)
    const send = (cmd: Command) => restored.apply({ id: 'x', ts: h.now, cmd })
    expect(send(deposit('alice', 1_000n, tx(10)))).toMatchObject({ ok: true, value: { credited: false } })
    expect(send(withdraw('alice', 'w3', 501n))).toMatchObject({ ok: false, code: 'WITHDRAWAL_NOT_ALLOWED', details: { withdrawable: '500' } })
    expect(send({ type: 'FailWithdrawal', withdrawalId: 'w2', txHash: null, reason: 'x' })).toMatchObject({ ok: true, value: { changed: true } })
  })
})
