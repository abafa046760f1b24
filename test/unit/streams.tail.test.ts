// A subscriber's gap-free view of a stream (src/streams/tail.ts) against a scripted hub: live events
// held while the baseline is taken, duplicates dropped, gaps filled from the log, and a fresh snapshot
// or ResyncRequired when the log no longer has what is missing.
import { describe, expect, it } from 'vitest'
import type { EventType } from '../../src/engine/events.js'
import type { EventHub, FrameListener } from '../../src/streams/eventHub.js'
import { makeFrame, type Frame } from '../../src/streams/frame.js'
import { Tail } from '../../src/streams/tail.js'
import { deferred } from '../support/deferred.js'

const ev = (seq: number, type: EventType = 'OrderbookDelta') => makeFrame({ eventType: type, eventSeq: seq, engineTs: 1_000 + seq, payload: { seq } })

/** A hub whose log holds `logged` and whose live events the test pushes. */
class ScriptedHub {
  listener: FrameListener | null = null
  ranges: Array<[number, number | undefined]> = []
  constructor(public logged: Frame[] = []) {}
  listen(_stream: string, l: FrameListener) {
    this.listener = l
    return Promise.resolve(() => {
      this.listener = null
    })
  }
  range(_stream: string, after: number, before?: number) {
    this.ranges.push([after, before])
    return Promise.resolve(this.logged.filter((f) => f.env.eventSeq > after && (before === undefined || f.env.eventSeq < before)))
  }
  lastSeq() {
    return Promise.resolve(this.logged.at(-1)?.env.eventSeq ?? null)
  }
  push(...seqs: number[]) {
    for (const s of seqs) this.listener!(ev(s))
  }
  asHub() {
    return this as unknown as EventHub
  }
}

const seqs = (frames: Frame[]) => frames.map((f) => `${f.env.eventType === 'OrderbookDelta' ? '' : f.env.eventType + ':'}${f.env.eventSeq}`)

/** Lets pending promise callbacks (a gap fill, a snapshot) run. */
const settle = () => new Promise((r) => setImmediate(r))

describe('Tail, snapshot streams', () => {
  it('holds live events while the snapshot is read, drops those it includes, then streams the rest in order', async () => {
    const hub = new ScriptedHub()
    const snap = deferred<Frame>()
    const out: Frame[] = []
    const opening = Tail.open({ hub: hub.asHub(), stream: 'book:X', snapshot: () => snap.promise, emit: (f) => out.push(f), fail: () => {} })
    await settle()
    hub.push(5, 6, 7) // published while the snapshot (at 6) was being read
    snap.resolve(ev(6, 'OrderbookSnapshot'))
    const tail = await opening
    hub.push(7, 8)
    expect(seqs(out)).toEqual(['OrderbookSnapshot:6', '7', '8'])
    tail.close()
  })

  it('fills a gap from the log, and takes a fresh snapshot when the log lost part of it', async () => {
    const hub = new ScriptedHub([ev(3), ev(4)])
    let snapshots = 0
    const out: Frame[] = []
    const tail = await Tail.open({
      hub: hub.asHub(),
      stream: 'book:X',
      snapshot: async () => (++snapshots === 1 ? ev(2, 'OrderbookSnapshot') : ev(9, 'OrderbookSnapshot')),
      emit: (f) => out.push(f),
      fail: () => {},
    })
    hub.push(5) // 3 and 4 never came live: they are in the log
    await settle()
    hub.push(6)
    hub.push(10) // 7..9 are nowhere: start again from a snapshot (at 9), then 10 follows it
    await settle()
    await settle()
    hub.push(11)
    expect(seqs(out)).toEqual(['OrderbookSnapshot:2', '3', '4', '5', '6', 'OrderbookSnapshot:9', '10', '11'])
    expect(hub.ranges).toEqual([[2, 5], [6, 10]])
    tail.close()
  })

  it('starts again from a fresh snapshot on resync (conflation), dropping what it includes', async () => {
    const hub = new ScriptedHub()
    let at = 1
    const out: Frame[] = []
    const tail = await Tail.open({ hub: hub.asHub(), stream: 'book:X', snapshot: async () => ev(at, 'OrderbookSnapshot'), emit: (f) => out.push(f), fail: () => {} })
    hub.push(2, 3)
    at = 5
    tail.resync!()
    hub.push(4, 5, 6)
    await settle()
    expect(seqs(out)).toEqual(['OrderbookSnapshot:1', '2', '3', 'OrderbookSnapshot:5', '6'])
    tail.close()
  })
})

