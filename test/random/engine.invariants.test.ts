// The seeded randomized test of the trading engine: 20 users, 50,000 mixed commands on spot, perpetuals,
// futures and options (and market-maker protection configured, tripped and reset in between), invariants
// after every batch (the cross margin and the options bucket against independent references among them)
// and MMP's after every command, an option expiry and a futures expiry crossed, and a replay of the
// recorded stream that must reach the same state hash. A shorter run lists both families in one
// asset class, so that the reference also checks the correlation credit between them.
import { describe, expect, it } from 'vitest'
import type { CommandEnvelope } from '../../src/engine/commands.js'
import { Engine } from '../../src/engine/engine.js'
import { restoreSnapshot, serializeSnapshot, stateHash } from '../../src/engine/snapshot.js'
import { T0 } from '../support/engineFixtures.js'
import { applyChecked, checkInvariants, Ledgers } from '../support/invariants.js'
import { HOUSE, RandomTrading } from '../support/randomTrading.js'

/** A value JSON carries unchanged: no undefined, bigint, function, Date or other non-plain object, no NaN. */
function expectJsonValue(v: unknown, at: string): void {
  if (v === null || typeof v === 'string' || typeof v === 'boolean') return
  if (typeof v === 'number') return void expect(Number.isFinite(v), at).toBe(true)
  if (Array.isArray(v)) return v.forEach((x, i) => expectJsonValue(x, `${at}[${i}]`))
  expect(typeof v === 'object' && Object.getPrototypeOf(v) === Object.prototype, `${at} is a JSON value`).toBe(true)
  for (const [k, x] of Object.entries(v as object)) expectJsonValue(x, `${at}.${k}`)
}

const COMMANDS = 50_000
const BATCH = 250
const CREDIT_COMMANDS = 8_000

