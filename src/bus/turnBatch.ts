// Calls made in one loop turn, sent to Redis as one. ioredis already writes the commands of a turn
// together (auto-pipelining), but builds, encodes, parses and settles each command on its own: most of
// a small script call's cost. A turn's calls (a socket read's worth of requests, continued together
// when one Redis reply lets them all go on) become one script call that handles each item in order,
// as the separate calls were handled in order, and answers each item on its own.

/** What a batch answers per item: its value, or the error that item alone failed with. */
export type ItemAnswer<R> = R | Error

export class TurnBatch<I, R> {
  private items: I[] = []
  private waiters: Array<{ resolve(value: R): void; reject(err: unknown): void }> = []

  /**
   * `run` sends items, in the order they were added, and answers each (same length, same order); when
   * it throws, or its promise rejects, every item of that call fails with the error. At most `max`
   * items per call: a script holds Redis for as long as it runs.
   */
  constructor(
    private readonly run: (items: I[]) => Promise<Array<ItemAnswer<R>>>,
    private readonly max = 256,
  ) {}

  /** Runs `item` with the rest of this turn's, once the turn's synchronous work and microtasks are done. */
  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiters.push({ resolve, reject })
      if (this.items.push(item) === 1) process.nextTick(this.flush)
    })
  }

  private readonly flush = (): void => {
    const items = this.items
    const waiters = this.waiters
    this.items = []
    this.waiters = []
    for (let from = 0; from < items.length; from += this.max) {
      const whole = from === 0 && items.length <= this.max
      this.send(whole ? items : items.slice(from, from + this.max), whole ? waiters : waiters.slice(from, from + this.max))
    }
  }

  private send(items: I[], waiters: TurnBatch<I, R>['waiters']): void {
    let answers: Promise<Array<ItemAnswer<R>>>
    try {
      answers = this.run(items)
    } catch (err) {
      answers = Promise.reject(err)
    }
    answers.then(
      (out) => {
        for (let i = 0; i < waiters.length; i++) {
          const a = out[i]
          if (a instanceof Error) waiters[i]!.reject(a)
          else if (a === undefined) waiters[i]!.reject(new Error('batched call: no answer for an item'))
          else waiters[i]!.resolve(a)
        }
      },
      (err: unknown) => {
        for (const w of waiters) w.reject(err)
      },
    )
  }
}
