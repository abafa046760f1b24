// The schema: every area registers its types on the builder; this file only gathers them.
import { builder } from './builder.js'
import { refuseNulArguments } from './nulArguments.js'
import './scalars.js'
import './types/markets.js'
import './types/options.js'
import './types/catalog.js'
import './types/identity.js'
import './types/trading.js'
import './types/account.js'
import './types/mmp.js'
import './types/subscriptions.js'

export const schema = refuseNulArguments(builder.toSchema({ sortSchema: false }))
