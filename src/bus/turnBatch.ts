// Calls made in one turn of the event loop, sent to Redis as one. ioredis's auto-pipelining writes the
// commands of a loop iteration together, but builds, encodes, parses and settles each command on its
// own, through a pipeline: most of a small script call's cost. A turn's calls become one script call,
// written directly (past the auto-pipeline), that handles each item in order, as the separate calls
// were handled in order, and answers each item on its own. A turn ends where the auto-pipeline's did
// (`setImmediate`: once the iteration's I/O callbacks and their promise chains have run), so the calls
// of every request read in one poll phase share a call, written when the auto-pipeline wrote theirs.

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

  /** Runs `item` with the rest of this turn's, once the loop iteration's I/O callbacks and microtasks are done. */
  add(item: I): Promise<R> {
    return new Promise<R>((resolve, reject) => {
      this.waiters.push({ resolve, reject })
      if (this.items.push(item) === 1) setImmediate(this.flush)
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
