// Late shop orders: the planned (end) date has passed and the order is not finished.

/** Exact's shop order status from which an order is finished (30 finished, 40 completed). */
const FINISHED = 30

/** Whether an order whose planned date is `endDay` (calendar day) is late on `today`. */
export function isLate(endDay: number, status: number, today: number): boolean {
  return endDay < today && !(status >= FINISHED)
}

/** How many of the orders are late on `today`. */
export function lateCount(orders: readonly { endDay: number; status: number }[], today: number): number {
  let n = 0
  for (const o of orders) if (isLate(o.endDay, o.status, today)) n++
  return n
}
