// Quantities typed by people on the shop floor: "2,5" (Dutch) and "2.5" both mean two and a half.

/** The number in `text`, or null when it is empty or not a plain decimal number. */
export function parseQuantity(text: string): number | null {
  const s = text.trim().replace(/\s/g, '')
  if (!/^-?\d+([.,]\d+)?$/.test(s)) return null
  const n = Number(s.replace(',', '.'))
  return Number.isFinite(n) ? n : null
}

/** A quantity for display: at most `decimals` decimals, no trailing zeros. */
export function formatQuantity(n: number, locale: string, decimals = 2): string {
  return n.toLocaleString(locale, { maximumFractionDigits: decimals })
}
