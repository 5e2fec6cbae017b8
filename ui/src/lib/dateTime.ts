// Dates and times, one way on every screen: the user's language, the organization's time zone.
//
// Two kinds of moments reach the UI:
// - wall-clock values: Exact Online's `/Date(ms)/` is the Amsterdam wall-clock time written as
//   if it were UTC (date-only fields at 00:00 of the day). They are shown as written, never
//   shifted; everything here keeps them as "wall ms" and formats them in UTC.
// - instants: the server's own clock (the outbox, syncs, the stored copy's age), real UTC
//   epoch ms. `wallOf` turns them into the organization's wall-clock time first.
// A day is a `YYYY-MM-DD` text: what shortages, purchases and hours keep, and what filters take.
import { locale } from '../i18n/index.ts'

/** When the server names no time zone: Exact Online's dates are Amsterdam time. */
export const DEFAULT_TIME_ZONE = 'Europe/Amsterdam'
export const DAY_MS = 86_400_000

let zone = DEFAULT_TIME_ZONE

/** Whether the browser knows the IANA time zone `name`. */
export function isTimeZone(name: unknown): name is string {
  if (typeof name !== 'string' || !name) return false
  try {
    new Intl.DateTimeFormat('en', { timeZone: name })
    return true
  } catch {
    return false
  }
}

/** Takes the organization's time zone from the session; an unknown or absent one keeps Amsterdam. */
export function setTimeZone(name: unknown): string {
  zone = isTimeZone(name) ? name : DEFAULT_TIME_ZONE
  return zone
}

export function timeZone(): string {
  return zone
}

const formats = new Map<string, Intl.DateTimeFormat>()

/** One formatter per locale, zone and options: building them is the slow part. */
function format(loc: string, timeZone: string, options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  const key = `${loc}|${timeZone}|${JSON.stringify(options)}`
  let f = formats.get(key)
  if (!f) {
    f = new Intl.DateTimeFormat(loc, { ...options, timeZone })
    formats.set(key, f)
  }
  return f
}

/** An instant (epoch ms) as the wall-clock time in `tz` (the organization's by default), in wall ms. */
export function wallOf(instantMs: number, tz: string = zone): number {
  const parts = format('en-US', tz, {
    year: 'numeric',
    month: 'numeric',
    day: 'numeric',
    hour: 'numeric',
    minute: 'numeric',
    second: 'numeric',
    hourCycle: 'h23',
  }).formatToParts(instantMs)
  const get = (type: Intl.DateTimeFormatPartTypes) => Number(parts.find((p) => p.type === type)?.value ?? 0)
  const whole = Date.UTC(get('year'), get('month') - 1, get('day'), get('hour'), get('minute'), get('second'))
  return whole + (((instantMs % 1000) + 1000) % 1000)
}

const ISO = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,3})\d*)?)?)?(Z|[+-]\d{2}:?\d{2})?$/

/**
 * A provider date as wall ms: `/Date(ms)/` (an offset suffix is ignored: the ms are the wall
 * clock), an ISO day or date-time without offset (wall-clock, like the provider's own), or ms.
 * An ISO text with an offset is an instant and becomes the organization's wall-clock time.
 * Null when absent or unreadable.
 */
export function parseProviderDate(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null
  if (typeof v !== 'string') return null
  const s = v.trim()
  const date = /^\/Date\((-?\d+)(?:[+-]\d+)?\)\/$/.exec(s)
  if (date) return Number(date[1])
  const m = ISO.exec(s)
  if (!m) return null
  const [, y, mo, d, h = '0', mi = '0', sec = '0', frac = '0', offset] = m
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(sec), Number(frac.padEnd(3, '0')))
  if (Number.isNaN(wall) || dayOf(wall) !== `${y}-${mo}-${d}`) return null
  if (!offset) return wall
  if (offset === 'Z') return wallOf(wall)
  const sign = offset.startsWith('-') ? -1 : 1
  const digits = offset.slice(1).replace(':', '')
  return wallOf(wall - sign * (Number(digits.slice(0, 2)) * 60 + Number(digits.slice(2))) * 60_000)
}

/** A server time (epoch ms, or an ISO text with its offset) as the organization's wall ms. */
export function parseServerTime(v: unknown): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? wallOf(v) : null
  return parseProviderDate(v)
}

const pad = (n: number, width = 2) => String(n).padStart(width, '0')

/** The day of wall ms. */
export function dayOf(wallMs: number): string {
  const d = new Date(wallMs)
  return `${pad(d.getUTCFullYear(), 4)}-${pad(d.getUTCMonth() + 1)}-${pad(d.getUTCDate())}`
}

/** The day a provider date stands for; null when absent. */
export function providerDay(v: unknown): string | null {
  const ms = parseProviderDate(v)
  return ms === null ? null : dayOf(ms)
}

