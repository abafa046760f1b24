// Pushed marks for end-to-end tests: the BTC spot and the two listed quarterlies, from which the
// perpetual's index follows (the curve DESIGN.md §5 builds it from).
import { isoDate, nextQuarterlyExpiries } from '../../src/domain/calendar.js'
import { testClock } from './clock.js'
import { ADMIN } from './exchange.js'
import type { Http } from './http.js'

/** The listed BTC quarterlies, nearest first. */
export const btcFutures = (now = testClock.now()): string[] => nextQuarterlyExpiries(now, 2).map((e) => `BTC-USDC-${isoDate(e)}`)

/** A `POST /admin/marks` body putting the BTC spot and both quarterlies at `price`. */
export const btcCurveMarks = (price: string) => ({ marks: ['BTC-USDC-SPOT', ...btcFutures()].map((marketId) => ({ marketId, price })) })

/** Pushes btcCurveMarks(price) as the operator. */
export const pushBtcCurve = (api: Http, price: string) => api.post('/admin/marks', btcCurveMarks(price), ADMIN)