describe('randomized trading', () => {
  it('keeps every invariant after every batch, and replays to the same state', { timeout: 300_000 }, () => {
    const gen = new RandomTrading(20261121, T0)
    const engine = new Engine()
    const totals = new Ledgers(engine.state)
    const recorded: CommandEnvelope[] = []
    const outcomes = new Map<string, number>()
    const endings = new Map<string, number>()
    let handedOver: { replies: unknown[]; text: string } | null = null
    const apply = (env: CommandEnvelope) => {
      recorded.push(env)
      const r = applyChecked(engine, env)
      const kind = 'kind' in env.cmd ? env.cmd.kind : undefined
      const key = `${env.cmd.type}${kind ? `/${kind}` : ''}:${r.ok ? 'ok' : r.code}`
      outcomes.set(key, (outcomes.get(key) ?? 0) + 1)
      return r
    }
    for (const env of gen.setup()) expect(apply(env).ok).toBe(true)
    for (const m of gen.markets.filter((x) => x.type === 'spot')) totals.grant(HOUSE, m.id, 200_000), totals.grant('00000000000000000000000000', m.id, -200_000)
    totals.absorb(engine.takeChanges())
    checkInvariants(engine.state, totals)

    const expiring = gen.frontFutures()
    const expiry = expiring[0]!.expiryMs!
    const optionExpiry = gen.optionExpiry()
    const weeklies = gen.options.filter((m) => m.expiryMs === optionExpiry)
    for (let i = 0; i < COMMANDS; i++) {
      // Time travel: 45 minutes before the first options expire (their settlement TWAP runs), then 08:00
      // UTC of that day; options of the later expiry trade on.
      if (i === 12_000) for (const env of gen.jumpTo(optionExpiry - 45 * 60_000)) apply(env)
      if (i === 18_000) for (const env of gen.expireOptions()) expect(apply(env).ok).toBe(true)
      // 45 minutes before the front futures expire (their settlement TWAP runs; the option expiries on
      // the way settle at their time), then the expiry.
      if (i === 30_000) for (const env of gen.jumpTo(expiry - 45 * 60_000)) apply(env)
      if (i === 40_000) for (const env of gen.expire()) expect(apply(env).ok).toBe(true)
      const mmp = gen.nextMmp()
      if (mmp) apply(mmp)
      const chain = gen.nextChain(engine.state)
      if (chain) apply(chain)
      apply(gen.next(engine.state))
      if ((i + 1) % BATCH === 0) {
        const c = engine.takeChanges()
        // An engine in the API's process hands replies over as objects, after the next batch may have
        // been applied: they must be what their JSON gives, and nothing later may change them.
        if (handedOver) expect(JSON.stringify(handedOver.replies), 'replies changed after their batch').toBe(handedOver.text)
        handedOver = { replies: c.replies, text: JSON.stringify(c.replies) }
        for (const r of c.replies) expectJsonValue(r.reply, r.id)
        for (const o of c.orders.values()) if (o.triggeredAt !== null && o.status !== 'open') endings.set(`triggered:${o.status}`, (endings.get(`triggered:${o.status}`) ?? 0) + 1)
        totals.absorb(c)
        checkInvariants(engine.state, totals)
      }
    }
    totals.absorb(engine.takeChanges())
    checkInvariants(engine.state, totals)

    // The mix really was mixed: trades happened and every kind of command met success and refusal.
    const isolated = [...engine.state.accounts.values()].flatMap((a) => [...a.positions.values()]).filter((p) => p.marginMode === 'isolated' && p.lots !== 0)
    expect(isolated.length).toBeGreaterThan(0)
    // Funding was paid, some accounts were liquidated, and the front futures settled with the positions in them.
    expect(totals.funding).toBeGreaterThan(0)
    // Money crossed the chain both ways: deposits credited, withdrawals completed and failed (refunded).
    expect(totals.chain).toEqual({ deposits: expect.any(Number), withdrawalsCompleted: expect.any(Number), withdrawalsFailed: expect.any(Number) })
    for (const n of Object.values(totals.chain)) expect(n).toBeGreaterThan(0)
    expect(totals.liquidations).toBeGreaterThan(0)
    expect(totals.settlements).toBeGreaterThan(0)
    for (const f of expiring) expect(engine.state.markets.get(f.id)).toMatchObject({ status: 'settled', settlementPrice: expect.any(String) })
    for (const o of weeklies) expect(engine.state.markets.get(o.id)).toMatchObject({ status: 'settled', settlementPrice: expect.any(String) })
    expect(totals.optionSettlements, 'option positions settled at expiry').toBeGreaterThan(0)
    expect(totals.optionLiquidations, 'option accounts below maintenance were liquidated').toBeGreaterThan(0)
    // Conditional orders fired, some trading and some refused at their trigger.
    expect(endings.get('triggered:filled') ?? 0).toBeGreaterThan(0)
    expect(endings.get('triggered:rejected') ?? 0).toBeGreaterThan(0)
    expect(totals.fills).toBeGreaterThan(5_000)
    // The margin was compared on accounts with open cross orders and with several families, and on
    // hypothetical orders it both accepted and refused.
    for (const [kind, n] of Object.entries(totals.margin)) if (kind !== 'credited') expect(n, `margin checks: ${kind}`).toBeGreaterThan(0)
    // (Commands are counted by their kind when they carry one: `CancelOrder/linear:ok`.)
    for (const kind of ['PlaceOrder:ok', 'CancelOrder:ok', 'CancelOrder/linear:ok', 'ModifyOrder/linear:ok', 'PlaceQuotes:ok', 'Transfer:ok', 'CancelAll:ok', 'PlaceOrder:POST_ONLY_WOULD_CROSS', 'CancelOrder:ORDER_NOT_FOUND', 'Transfer:SAME_BUCKET']) {
      expect(outcomes.get(kind) ?? 0, kind).toBeGreaterThan(0)
    }
    // Options traded, both ways, and met every refusal of their own; a cancel of the wrong kind finds nothing.
    for (const kind of [
      'PlaceOrder/option:ok', 'PlaceOrder/option:INSUFFICIENT_BALANCE', 'PlaceOrder/option:INSUFFICIENT_MARGIN', 'PlaceOrder/option:POST_ONLY_WOULD_CROSS',
      'PlaceOrder/option:REDUCE_ONLY_VIOLATION', 'PlaceOrder/option:INVALID_PRICE', 'PlaceQuotes/option:ok', 'ModifyOrder/option:ok', 'CancelOrder/option:ok',
      'CancelOrder/linear:ORDER_NOT_FOUND', 'CancelOrder/option:ORDER_NOT_FOUND', 'CancelAll/option:ok', 'CancelAll/linear:INVALID_MARKET_ID',
    ]) {
      expect(outcomes.get(kind) ?? 0, kind).toBeGreaterThan(0)
    }
    // Market-maker protection was configured (and refused out of range) and reset, tripped on the quantity
    // and on the net delta, cancelling orders, and refused option quotes and protected orders while frozen.
    for (const kind of ['SetMmpConfig:ok', 'SetMmpConfig:INVALID_REQUEST', 'ResetMmp:ok', 'PlaceQuotes/option:MMP_FROZEN', 'PlaceOrder/option:MMP_FROZEN']) {
      expect(outcomes.get(kind) ?? 0, kind).toBeGreaterThan(0)
    }
    expect(totals.mmp.trips, 'MMP trips').toBeGreaterThan(0)
    // Withdrawals beyond what came in on chain (faucet money) were refused, and repeated deposits credited nothing.
    for (const kind of ['RequestWithdrawal:ok', 'RequestWithdrawal:WITHDRAWAL_NOT_ALLOWED', 'CreditDeposit:ok', 'CompleteWithdrawal:ok', 'FailWithdrawal:ok']) {
      expect(outcomes.get(kind) ?? 0, kind).toBeGreaterThan(0)
    }
    expect(totals.mmp.byDelta, 'MMP trips on the net delta').toBeGreaterThan(0)
    expect(totals.mmp.canceled, 'orders cancelled by MMP trips').toBeGreaterThan(0)
    expect(totals.optionFills).toBeGreaterThan(1_000)
    expect(totals.cappedFees, 'some option fees met the 12.5% premium cap').toBeGreaterThan(0)
    // The options bucket was compared holding longs and shorts, with open sells and buys, with and without
    // a requirement; hypothetical option orders were accepted and refused, buys and sells.
    for (const [kind, n] of Object.entries(totals.options)) expect(n, `option margin checks: ${kind}`).toBeGreaterThan(0)

    const replayed = new Engine()
    for (const env of recorded) replayed.apply(env)
    expect(stateHash(replayed.state)).toBe(stateHash(engine.state))
    const restored = restoreSnapshot(JSON.parse(serializeSnapshot(engine.state)))
    expect(stateHash(restored)).toBe(stateHash(engine.state))
    // What the snapshot does not carry is derived again: the accounts liquidation checks.
    const holders = (s: typeof restored) => [...s.holders].map((a) => `${a.userId}:${a.derivativePositions}`).sort()
    expect(holders(restored)).toEqual(holders(engine.state))
    expect(holders(restored).length).toBeGreaterThan(0)
  })

  it('keeps every invariant when both families share an asset class: the cross margin earns the correlation credit', () => {
    const gen = new RandomTrading(20261122, T0, 12, 'crypto')
    const engine = new Engine()
    const totals = new Ledgers(engine.state)
    for (const env of gen.setup()) expect(engine.apply(env).ok).toBe(true)
    for (const m of gen.markets.filter((x) => x.type === 'spot')) totals.grant(HOUSE, m.id, 200_000), totals.grant('00000000000000000000000000', m.id, -200_000)
    for (let i = 0; i < CREDIT_COMMANDS; i++) {
      const mmp = gen.nextMmp()
      if (mmp) applyChecked(engine, mmp)
      applyChecked(engine, gen.next(engine.state))
      if ((i + 1) % BATCH === 0) {
        totals.absorb(engine.takeChanges())
        checkInvariants(engine.state, totals)
      }
    }
    expect(totals.margin.credited, 'accounts whose families offset each other were compared').toBeGreaterThan(0)
  })
})
