import { locale } from '../i18n/index.ts'

export function formatUptime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  if (h > 0) return `${h} h ${m} min`
  if (m > 0) return `${m} min ${s % 60} s`
  return `${s} s`
}

/** A server date-time (ISO) in the user's locale; the raw text when it does not parse. */
export function formatDateTime(iso: string): string {
  const ms = Date.parse(iso)
  return Number.isNaN(ms) ? iso : new Date(ms).toLocaleString()
}

/**
 * When a stored copy was made, in the user's language: the time alone when it is from today,
 * else the day and the time.
 */
export function formatAsOf(ms: number, now: Date = new Date()): string {
  const at = new Date(ms)
  const sameDay = at.getFullYear() === now.getFullYear() && at.getMonth() === now.getMonth() && at.getDate() === now.getDate()
  const time: Intl.DateTimeFormatOptions = { hour: '2-digit', minute: '2-digit' }
  return sameDay ? at.toLocaleTimeString(locale(), time) : at.toLocaleString(locale(), { day: 'numeric', month: 'short', ...time })
}
