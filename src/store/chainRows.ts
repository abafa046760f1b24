// The chain's rows as the indexer and the withdrawal worker keep them: the indexer's cursor, deposits as
// seen on chain (pending, then confirmed; the engine's batch marks them credited), and the worker's side
// of a withdrawal (the signed transaction, stored before it is broadcast). Plain pg, like the batch
// writer: these are small statements on the chain roles' own schedule.
import type pg from 'pg'
import { microToString } from '../domain/decimal.js'
import { inTransaction } from './pg.js'

export const DEPOSITS_CURSOR = 'deposits'

export interface ChainCursor {
  /** Every block up to this one is final and its deposits recorded (-1: none yet). */
  blockNumber: number
  blockHash: string
  headBlock: number
}

/** A Transfer of the token to the vault, as read from a log. */
export interface SeenDeposit {
  txHash: string
  logIndex: number
  blockNumber: number
  /** EIP-55 checksummed. */
  fromAddress: string
  /** Micro-USDC (the token has 6 decimals: its raw value). */
  amount: bigint
}

export const depositId = (txHash: string, logIndex: number) => `${txHash.toLowerCase()}:${logIndex}`

export async function readCursor(pool: pg.Pool, name = DEPOSITS_CURSOR): Promise<ChainCursor | null> {
  const { rows } = await pool.query<{ blockNumber: string; blockHash: string; headBlock: string }>(
    `SELECT "blockNumber", "blockHash", "headBlock" FROM chain_cursors WHERE name = $1`,
    [name],
  )
  const r = rows[0]
  return r ? { blockNumber: Number(r.blockNumber), blockHash: r.blockHash, headBlock: Number(r.headBlock) } : null
}

const upsertCursor = `INSERT INTO chain_cursors (name, "blockNumber", "blockHash", "headBlock", "updatedAt") VALUES ($1, $2, $3, $4, now())
  ON CONFLICT (name) DO UPDATE SET "blockNumber" = EXCLUDED."blockNumber", "blockHash" = EXCLUDED."blockHash", "headBlock" = EXCLUDED."headBlock", "updatedAt" = now()`

function depositRows(deposits: readonly SeenDeposit[], status: 'pending' | 'confirmed', at: Date) {
  return JSON.stringify(
    deposits.map((d) => ({
      id: depositId(d.txHash, d.logIndex), txHash: d.txHash.toLowerCase(), logIndex: d.logIndex, blockNumber: d.blockNumber,
      fromAddress: d.fromAddress, userId: null, amount: microToString(d.amount), status, createdAt: at.toISOString(), creditedAt: null,
    })),
  )
}

/**
 * Records the deposits of final blocks up to `to` and moves the cursor there, in one transaction: after a
 * crash either both happened or the range is read again (and its rows, upserted, come out the same). A
 * row already credited stays credited.
 */
export async function recordFinal(pool: pg.Pool, deposits: readonly SeenDeposit[], to: { blockNumber: number; blockHash: string }, head: number, at: Date): Promise<void> {
  await inTransaction(pool, async (db) => {
    if (deposits.length > 0) {
      await db.query(
        `INSERT INTO deposits SELECT * FROM json_populate_recordset(NULL::deposits, $1::json)
         ON CONFLICT ("txHash", "logIndex") DO UPDATE SET status = 'confirmed', "blockNumber" = EXCLUDED."blockNumber"
         WHERE deposits.status = 'pending'`,
        [depositRows(deposits, 'confirmed', at)],
      )
    }
    await db.query(upsertCursor, [DEPOSITS_CURSOR, to.blockNumber, to.blockHash, head])
  })
}

/**
 * Replaces the deposits not final yet with what the chain shows above the cursor now: a pending row whose
 * block a reorg removed disappears; one that moved to another block moves with it.
 */
export async function replacePending(pool: pg.Pool, deposits: readonly SeenDeposit[], cursor: ChainCursor, at: Date): Promise<void> {
  await inTransaction(pool, async (db) => {
    await db.query(`DELETE FROM deposits WHERE status = 'pending'`)
    if (deposits.length > 0) {
      await db.query(
        `INSERT INTO deposits SELECT * FROM json_populate_recordset(NULL::deposits, $1::json) ON CONFLICT ("txHash", "logIndex") DO NOTHING`,
        [depositRows(deposits, 'pending', at)],
      )
    }
    await db.query(upsertCursor, [DEPOSITS_CURSOR, cursor.blockNumber, cursor.blockHash, cursor.headBlock])
  })
}

export interface ClaimableDeposit extends SeenDeposit {
  userId: string
}

