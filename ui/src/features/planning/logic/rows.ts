// The timeline's rows: shop orders with planned dates, in the order of their start as last read.
import { toDay } from './timeline.ts'

interface Dated {
  PlannedStartDate?: unknown
  PlannedDate?: unknown
  ShopOrderNumber: number
}

function days(o: Dated): { startDay: number; endDay: number } | null {
  const s = toDay(o.PlannedStartDate) ?? toDay(o.PlannedDate)
  const e = toDay(o.PlannedDate) ?? s
  return s !== null && e !== null ? { startDay: s, endDay: Math.max(s, e) } : null
}

/**
 * The orders with dates (the changes being written applied), sorted by the start they had as
 * read, not as changed: a dragged order keeps its row while its write settles instead of jumping
 * to where its new start would sort (the rows fall in place when the orders are read again).
 */
export function datedRows<O extends Dated & { ID: string }>(read: readonly O[], changed: (o: O) => O): { order: O; startDay: number; endDay: number }[] {
  const out: { order: O; startDay: number; endDay: number; sortDay: number }[] = []
  for (const o of read) {
    const order = changed(o)
    const now = days(order)
    if (!now) continue
    out.push({ order, ...now, sortDay: days(o)?.startDay ?? now.startDay })
  }
  out.sort((a, b) => a.sortDay - b.sortDay || a.order.ShopOrderNumber - b.order.ShopOrderNumber)
  return out.map(({ order, startDay, endDay }) => ({ order, startDay, endDay }))
}
