// The indexer role: the deposit indexer and the withdrawal worker, on one lease so that exactly one
// instance reads the chain for deposits and signs with the vault's key. Without CHAIN_RPC_URL it runs
// nothing (and says so once): the rest of the exchange works as before, with the faucet as its money.
import type pg from 'pg'
import type { Logger } from 'pino'
import type { Redis } from 'ioredis'
import type { Registry } from 'prom-client'
import { createPublicClient, http, webSocket, type PublicClient } from 'viem'
import { privateKeyToAccount } from 'viem/accounts'
import { Lease } from '../../bus/lease.js'
import type { RedisKeys } from '../../bus/keys.js'
import { DepositIndexer, type Commands } from './depositIndexer.js'
import { WithdrawalWorker } from './withdrawalWorker.js'
import type { Config } from '../../config/env.js'
import type { Clock } from '../../domain/clock.js'
import { registerChainMetrics } from '../../metrics/chainMetrics.js'
import { registersFor } from '../../metrics/registry.js'
import { LeasedLoops } from '../scheduler/leasedLoops.js'
import { chainBacklog } from '../../store/chainRows.js'

export interface IndexerRoleOptions {
  config: Config
  redis: Redis
  keys: RedisKeys
  pool: pg.Pool
  commands: Commands
  clock: Clock
  log: Logger
  instanceId: string
  /** Where the role's metric families go (src/metrics/chainMetrics.ts). */
  registry?: Registry
}

/** The chain loops (jobs `deposits` and `withdrawals`), started; null when no chain is configured. */
export async function startIndexer(o: IndexerRoleOptions): Promise<LeasedLoops | null> {
  const chain = o.config.chain
  registerChainMetrics(registersFor(o.registry ?? null), () => chainBacklog(o.pool), chain !== null)
  if (!chain) {
    o.log.info({ at: 'indexer#start' }, 'CHAIN_RPC_URL is unset: no deposit indexer and no withdrawal payouts (the faucet still funds accounts)')
    return null
  }
  const transport = /^wss?:/.test(chain.rpcUrl) ? webSocket(chain.rpcUrl) : http(chain.rpcUrl)
  // No caching: each poll must see the chain's head as it is now.
  const client = createPublicClient({ transport, cacheTime: 0 }) as PublicClient
  const common = { client, pool: o.pool, commands: o.commands, clock: o.clock, confirmations: chain.confirmations, token: chain.token }
  const deposits = new DepositIndexer({ ...common, vault: chain.vault, startBlock: chain.startBlock, log: o.log.child({ job: 'deposits' }) })
  const withdrawals = new WithdrawalWorker({ ...common, vaultAccount: privateKeyToAccount(chain.vaultPrivateKey), log: o.log.child({ job: 'withdrawals' }) })
  const loops = new LeasedLoops(
    new Lease(o.redis, o.keys.indexerLease, o.instanceId, o.config.engineLeaseMs),
    [
      { name: 'deposits', intervalMs: chain.pollMs, run: () => deposits.poll() },
      { name: 'withdrawals', intervalMs: chain.pollMs, run: () => withdrawals.poll() },
    ],
    o.log,
  )
  await loops.start()
  o.log.info({ at: 'indexer#start', token: chain.token, vault: chain.vault, confirmations: chain.confirmations }, 'chain indexer started')
  return loops
}
