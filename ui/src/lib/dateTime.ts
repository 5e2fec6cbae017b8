// Days (`YYYY-MM-DD`, as the shortage and purchase modules keep them) and quantities in the
// user's language.
import { locale } from '../i18n/index.ts'

/** A `YYYY-MM-DD` day as a short date; the day is a calendar day, so it is read as UTC. */
export function formatDay(day: string): string {
  const ms = Date.parse(day + 'T00:00:00Z')
  if (Number.isNaN(ms)) return day
  return new Date(ms).toLocaleDateString(locale(), { timeZone: 'UTC', weekday: 'short', day: 'numeric', month: 'short', year: 'numeric' })
}

export function formatQty(n: number, signed = false): string {
  const text = n.toLocaleString(locale(), { maximumFractionDigits: 3 })
  return signed && n > 0 ? `+${text}` : text
}
