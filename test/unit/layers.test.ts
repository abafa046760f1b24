// The folders of src/ are layers (DESIGN.md §13) and their imports point inward: domain imports nothing of
// ours, the engine only the domain; the GraphQL layer may use the streams, never the other way round
// (graphql-ws is the GraphQL layer's transport, src/graphql/graphqlWs.ts). Folders that import each other
// are listed here, so that the list can only shrink.
import { readdirSync, readFileSync } from 'node:fs'
import { dirname, join, normalize, relative } from 'node:path'
import { describe, expect, it } from 'vitest'

const SRC = join(import.meta.dirname, '../../src')

/** The folder (or root file) of src/ a path is in. */
const layerOf = (path: string) => relative(SRC, path).split('/')[0]!.replace(/\.(js|ts)$/, '')

/** Folder → the other folders its files import from (static imports, `export … from` and `import()`). */
function layerImports(): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>()
  const files = readdirSync(SRC, { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('.ts'))
  for (const file of files) {
    const path = join(SRC, file)
    const from = layerOf(path)
    const text = readFileSync(path, 'utf8')
    for (const m of text.matchAll(/(?:from|import\()\s*'(\.{1,2}\/[^']+)'/g)) {
      const to = layerOf(normalize(join(dirname(path), m[1]!)))
      if (to === from) continue
      if (!edges.has(from)) edges.set(from, new Set())
      edges.get(from)!.add(to)
    }
  }
  return edges
}

describe('layers', () => {
  const edges = layerImports()
  const of = (layer: string) => [...(edges.get(layer) ?? [])].sort()

  it('sees the folders it rules on (a broken scan would pass everything)', () => {
    expect(edges.size).toBeGreaterThan(10)
    expect(of('graphql')).toContain('streams')
  })

  it('domain imports nothing of ours', () => {
    expect(of('domain')).toEqual([])
  })

  it('the engine imports only the domain', () => {
    expect(of('engine')).toEqual(['domain'])
  })

  it('the streams do not import the GraphQL layer', () => {
    expect(of('streams')).not.toContain('graphql')
  })

  it('no folders import each other beyond the known ones', () => {
    const mutual = [...edges].flatMap(([a, tos]) => [...tos].filter((b) => a < b && edges.get(b)?.has(a)).map((b) => `${a} ↔ ${b}`))
    // Type imports both ways, left to untangle: the caller type (auth ↔ graphql), the services and
    // metrics interfaces the streams report through, and the stream server's error bodies.
    expect(mutual.sort()).toEqual(['auth ↔ graphql', 'http ↔ streams', 'metrics ↔ streams', 'services ↔ streams'])
  })
})
