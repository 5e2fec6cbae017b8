// Live reads (Exact Online through the server) and how old they are: while Exact Online cannot be
// reached the server answers from its stored copy and says when that copy was made.
/** Rows read live; `asOf` is the stored copy's time (epoch ms) when the server answered from it, else null. */
export interface LiveRows<T> {
  rows: T[]
  asOf: number | null
}

/** The oldest of some as-of times: what a screen that shows them together is as of (null: all live). */
export function oldestAsOf(...times: (number | null | undefined)[]): number | null {
  const known = times.filter((x): x is number => typeof x === 'number')
  return known.length ? Math.min(...known) : null
}

/** Whether a query's data was answered from the server's stored copy (it carries an as-of time). */
export function isDated(data: unknown): boolean {
  return typeof data === 'object' && data !== null && typeof (data as { asOf?: unknown }).asOf === 'number'
}

/** Several reads as one: their rows in order, as of the oldest. */
export function joinLive<T>(parts: readonly LiveRows<T>[]): LiveRows<T> {
  return { rows: parts.flatMap((p) => p.rows), asOf: oldestAsOf(...parts.map((p) => p.asOf)) }
}
