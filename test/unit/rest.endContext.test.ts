// A REST request's GraphQL context, and a yoga query's or mutation's, is ended when its operation is
// done: Pothos's scope cache for it is dropped (docs/decisions.md D-225), whether the operation answered
// or failed. Held by the cache itself: one made before the run is the one the run uses, and after the
// run a fresh one comes back.
import { RequestCache } from '@pothos/plugin-scope-auth'
import pino from 'pino'
import { describe, expect, it } from 'vitest'
import { builder } from '../../src/graphql/builder.js'
import { createContext } from '../../src/graphql/context.js'
import { schema } from '../../src/graphql/schema.js'
import { compileRoutes, runRoute, type CompiledRoute } from '../../src/rest/executor.js'
import { restRoutes } from '../../src/rest/routes.js'
import type { Services } from '../../src/services/services.js'
import { useEndContext } from '../../src/graphql/yoga.js'

const services = { log: pino({ level: 'silent' }) } as unknown as Services
const request = { params: {}, query: {}, body: undefined }

describe('runRoute', () => {
  it('drops the scope cache of a context whose operation failed its scope check', async () => {
    const [route] = compileRoutes(schema, restRoutes.filter((r) => r.method === 'GET' && r.path === '/perps/orders'))
    const ctx = createContext(services, 'c-1', true)
    const during = RequestCache.fromContext(ctx, builder as never)
    await expect(runRoute(route!, request, ctx)).rejects.toMatchObject({ code: 'MISSING_CREDENTIAL' })
    // The run used the cache made before it (the scope check was cached there)…
    expect(during['scopeCache'].size + during['typeCache'].size + during['mapCache'].size).toBeGreaterThan(0)
    // …and left none behind.
    expect(RequestCache.fromContext(ctx, builder as never)).not.toBe(during)
  })

  it('drops it after an operation that answered', async () => {
    const ctx = createContext(services, 'c-2', true)
    const during = RequestCache.fromContext(ctx, builder as never)
    let seen: unknown
    const route = {
      method: 'GET',
      path: '/x',
      auth: 'public',
      operation: '',
      summary: '',
      tag: 'Service',
      shape: (data: Record<string, unknown>) => data['ok'],
      run: (c: object) => {
        seen = RequestCache.fromContext(c, builder as never)
        return { data: { ok: 1 } }
      },
    } as unknown as CompiledRoute
    expect((await runRoute(route, request, ctx)).body).toBe(1)
    expect(seen).toBe(during)
    expect(RequestCache.fromContext(ctx, builder as never)).not.toBe(during)
  })
})

describe('useEndContext (yoga)', () => {
  it('drops the scope cache of a query or mutation once it has executed', () => {
    const ctx = createContext(services, 'c-3', false)
    const during = RequestCache.fromContext(ctx, builder as never)
    const hooks = (useEndContext().onExecute as (p: unknown) => { onExecuteDone(): void })({ args: { contextValue: ctx } })
    expect(RequestCache.fromContext(ctx, builder as never)).toBe(during)
    hooks.onExecuteDone()
    expect(RequestCache.fromContext(ctx, builder as never)).not.toBe(during)
  })
})
