// Workday arithmetic (spec §9: the weekday offset adds workdays, skipping weekends) and the
// rounding helper (2 decimals unless told otherwise).

function isWeekend(d: Date): boolean {
  const day = d.getDay()
  return day === 0 || day === 6
}

/**
 * `date` moved by `days` workdays (negative: back). Saturdays and Sundays are not counted;
 * with `skipWeekends` false every day counts. The time of day is kept. An offset of 0 returns
 * the same day, even on a weekend.
 */
export function addWorkdays(date: Date, days: number, skipWeekends = true): Date {
  const out = new Date(date.getTime())
  const whole = Math.trunc(days)
  if (!skipWeekends) {
    out.setDate(out.getDate() + whole)
    return out
  }
  const step = whole < 0 ? -1 : 1
  let left = Math.abs(whole)
  while (left > 0) {
    out.setDate(out.getDate() + step)
    if (!isWeekend(out)) left--
  }
  return out
}

/** Workdays from `from` to `to` (negative when `to` is earlier); the start day is not counted. */
export function workdaysBetween(from: Date, to: Date, skipWeekends = true): number {
  const a = new Date(from.getFullYear(), from.getMonth(), from.getDate())
  const b = new Date(to.getFullYear(), to.getMonth(), to.getDate())
  const step = b < a ? -1 : 1
  let n = 0
  const d = new Date(a)
  while (d.getTime() !== b.getTime()) {
    d.setDate(d.getDate() + step)
    if (!skipWeekends || !isWeekend(d)) n += step
  }
  return n
}

/** `value` rounded half away from zero to `decimals` places (default 2). */
export function round(value: number, decimals = 2): number {
  if (!Number.isFinite(value)) return value
  const factor = 10 ** decimals
  // the exponent form avoids binary artefacts such as 1.005 * 100 = 100.49999…
  const shifted = Number(`${Math.abs(value)}e${decimals}`)
  const rounded = Number.isFinite(shifted) ? Math.round(shifted) / factor : Math.round(Math.abs(value) * factor) / factor
  return value < 0 ? -rounded : rounded
}
