// Undo of the last move on the planning: the dates each moved order had before, to write back
// through the outbox like any change, and what the toast about the move says.
import { t } from '../../../i18n/index.ts'
import { formatWeekday } from '../../../lib/dateTime.ts'
import type { DateChange } from './projectShift.ts'
import { dayIso, toDay } from './timeline.ts'

interface Dates {
  PlannedStartDate?: unknown
  PlannedDate?: unknown
}

/** One shop order of a move: the dates it had and the dates the move gave it. */
export interface OrderMove {
  id: string
  number: number
  /** Null when a date it replaced was empty: an empty date cannot be written back. */
  before: DateChange | null
  after: DateChange
}

/** The last move, as its toast shows it. */
export interface Move {
  /** A new move (a new id) restarts the toast. */
  id: number
  orders: OrderMove[]
  /** The project of a shift of the whole project. */
  project: string | null
  /** This move took the one before back: it has no undo of its own. */
  back: boolean
}

const FIELDS = ['PlannedStartDate', 'PlannedDate'] as const

/** The dates `change` replaces, as `order` has them now; null when one of them is empty. */
export function datesBefore(order: Dates, change: DateChange): DateChange | null {
  const before: DateChange = {}
  for (const field of FIELDS) {
    if (change[field] === undefined) continue
    const day = toDay(order[field])
    if (day === null) return null
    before[field] = dayIso(day)
  }
  return before
}

/**
 * Whether every order still has the dates the move gave it. A refused write takes an order back
 * (nothing left to undo), and so does a change made elsewhere that a sync brought in.
 */
export function moveStands(move: Move, current: (id: string) => Dates | undefined): boolean {
  return move.orders.every((o) => {
    const now = current(o.id)
    return !!now && FIELDS.every((f) => o.after[f] === undefined || toDay(now[f]) === toDay(o.after[f]))
  })
}

/** Whether the toast offers Undo: a move (not an undo) whose every order can be put back. */
export function canUndo(move: Move): boolean {
  return !move.back && move.orders.every((o) => o.before !== null)
}

/** The move taking `move` back: each order from where it is now to where it was. */
export function undoMove(move: Move, id: number): Move {
  return {
    id,
    project: move.project,
    back: true,
    orders: move.orders.map((o) => ({ id: o.id, number: o.number, before: o.after, after: o.before ?? {} })),
  }
}

const day = (iso: string) => formatWeekday(iso)

/** "Moved SO 24012 to Thu 3 Dec.", in the user's language. */
export function moveText(move: Move): string {
  if (move.orders.length !== 1) {
    const vars = { count: move.orders.length, project: move.project ?? '' }
    return t(move.back ? 'planning.undo.projectBack' : 'planning.undo.project', vars)
  }
  const [{ number, after }] = move.orders
  const start = after.PlannedStartDate
  const end = after.PlannedDate
  if (move.back) return t('planning.undo.back', { number, date: day(start ?? end ?? '') })
  if (start && end) return t('planning.undo.moved', { number, date: day(start) })
  if (start) return t('planning.undo.movedStart', { number, date: day(start) })
  return t('planning.undo.movedEnd', { number, date: day(end ?? '') })
}
