// The deposit indexer: follows Transfer logs of the USDC-T token to the vault and credits each, once it
// has DEPOSIT_CONFIRMATIONS confirmations, to the sender's wallet bucket with an engine command.
//
// Each poll: (1) blocks up to head − confirmations + 1 are final; their logs are recorded as `confirmed`
// and the cursor (block number and hash) moves past them in one transaction; (2) logs above that are shown
// as `pending` and replaced wholesale each poll, so a reorg that drops them drops their rows; (3) every
// confirmed deposit whose sender has signed in is sent to the engine, which credits it exactly once by
// (txHash, logIndex) — a restart resends, the engine ignores the repeat. Only final blocks are ever
// credited, so a reorg shallower than the confirmations changes nothing credited; a deeper one (the
// cursor's block hash no longer on chain) stops the indexer loudly rather than guess.
import type { Logger } from 'pino'
import type { PublicClient } from 'viem'
import type { Clock } from '../../domain/clock.js'
import type { Command } from '../../engine/commands.js'
import { claimableDeposits, readCursor, recordFinal, replacePending, type ChainCursor, type SeenDeposit } from '../../store/chainRows.js'
import type pg from 'pg'
import { ERC20_ABI, TOKEN_DECIMALS } from './token.js'

/** Most blocks one getLogs call spans (public RPCs refuse larger ranges). */
const MAX_RANGE = 2_000
/** The engine's amounts are at most 21 digits of micro-USDC. */
const MAX_MICRO = 10n ** 21n - 1n

export interface Commands {
  execute(cmd: Command, opts?: { correlationId?: string }): Promise<unknown>
}

export interface DepositIndexerOptions {
  client: PublicClient
  pool: pg.Pool
  commands: Commands
  token: `0x${string}`
  vault: `0x${string}`
  confirmations: number
  startBlock: number
  clock: Clock
  log: Logger
}

export class DeepReorgError extends Error {}

export class DepositIndexer {
  private checked = false

  constructor(private readonly o: DepositIndexerOptions) {}

  /** One pass: record what the chain shows, then credit what is final and claimable. */
  async poll(): Promise<void> {
    if (!this.checked) await this.checkToken()
    await this.scan()
    await this.credit()
  }

  /** The configured token must have USDC-T's 6 decimals, or every amount would be misread. */
  private async checkToken(): Promise<void> {
    const decimals = await this.o.client.readContract({ address: this.o.token, abi: ERC20_ABI, functionName: 'decimals' })
    if (decimals !== TOKEN_DECIMALS) throw new Error(`USDC_TOKEN_ADDRESS ${this.o.token} has ${decimals} decimals, not ${TOKEN_DECIMALS}`)
    this.checked = true
  }

  private async scan(): Promise<void> {
    const { client, confirmations } = this.o
    const head = Number(await client.getBlockNumber())
    let cursor: ChainCursor = (await readCursor(this.o.pool)) ?? { blockNumber: this.o.startBlock - 1, blockHash: '', headBlock: head }
    if (cursor.blockHash !== '') {
      const block = await client.getBlock({ blockNumber: BigInt(cursor.blockNumber) }).catch(() => null)
      if (block?.hash !== cursor.blockHash) {
        throw new DeepReorgError(`block ${cursor.blockNumber} is no longer ${cursor.blockHash}: a reorg deeper than ${confirmations} confirmations; the indexer stops`)
      }
    }
    const final = head - confirmations + 1
    while (cursor.blockNumber < final) {
      const from = cursor.blockNumber + 1
      const to = Math.min(final, from + MAX_RANGE - 1)
      const deposits = await this.logs(from, to)
      const block = await client.getBlock({ blockNumber: BigInt(to) })
      await recordFinal(this.o.pool, deposits, { blockNumber: to, blockHash: block.hash }, head, new Date(this.o.clock()))
      cursor = { blockNumber: to, blockHash: block.hash, headBlock: head }
    }
    const pending = head > cursor.blockNumber ? await this.logs(cursor.blockNumber + 1, head) : []
    await replacePending(this.o.pool, pending, { ...cursor, headBlock: head }, new Date(this.o.clock()))
  }

  /** Transfers of the configured token to the vault in [from, to]; other tokens and recipients never match. */
  private async logs(from: number, to: number): Promise<SeenDeposit[]> {
    const logs = await this.o.client.getLogs({
      address: this.o.token,
      event: ERC20_ABI[0],
      args: { to: this.o.vault },
      fromBlock: BigInt(from),
      toBlock: BigInt(to),
      strict: true,
    })
    const out: SeenDeposit[] = []
    for (const l of logs) {
      if (l.removed || l.transactionHash === null || l.logIndex === null || l.blockNumber === null) continue
      const amount = l.args.value
      if (amount === 0n) continue
      if (amount > MAX_MICRO) {
        this.o.log.error({ at: 'DepositIndexer#logs', txHash: l.transactionHash, logIndex: l.logIndex, amount: amount.toString() }, 'deposit too large to credit; left for an operator')
        continue
      }
      out.push({ txHash: l.transactionHash, logIndex: l.logIndex, blockNumber: Number(l.blockNumber), fromAddress: l.args.from, amount })
    }
    return out
  }

  private async credit(): Promise<void> {
    for (const d of await claimableDeposits(this.o.pool)) {
      await this.o.commands.execute({
        type: 'CreditDeposit', userId: d.userId, txHash: d.txHash, logIndex: d.logIndex, blockNumber: d.blockNumber,
        fromAddress: d.fromAddress, amountMicro: d.amount.toString(),
      })
      this.o.log.info({ at: 'DepositIndexer#credit', userId: d.userId, txHash: d.txHash, logIndex: d.logIndex, amount: d.amount.toString() }, 'deposit credited')
    }
  }
}
