// The REST route table: every documented path, in one list.
import { marketRoutes } from './marketRoutes.js'
import type { RestRoute } from './route.js'

export const restRoutes: readonly RestRoute[] = [...marketRoutes]
