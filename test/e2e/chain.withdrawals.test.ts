// Withdrawals against a real local chain (anvil, chain id 84532, USDC-T compiled with solc-js): REST and
// GraphQL refuse what may not leave (faucet money, more than the wallet bucket, bad input) and move
// nothing then; an accepted withdrawal waits in pending until the worker's transfer has its
// confirmations (completed), or is refunded when the transfer reverts or the node refuses it; a worker
// killed after storing or after broadcasting its transfer is followed by one that pays nothing twice.
import pino from 'pino'
import { createPublicClient, http as viemHttp, type PublicClient } from 'viem'
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { WithdrawalWorker } from '../../src/roles/indexer/withdrawalWorker.js'
import { expectError, newWallet, signIn, type SignedIn } from '../support/auth.js'
import { chainEnv, startAnvil, type Chain } from '../support/anvil.js'
import { startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { testClock } from '../support/clock.js'

const CONFIRMATIONS = 3
const USDC = 1_000_000n

let chain: Chain
let usdc: Awaited<ReturnType<Chain['deployToken']>>
let ex: TestExchange
let api: Http
const vaultKey = generatePrivateKey()
const vault = privateKeyToAccount(vaultKey)

beforeAll(async () => {
  chain = await startAnvil()
  usdc = await chain.deployToken()
  await chain.fund(vault.address)
  ex = await startTestExchange(chainEnv(chain, usdc.address, vault.address, vaultKey, CONFIRMATIONS))
  api = http(ex.url!)
})
afterAll(async () => {
  await ex?.close()
  await chain?.stop()
})

const pay = () => ex.indexer!.runNow('withdrawals')
const balance = async (u: SignedIn) => (await api.get('/wallet/balance', u.bearer)).body
const withdrawals = async (u: SignedIn) => (await api.get('/wallet/withdrawals', u.bearer)).body as any[]

/** A signed-in user with `usdc` deposited on chain and credited. */
async function depositor(amount: bigint): Promise<SignedIn> {
  const u = await signIn(api, ex.url!)
  await chain.fund(u.wallet.address)
  await usdc.mint(u.wallet.address, amount * USDC)
  await usdc.transfer(u.wallet, vault.address, amount * USDC)
  await chain.mine(CONFIRMATIONS)
  await ex.indexer!.runNow('deposits')
  expect(await balance(u)).toMatchObject({ walletBalance: String(amount), onchainDepositTotal: String(amount) })
  return u
}

function worker(hooks: Partial<Pick<ConstructorParameters<typeof WithdrawalWorker>[0], 'afterStore' | 'afterBroadcast'>> = {}) {
  return new WithdrawalWorker({
    client: createPublicClient({ transport: viemHttp(chain.url), cacheTime: 0 }) as PublicClient,
    pool: ex.pool,
    commands: ex.services.commands,
    vaultAccount: vault,
    token: usdc.address,
    confirmations: CONFIRMATIONS,
    clock: testClock.now,
    log: pino({ level: 'silent' }),
    ...hooks,
  })
}

describe('refused withdrawals', () => {
  it('refuse faucet money, more than the wallet bucket, and bad amounts or addresses, moving nothing', async () => {
    const u = await depositor(10n)
    expect((await api.post('/wallet/faucet', { amount: '1000' }, u.bearer)).status).toBe(200)
    const before = await balance(u)
    const notAllowed = await api.post('/wallet/withdraw', { amount: '10.000001' }, u.bearer)
    expectError(notAllowed, 422, 'WITHDRAWAL_NOT_ALLOWED')
    expect(notAllowed.body.details).toEqual({ requested: '10.000001', withdrawable: '10', depositedTotal: '10', withdrawnTotal: '0', pendingWithdrawalTotal: '0' })
    expectError(await api.post('/wallet/withdraw', { amount: '1010.000001' }, u.bearer), 422, 'INSUFFICIENT_BALANCE')
    for (const body of [{ amount: '0' }, { amount: '-1' }, { amount: '1.0000001' }, { amount: 5 }, {}, { amount: '1', toAddress: '0x1234' }, { amount: '1', toAddress: 7 }, { amount: '1', extra: true }]) {
      expectError(await api.post('/wallet/withdraw', body, u.bearer), 400, 'INVALID_REQUEST')
    }
    // The same refusal over GraphQL.
    const gql = await api.post('/graphql', { query: 'mutation { withdraw(amount: "11") { id } }' }, u.bearer)
    expect(gql.body.errors[0].extensions).toMatchObject({ code: 'WITHDRAWAL_NOT_ALLOWED', status: 422 })
    expect(await balance(u)).toEqual(before)
    expect(await withdrawals(u)).toEqual([])
  })
})

describe('a withdrawal', () => {
  it('moves the amount to pending, is sent from the vault, and completes after its confirmations', async () => {
    const u = await depositor(100n)
    const res = await api.post('/wallet/withdraw', { amount: '60' }, u.bearer)
    expect(res.status).toBe(200)
    expect(res.body).toMatchObject({ amount: '60', toAddress: u.wallet.address, status: 'pending', txHash: null })
    expect(await balance(u)).toMatchObject({ walletBalance: '40', pendingWithdrawalTotal: '60', onchainDepositTotal: '100' })
    // GraphQL, to another address; at most 40 is left to withdraw, and it all goes.
    const friend = newWallet().address
    const gql = await api.post('/graphql', { query: `mutation { withdraw(amount: "40", toAddress: "${friend.toLowerCase()}") { id amount toAddress status } }` }, u.bearer)
    expect(gql.body.data.withdraw).toMatchObject({ amount: '40', toAddress: friend, status: 'PENDING' })
    expect(await balance(u)).toMatchObject({ walletBalance: '0', pendingWithdrawalTotal: '100' })

    await pay()
    const sent = await withdrawals(u)
    expect(sent.map((w) => [w.amount, w.status])).toEqual([['40', 'sent'], ['60', 'sent']])
    expect(await usdc.balanceOf(u.wallet.address)).toBe(60n * USDC)
    expect(await usdc.balanceOf(friend)).toBe(40n * USDC)
    // Not final yet: still pending.
    await pay()
    expect(await balance(u)).toMatchObject({ pendingWithdrawalTotal: '100' })
    await chain.mine(CONFIRMATIONS)
    await pay()
    const done = await withdrawals(u)
    expect(done).toEqual(sent.map((w) => ({ ...w, status: 'completed', updatedAt: expect.any(String) })))
    expect(done[0]).toMatchObject({ id: expect.any(String), toAddress: friend, txHash: expect.stringMatching(/^0x[0-9a-f]{64}$/), error: null, createdAt: expect.any(String) })
    expect(await balance(u)).toMatchObject({ walletBalance: '0', pendingWithdrawalTotal: '0', onchainDepositTotal: '100' })
    expect((await api.post('/graphql', { query: '{ me { withdrawals { edges { node { status } } } } }' }, u.bearer)).body.data.me.withdrawals.edges).toHaveLength(2)
    // All of it went: faucet money stays.
    expect((await api.post('/wallet/faucet', { amount: '5' }, u.bearer)).status).toBe(200)
    expectError(await api.post('/wallet/withdraw', { amount: '1' }, u.bearer), 422, 'WITHDRAWAL_NOT_ALLOWED')
  })

  it('fails and refunds the wallet bucket when its transfer reverts on chain', async () => {
    const u = await depositor(30n)
    expect((await api.post('/wallet/withdraw', { amount: '30' }, u.bearer)).status).toBe(200)
    // The vault's tokens go elsewhere first, so its transfer reverts.
    const held = await usdc.balanceOf(vault.address)
    await usdc.transfer(vault, newWallet().address, held)
    await pay()
    const [sent] = await withdrawals(u)
    expect(sent.status).toBe('sent')
    const receipt = await chain.client.getTransactionReceipt({ hash: sent.txHash })
    expect(receipt.status).toBe('reverted')
    await chain.mine(CONFIRMATIONS)
    await pay()
    expect(await withdrawals(u)).toMatchObject([{ status: 'failed', txHash: sent.txHash, error: 'transfer reverted' }])
    expect(await balance(u)).toMatchObject({ walletBalance: '30', pendingWithdrawalTotal: '0' })
    // Refunded, it may be withdrawn again (once the vault holds tokens).
    await usdc.mint(vault.address, held)
    expect((await api.post('/wallet/withdraw', { amount: '30' }, u.bearer)).status).toBe(200)
  })

  it('fails and refunds at once when the node refuses its transfer (no gas money in the vault)', async () => {
    await pay()
    await chain.mine(CONFIRMATIONS)
    await pay()
    const u = await depositor(20n)
    await chain.test.setBalance({ address: vault.address, value: 0n })
    expect((await api.post('/wallet/withdraw', { amount: '20' }, u.bearer)).status).toBe(200)
    await pay()
    expect(await withdrawals(u)).toMatchObject([{ status: 'failed', error: expect.stringContaining('could not be sent') }])
    expect(await balance(u)).toMatchObject({ walletBalance: '20', pendingWithdrawalTotal: '0' })
    await chain.fund(vault.address)
  })

  it.each([
    ['after storing its signed transfer, before broadcasting it', 'afterStore'],
    ['after broadcasting, before the confirmations', 'afterBroadcast'],
  ] as const)('is paid once when the worker is killed %s', async (_when, hook) => {
    const u = await depositor(15n)
    const to = newWallet().address
    expect((await api.post('/wallet/withdraw', { amount: '15', toAddress: to }, u.bearer)).status).toBe(200)
    const nonce = await chain.client.getTransactionCount({ address: vault.address })
    await expect(worker({ [hook]: () => { throw new Error('killed') } }).poll()).rejects.toThrow('killed')
    const [stored] = await withdrawals(u)
    expect(stored).toMatchObject({ status: 'sent', txHash: expect.any(String) })
    // A new worker: it knows only what PostgreSQL and the chain know.
    const next = worker()
    await next.poll()
    await chain.mine(CONFIRMATIONS)
    await next.poll()
    await next.poll()
    expect(await withdrawals(u)).toMatchObject([{ status: 'completed', txHash: stored.txHash }])
    expect(await usdc.balanceOf(to)).toBe(15n * USDC)
    expect(await chain.client.getTransactionCount({ address: vault.address })).toBe(nonce + 1)
    expect(await balance(u)).toMatchObject({ walletBalance: '0', pendingWithdrawalTotal: '0' })
  })
})
