// The README's code blocks, for tests that run what it shows (so its examples stay true).
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { ROOT } from './mainProcess.js'

/** The body of the one fenced block in README.md whose first line starts with `firstLine`. */
export function readmeBlock(firstLine: string): string {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8')
  const blocks = [...readme.matchAll(/^```[a-z]*\n([\s\S]*?)^```$/gm)].map((m) => m[1]!).filter((b) => b.startsWith(firstLine))
  if (blocks.length !== 1) throw new Error(`README.md has ${blocks.length} code blocks starting with ${JSON.stringify(firstLine)}`)
  return blocks[0]!
}
