// How long the server has been up. Dates and times are in dateTime.ts.

export function formatUptime(seconds: number): string {
  const s = Math.max(0, Math.floor(seconds))
  const h = Math.floor(s / 3600)
  const m = Math.floor((s % 3600) / 60)
  if (h > 0) return `${h} h ${m} min`
  if (m > 0) return `${m} min ${s % 60} s`
  return `${s} s`
}

/**
 * A money amount in the user's language, two decimals: cost prices and values are in the
 * division's currency, which Exact Online names and the server does not pass on, so no symbol.
 * `signed` puts `+` before a gain (a loss has its `-`).
 */
export function formatMoney(n: number, locale: string, signed = false): string {
  // rounded first, so a fraction of a cent is 0,00 and not -0,00
  const cents = Math.round(n * 100) / 100 || 0
  const text = cents.toLocaleString(locale, { minimumFractionDigits: 2, maximumFractionDigits: 2 })
  return signed && cents > 0 ? `+${text}` : text
}
