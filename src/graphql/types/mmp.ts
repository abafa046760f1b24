// Market-maker protection (src/engine/mmp.ts): the caller's configuration and state per underlying,
// set and reset. Protected are option quotes (placeQuote, placeBulkQuotes) and orders placed with
// `mmp: true`; a trip cancels them all and refuses new ones with MMP_FROZEN until the freeze ends.
import type { MmpView } from '../../engine/mmp.js'
import { COST } from '../cost.js'
import { builder } from '../builder.js'
import { principal } from './trading.js'

const read = { authScopes: { level: 'read' as const } }
const trade = { authScopes: { level: 'trade' as const } }
const UNDERLYING = 'The underlying (BTC, the only one with options today).'

export const MmpConfigRef = builder.objectRef<MmpView>('MmpConfig').implement({
  description: 'Market-maker protection of one underlying: trips when the protected fills within intervalMs exceed quantityLimit or |net delta| exceeds deltaLimit.',
  fields: (t) => ({
    underlying: t.exposeString('underlying', { description: 'The underlying it protects (BTC).' }),
    enabled: t.exposeBoolean('enabled', { description: 'False until configured (or with intervalMs 0): fills are not counted.' }),
    intervalMs: t.field({ type: 'SafeInt', description: 'The window protected fills are counted over, ms; 0: protection off.', resolve: (c) => c.intervalMs }),
    frozenMs: t.field({ type: 'SafeInt', description: 'How long a trip freezes protected orders; 0: until resetMmp.', resolve: (c) => c.frozenMs }),
    quantityLimit: t.field({ type: 'Decimal', description: 'Contracts (units of the underlying); 0: no limit.', resolve: (c) => c.quantityLimit }),
    deltaLimit: t.field({ type: 'Decimal', description: 'Absolute net delta in units of the underlying; 0: no limit.', resolve: (c) => c.deltaLimit }),
    frozen: t.exposeBoolean('frozen', { description: 'New protected orders are refused MMP_FROZEN.' }),
    trippedAt: t.field({ type: 'DateTime', nullable: true, description: 'The last trip not yet reset.', resolve: (c) => (c.trippedAt ? new Date(c.trippedAt) : null) }),
    frozenUntil: t.field({ type: 'DateTime', nullable: true, description: 'End of the freeze; null while tripped means until reset.', resolve: (c) => (c.frozenUntil ? new Date(c.frozenUntil) : null) }),
  }),
})

const SetMmpConfigInput = builder.inputType('SetMmpConfigInput', {
  description: 'Market-maker protection settings of one underlying (REST POST /mmp/config takes the same fields).',
  fields: (t) => ({
    underlying: t.string({ defaultValue: 'BTC', description: UNDERLYING }),
    intervalMs: t.field({ type: 'SafeInt', required: true, description: 'The window fills are counted over, 1 to 3,600,000 ms; 0 turns protection off.' }),
    frozenMs: t.field({ type: 'SafeInt', required: true, description: 'How long a trip freezes, up to 86,400,000 ms; 0: until resetMmp.' }),
    quantityLimit: t.field({ type: 'Decimal', description: 'Contracts filled within the window (at most 6 decimals); 0 or absent: no limit.' }),
    deltaLimit: t.field({ type: 'Decimal', description: 'Absolute net delta filled within the window; 0 or absent: no limit.' }),
  }),
})

builder.queryFields((t) => ({
  mmpConfig: t.field({
    nullable: true,
    ...read,
    type: MmpConfigRef,
    complexity: COST.optionsBalance,
    description: 'The caller\'s market-maker protection on an underlying, as committed (enabled false when never set). REST: GET /mmp/config.',
    args: { underlying: t.arg.string({ defaultValue: 'BTC', description: UNDERLYING }) },
    resolve: (_root, { underlying }, ctx) => ctx.services.mmp.config(principal(ctx), underlying),
  }),
}))

builder.mutationFields((t) => ({
  setMmpConfig: t.field({
    nullable: true,
    ...trade,
    type: MmpConfigRef,
    description: 'Sets the caller\'s market-maker protection on an underlying; starts a new window (a freeze stands). REST: POST /mmp/config.',
    args: { input: t.arg({ type: SetMmpConfigInput, required: true, description: 'The settings.' }) },
    resolve: (_root, { input }, ctx) => ctx.services.mmp.setConfig(principal(ctx), input, ctx.correlationId),
  }),
  resetMmp: t.field({
    nullable: true,
    ...trade,
    type: MmpConfigRef,
    description: 'Ends a freeze of the caller\'s market-maker protection and starts a new window. REST: POST /mmp/reset.',
    args: { underlying: t.arg.string({ defaultValue: 'BTC', description: UNDERLYING }) },
    resolve: (_root, { underlying }, ctx) => ctx.services.mmp.reset(principal(ctx), underlying, ctx.correlationId),
  }),
}))
