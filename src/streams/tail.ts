// Owns one subscriber's gap-free view of one engine stream. Live events are listened to FIRST and held
// while the baseline is taken (a snapshot, or a replay from the log), then everything at or below the
// baseline is dropped, so nothing falls between the two. Afterwards each event must carry the next
// sequence: a duplicate is dropped, a gap is filled from the replay log, and when the log no longer has
// the missing events a snapshot stream starts again from a fresh snapshot while an event stream sends
// ResyncRequired and carries on (DESIGN.md §2.6).
import type { EventHub } from './eventHub.js'
import { resyncFrame, seqOf, type Frame } from './frame.js'

export interface TailOptions {
  hub: EventHub
  stream: string
  /** Snapshot streams: reads a fresh snapshot whose eventSeq is the last event it includes. */
  snapshot?: () => Promise<Frame>
  /** Event streams: replay what follows this sequence; undefined or null: live events only. */
  fromSeq?: number | null
  emit(frame: Frame): void
  /** The stream cannot go on (Redis failed); the tail is closed. */
  fail(err: unknown): void
}

export class Tail {
  /** Sequence of the last frame emitted; null until the first live event of a live-only stream. */
  private last: number | null = null
  /** While a baseline, gap fill or resync is taken, live frames wait here. */
  private held: Frame[] = []
  private tasks = 0
  private chain: Promise<void> = Promise.resolve()
  private closed = false
  private unlisten: () => void = () => {}

  private constructor(private readonly o: TailOptions) {}

  static async open(o: TailOptions): Promise<Tail> {
    const tail = new Tail(o)
    tail.tasks = 1 // hold live frames from the first one
    tail.unlisten = await o.hub.listen(o.stream, (f) => tail.onFrame(f))
    try {
      await tail.baseline()
    } catch (err) {
      tail.close()
      throw err
    }
    tail.tasks = 0
    tail.release()
    return tail
  }

  /** Snapshot streams: forget what was sent and start again from a fresh snapshot (conflation). */
  get resync(): (() => void) | null {
    return this.o.snapshot ? () => this.run(() => this.takeSnapshot()) : null
  }

  close(): void {
    if (this.closed) return
    this.closed = true
    this.held = []
    this.unlisten()
  }

  private onFrame(f: Frame): void {
    if (this.closed) return
    if (this.tasks > 0) this.held.push(f)
    else this.accept(f)
  }

  private accept(f: Frame): void {
    const seq = seqOf(f)
    if (this.last === null || seq === this.last + 1) {
      this.last = seq
      this.o.emit(f)
    } else if (seq > this.last) {
      const from = this.last
      this.held.unshift(f)
      this.run(() => this.fill(from, seq))
    }
  }

  /** Runs a task while live frames are held; tasks queue behind each other. */
  private run(task: () => Promise<void>): void {
    if (this.closed) return
    this.tasks++
    this.chain = this.chain
      .then(() => (this.closed ? undefined : task()))
      .then(
        () => {
          if (--this.tasks === 0) this.release()
        },
        (err: unknown) => {
          if (this.closed) return
          this.close()
          this.o.fail(err)
        },
      )
  }

  private release(): void {
    while (this.tasks === 0 && !this.closed && this.held.length > 0) this.accept(this.held.shift()!)
  }

  private async baseline(): Promise<void> {
    if (this.o.snapshot) return this.takeSnapshot()
    const fromSeq = this.o.fromSeq
    if (fromSeq === undefined || fromSeq === null) return
    for (;;) {
      const replay = await this.o.hub.range(this.o.stream, fromSeq)
      const first = replay[0]
      if (first && seqOf(first) === fromSeq + 1) {
        for (const f of replay) this.emitNow(f)
        return
      }
      const newest = first ? seqOf(replay.at(-1)!) : await this.o.hub.lastSeq(this.o.stream)
      if (newest === null) return // nothing ever logged: live events only
      // Nothing after fromSeq, yet a newer event: it was logged between the two reads. Read again.
      if (!first && newest > fromSeq) continue
      // The client is current, or asks for events the log no longer (or never) had.
      if (fromSeq !== newest) this.o.emit(resyncFrame(newest, fromSeq))
      this.last = newest
      return
    }
  }

  private async takeSnapshot(): Promise<void> {
    const snap = await this.o.snapshot!()
    if (this.closed) return
    this.last = seqOf(snap)
    this.o.emit(snap)
  }

  /** Events strictly between `from` and `to` from the log; when it lost some, a snapshot or a resync. */
  private async fill(from: number, to: number): Promise<void> {
    const missing = await this.o.hub.range(this.o.stream, from, to)
    if (this.closed) return
    if (missing.length === to - from - 1 && missing.every((f, i) => seqOf(f) === from + 1 + i)) {
      for (const f of missing) this.emitNow(f)
    } else if (this.o.snapshot) {
      await this.takeSnapshot()
    } else {
      this.o.emit(resyncFrame(to - 1, from))
      this.last = to - 1
    }
  }

  private emitNow(f: Frame): void {
    if (this.closed) return
    this.last = seqOf(f)
    this.o.emit(f)
  }
}
