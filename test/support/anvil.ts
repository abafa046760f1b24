// A real local chain per test file: anvil (the @foundry-rs/anvil-linux-amd64 dev dependency) on a free
// port with chain id 84532, and USDC-T deployed from its checked-in artifact (contracts/TestUSDC.json).
//   const chain = await startAnvil(); afterAll(() => chain.stop())
//   const usdc = await chain.deployToken()
import { spawn, type ChildProcess } from 'node:child_process'
import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import { createServer } from 'node:net'
import { dirname, join } from 'node:path'
import {
  createPublicClient, createTestClient, createWalletClient, defineChain, http, type Abi, type Hex, type PublicClient,
} from 'viem'
import { privateKeyToAccount, type PrivateKeyAccount } from 'viem/accounts'
import { pollUntil } from './poll.js'

export const CHAIN_ID = 84532

const artifact = JSON.parse(readFileSync(join(import.meta.dirname, '../../contracts/TestUSDC.json'), 'utf8')) as { abi: Abi; bytecode: Hex }

/** anvil's first development account (its well-known key): deploys and mints. */
const DEPLOYER_KEY = '0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80'

export function anvilBinary(): string {
  const pkg = createRequire(import.meta.url).resolve('@foundry-rs/anvil-linux-amd64/package.json')
  return join(dirname(pkg), 'bin', 'anvil')
}

async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const s = createServer()
    s.once('error', reject)
    s.listen(0, '127.0.0.1', () => {
      const port = (s.address() as { port: number }).port
      s.close(() => resolve(port))
    })
  })
}

export type Chain = Awaited<ReturnType<typeof startAnvil>>

export async function startAnvil() {
  const port = await freePort()
  const child: ChildProcess = spawn(anvilBinary(), ['--chain-id', String(CHAIN_ID), '--port', String(port), '--host', '127.0.0.1', '--silent'], { stdio: 'ignore' })
  const url = `http://127.0.0.1:${port}`
  const chain = defineChain({ id: CHAIN_ID, name: 'anvil', nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 }, rpcUrls: { default: { http: [url] } } })
  const transport = http(url, { retryCount: 0 })
  const client = createPublicClient({ chain, transport, pollingInterval: 50, cacheTime: 0 }) as PublicClient
  const test = createTestClient({ chain, transport, mode: 'anvil' })
  await pollUntil(() => client.getChainId().catch(() => false), { what: 'anvil to answer', timeoutMs: 20_000 })
  const deployer = privateKeyToAccount(DEPLOYER_KEY)

  const walletOf = (account: PrivateKeyAccount) => createWalletClient({ chain, transport, account })
  /** Sends a transaction and waits for its receipt (anvil mines each in its own block). */
  const confirm = async (hash: Hex) => {
    const receipt = await client.waitForTransactionReceipt({ hash, pollingInterval: 20 })
    return receipt
  }

  return {
    url,
    client,
    test,
    deployer,
    walletOf,
    confirm,
    async head(): Promise<number> {
      return Number(await client.getBlockNumber())
    },
    async mine(blocks: number): Promise<void> {
      await test.mine({ blocks })
    },
    /** Gives an address ETH for gas. */
    async fund(address: Hex, eth = 10n ** 18n): Promise<void> {
      await test.setBalance({ address, value: eth })
    },
    /** Deploys a fresh USDC-T (6 decimals); its owner is the deployer. */
    async deployToken() {
      const hash = await walletOf(deployer).deployContract({ abi: artifact.abi, bytecode: artifact.bytecode })
      const address = (await confirm(hash)).contractAddress!
      const write = (account: PrivateKeyAccount, functionName: string, args: unknown[]) =>
        walletOf(account).writeContract({ address, abi: artifact.abi, functionName, args } as never)
      return {
        address,
        async mint(to: Hex, micro: bigint) {
          return confirm(await write(deployer, 'mint', [to, micro]))
        },
        async transfer(from: PrivateKeyAccount, to: Hex, micro: bigint) {
          return confirm(await write(from, 'transfer', [to, micro]))
        },
        /** One transaction, one Transfer log per recipient. */
        async batchTransfer(from: PrivateKeyAccount, to: Hex[], micro: bigint[]) {
          return confirm(await write(from, 'batchTransfer', [to, micro]))
        },
        async balanceOf(owner: Hex): Promise<bigint> {
          return (await client.readContract({ address, abi: artifact.abi, functionName: 'balanceOf', args: [owner] })) as bigint
        },
      }
    },
    async stop(): Promise<void> {
      if (child.exitCode !== null) return
      const exited = new Promise((resolve) => child.once('exit', resolve))
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** The exchange's configuration for a chain: its RPC, the token, the vault and its key, the confirmations;
 * the indexer's own poll timer never fires (tests poll it). */
export function chainEnv(chain: { url: string }, token: string, vaultAddress: string, vaultKey: string, confirmations: number): Record<string, string> {
  return {
    ROLES: 'api,engine,indexer',
    CHAIN_RPC_URL: chain.url,
    USDC_TOKEN_ADDRESS: token,
    VAULT_ADDRESS: vaultAddress,
    VAULT_PRIVATE_KEY: vaultKey,
    DEPOSIT_CONFIRMATIONS: String(confirmations),
    CHAIN_POLL_MS: '600000',
  }
}
