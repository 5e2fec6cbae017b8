// Hour registrations (manufacturing time transactions): weeks, totals, validation and the
// operator's running timers.
import type { MessageKey } from '../i18n/index.ts'
import type { Row } from '../api/db.ts'
import { providerDay } from './dateTime.ts'
import { isoDay } from './odata.ts'
import { parseQuantity } from './quantity.ts'

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

/** An operation being timed on this terminal. */
export interface Timer {
  id: string
  employee: string
  employeeName: string
  shopOrder: string
  shopOrderNumber: string
  step: string
  stepLabel: string
  workCenter: string
  activity: Activity
  startedMs: number
}

/**
 * Timers live in this browser, per division: the terminal on the shop floor is shared by its
 * operators, so they stay over a logout, as on Exact's own shop-floor terminals.
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

export function writeTimers(storage: Storage, division: number, timers: readonly Timer[]): void {
  try {
    storage.setItem(timersKey(division), JSON.stringify(timers))
  } catch {
    // storage blocked: timers last for this page
  }
}