/** Wall ms of a day's 00:00; null when `day` is not a day. */
export function dayStart(day: string): number | null {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return null
  const ms = Date.UTC(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return dayOf(ms) === day ? ms : null
}

/** The organization's wall-clock time now, in wall ms. */
export function orgNow(now: number = Date.now()): number {
  return wallOf(now)
}

/** The organization's "today": the day it is now in its time zone. */
export function orgToday(now: number = Date.now()): string {
  return dayOf(wallOf(now))
}

/** `day` moved by `days` calendar days. */
export function addDays(day: string, days: number): string {
  const ms = dayStart(day)
  return ms === null ? day : dayOf(ms + days * DAY_MS)
}

/** Days from `from` to `to` (negative when `to` is earlier). */
export function daysBetween(from: string, to: string): number {
  return Math.round(((dayStart(to) ?? 0) - (dayStart(from) ?? 0)) / DAY_MS)
}

/** The Monday of the (ISO) week holding `day`. */
export function weekStart(day: string): string {
  const ms = dayStart(day)
  if (ms === null) return day
  return dayOf(ms - ((new Date(ms).getUTCDay() + 6) % 7) * DAY_MS)
}

/**
 * The ISO 8601 week of `day`: weeks start on Monday, week 1 holds the year's first Thursday, so
 * the first days of January can be in the year before's last week.
 */
export function isoWeek(day: string): { year: number; week: number } | null {
  const ms = dayStart(day)
  if (ms === null) return null
  const thursday = new Date(ms + (3 - ((new Date(ms).getUTCDay() + 6) % 7)) * DAY_MS)
  const yearStart = Date.UTC(thursday.getUTCFullYear(), 0, 1)
  return { year: thursday.getUTCFullYear(), week: Math.floor((thursday.getTime() - yearStart) / DAY_MS / 7) + 1 }
}

/** The ISO week number of `day` (NaN when it is no day). */
export function weekNumber(day: string): number {
  return isoWeek(day)?.week ?? NaN
}

const wall = (wallMs: number, options: Intl.DateTimeFormatOptions) => format(locale(), 'UTC', options).format(wallMs)

const DATE: Intl.DateTimeFormatOptions = { day: '2-digit', month: '2-digit', year: 'numeric' }
const TIME: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit', hourCycle: 'h23' }

/** Wall ms of a day or of wall ms. */
const asMs = (day: string | number) => (typeof day === 'number' ? day : dayStart(day))

/** A day (`YYYY-MM-DD`) or wall ms with its weekday and month name: "Sun, 1 Mar 2026", "zo 1 mrt 2026". */
export function formatDay(day: string | number): string {
  const ms = asMs(day)
  if (ms === null) return String(day)
  return wall(ms, { weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })
}

/** A weekday and day of the month: "Mon 2 Mar" (week views, timelines). */
export function formatWeekday(day: string | number, withMonth = true): string {
  const ms = asMs(day)
  if (ms === null) return String(day)
  return wall(ms, withMonth ? { weekday: 'short', day: 'numeric', month: 'short' } : { weekday: 'short', day: 'numeric' })
}

/** A day's weekday: "Thu", or "T" when `narrow`. */
export function formatWeekdayName(day: string | number, narrow = false): string {
  const ms = asMs(day)
  return ms === null ? String(day) : wall(ms, { weekday: narrow ? 'narrow' : 'short' })
}

/** A day's month: "Nov 2026" with the year, "Nov", or "N" narrow. */
export function formatMonth(day: string | number, form: 'withYear' | 'short' | 'narrow'): string {
  const ms = asMs(day)
  if (ms === null) return String(day)
  return wall(ms, form === 'withYear' ? { month: 'short', year: 'numeric' } : { month: form })
}

/** A day written out: "Thursday 26 November 2026", "donderdag 26 november 2026". */
export function formatFullDay(day: string | number): string {
  const ms = asMs(day)
  return ms === null ? String(day) : wall(ms, { dateStyle: 'full' })
}

/** A date (wall ms or a day) in figures: "26/11/2026", "26-11-2026". */
export function formatDate(v: number | string): string {
  const ms = asMs(v)
  return ms === null ? String(v) : wall(ms, DATE)
}

/** A time of day: "14:05". */
export function formatTime(wallMs: number): string {
  return wall(wallMs, TIME)
}

/** A date and time: "26/11/2026, 14:05", "26-11-2026 14:05". */
export function formatDateTime(wallMs: number): string {
  return wall(wallMs, { ...DATE, ...TIME })
}

/** A provider date: the date alone when it is a day (00:00 exactly), else with its time. */
export function formatProviderDate(wallMs: number): string {
  return wallMs % DAY_MS === 0 ? formatDate(wallMs) : formatDateTime(wallMs)
}

/** A server time (epoch ms, or ISO text) in the organization's time zone; text that is no date stays. */
export function formatServerTime(v: number | string): string {
  const ms = parseServerTime(v)
  return ms === null ? String(v) : formatDateTime(ms)
}

/**
 * When a stored copy was made (an instant), in the organization's time: the time alone when it
 * is from today, else the day and the time.
 */
export function formatAsOf(instantMs: number, now: number = Date.now()): string {
  const at = wallOf(instantMs)
  if (dayOf(at) === orgToday(now)) return formatTime(at)
  return wall(at, { day: 'numeric', month: 'short', ...TIME })
}
