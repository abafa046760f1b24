// Deposits from a real local chain (anvil, chain id 84532, USDC-T compiled with solc-js): the indexer
// credits a Transfer of the token to the vault once it has its confirmations and not before, once per
// (txHash, logIndex) across restarts, never from a block a reorg removed; two logs of one transaction are
// two deposits; a sender who has not signed in yet is credited when they do; other tokens and other
// recipients count for nothing. The test drives the indexer's polls itself (its interval is long).
import { generatePrivateKey, privateKeyToAccount } from 'viem/accounts'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newWallet, signIn, type SignedIn } from '../support/auth.js'
import { SseClient } from '../support/streams.js'
import { chainEnv, startAnvil, type Chain } from '../support/anvil.js'
import { newRedisPrefix, startTestExchange, type TestExchange } from '../support/exchange.js'
import { http, type Http } from '../support/http.js'
import { createTestDatabase, type TestDatabase } from '../support/testDb.js'

const CONFIRMATIONS = 3
const USDC = 1_000_000n

let chain: Chain
let usdc: Awaited<ReturnType<Chain['deployToken']>>
let db: TestDatabase
let prefix: string
let ex: TestExchange
let api: Http
const vaultKey = generatePrivateKey()
const vault = privateKeyToAccount(vaultKey)

async function start(): Promise<TestExchange> {
  return startTestExchange(chainEnv(chain, usdc.address, vault.address, vaultKey, CONFIRMATIONS), { db, redisPrefix: prefix })
}

const poll = () => ex.indexer!.runNow('deposits')
const balance = async (u: SignedIn) => (await api.get('/wallet/balance', u.bearer)).body
const depositRows = async () =>
  (await ex.pool.query(`SELECT "txHash", "logIndex", "fromAddress", amount::text, status, "userId" FROM deposits ORDER BY "blockNumber", "logIndex"`)).rows

/** A signed-in user whose wallet holds `usdc` USDC-T and gas. */
async function depositor(tokens = 1_000n): Promise<SignedIn> {
  const u = await signIn(api, ex.url!)
  await chain.fund(u.wallet.address)
  await usdc.mint(u.wallet.address, tokens * USDC)
  return u
}

beforeAll(async () => {
  chain = await startAnvil()
  usdc = await chain.deployToken()
  db = await createTestDatabase()
  prefix = newRedisPrefix()
  ex = await start()
  api = http(ex.url!)
})
afterAll(async () => {
  if (process.env.SHOW_LOGS) console.log(ex?.logs.filter((l) => /"level":(40|50)/.test(l)).join('\n'))
  await ex?.close()
  await db?.drop()
  await chain?.stop()
})

