// Waiting for a condition that no event announces (a process state, a row in PostgreSQL): checked every
// `intervalMs`, failing with `what` once `timeoutMs` has passed. Bounds are generous; nothing asserts speed.
//   await pollUntil(async () => (await count()) > 0, { what: 'the first commit' })

export async function pollUntil<T>(
  check: () => Promise<T | false | null | undefined> | T | false | null | undefined,
  o: { what: string; timeoutMs?: number; intervalMs?: number },
): Promise<T> {
  const deadline = Date.now() + (o.timeoutMs ?? 30_000)
  for (;;) {
    const value = await check()
    if (value !== false && value !== null && value !== undefined) return value
    if (Date.now() > deadline) throw new Error(`timed out after ${o.timeoutMs ?? 30_000} ms waiting for ${o.what}`)
    await new Promise((resolve) => setTimeout(resolve, o.intervalMs ?? 50))
  }
}
