// The pieces of the stream transports that need no server: the slow-consumer rule every transport applies,
// the bounded frame queue behind GraphQL subscriptions (conflation or SLOW_CONSUMER past its limit, push
// mode), and the client address of a WebSocket upgrade, which must follow Fastify's trusted-proxy rule
// exactly.
import type { IncomingMessage } from 'node:http'
import Fastify from 'fastify'
import { describe, expect, it } from 'vitest'
import { clientIpResolver } from '../../src/streams/clientIp.js'
import { makeFrame, type Frame } from '../../src/streams/frame.js'
import { frameIterator } from '../../src/graphql/frameQueue.js'
import { SlowConsumerGate, type SlowConsumerMeter } from '../../src/streams/slowConsumer.js'
import type { OpenStream, Subscriber } from '../../src/streams/subscriber.js'

const frame = (seq: number, bytes = 10) => makeFrame({ eventType: 'Trade', eventSeq: seq, engineTs: 0, payload: 'x'.repeat(bytes) })

/** A stream the test drives through the subscriber it was opened with. */
function scripted(opts: { resync: boolean }) {
  const s = { sub: null as Subscriber | null, closed: 0, resyncs: 0 }
  const open = async (sub: Subscriber): Promise<OpenStream> => {
    s.sub = sub
    sub.frame(frame(1))
    return { close: () => s.closed++, resync: opts.resync ? () => s.resyncs++ : null }
  }
  return { s, open }
}

/** A meter that keeps what it is told. */
function meter(): SlowConsumerMeter & { counts: { conflated: number; dropped: number } } {
  const counts = { conflated: 0, dropped: 0 }
  return { counts, conflated: (n) => (counts.conflated += n), dropped: () => counts.dropped++ }
}

describe('SlowConsumerGate', () => {
  /** A backlog the test sets, and drains by hand. */
  function gated(resync: boolean) {
    const t = { bytes: 0, drained: null as (() => void) | null, cancelled: 0, resyncs: 0, givenUp: 0, below: -1 }
    const m = meter()
    const gate = new SlowConsumerGate(
      {
        bytes: () => t.bytes,
        whenBelow: (below, drained) => {
          t.below = below
          t.drained = drained
          return () => t.cancelled++
        },
      },
      { maxBytes: 100, meter: m, resync: resync ? () => t.resyncs++ : null, giveUp: () => t.givenUp++ },
    )
    return { t, m, gate }
  }

  it('admits within the limit; past it skips until the backlog is down to half, then resyncs once', () => {
    const { t, m, gate } = gated(true)
    t.bytes = 100
    expect(gate.admit()).toBe(true)
    t.bytes = 101
    expect([gate.admit(), gate.admit(), gate.admit()]).toEqual([false, false, false])
    expect([t.below, t.resyncs, m.counts]).toEqual([50, 0, { conflated: 3, dropped: 0 }])
    t.bytes = 0
    t.drained!()
    expect(t.resyncs).toBe(1)
    expect(gate.admit()).toBe(true)
  })

  it('gives an event stream up past the limit, counting it dropped', () => {
    const { t, m, gate } = gated(false)
    t.bytes = 101
    expect(gate.admit()).toBe(false)
    expect([t.givenUp, t.drained, m.counts]).toEqual([1, null, { conflated: 0, dropped: 1 }])
  })

  it('once closed admits nothing, stops waiting, and does not resync', () => {
    const { t, gate } = gated(true)
    t.bytes = 101
    gate.admit()
    gate.close()
    t.drained!()
    t.bytes = 0
    expect([gate.admit(), t.cancelled, t.resyncs]).toEqual([false, 1, 0])
  })
})