describe('deposits on chain', () => {
  it('are credited once, after their confirmations and not before', async () => {
    const alice = await depositor()
    const sse = await SseClient.open(`${ex.url}/portfolio/balances/stream`, alice.bearer)
    expect((await sse.nextJson()).data.payload).toMatchObject({ kind: 'snapshot', walletBalance: '0', onchainDepositTotal: '0' })
    const receipt = await usdc.transfer(alice.wallet, vault.address, 250n * USDC)
    for (let confirmations = 1; confirmations < CONFIRMATIONS; confirmations++) {
      await poll()
      expect(await balance(alice)).toMatchObject({ walletBalance: '0', onchainDepositTotal: '0' })
      expect(await depositRows()).toEqual([
        { txHash: receipt.transactionHash, logIndex: receipt.logs[0]!.logIndex, fromAddress: alice.wallet.address, amount: '250.000000', status: 'pending', userId: null },
      ])
      await chain.mine(1)
    }
    await poll()
    expect(await balance(alice)).toMatchObject({ walletBalance: '250', onchainDepositTotal: '250' })
    expect(await depositRows()).toMatchObject([{ status: 'credited', userId: alice.user.id }])
    // The balance stream shows the credit when it happens.
    const update = await sse.nextJson()
    expect([update.event.event, update.data.payload]).toMatchObject(['BalanceUpdate', { walletBalance: '250', onchainDepositTotal: '250' }])
    sse.close()
    await chain.mine(5)
    await poll()
    await poll()
    expect(await balance(alice)).toMatchObject({ walletBalance: '250', onchainDepositTotal: '250' })
  })

  it('count two Transfer logs of one transaction as two deposits', async () => {
    const bob = await depositor()
    const receipt = await usdc.batchTransfer(bob.wallet, [vault.address, vault.address], [10n * USDC, 20n * USDC])
    await chain.mine(CONFIRMATIONS)
    await poll()
    expect(await balance(bob)).toMatchObject({ walletBalance: '30', onchainDepositTotal: '30' })
    const rows = (await depositRows()).filter((r) => r.txHash === receipt.transactionHash)
    expect(rows.map((r) => [r.logIndex, r.amount, r.status])).toEqual([[0, '10.000000', 'credited'], [1, '20.000000', 'credited']])
  })

  it('keep a deposit from an address that has not signed in, and credit it when it does', async () => {
    const stranger = newWallet()
    await chain.fund(stranger.address)
    await usdc.mint(stranger.address, 100n * USDC)
    const receipt = await usdc.transfer(stranger, vault.address, 40n * USDC)
    await chain.mine(CONFIRMATIONS)
    await poll()
    expect((await depositRows()).find((r) => r.txHash === receipt.transactionHash)).toMatchObject({ status: 'confirmed', userId: null })
    const later = await signIn(api, ex.url!, stranger)
    expect(await balance(later)).toMatchObject({ walletBalance: '0', onchainDepositTotal: '0' })
    await poll()
    expect(await balance(later)).toMatchObject({ walletBalance: '40', onchainDepositTotal: '40' })
  })

  it('count only the configured token sent to the vault', async () => {
    const carol = await depositor()
    const other = await chain.deployToken()
    await other.mint(carol.wallet.address, 100n * USDC)
    const before = (await depositRows()).length
    await other.transfer(carol.wallet, vault.address, 70n * USDC) // another token to the vault
    await usdc.transfer(carol.wallet, newWallet().address, 60n * USDC) // the token to someone else
    await chain.mine(CONFIRMATIONS)
    await poll()
    expect((await depositRows()).length).toBe(before)
    expect(await balance(carol)).toMatchObject({ walletBalance: '0', onchainDepositTotal: '0' })
  })

  it('credit only the surviving transfer after a reorg shallower than the confirmations', async () => {
    const dave = await depositor()
    const kept = await usdc.transfer(dave.wallet, vault.address, 5n * USDC)
    const fork = await chain.test.snapshot()
    const dropped = await usdc.transfer(dave.wallet, vault.address, 7n * USDC)
    await poll()
    expect((await depositRows()).filter((r) => r.fromAddress === dave.wallet.address).map((r) => [r.txHash, r.status])).toEqual([
      [kept.transactionHash, 'pending'], [dropped.transactionHash, 'pending'],
    ])
    // The block holding the second transfer is replaced by others: a one-block reorg.
    await chain.test.revert({ id: fork })
    await chain.mine(CONFIRMATIONS)
    expect(await chain.client.getTransactionReceipt({ hash: dropped.transactionHash }).catch(() => null)).toBeNull()
    await poll()
    expect((await depositRows()).filter((r) => r.fromAddress === dave.wallet.address).map((r) => [r.txHash, r.status])).toEqual([[kept.transactionHash, 'credited']])
    expect(await balance(dave)).toMatchObject({ walletBalance: '5', onchainDepositTotal: '5' })
  })

  it('credit nothing twice across a restart mid-stream, even when the cursor is lost', async () => {
    const erin = await depositor()
    const first = await usdc.transfer(erin.wallet, vault.address, 11n * USDC)
    await chain.mine(CONFIRMATIONS)
    const second = await usdc.transfer(erin.wallet, vault.address, 13n * USDC)
    await poll()
    expect(await balance(erin)).toMatchObject({ walletBalance: '11' })
    // The process goes away with the second deposit pending; a new one starts on the same database and Redis.
    await ex.stop()
    ex = await start()
    api = http(ex.url!)
    await poll()
    expect(await balance(erin)).toMatchObject({ walletBalance: '11' })
    await chain.mine(CONFIRMATIONS)
    // As if it had died after crediting but before storing its cursor: every block is read again.
    await ex.pool.query(`DELETE FROM chain_cursors`)
    await poll()
    await poll()
    expect(await balance(erin)).toMatchObject({ walletBalance: '24', onchainDepositTotal: '24' })
    const ledger = await ex.pool.query(`SELECT "refId" FROM ledger_entries WHERE "userId" = $1 AND kind = 'deposit' ORDER BY id`, [erin.user.id])
    expect(ledger.rows.map((r) => r.refId)).toEqual([`${first.transactionHash}:0`, `${second.transactionHash}:0`])
  })
})
