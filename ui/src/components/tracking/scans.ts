// Where the Scanning screen's scan field sends a code: to the numbers input that waits for one (a
// serial number, a batch of a receipt, a batch in the list), else it is an item, location or shop
// order scan as ever.
import { useEffect, useRef } from 'react'

/** Takes a scanned code, or answers false to leave it to the next taker (and in the end, the screen). */
export type Taker = (code: string) => boolean

/** The inputs waiting for numbers, the latest first: the one on screen last is asked first. */
const takers: Taker[] = []

/** Gives `code` to the inputs waiting for numbers, in turn; whether one took it. */
export function routeScan(code: string): boolean {
  return takers.some((take) => take(code))
}

/**
 * Asks `take` for each scan while `waiting` (an input that still misses numbers), for as long as
 * the component is on screen. `take` may change on every render: the latest one is asked.
 */
export function useScanTaker(waiting: boolean, take: Taker): void {
  const latest = useRef(take)
  useEffect(() => {
    latest.current = take
  })
  useEffect(() => {
    if (!waiting) return
    const taker: Taker = (code) => latest.current(code)
    takers.unshift(taker)
    return () => {
      const at = takers.indexOf(taker)
      if (at >= 0) takers.splice(at, 1)
    }
  }, [waiting])
}
