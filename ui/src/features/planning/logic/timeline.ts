// The planning timeline's arithmetic: provider dates as calendar days, the axis (with or without
// weekends), pixels per day per view, and what a drag of N pixels does to a shop order's dates.
import { dayOf, dayStart, isoWeek, orgToday, parseProviderDate } from '../../../lib/dateTime.ts'
import { addWorkdays } from './workdays.ts'

export type View = 'days' | 'weeks' | 'months'
export const VIEWS: readonly View[] = ['days', 'weeks', 'months']

/** Pixels per day at scale 1; the cog's scale multiplies them. */
const BASE_PX: Record<View, number> = { days: 40, weeks: 16, months: 5 }
export const SCALES = [0.5, 0.75, 1, 1.5, 2] as const

const DAY_MS = 86_400_000

/**
 * A provider date (`/Date(ms)/`, ISO text or ms) as a calendar day: days since 1970-01-01.
 * The provider's date-only values are midnight; their UTC calendar day is the day meant.
 */
export function toDay(v: unknown): number | null {
  const ms = parseProviderDate(v)
  return ms === null ? null : Math.floor(ms / DAY_MS)
}

/** The calendar day as `YYYY-MM-DD` (what the write-back sends). */
export function dayIso(day: number): string {
  return dayOf(day * DAY_MS)
}

/** 0 Sunday … 6 Saturday; 1970-01-01 was a Thursday. */
export function weekday(day: number): number {
  return (((day + 4) % 7) + 7) % 7
}

export function isWeekendDay(day: number): boolean {
  const w = weekday(day)
  return w === 0 || w === 6
}

/** The organization's today. */
export function today(now: number = Date.now()): number {
  return Math.floor((dayStart(orgToday(now)) ?? 0) / DAY_MS)
}

/** `day` moved by `n` days, skipping Saturdays and Sundays when `skipWeekends` (workdays.ts). */
export function shiftDay(day: number, n: number, skipWeekends: boolean): number {
  // workdays.ts counts in local dates: go through a local midnight of the same calendar day
  const d = new Date(day * DAY_MS)
  const local = new Date(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate())
  const out = addWorkdays(local, n, skipWeekends)
  return Math.floor(Date.UTC(out.getFullYear(), out.getMonth(), out.getDate()) / DAY_MS)
}

/** The visible axis: which calendar days have a column, and how wide one is. */
export interface Axis {
  /** First day shown; a Monday, so week arithmetic stays simple. */
  start: number
  /** Day after the last day shown. */
  end: number
  skipWeekends: boolean
  pxPerDay: number
}

export function makeAxis(first: number, last: number, view: View, scale: number, skipWeekends: boolean): Axis {
  const start = first - ((weekday(first) + 6) % 7)
  return { start, end: Math.max(last + 1, start + 7), skipWeekends, pxPerDay: BASE_PX[view] * scale }
}

/** Column index of `day`; a weekend day, when hidden, takes the place of the Monday after it. */
export function columnOf(axis: Axis, day: number): number {
  const offset = day - axis.start
  if (!axis.skipWeekends) return offset
  const weeks = Math.floor(offset / 7)
  return weeks * 5 + Math.min(offset - weeks * 7, 5)
}

export function xOf(axis: Axis, day: number): number {
  return columnOf(axis, day) * axis.pxPerDay
}

export function axisWidth(axis: Axis): number {
  return xOf(axis, axis.end)
}

/** The days that have a column, in order. */
export function axisDays(axis: Axis): number[] {
  const out: number[] = []
  for (let d = axis.start; d < axis.end; d++) if (!axis.skipWeekends || !isWeekendDay(d)) out.push(d)
  return out
}

/** Bar geometry: from the start day's column to the end of the planned day's column. */
export function barBox(axis: Axis, startDay: number, endDay: number): { left: number; width: number } {
  const left = xOf(axis, startDay)
  const right = xOf(axis, Math.max(endDay, startDay) + 1)
  return { left, width: Math.max(right - left, axis.pxPerDay * 0.5) }
}

export type DragMode = 'move' | 'start' | 'end'

/** Whole columns (days, or workdays when weekends are hidden) a drag of `dx` pixels stands for. */
export function dragSteps(axis: Axis, dx: number): number {
  return Math.round(dx / axis.pxPerDay) || 0
}

/**
 * The dates after a drag of `steps` columns: moving shifts both, a resize one edge, never past
 * the other. Hidden weekends are skipped, so a bar moved by 1 from a Friday lands on Monday.
 */
export function draggedDates(mode: DragMode, startDay: number, endDay: number, steps: number, skipWeekends: boolean): { startDay: number; endDay: number } {
  if (steps === 0) return { startDay, endDay }
  if (mode === 'move') return { startDay: shiftDay(startDay, steps, skipWeekends), endDay: shiftDay(endDay, steps, skipWeekends) }
  if (mode === 'start') return { startDay: Math.min(shiftDay(startDay, steps, skipWeekends), endDay), endDay }
  return { startDay, endDay: Math.max(shiftDay(endDay, steps, skipWeekends), startDay) }
}

/** Header groups above the day columns: weeks (ISO number) or months, with their pixel span. */
export interface HeaderCell {
  key: string
  day: number
  left: number
  width: number
}

export type HeaderUnit = 'days' | 'weeks' | 'months' | 'years'

/** The two header rows of each view: the coarse one above, the column one below. */
export const HEADER_UNITS: Record<View, [HeaderUnit, HeaderUnit]> = {
  days: ['weeks', 'days'],
  weeks: ['months', 'weeks'],
  months: ['years', 'months'],
}

export function headerCells(axis: Axis, unit: HeaderUnit): HeaderCell[] {
  const days = axisDays(axis)
  const out: HeaderCell[] = []
  for (const d of days) {
    const iso = dayIso(d)
    const key = unit === 'days' ? iso : unit === 'weeks' ? weekKey(d) : unit === 'months' ? iso.slice(0, 7) : iso.slice(0, 4)
    const last = out[out.length - 1]
    if (last && last.key === key) last.width += axis.pxPerDay
    else out.push({ key, day: d, left: xOf(axis, d), width: axis.pxPerDay })
  }
  return out
}

/** ISO week `YYYY-Www` of a day. */
export function weekKey(day: number): string {
  const w = isoWeek(dayIso(day))
  return w ? `${w.year}-W${String(w.week).padStart(2, '0')}` : ''
}
