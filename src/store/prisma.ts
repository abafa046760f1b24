// The Prisma client, on the same pg pool the engine's writer uses (Prisma 7 needs no engine binary:
// the pg driver adapter runs the queries).
import { PrismaPg } from '@prisma/adapter-pg'
import type pg from 'pg'
import { PrismaClient } from '../generated/prisma/client.js'

export type { PrismaClient }

export function createPrisma(pool: pg.Pool): PrismaClient {
  return new PrismaClient({ adapter: new PrismaPg(pool) })
}