describe('frameIterator', () => {
  it('hands out frames in order, including those sent while opening, and closes the stream on return()', async () => {
    const { s, open } = scripted({ resync: false })
    const it = await frameIterator(open, 10_000)
    s.sub!.frame(frame(2))
    expect((await it.next()).value.env.eventSeq).toBe(1)
    const waiting = it.next()
    s.sub!.frame(frame(3))
    expect((await waiting).value.env.eventSeq).toBe(2)
    expect((await it.next()).value.env.eventSeq).toBe(3)
    await it.return!()
    expect(s.closed).toBe(1)
    expect(await it.next()).toEqual({ value: undefined, done: true })
  })

  it('past its byte limit drops its queue and resyncs a snapshot stream, counting the frames it skipped', async () => {
    const { s, open } = scripted({ resync: true })
    const m = meter()
    const it = await frameIterator(open, 500, m)
    for (let seq = 2; seq <= 10; seq++) s.sub!.frame(frame(seq, 100))
    expect(s.resyncs).toBeGreaterThan(0)
    const fresh = makeFrame({ eventType: 'OrderbookSnapshot', eventSeq: 10, engineTs: 0, payload: null })
    s.sub!.frame(fresh)
    const got: number[] = []
    for (;;) {
      const r = await it.next()
      got.push(r.value.env.eventSeq)
      if (r.value === fresh) break
    }
    expect(got.length).toBeLessThan(10)
    // Each of the 10 frames was either handed out or counted as skipped.
    expect(m.counts).toEqual({ conflated: 10 - (got.length - 1), dropped: 0 })
  })

  it('past its byte limit ends an event stream with SLOW_CONSUMER, counting it dropped', async () => {
    const { s, open } = scripted({ resync: false })
    const m = meter()
    const it = await frameIterator(open, 500, m)
    for (let seq = 2; seq <= 10; seq++) s.sub!.frame(frame(seq, 100))
    await expect(it.next()).rejects.toMatchObject({ code: 'SLOW_CONSUMER' })
    expect(m.counts).toEqual({ conflated: 0, dropped: 1 })
    expect(s.closed).toBe(1)
    expect(await it.next()).toEqual({ value: undefined, done: true })
  })

  it('in push mode hands queued and new frames to the sink, and settles when the stream ends', async () => {
    const { s, open } = scripted({ resync: false })
    const q = (await frameIterator(open, 10_000)) as unknown as { direct(sink: (f: Frame) => void): Promise<void> }
    const got: number[] = []
    const ended = q.direct((f) => got.push(f.env.eventSeq))
    s.sub!.frame(frame(2))
    s.sub!.end(new Error('revoked'))
    await expect(ended).rejects.toThrow('revoked')
    expect(got).toEqual([1, 2])
  })
})

describe('clientIpResolver', () => {
  it.each([
    ['no trusted proxies: the peer, whatever the header says', [], '10.1.2.3', '1.2.3.4', '10.1.2.3'],
    ['a trusted peer: the hop before it', ['10.0.0.0/8'], '10.1.2.3', '1.2.3.4', '1.2.3.4'],
    ['an untrusted peer: the peer', ['10.0.0.0/8'], '192.168.1.1', '1.2.3.4', '192.168.1.1'],
    ['a chain of trusted proxies: the first untrusted hop', ['10.0.0.0/8', '172.16.0.1'], '10.0.0.9', '8.8.8.8, 5.6.7.8, 172.16.0.1', '5.6.7.8'],
    ['every hop trusted: the leftmost', ['10.0.0.0/8'], '10.0.0.9', '10.9.9.9, 10.8.8.8', '10.9.9.9'],
    ['a dual-stack peer address', ['127.0.0.1'], '::ffff:127.0.0.1', '1.2.3.4', '1.2.3.4'],
  ])('%s, as Fastify finds it', async (_name, trusted, peer, xff, expected) => {
    const req = { socket: { remoteAddress: peer }, headers: { 'x-forwarded-for': xff } } as unknown as IncomingMessage
    expect(clientIpResolver(trusted)(req).replace(/^::ffff:/, '')).toBe(expected)
    const app = Fastify({ trustProxy: trusted.length > 0 ? trusted : false })
    app.get('/', async (r) => r.ip)
    const res = await app.inject({ method: 'GET', url: '/', remoteAddress: peer, headers: { 'x-forwarded-for': xff } })
    expect(res.body.replace(/^::ffff:/, '')).toBe(expected)
    await app.close()
  })
})
