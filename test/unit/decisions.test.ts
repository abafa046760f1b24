// docs/decisions.md: every entry can be cited by a number of its own and says when it was written.
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'

const text = readFileSync(new URL('../../docs/decisions.md', import.meta.url), 'utf8')
/** Top-level list items: the entries (nested items belong to the entry above them). */
const entries = text.split('\n').filter((line) => line.startsWith('- '))
const HEAD = /^- \[D-(\d{3,}), (\d{4}-\d{2}-\d{2})\] \S/

describe('docs/decisions.md', () => {
  it('numbers and dates every entry', () => {
    expect(entries.length).toBeGreaterThan(100)
    expect(entries.filter((e) => !HEAD.test(e))).toEqual([])
  })

  it('never gives two entries one number', () => {
    const numbers = entries.map((e) => HEAD.exec(e)?.[1]).filter((n) => n !== undefined)
    const twice = numbers.filter((n, i) => numbers.indexOf(n) !== i)
    expect(twice).toEqual([])
  })

  it('dates entries with real days', () => {
    const bad = entries.map((e) => HEAD.exec(e)?.[2]).filter((d) => d !== undefined && new Date(`${d}T00:00:00Z`).toISOString().slice(0, 10) !== d)
    expect(bad).toEqual([])
  })
})
