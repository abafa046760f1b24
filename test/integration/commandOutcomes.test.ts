// What an API node answers for a command whose reply never came, decided from PostgreSQL: a committed
// placement is its orders as stored (a refused one changed nothing), anything else is OUTCOME_UNKNOWN
// saying whether it is committed and naming what to look up. Commands are appended here the way the
// command bus appends them (epoch and XADD in one MULTI), without a reply channel: no reply ever comes.
import { describe, expect, it } from 'vitest'
import type { Submitted } from '../../src/bus/commandBus.js'
import { compareStreamIds } from '../../src/bus/streamIds.js'
import { newId } from '../../src/domain/ids.js'
import { parseLinearOrder, type OrderRequest } from '../../src/domain/orders.js'
import type { Command } from '../../src/engine/commands.js'
import { CommandOutcomes } from '../../src/services/commandOutcomes.js'
import { readOffset } from '../../src/store/engineOffsets.js'
import { fundPerps, signIn, type SignedIn } from '../support/auth.js'
import { ADMIN, exchangeFor } from '../support/exchange.js'
import { btcCurveMarks } from '../support/marks.js'
import { pollUntil } from '../support/poll.js'
import { testClock } from '../support/clock.js'

let user: SignedIn
const h = exchangeFor({ MARK_STALE_MS: '3600000' }, async (api) => {
  expect((await api.post('/admin/marks', btcCurveMarks('95000'), ADMIN)).status).toBe(200)
  user = await signIn(api, h.ex.url!)
  await fundPerps(api, user)
})

const outcomes = () => new CommandOutcomes(h.ex.pool, h.ex.services.reads)

/** Appends `cmd` and waits until the engine has committed it. */
async function committed(cmd: Command): Promise<Submitted> {
  const env = { id: newId(), ts: testClock.now(), cmd }
  const [[, epoch], [, streamId]] = (await h.ex.redis.multi().get(h.ex.keys.epoch).xadd(h.ex.keys.commands, '*', 'c', JSON.stringify(env)).exec()) as [
    [null, string | null],
    [null, string],
  ]
  await pollUntil(async () => compareStreamIds((await readOffset(h.ex.pool))!.lastStreamId, streamId) >= 0, { what: `command ${streamId} committed` })
  return { env, streamId, epoch }
}

async function order(req: Omit<OrderRequest, 'marketId'>, quoteId: string | null = null) {
  const market = (await h.ex.services.marketData.market('BTC-PERP'))!.spec
  return parseLinearOrder({ marketId: 'BTC-PERP', ...req }, market, newId(), quoteId)
}

describe('the outcome of a command whose reply was lost', () => {
  it('is a committed order as stored', async () => {
    const spec = await order({ side: 'buy', price: '90000', quantity: '0.01', clientOrderId: 'lost-reply-1' })
    const reply = await outcomes().resolve(await committed({ type: 'PlaceOrder', userId: user.user.id, order: spec }))
    expect(reply).toEqual({ ok: true, value: await h.ex.services.reads.order(spec.id) })
    expect(reply).toMatchObject({ value: { id: spec.id, clientOrderId: 'lost-reply-1', status: 'open', price: '90000' } })
  })

  it('is "nothing was placed, send again" for a committed order the engine refused', async () => {
    const spec = await order({ side: 'buy', price: '90000', quantity: '1000' }) // far beyond the margin
    const s = await committed({ type: 'PlaceOrder', userId: user.user.id, order: spec })
    expect(await outcomes().resolve(s)).toMatchObject({ ok: false, code: 'UPSTREAM_DEGRADED', details: { commandId: s.env.id, orderIds: [spec.id] } })
    expect(await h.ex.services.reads.order(spec.id)).toBeNull()
  })

  it('is a committed bulk quote with the orders it replaced', async () => {
    const first = [await order({ side: 'buy', price: '94000', quantity: '0.01', postOnly: true }, 'q'), await order({ side: 'sell', price: '96000', quantity: '0.01', postOnly: true }, 'q')]
    await committed({ type: 'PlaceQuotes', userId: user.user.id, marketId: 'BTC-PERP', quoteId: 'q', orders: first, cancelFirst: false })
    const second = [await order({ side: 'buy', price: '94500', quantity: '0.01', postOnly: true }, 'q')]
    const open = (await h.ex.services.reads.orders(user.user.id, { marketId: 'BTC-PERP', status: 'open', limit: 100 })).items.map((o) => o.id)
    expect(open).toEqual(expect.arrayContaining(first.map((o) => o.id)))
    const reply = await outcomes().resolve(await committed({ type: 'PlaceQuotes', userId: user.user.id, marketId: 'BTC-PERP', quoteId: 'q', orders: second, cancelFirst: true }))
    expect(reply).toEqual({
      ok: true,
      value: { marketId: 'BTC-PERP', quoteId: 'q', canceled: expect.arrayContaining(open), results: [{ side: 'buy', response: await h.ex.services.reads.order(second[0]!.id) }] },
    })
    expect((reply as { value: { canceled: string[] } }).value.canceled).toHaveLength(open.length)
  })

  it('is OUTCOME_UNKNOWN, committed, for a command whose reply is not stored', async () => {
    const s = await committed({ type: 'Transfer', userId: user.user.id, from: 'wallet', to: 'spot', amountMicro: '1000000' })
    expect(await outcomes().resolve(s)).toEqual({
      ok: false, code: 'OUTCOME_UNKNOWN', message: expect.stringContaining('took effect'), details: { commandId: s.env.id, committed: true },
    })
  })

  it.each([
    ['not yet committed', (s: Submitted) => ({ ...s, streamId: '99999999999999-0' })],
    ['from another stream epoch', (s: Submitted) => ({ ...s, epoch: 'an-epoch-before-redis-was-wiped' })],
    ['appended before any engine ran', (s: Submitted) => ({ ...s, epoch: null })],
  ])('is OUTCOME_UNKNOWN, not committed, for an order %s', async (_name, change) => {
    const spec = await order({ side: 'buy', price: '90000', quantity: '0.01' })
    const s = change(await committed({ type: 'PlaceOrder', userId: user.user.id, order: spec }))
    expect(await outcomes().resolve(s)).toEqual({
      ok: false, code: 'OUTCOME_UNKNOWN', message: expect.stringContaining('may still take effect'),
      details: { commandId: s.env.id, committed: false, orderIds: [spec.id] },
    })
  })
})
