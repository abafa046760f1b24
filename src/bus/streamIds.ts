// Redis stream ids ("<ms>-<seq>") compared as the pairs of integers they are.

export function compareStreamIds(a: string, b: string): number {
  const [am, as] = split(a)
  const [bm, bs] = split(b)
  return am !== bm ? (am < bm ? -1 : 1) : as === bs ? 0 : as < bs ? -1 : 1
}

function split(id: string): [bigint, bigint] {
  const dash = id.indexOf('-')
  return dash < 0 ? [BigInt(id), 0n] : [BigInt(id.slice(0, dash)), BigInt(id.slice(dash + 1))]
}
