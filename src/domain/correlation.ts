// Correlation credits between families of one asset class (DESIGN.md §6), in percent of the smaller
// offsetting requirement. Precious metals' figure is ours: the spec gives none.
import type { AssetClass } from './market.js'

export const CORRELATION_CREDIT: Readonly<Record<AssetClass, number>> = {
  crypto: 50,
  energy: 40,
  precious_metals: 45,
}
