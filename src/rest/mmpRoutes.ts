// Market-maker protection (beyond SPEC.md; src/engine/mmp.ts): the caller's configuration per
// underlying, set, read and reset, each one GraphQL operation. Writes need scope `trade` and are not
// order-path requests (a market maker must be able to reset while rate limited); the read needs any credential.
import { z } from 'zod'
import { decimal, queryText, text } from './requestSchema.js'
import { MmpConfig } from './responseSchemas.js'
import { defineRoute, type RestRoute } from './route.js'

const MMP_FIELDS = 'underlying enabled intervalMs frozenMs quantityLimit deltaLimit frozen trippedAt frozenUntil'
const underlying = () => text('Underlying symbol; default `BTC`.').nullish()

export const mmpRoutes: RestRoute[] = [
  defineRoute({
    method: 'GET',
    path: '/mmp/config',
    auth: 'read',
    tag: 'Market-maker protection',
    summary: 'The caller\'s MMP configuration and state',
    description: 'Includes whether protection is `frozen`, when it tripped and until when it stays frozen.',
    query: z.object({ underlying: queryText('Underlying symbol; default `BTC`.').optional() }),
    response: MmpConfig,
    operation: `query RestMmp($underlying: String) { mmpConfig(underlying: $underlying) { ${MMP_FIELDS} } }`,
    variables: ({ query }) => ({ underlying: query.underlying ?? 'BTC' }),
    shape: (data) => data['mmpConfig'],
  }),
  defineRoute({
    method: 'POST',
    path: '/mmp/config',
    auth: 'trade',
    tag: 'Market-maker protection',
    summary: 'Set market-maker protection',
    description:
      'When the fills of protected orders (quotes, bulk quotes, option orders sent with `mmp: true`) within `intervalMs` exceed `quantityLimit` contracts or an absolute net delta of `deltaLimit`, the engine cancels them all on that underlying and refuses new ones with `422 MMP_FROZEN` for `frozenMs` (0: until a reset). Not an order-path request: not rate limited.',
    body: z.strictObject({
      underlying: underlying(),
      intervalMs: z.number().int().meta({ description: 'The window fills are counted over, 1 to 3,600,000 ms; 0 turns protection off.' }),
      frozenMs: z.number().int().meta({ description: 'How long protection stays frozen after it trips; 0: until a reset.' }),
      quantityLimit: decimal('Contracts filled within the window (at most 6 decimals); 0 or absent: no limit.').nullish(),
      deltaLimit: decimal('Absolute net delta filled within the window; 0 or absent: no limit.').nullish(),
    }),
    response: MmpConfig,
    operation: `mutation RestSetMmp($input: SetMmpConfigInput!) { setMmpConfig(input: $input) { ${MMP_FIELDS} } }`,
    variables: ({ body }) => ({
      input: { underlying: body.underlying ?? 'BTC', intervalMs: body.intervalMs, frozenMs: body.frozenMs, quantityLimit: body.quantityLimit ?? undefined, deltaLimit: body.deltaLimit ?? undefined },
    }),
    shape: (data) => data['setMmpConfig'],
  }),
  defineRoute({
    method: 'POST',
    path: '/mmp/reset',
    auth: 'trade',
    tag: 'Market-maker protection',
    summary: 'Unfreeze market-maker protection',
    description: 'Ends a freeze at once; the configuration stays.',
    body: z.strictObject({ underlying: underlying() }).optional(),
    response: MmpConfig,
    operation: `mutation RestResetMmp($underlying: String) { resetMmp(underlying: $underlying) { ${MMP_FIELDS} } }`,
    variables: ({ body }) => ({ underlying: body?.underlying ?? 'BTC' }),
    shape: (data) => data['resetMmp'],
  }),
]
