// What the bundle `npm start` runs (and the container image ships, with `npm ci --omit=dev`) imports at
// run time: every package it names is a production dependency, so an install without the dev ones (no
// tsx, no Prisma CLI, no esbuild) runs it; the Prisma client generated into src/generated is inside it.
import { readFileSync } from 'node:fs'
import { builtinModules } from 'node:module'
import { join } from 'node:path'
import { build } from 'esbuild'
import { describe, expect, it } from 'vitest'
import { MAIN_BUNDLE, ROOT } from '../support/mainProcess.js'

/** The packages the built bundle imports, as esbuild reads its import statements. */
async function importedPackages(): Promise<string[]> {
  const { metafile } = await build({
    absWorkingDir: ROOT, entryPoints: [MAIN_BUNDLE], bundle: true, packages: 'external', platform: 'node', format: 'esm',
    write: false, metafile: true, logLevel: 'silent',
  })
  const specifiers = metafile.inputs[MAIN_BUNDLE]!.imports.filter((i) => i.external).map((i) => i.path)
  const packages = specifiers
    .filter((s) => !s.startsWith('node:') && !builtinModules.includes(s))
    .map((s) => s.split('/').slice(0, s.startsWith('@') ? 2 : 1).join('/'))
  return [...new Set(packages)].sort()
}

describe('the built bundle (dist/app/main.mjs)', () => {
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { dependencies: Record<string, string> }

  it('imports production dependencies only, and no tsx', async () => {
    const imported = await importedPackages()
    expect(imported).toContain('@prisma/client')
    expect(imported).toContain('fastify')
    expect(imported).not.toContain('tsx')
    expect(imported.filter((p) => !(p in pkg.dependencies))).toEqual([])
  })

  it('carries the generated Prisma client', () => {
    expect(readFileSync(join(ROOT, MAIN_BUNDLE), 'utf8')).toMatch(/src\/generated\/prisma\/client\.ts/)
  })
})
