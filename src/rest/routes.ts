// The REST route table: every documented path, in one list.
import { identityRoutes } from './identityRoutes.js'
import { marketRoutes } from './marketRoutes.js'
import { mmpRoutes } from './mmpRoutes.js'
import { optionRoutes } from './optionRoutes.js'
import type { RestRoute } from './route.js'
import { tradingRoutes } from './tradingRoutes.js'
import { walletRoutes } from './walletRoutes.js'

export const restRoutes: readonly RestRoute[] = [...marketRoutes, ...identityRoutes, ...tradingRoutes, ...optionRoutes, ...mmpRoutes, ...walletRoutes]
