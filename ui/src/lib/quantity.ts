// Quantities typed by people on the shop floor, read in the user's language: the decimal mark
// either way ("2,5" and "2.5" are two and a half), the language's thousands mark where it groups
// thousands ("2.500" in Dutch and "2,500" in English are two thousand five hundred).
import { getLanguage, locale, type Language } from '../i18n/index.ts'

/** The language's marks: [thousands, decimal]. */
const MARKS: Record<Language, readonly [string, string]> = { en: [',', '.'], nl: ['.', ','] }

/**
 * The number in `text`, or null when it is empty or not a number. One mark followed by exactly
 * three digits after a leading group of one to three is the language's thousands mark when it is
 * that language's ("2.500" is 2500 in Dutch, 2.5 in English), else a decimal mark; thousands
 * marks with a decimal mark after them ("1.234,5") are read in the language's style only.
 */
export function parseQuantity(text: string, lang: Language = getLanguage()): number | null {
  const s = text.trim().replace(/\s/g, '')
  const [thousands, decimal] = MARKS[lang]
  const esc = (c: string) => `\\${c}`
  let plain: string | null = null
  if (/^-?\d+$/.test(s)) plain = s
  else if (new RegExp(`^-?[1-9]\\d{0,2}(${esc(thousands)}\\d{3})+(${esc(decimal)}\\d+)?$`).test(s)) plain = s.split(thousands).join('').replace(decimal, '.')
  else if (/^-?\d+[.,]\d+$/.test(s)) plain = s.replace(',', '.')
  if (plain === null) return null
  const n = Number(plain)
  return Number.isFinite(n) ? n : null
}

/**
 * The number `text` is read as when its marks were taken as thousands marks ("2.500" in Dutch),
 * so a form can say so; null when it was read without them.
 */
export function readWithThousands(text: string, lang: Language = getLanguage()): number | null {
  const n = parseQuantity(text, lang)
  return n !== null && text.includes(MARKS[lang][0]) ? n : null
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