describe('Tail, event streams', () => {
  it('replays what followed fromSeq, then goes on live without duplicates', async () => {
    const hub = new ScriptedHub([ev(1), ev(2), ev(3)])
    const out: Frame[] = []
    const tail = await Tail.open({ hub: hub.asHub(), stream: 'prices:X', fromSeq: 1, emit: (f) => out.push(f), fail: () => {} })
    hub.push(3, 4)
    expect(seqs(out)).toEqual(['2', '3', '4'])
    expect(tail.resync).toBeNull()
    tail.close()
  })

  it('sends ResyncRequired when fromSeq left the buffer, or is ahead of the stream', async () => {
    const trimmed = new ScriptedHub([ev(8), ev(9)])
    const out: Frame[] = []
    await Tail.open({ hub: trimmed.asHub(), stream: 'prices:X', fromSeq: 2, emit: (f) => out.push(f), fail: () => {} })
    trimmed.push(10)
    expect(seqs(out)).toEqual(['ResyncRequired:9', '10'])
    expect(out[0]!.env.payload).toEqual({ kind: 'resync', fromSeq: 2, resumesAfterSeq: 9 })

    const ahead: Frame[] = []
    await Tail.open({ hub: trimmed.asHub(), stream: 'prices:X', fromSeq: 50, emit: (f) => ahead.push(f), fail: () => {} })
    expect(seqs(ahead)).toEqual(['ResyncRequired:9'])

    const current: Frame[] = []
    await Tail.open({ hub: trimmed.asHub(), stream: 'prices:X', fromSeq: 9, emit: (f) => current.push(f), fail: () => {} })
    trimmed.push(10)
    expect(seqs(current)).toEqual(['10'])
  })

  it('replays an event logged between its reads of the log and of the newest sequence, without a ResyncRequired', async () => {
    const hub = new ScriptedHub([ev(1)])
    const read = hub.range.bind(hub)
    let first = true
    hub.range = (stream, after, before) => {
      const r = read(stream, after, before)
      if (first) {
        first = false
        hub.logged.push(ev(2)) // published just after the read: logged, and live
        hub.push(2)
      }
      return r
    }
    const out: Frame[] = []
    const tail = await Tail.open({ hub: hub.asHub(), stream: 'prices:X', fromSeq: 1, emit: (f) => out.push(f), fail: () => {} })
    hub.push(3)
    expect(seqs(out)).toEqual(['2', '3'])
    tail.close()
  })

  it('without fromSeq, starts at the first live event; an unrecoverable gap is a ResyncRequired', async () => {
    const hub = new ScriptedHub()
    const out: Frame[] = []
    await Tail.open({ hub: hub.asHub(), stream: 'prices:X', emit: (f) => out.push(f), fail: () => {} })
    hub.push(41, 42, 45)
    await settle()
    hub.push(46)
    expect(seqs(out)).toEqual(['41', '42', 'ResyncRequired:44', '45', '46'])
  })

  it('fails the subscriber when the log cannot be read', async () => {
    const hub = new ScriptedHub()
    hub.range = () => Promise.reject(new Error('redis down'))
    const failed = deferred<unknown>()
    const out: Frame[] = []
    await Tail.open({ hub: hub.asHub(), stream: 'prices:X', emit: (f) => out.push(f), fail: (err) => failed.resolve(err) })
    hub.push(1, 3)
    expect(await failed.promise).toMatchObject({ message: 'redis down' })
    expect(seqs(out)).toEqual(['1'])
    // Closed: no longer listening.
    expect(hub.listener).toBeNull()
  })
})
