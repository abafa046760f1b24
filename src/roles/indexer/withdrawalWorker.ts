// The withdrawal worker: pays accepted withdrawals from the vault's hot key and settles them in the
// engine. Runs on one instance at a time (the indexer role's lease).
//
// Never paying twice rests on one order of steps: sign the transfer with an explicit nonce, store the
// signed transaction (status `sent`, its hash and nonce) and only then broadcast it. A worker killed at
// any point leaves either nothing stored (the next one signs again, with the same nonce since none was
// used) or a stored transaction that the next one rebroadcasts byte for byte (the same hash: the chain
// takes it at most once) and never signs anew. A transfer is final after DEPOSIT_CONFIRMATIONS blocks:
// success completes the withdrawal (the pending amount leaves), a revert fails it and refunds the wallet
// bucket. A transfer the node refuses outright (no gas money, a nonce already used) was never on chain:
// it fails and refunds at once, and its nonce goes to the next one.
import type pg from 'pg'
import type { Logger } from 'pino'
import { encodeFunctionData, keccak256, RpcRequestError, type PublicClient } from 'viem'
import type { PrivateKeyAccount } from 'viem/accounts'
import type { Clock } from '../../domain/clock.js'
import { sentWithdrawals, storeSigned, unsentWithdrawals, type WithdrawalToPay } from '../../store/chainRows.js'
import type { Commands } from './depositIndexer.js'
import { ERC20_ABI } from './token.js'

/** Gas for one ERC-20 transfer (~35–55k), with room: fixed, because estimating a transfer that would
 * revert fails, and such a transfer must still be sent and fail on chain (its receipt settles it). */
const TRANSFER_GAS = 120_000n

export interface WithdrawalWorkerOptions {
  client: PublicClient
  pool: pg.Pool
  commands: Commands
  vaultAccount: PrivateKeyAccount
  token: `0x${string}`
  confirmations: number
  clock: Clock
  log: Logger
  /** Test seams: a throw here is a worker killed at that point. */
  afterStore?: (id: string) => Promise<void> | void
  afterBroadcast?: (id: string) => Promise<void> | void
}

/** The node answered with an error: it refused the transaction (as opposed to a transport failure, after
 * which the transaction may or may not have reached it). */
function refusedByNode(err: unknown): boolean {
  let e: unknown = err
  for (let i = 0; i < 10 && e; i++) {
    if (e instanceof RpcRequestError) return true
    e = (e as { cause?: unknown }).cause
  }
  return false
}

const short = (err: unknown) => (err instanceof Error ? ((err as { shortMessage?: string }).shortMessage ?? err.message) : String(err)).slice(0, 300)

export class WithdrawalWorker {
  private chainId: number | null = null

  constructor(private readonly o: WithdrawalWorkerOptions) {}

  async poll(): Promise<void> {
    const head = Number(await this.o.client.getBlockNumber())
    const sent = await sentWithdrawals(this.o.pool)
    for (const w of sent) await this.track(w, head)
    await this.sendNew(sent)
  }

  /** A stored transfer: settle it once final, or hand the same bytes to the chain again while it is not mined. */
  private async track(w: WithdrawalToPay, head: number): Promise<void> {
    const receipt = await this.o.client.getTransactionReceipt({ hash: w.txHash! }).catch(() => null)
    if (receipt === null) {
      // Never broadcast (killed after storing), dropped, or reorged out: the same transaction again.
      await this.o.client.sendRawTransaction({ serializedTransaction: w.rawTx! }).catch((err) => {
        this.o.log.debug({ at: 'WithdrawalWorker#track', id: w.id, err: short(err) }, 'rebroadcast not taken (likely already known)')
      })
      return
    }
    if (head - Number(receipt.blockNumber) + 1 < this.o.confirmations) return
    if (receipt.status === 'success') {
      await this.o.commands.execute({ type: 'CompleteWithdrawal', withdrawalId: w.id, txHash: receipt.transactionHash })
      this.o.log.info({ at: 'WithdrawalWorker#track', id: w.id, txHash: receipt.transactionHash }, 'withdrawal completed')
    } else {
      await this.o.commands.execute({ type: 'FailWithdrawal', withdrawalId: w.id, txHash: receipt.transactionHash, reason: 'transfer reverted' })
      this.o.log.warn({ at: 'WithdrawalWorker#track', id: w.id, txHash: receipt.transactionHash }, 'withdrawal transfer reverted; refunded')
    }
  }

  private async sendNew(sent: readonly WithdrawalToPay[]): Promise<void> {
    const unsent = await unsentWithdrawals(this.o.pool)
    if (unsent.length === 0) return
    const { client, vaultAccount } = this.o
    this.chainId ??= await client.getChainId()
    // The next nonce: the chain's (mined and in its pool), and past any we stored but the chain has not seen.
    let nonce = await client.getTransactionCount({ address: vaultAccount.address, blockTag: 'pending' })
    for (const w of sent) if (w.nonce !== null && w.nonce >= nonce) nonce = w.nonce + 1
    const fees = await client.estimateFeesPerGas()
    for (const w of unsent) {
      const rawTx = await vaultAccount.signTransaction({
        type: 'eip1559',
        chainId: this.chainId,
        nonce,
        to: this.o.token,
        data: encodeFunctionData({ abi: ERC20_ABI, functionName: 'transfer', args: [w.toAddress, w.amount] }),
        gas: TRANSFER_GAS,
        maxFeePerGas: fees.maxFeePerGas,
        maxPriorityFeePerGas: fees.maxPriorityFeePerGas,
      })
      const txHash = keccak256(rawTx)
      if (!(await storeSigned(this.o.pool, w.id, nonce, txHash, rawTx, new Date(this.o.clock())))) continue
      await this.o.afterStore?.(w.id)
      try {
        await client.sendRawTransaction({ serializedTransaction: rawTx })
      } catch (err) {
        if (!refusedByNode(err)) {
          // It may have reached the node: keep it; the next poll rebroadcasts or finds its receipt.
          this.o.log.warn({ at: 'WithdrawalWorker#sendNew', id: w.id, txHash, err: short(err) }, 'broadcast failed; will retry the same transaction')
          nonce++
          continue
        }
        await this.o.commands.execute({ type: 'FailWithdrawal', withdrawalId: w.id, txHash: null, reason: `transfer could not be sent: ${short(err)}` })
        this.o.log.warn({ at: 'WithdrawalWorker#sendNew', id: w.id, err: short(err) }, 'withdrawal refused by the node; refunded')
        continue
      }
      this.o.log.info({ at: 'WithdrawalWorker#sendNew', id: w.id, txHash, nonce }, 'withdrawal sent')
      await this.o.afterBroadcast?.(w.id)
      nonce++
    }
  }
}
