// A test database the engine's batches are committed to as the runner commits them (one fencing token
// claimed, stream ids in order), for tests that write with commitBatch and read or rebuild from
// PostgreSQL. Call at the top of a test file: it registers its own setup and teardown.
//   const store = batchDatabase('my-test'); … await store.commit(h); await loadState(store.pool)
import type pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { commitBatch } from '../../src/store/batchWriter.js'
import { claimFencingToken } from '../../src/store/engineOffsets.js'
import { createPool } from '../../src/store/pg.js'
import { createTestDatabase, type TestDatabase } from './testDb.js'
import type { TradingHarness } from './tradingFixtures.js'

export interface BatchDatabase {
  readonly pool: pg.Pool
  /** Writes everything the harness's engine did since the last commit, as one batch. */
  commit(h: Pick<TradingHarness, 'engine'>): ReturnType<typeof commitBatch>
}

export function batchDatabase(epoch: string): BatchDatabase {
  let db: TestDatabase
  let pool: pg.Pool
  let token: string
  let batch = 0
  beforeAll(async () => {
    db = await createTestDatabase()
    pool = await createPool(db.url)
    token = await claimFencingToken(pool)
  })
  afterAll(async () => {
    await pool?.end()
    await db?.drop()
  })
  return {
    get pool() {
      return pool
    },
    commit: (h) => commitBatch(pool, h.engine.state, h.engine.takeChanges(), { epoch, streamId: `${++batch}-0`, fencingToken: token }),
  }
}
