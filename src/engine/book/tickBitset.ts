// Owns TickBitset: the set of occupied slots of a price ladder, with O(1) nearest-member queries so a
// new level finds its price neighbours without a tree.

const lowestBit = (bits: number): number => 31 - Math.clz32(bits & -bits)
const highestBit = (bits: number): number => 31 - Math.clz32(bits)

/** A subset of [0, size): a bit per slot plus a summary bit per non-zero 32-slot word, so a nearest
 * member costs a word, a scan of at most size / 1024 summary words, and a word. */
export class TickBitset {
  readonly size: number
  private readonly words: Int32Array
  private readonly summary: Int32Array

  constructor(size: number) {
    if (!Number.isSafeInteger(size) || size < 32 || size % 32 !== 0) throw new RangeError(`bitset size must be a positive multiple of 32, got ${size}`)
    this.size = size
    this.words = new Int32Array(size >> 5)
    this.summary = new Int32Array(Math.ceil(size / 1024))
  }

  has(i: number): boolean {
    return ((this.words[i >> 5] as number) & (1 << (i & 31))) !== 0
  }

  add(i: number): void {
    this.words[i >> 5] = (this.words[i >> 5] as number) | (1 << (i & 31))
    this.summary[i >> 10] = (this.summary[i >> 10] as number) | (1 << ((i >> 5) & 31))
  }

  delete(i: number): void {
    const w = i >> 5
    const bits = (this.words[w] as number) & ~(1 << (i & 31))
    this.words[w] = bits
    if (bits === 0) this.summary[w >> 5] = (this.summary[w >> 5] as number) & ~(1 << (w & 31))
  }

  clear(): void {
    this.words.fill(0)
    this.summary.fill(0)
  }

  /** The highest member ≤ i, or -1; i may be -1. */
  atOrBelow(i: number): number {
    if (i < 0) return -1
    let w = i >> 5
    // (2 << b) - 1 keeps bits 0..b, also for b = 31 where 2 << 31 wraps to 0.
    let bits = (this.words[w] as number) & ((2 << (i & 31)) - 1)
    if (bits === 0) {
      const summary = this.summary
      let s = w >> 5
      let words = (summary[s] as number) & ((1 << (w & 31)) - 1)
      while (words === 0) {
        if (--s < 0) return -1
        words = summary[s] as number
      }
      w = (s << 5) + highestBit(words)
      bits = this.words[w] as number
    }
    return (w << 5) + highestBit(bits)
  }

  /** The lowest member ≥ i, or -1; i may be size. */
  atOrAbove(i: number): number {
    if (i >= this.size) return -1
    let w = i >> 5
    let bits = (this.words[w] as number) & (-1 << (i & 31))
    if (bits === 0) {
      const summary = this.summary
      let s = w >> 5
      // -2 << b keeps bits above b, and nothing for b = 31.
      let words = (summary[s] as number) & (-2 << (w & 31))
      while (words === 0) {
        if (++s >= summary.length) return -1
        words = summary[s] as number
      }
      w = (s << 5) + lowestBit(words)
      bits = this.words[w] as number
    }
    return (w << 5) + lowestBit(bits)
  }

  /** Throws unless every summary bit says exactly whether its word is non-zero. */
  validate(): void {
    const words = this.words.length
    for (let s = 0; s < this.summary.length; s++) {
      for (let b = 0; b < 32; b++) {
        const w = (s << 5) + b
        const marked = ((this.summary[s] as number) & (1 << b)) !== 0
        if (marked !== (w < words && this.words[w] !== 0)) throw new Error(`TickBitset summary bit ${w} is ${marked} for word ${this.words[w]}`)
      }
    }
  }
}
