// Hour registrations (manufacturing time transactions): weeks, totals, validation and the
// operator's running timers (kept by the server; those a browser still keeps are handed over).
import type { Schema } from '../../api/contract.ts'
import type { MessageKey } from '../../i18n/index.ts'
import type { Row } from '../../api/db.ts'
import { providerDay } from '../../lib/dateTime.ts'
import { isoDay } from '../../lib/odata.ts'
import { formatQuantity, parseQuantity } from '../../lib/quantity.ts'
import { isApiError } from '../../api/client.ts'

/** The provider's TimeTransactions.Activity codes. */
export const ACTIVITY = { setup: 10, run: 20 } as const
export type Activity = keyof typeof ACTIVITY

export function activityOf(code: unknown): Activity {
  return Number(code) === ACTIVITY.setup ? 'setup' : 'run'
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v))
const num = (v: unknown) => {
  const n = typeof v === 'number' ? v : Number(v)
  return Number.isFinite(n) ? n : 0
}

/** Monday 00:00 (local) of the week holding `d`. */
export function weekStart(d: Date): Date {
  const out = new Date(d.getFullYear(), d.getMonth(), d.getDate())
  out.setDate(out.getDate() - ((out.getDay() + 6) % 7))
  return out
}

export function addDays(d: Date, days: number): Date {
  return new Date(d.getFullYear(), d.getMonth(), d.getDate() + days)
}

export function weekDays(start: Date): Date[] {
  return Array.from({ length: 7 }, (_, i) => addDays(start, i))
}

export interface HourEntry {
  id: string
  employee: string
  /** The provider's date: a local day at midnight. */
  day: string
  hours: number
  activity: Activity
  shopOrder: string
  step: string
  workCenter: string
  notes: string
}

export function toEntries(rows: readonly Row[]): HourEntry[] {
  return rows.map((r) => ({
    id: text(r.ID),
    employee: text(r.Employee).toLowerCase(),
    day: providerDay(r.Date) ?? '',
    hours: num(r.Hours),
    activity: activityOf(r.Activity),
    shopOrder: text(r.ShopOrder).toLowerCase(),
    step: text(r.RoutingStepPlan).toLowerCase(),
    workCenter: text(r.WorkCenter).toLowerCase(),
    notes: text(r.Notes),
  }))
}

export interface WeekRow {
  employee: string
  days: number[]
  total: number
}

/** Hours per employee and weekday (Monday first), rounded to hundredths. */
export function weekTotals(entries: readonly HourEntry[], start: Date): WeekRow[] {
  const days = weekDays(start).map(isoDay)
  const out = new Map<string, WeekRow>()
  for (const e of entries) {
    const i = days.indexOf(e.day)
    if (i < 0) continue
    const row = out.get(e.employee) ?? { employee: e.employee, days: Array(7).fill(0) as number[], total: 0 }
    row.days[i] = round2(row.days[i] + e.hours)
    row.total = round2(row.total + e.hours)
    out.set(e.employee, row)
  }
  return [...out.values()]
}

const round2 = (n: number) => Math.round(n * 100) / 100

/** Why typed hours cannot be booked, or null: more than 0, at most 24 in a day. */
export function hoursError(typed: string): MessageKey | null {
  const n = parseQuantity(typed)
  if (n === null) return 'hours.error.notNumber'
  if (n <= 0) return 'hours.error.notPositive'
  if (n > 24) return 'hours.error.tooMany'
  return null
}

/** Hours between two instants, to the hundredth, at least 0.01 (a booking of 0 is refused). */
export function elapsedHours(startMs: number, endMs: number): number {
  return Math.max(0.01, round2((endMs - startMs) / 3_600_000))
}

/** `1:05:09` */
export function formatElapsed(ms: number): string {
  const s = Math.max(0, Math.floor(ms / 1000))
  return `${Math.floor(s / 3600)}:${String(Math.floor((s % 3600) / 60)).padStart(2, '0')}:${String(s % 60).padStart(2, '0')}`
}

export interface Booking {
  employee: string
  day: string
  hours: number
  activity: Activity
  shopOrder?: string
  step?: string
  workCenter?: string
  notes?: string
}

/** The TimeTransactions fields of a booking. */
export function timeTransactionData(b: Booking): Record<string, unknown> {
  const data: Record<string, unknown> = {
    Employee: b.employee,
    Date: `${b.day}T00:00:00`,
    Hours: b.hours,
    Activity: ACTIVITY[b.activity],
  }
  if (b.shopOrder) data.ShopOrder = b.shopOrder
  if (b.step) data.RoutingStepPlan = b.step
  if (b.workCenter) data.WorkCenter = b.workCenter
  data.Notes = b.notes ?? ''
  return data
}

