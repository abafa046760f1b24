// Market-maker protection for every API (GraphQL resolvers, and REST through them): the configuration
// is validated here with the spec's codes and sent to the engine, which owns the state (src/engine/mmp.ts);
// reads come from the engine's committed row in PostgreSQL, judged "frozen" at this node's time.
import type { Principal } from '../auth/principal.js'
import type { CommandBus } from '../bus/commandBus.js'
import type { Clock } from '../domain/clock.js'
import { D, parseDecimal, toScaled } from '../domain/decimal.js'
import { DomainError } from '../domain/errors.js'
import { mmpView, type MmpView } from '../engine/mmp.js'
import type { PrismaClient } from '../store/prisma.js'

export interface MmpConfigRequest {
  underlying?: unknown
  intervalMs?: unknown
  frozenMs?: unknown
  quantityLimit?: unknown
  deltaLimit?: unknown
}

const MICRO = D('0.000001')

/** A non-negative decimal string of the underlying with at most 6 decimals, in millionths. */
function units(v: unknown, field: string): number {
  const d = parseDecimal(v)
  const n = d && !d.isNegative() ? toScaled(d, MICRO) : null
  if (n === null) throw new DomainError('INVALID_REQUEST', `${field} must be a non-negative decimal string with at most 6 decimals`, { [field]: v })
  return n
}

function integer(v: unknown, field: string): number {
  if (typeof v !== 'number' || !Number.isSafeInteger(v)) throw new DomainError('INVALID_REQUEST', `${field} must be an integer of milliseconds`, { [field]: v })
  return v
}

const underlyingOf = (v: unknown): string => {
  if (v === undefined || v === null) return 'BTC'
  if (typeof v === 'string' && /^[A-Z0-9]{1,16}$/.test(v)) return v
  throw new DomainError('INVALID_REQUEST', 'underlying must be an underlying symbol such as BTC', { underlying: v })
}

export class MarketMakerProtection {
  constructor(private readonly d: { prisma: PrismaClient; commands: CommandBus; clock: Clock }) {}

  async config(p: Principal, underlyingIn: unknown): Promise<MmpView> {
    const underlying = underlyingOf(underlyingIn)
    const r = await this.d.prisma.mmpState.findUnique({ where: { userId_underlying: { userId: p.userId, underlying } } })
    const state = r && {
      ...r,
      quantityLimit: Number(r.quantityLimit),
      deltaLimit: Number(r.deltaLimit),
      window: [],
      quantity: 0,
      delta: 0,
      trippedAt: r.trippedAt?.getTime() ?? null,
      frozenUntil: r.frozenUntil?.getTime() ?? null,
      changedIn: 0,
    }
    return mmpView(state ?? undefined, underlying, this.d.clock())
  }

  async setConfig(p: Principal, c: MmpConfigRequest, correlationId: string): Promise<MmpView> {
    const cmd = {
      type: 'SetMmpConfig' as const,
      userId: p.userId,
      underlying: underlyingOf(c.underlying),
      intervalMs: integer(c.intervalMs, 'intervalMs'),
      frozenMs: integer(c.frozenMs, 'frozenMs'),
      quantityLimit: c.quantityLimit === undefined || c.quantityLimit === null ? 0 : units(c.quantityLimit, 'quantityLimit'),
      deltaLimit: c.deltaLimit === undefined || c.deltaLimit === null ? 0 : units(c.deltaLimit, 'deltaLimit'),
    }
    return this.d.commands.execute(cmd, { correlationId })
  }

  async reset(p: Principal, underlying: unknown, correlationId: string): Promise<MmpView> {
    return this.d.commands.execute({ type: 'ResetMmp', userId: p.userId, underlying: underlyingOf(underlying) }, { correlationId })
  }
}
