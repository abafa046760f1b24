// FNV-1a over a string's UTF-16 code units: a fast 32-bit hash that is the same in every process
// (V8's own string hash is seeded per process), for anything that must hash deterministically.

/** The hash as a signed 32-bit integer (`>>> 0` for the unsigned value). */
export function fnv1a(s: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < s.length; i++) h = Math.imul(h ^ s.charCodeAt(i), 0x01000193)
  return h
}