/** An operation being timed: kept by the server for the organization, started on its clock. */
export type Timer = Schema<'Timer'>

/**
 * What starting a timer sends. `id` and `startedMs` only with a timer this browser kept before
 * the server kept them: it keeps its start, and posting it twice keeps one.
 */
export type TimerStart = Schema<'StartBody'>

/** The organization's running timers and the server's clock when it listed them. */
export type TimerList = Schema<'TimerList'>

/**
 * The server's clock minus this browser's, from a list received at `receivedMs`: elapsed times
 * follow the server's clock, so two handhelds show the same whatever their own clocks say.
 */
export function clockOffset(list: TimerList, receivedMs: number): number {
  return Number.isFinite(list.now) ? list.now - receivedMs : 0
}

/** The hours Stop offers to book at `nowMs` (the server's clock), as the user types them. */
export function stopHoursText(timer: Pick<Timer, 'startedMs'>, nowMs: number, loc: string): string {
  return formatQuantity(elapsedHours(timer.startedMs, nowMs), loc)
}

/**
 * Where this browser kept its timers, per division, before the server kept them; read once to
 * hand them over.
 */
export const timersKey = (division: number) => `esm.hours.timers.${division}`

export function readTimers(storage: Storage, division: number): Timer[] {
  try {
    const parsed = JSON.parse(storage.getItem(timersKey(division)) ?? '[]') as unknown
    return Array.isArray(parsed) ? (parsed as Timer[]).filter((t) => t && typeof t.startedMs === 'number' && typeof t.employee === 'string') : []
  } catch {
    return []
  }
}

/** Keeps `timers` for the next hand-over; none removes the key. */
export function writeTimers(storage: Storage, division: number, timers: readonly Timer[]): void {
  try {
    if (timers.length === 0) storage.removeItem(timersKey(division))
    else storage.setItem(timersKey(division), JSON.stringify(timers))
  } catch {
    // storage blocked: there is nothing to hand over either
  }
}

const SERVER_ID = /^[A-Za-z0-9_-]{1,64}$/

/** The start of a timer this browser kept: its own id (when the server takes it) and start. */
export function carriedOver(t: Timer): TimerStart {
  return {
    id: typeof t.id === 'string' && SERVER_ID.test(t.id) ? t.id : undefined,
    employee: t.employee,
    employeeName: t.employeeName ?? '',
    shopOrder: t.shopOrder,
    shopOrderNumber: String(t.shopOrderNumber),
    step: t.step,
    stepLabel: t.stepLabel ?? '',
    workCenter: t.workCenter ?? '',
    activity: t.activity === 'setup' ? 'setup' : 'run',
    startedMs: t.startedMs,
  }
}

/**
 * Hands the timers this browser kept to the server, so none is lost on the upgrade that moved
 * them there. One the server refused as invalid (400) is dropped, with a warning; one that did
 * not reach it stays for the next load. Answers how many the server took.
 */
export async function carryOverTimers(storage: Storage, division: number, post: (t: TimerStart) => Promise<unknown>): Promise<number> {
  const kept = readTimers(storage, division)
  if (kept.length === 0) return 0
  const left: Timer[] = []
  let taken = 0
  for (const t of kept) {
    try {
      await post(carriedOver(t))
      taken++
    } catch (e) {
      if (isApiError(e, 400)) console.warn('a timer kept in this browser was refused by the server and dropped', t, e.message)
      else left.push(t)
    }
  }
  writeTimers(storage, division, left)
  return taken
}

/**
 * Each employee's name as screens show it, by lower-case ID: the full name, with the employee
 * number where another employee has the same name (two Jan de Vries on one shift), the number
 * alone without a name.
 */
export function employeeNames(employees: readonly { ID: string; Code: string; FullName: string | null }[]): Map<string, string> {
  const count = new Map<string, number>()
  for (const e of employees) {
    const name = (e.FullName ?? '').trim().toLowerCase()
    if (name) count.set(name, (count.get(name) ?? 0) + 1)
  }
  return new Map(
    employees.map((e) => {
      const name = (e.FullName ?? '').trim()
      const label = !name ? e.Code.trim() : (count.get(name.toLowerCase()) ?? 0) > 1 ? `${name} (${e.Code.trim()})` : name
      return [e.ID.toLowerCase(), label]
    }),
  )
}
