// "Shift the whole project" (the spec's ShiftingFullProject): when one shop order's dates move,
// every other open order of its project moves by as many days, counted as the timeline counts
// them (workdays when the organization hides weekends). The provider has no call for this: each
// order is its own update.
import { dayIso, isWeekendDay, shiftDay, toDay } from './timeline.ts'

export interface ShiftableOrder {
  ID: string
  ShopOrderNumber: number
  Project: string | null
  PlannedStartDate: unknown
  PlannedDate: unknown
}

/** The date fields a move writes (`YYYY-MM-DD`). */
export interface DateChange {
  PlannedStartDate?: string
  PlannedDate?: string
}

/** One order's move: days (null where the order has no such date) before and after. */
export interface ProjectMove<O extends ShiftableOrder = ShiftableOrder> {
  order: O
  fromStart: number | null
  fromEnd: number | null
  toStart: number | null
  toEnd: number | null
}

/**
 * Days from `from` to `to`, negative when earlier. With `skipWeekends` only Monday to Friday
 * count (the start day not counted), so a move from Friday to Monday is 1, as a drag of one
 * column on a timeline without weekends.
 */
export function daysBetween(from: number, to: number, skipWeekends: boolean): number {
  if (!skipWeekends) return to - from
  const step = to < from ? -1 : 1
  let n = 0
  for (let d = from; d !== to;) {
    d += step
    if (!isWeekendDay(d)) n += step
  }
  return n
}

const dayOf = (iso: string | undefined) => (iso === undefined ? null : toDay(iso))

/**
 * How many days a change moves an order: by its start when the start changes, else by its
 * planned date. An order without a start is placed by its planned date.
 */
export function moveDays(order: ShiftableOrder, change: DateChange, skipWeekends: boolean): number {
  const oldStart = toDay(order.PlannedStartDate) ?? toDay(order.PlannedDate)
  const oldEnd = toDay(order.PlannedDate) ?? oldStart
  const newStart = dayOf(change.PlannedStartDate)
  const newEnd = dayOf(change.PlannedDate)
  if (newStart !== null && oldStart !== null && newStart !== oldStart) return daysBetween(oldStart, newStart, skipWeekends)
  if (newEnd !== null && oldEnd !== null) return daysBetween(oldEnd, newEnd, skipWeekends)
  return 0
}

const sameId = (a: string | null, b: string | null) => !!a && !!b && a.toLowerCase() === b.toLowerCase()

/**
 * The moves of a project shift: the order the user moved first (with the dates they chose),
 * then every other order of its project that has a date, each moved by the same number of
 * days, earliest first. Only the moved order when it has no project or the move is 0 days.
 */
export function projectMoves<O extends ShiftableOrder>(orders: readonly O[], moved: O, change: DateChange, skipWeekends: boolean): ProjectMove<O>[] {
  const fromStart = toDay(moved.PlannedStartDate)
  const fromEnd = toDay(moved.PlannedDate)
  const first: ProjectMove<O> = {
    order: moved,
    fromStart,
    fromEnd,
    toStart: dayOf(change.PlannedStartDate) ?? fromStart,
    toEnd: dayOf(change.PlannedDate) ?? fromEnd,
  }
  const days = moveDays(moved, change, skipWeekends)
  if (!moved.Project || days === 0) return [first]
  const others = orders
    .filter((o) => o.ID !== moved.ID && sameId(o.Project, moved.Project))
    .map((o): ProjectMove<O> => {
      const start = toDay(o.PlannedStartDate)
      const end = toDay(o.PlannedDate)
      return {
        order: o,
        fromStart: start,
        fromEnd: end,
        toStart: start === null ? null : shiftDay(start, days, skipWeekends),
        toEnd: end === null ? null : shiftDay(end, days, skipWeekends),
      }
    })
    .filter((m) => m.fromStart !== null || m.fromEnd !== null)
    .sort((a, b) => (a.fromStart ?? a.fromEnd ?? 0) - (b.fromStart ?? b.fromEnd ?? 0) || a.order.ShopOrderNumber - b.order.ShopOrderNumber)
  return [first, ...others]
}

/** The update one move sends: only the dates that change. */
export function moveChange(m: ProjectMove): DateChange {
  const change: DateChange = {}
  if (m.toStart !== null && m.toStart !== m.fromStart) change.PlannedStartDate = dayIso(m.toStart)
  if (m.toEnd !== null && m.toEnd !== m.fromEnd) change.PlannedDate = dayIso(m.toEnd)
  return change
}
