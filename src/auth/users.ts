// Owns the users table as identity sees it: one user per EIP-55 address, created by its first sign-in,
// and the operator-set order-rate tier.
import { newId } from '../domain/ids.js'
import type { PrismaClient } from '../store/prisma.js'

export interface UserRow {
  id: string
  address: string
  rateTier: number
  createdAt: Date
}

export const MAX_RATE_TIER = 100

export class Users {
  constructor(private readonly prisma: PrismaClient) {}

  /**
   * The user of `address`, created on first sign-in. One statement, so two first sign-ins racing on
   * different nodes get the same user (the loser's ULID is simply not used).
   */
  async signedIn(address: string): Promise<UserRow> {
    const rows = await this.prisma.$queryRaw<UserRow[]>`
      INSERT INTO users (id, address) VALUES (${newId()}, ${address})
      ON CONFLICT (address) DO UPDATE SET address = EXCLUDED.address
      RETURNING id, address, "rateTier", "createdAt"`
    return rows[0]!
  }

  byId(id: string): Promise<UserRow | null> {
    return this.prisma.user.findUnique({ where: { id }, select: { id: true, address: true, rateTier: true, createdAt: true } })
  }

  /** Null when the user does not exist. */
  async setRateTier(id: string, rateTier: number): Promise<UserRow | null> {
    const { count } = await this.prisma.user.updateMany({ where: { id }, data: { rateTier } })
    return count === 0 ? null : this.byId(id)
  }
}
