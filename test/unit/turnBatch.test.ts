// TurnBatch gathers the calls of one loop iteration: made from separate I/O callbacks and their promise
// chains alike, they share one run; each is answered on its own, in order.
import { describe, expect, it } from 'vitest'
import { TurnBatch } from '../../src/bus/turnBatch.js'

function recorder(answer: (item: number) => number | Error = (i) => i * 10) {
  const runs: number[][] = []
  const batch = new TurnBatch<number, number>(async (items) => {
    runs.push([...items])
    return items.map(answer)
  }, 3)
  return { runs, batch }
}

describe('TurnBatch', () => {
  it('runs the calls of separate ticks and microtasks of one iteration together, in the order they came', async () => {
    const { runs, batch } = recorder()
    const added: number[] = []
    const answers: Array<Promise<number>> = []
    const add = (i: number) => {
      added.push(i)
      answers.push(batch.add(i))
    }
    // Two timer callbacks of one phase (as two sockets' reads of one poll phase): each ends its own
    // tick, and its microtasks, before the next runs.
    let ranBefore = -1
    await new Promise<void>((resolve) => {
      setTimeout(() => {
        add(1)
        process.nextTick(() => add(2))
        void Promise.resolve().then(() => add(3))
      }, 0)
      setTimeout(() => {
        add(4)
        add(5)
        ranBefore = runs.length
        resolve()
      }, 0)
    })
    expect(ranBefore).toBe(0)
    await new Promise((resolve) => setImmediate(resolve))
    expect(await Promise.all(answers)).toEqual(added.map((i) => i * 10))
    // One flush, cut at 3 items a run.
    expect(runs).toEqual([added.slice(0, 3), added.slice(3)])
  })

  it('a call made after the flush goes in the next run', async () => {
    const { runs, batch } = recorder()
    const a = batch.add(1)
    await new Promise((resolve) => setImmediate(resolve))
    const b = batch.add(2)
    expect(await Promise.all([a, b])).toEqual([10, 20])
    expect(runs).toEqual([[1], [2]])
  })

  it('fails an item alone on its own error, and every item of a run that throws', async () => {
    const { batch } = recorder((i) => (i === 2 ? new Error('two') : i))
    const r = await Promise.allSettled([batch.add(1), batch.add(2), batch.add(3)])
    expect(r.map((x) => (x.status === 'fulfilled' ? x.value : (x.reason as Error).message))).toEqual([1, 'two', 3])
    const failing = new TurnBatch<number, number>(() => {
      throw new Error('down')
    })
    const f = await Promise.allSettled([failing.add(1), failing.add(2)])
    expect(f.map((x) => x.status === 'rejected' && (x.reason as Error).message)).toEqual(['down', 'down'])
  })
})