/** Final deposits not yet credited whose sender has signed in, oldest first. */
export async function claimableDeposits(pool: pg.Pool, limit = 500): Promise<ClaimableDeposit[]> {
  const { rows } = await pool.query<{ txHash: string; logIndex: number; blockNumber: string; fromAddress: string; amount: string; userId: string }>(
    `SELECT d."txHash", d."logIndex", d."blockNumber", d."fromAddress", d.amount::text AS amount, u.id AS "userId"
     FROM deposits d JOIN users u ON u.address = d."fromAddress"
     WHERE d.status = 'confirmed' ORDER BY d."blockNumber", d."logIndex" LIMIT $1`,
    [limit],
  )
  return rows.map((r) => ({ ...r, blockNumber: Number(r.blockNumber), amount: microOf(r.amount) }))
}

/** A NUMERIC(38,6) as micro-USDC. */
function microOf(v: string): bigint {
  const [int, frac = ''] = v.split('.')
  return BigInt(int!) * 1_000_000n + BigInt((frac + '000000').slice(0, 6))
}

export interface WithdrawalToPay {
  id: string
  amount: bigint
  toAddress: `0x${string}`
  nonce: number | null
  txHash: `0x${string}` | null
  rawTx: `0x${string}` | null
}

type WithdrawalRow = { id: string; amount: string; toAddress: `0x${string}`; nonce: number | null; txHash: `0x${string}` | null; rawTx: `0x${string}` | null }
const toPay = (r: WithdrawalRow): WithdrawalToPay => ({ ...r, amount: microOf(r.amount) })

/** Accepted withdrawals not yet signed, oldest first. */
export async function unsentWithdrawals(pool: pg.Pool, limit = 100): Promise<WithdrawalToPay[]> {
  const { rows } = await pool.query<WithdrawalRow>(
    `SELECT id, amount::text AS amount, "toAddress", nonce, "txHash", "rawTx" FROM withdrawals
     WHERE status = 'pending' AND "rawTx" IS NULL ORDER BY "createdAt", id LIMIT $1`,
    [limit],
  )
  return rows.map(toPay)
}

/** Withdrawals signed and handed to the chain, not yet final, in nonce order. */
export async function sentWithdrawals(pool: pg.Pool): Promise<WithdrawalToPay[]> {
  const { rows } = await pool.query<WithdrawalRow>(
    `SELECT id, amount::text AS amount, "toAddress", nonce, "txHash", "rawTx" FROM withdrawals
     WHERE status = 'sent' ORDER BY nonce, id`,
  )
  return rows.map(toPay)
}

/**
 * Stores the signed transfer of a withdrawal before it is broadcast (status `sent`). False when the row
 * is no longer an unsigned pending one: nothing is stored, and the caller must not broadcast.
 */
export async function storeSigned(pool: pg.Pool, id: string, nonce: number, txHash: string, rawTx: string, at: Date): Promise<boolean> {
  const r = await pool.query(
    `UPDATE withdrawals SET status = 'sent', nonce = $2, "txHash" = $3, "rawTx" = $4, "updatedAt" = $5
     WHERE id = $1 AND status = 'pending' AND "rawTx" IS NULL`,
    [id, nonce, txHash, rawTx, at],
  )
  return r.rowCount === 1
}

/** What the chain roles still owe, for the indexer's metrics (src/metrics/chainMetrics.ts). */
export interface ChainBacklog {
  /** The chain head at the indexer's last poll less the last block it recorded as final; null before its first poll. */
  lagBlocks: number | null
  /** Seconds since the indexer last moved its cursor (every poll does), by PostgreSQL's clock; null before its first poll. */
  pollAgeSeconds: number | null
  /** Accepted withdrawals not final yet (unsigned, or sent and waiting for confirmations). */
  pendingWithdrawals: number
  /** Their amount, USDC-T. */
  pendingWithdrawalTotal: string
}

export async function chainBacklog(pool: pg.Pool): Promise<ChainBacklog> {
  const { rows } = await pool.query<{ lag: string | null; age: number | null; n: number; total: string }>(
    `SELECT (SELECT "headBlock" - "blockNumber" FROM chain_cursors WHERE name = $1)::text AS lag,
            (SELECT extract(epoch FROM now() - "updatedAt") FROM chain_cursors WHERE name = $1)::float8 AS age,
            count(*)::int AS n, coalesce(sum(amount), 0)::text AS total
     FROM withdrawals WHERE status IN ('pending', 'sent')`,
    [DEPOSITS_CURSOR],
  )
  const r = rows[0]!
  return { lagBlocks: r.lag === null ? null : Number(r.lag), pollAgeSeconds: r.age, pendingWithdrawals: r.n, pendingWithdrawalTotal: r.total }
}
