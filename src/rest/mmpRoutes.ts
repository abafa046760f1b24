// Market-maker protection (beyond SPEC.md; src/engine/mmp.ts): the caller's configuration per
// underlying, set, read and reset, each one GraphQL operation. Writes need scope `trade` and are not
// order-path requests (a market maker must be able to reset while rate limited); the read needs any credential.
import type { RestRoute } from './route.js'
import { jsonBody, onlyFields, optString, queryString } from './requestFields.js'

const MMP_FIELDS = 'underlying enabled intervalMs frozenMs quantityLimit deltaLimit frozen trippedAt frozenUntil'

export const mmpRoutes: RestRoute[] = [
  {
    method: 'GET',
    path: '/mmp/config',
    auth: 'read',
    operation: `query RestMmp($underlying: String) { mmpConfig(underlying: $underlying) { ${MMP_FIELDS} } }`,
    variables: (req) => ({ underlying: queryString(req, 'underlying') ?? 'BTC' }),
    shape: (data) => data['mmpConfig'],
  },
  {
    method: 'POST',
    path: '/mmp/config',
    auth: 'trade',
    operation: `mutation RestSetMmp($input: SetMmpConfigInput!) { setMmpConfig(input: $input) { ${MMP_FIELDS} } }`,
    variables: (req) => {
      const b = onlyFields(jsonBody(req), ['underlying', 'intervalMs', 'frozenMs', 'quantityLimit', 'deltaLimit'])
      return {
        input: {
          underlying: optString(b, 'underlying') ?? 'BTC',
          intervalMs: b['intervalMs'],
          frozenMs: b['frozenMs'],
          quantityLimit: optString(b, 'quantityLimit'),
          deltaLimit: optString(b, 'deltaLimit'),
        },
      }
    },
    shape: (data) => data['setMmpConfig'],
  },
  {
    method: 'POST',
    path: '/mmp/reset',
    auth: 'trade',
    operation: `mutation RestResetMmp($underlying: String) { resetMmp(underlying: $underlying) { ${MMP_FIELDS} } }`,
    variables: (req) => ({ underlying: optString(onlyFields(jsonBody(req, true), ['underlying']), 'underlying') ?? 'BTC' }),
    shape: (data) => data['resetMmp'],
  },
]
