// What a count changes: the stock the local copy expects at the place, the counted quantity and
// the difference. A large difference is asked about before it is saved: a miscount (a digit too
// many, the wrong place) would otherwise become the stock.

export interface CountDifference {
  expected: number
  counted: number
  /** Counted less expected. */
  difference: number
  /** Worth a second look: at least one unit and a tenth of what is expected (anything, where nothing is). */
  large: boolean
}

const round = (n: number) => Math.round(n * 1e6) / 1e6

/** Null while the expected stock or the count is not known. */
export function countDifference(expected: number | null, counted: number | null): CountDifference | null {
  if (expected === null || counted === null) return null
  const difference = round(counted - expected)
  const size = Math.abs(difference)
  const large = size >= 1 && size >= Math.abs(expected) / 10
  return { expected, counted, difference, large }
}
