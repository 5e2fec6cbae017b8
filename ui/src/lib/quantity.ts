// Quantities typed by people on the shop floor: "2,5" (Dutch) and "2.5" both mean two and a half.
import { locale } from '../i18n/index.ts'

/** The number in `text`, or null when it is empty or not a plain decimal number. */
export function parseQuantity(text: string): number | null {
  const s = text.trim().replace(/\s/g, '')
  if (!/^-?\d+([.,]\d+)?$/.test(s)) return null
  const n = Number(s.replace(',', '.'))
  return Number.isFinite(n) ? n : null
}

/** A quantity in the user's language (up to three decimals), `+` before a gain on request. */
export function formatQty(n: number, signed = false): string {
  const text = n.toLocaleString(locale(), { maximumFractionDigits: 3 })
  return signed && n > 0 ? `+${text}` : text
}

/** A quantity as a form field shows it: the user's decimal mark, no grouping (parseQuantity reads it back). */
export function quantityForInput(n: number): string {
  return n.toLocaleString(locale(), { useGrouping: false, maximumFractionDigits: 6 })
}

/** A quantity for display: at most `decimals` decimals, no trailing zeros. */
export function formatQuantity(n: number, locale: string, decimals = 2): string {
  return n.toLocaleString(locale, { maximumFractionDigits: decimals })
}

/**
 * Whether Exact lets the item be counted in fractions: its `IsFractionAllowedItem` (a Boolean on
 * Items, a Byte on other entities) or a purchase line's `ItemDivisable`. Only an explicit "no"
 * makes it whole pieces, so a copy without the field never refuses a real quantity.
 */
export function fractionsAllowed(flag: unknown): boolean {
  return !(flag === false || flag === 0 || flag === '0' || flag === 'false')
}

/** Whether `n` can be booked in the item's unit: anything when fractions are allowed, else whole pieces. */
export function fitsUnit(n: number, fractions: boolean): boolean {
  return fractions || Math.abs(n - Math.round(n)) < 1e-9
}

/** Whether `n` goes above `limit` (a limit that is not known is never exceeded). */
export function exceeds(n: number, limit: number | null | undefined): boolean {
  return limit !== null && limit !== undefined && Number.isFinite(limit) && n > limit + 1e-9
}
