import { describe, expect, it } from 'vitest'
import { addWorkdays, round, workdaysBetween } from './workdays.ts'

// 2026-11-06 is a Friday
const day = (iso: string) => new Date(`${iso}T08:00:00`)
const iso = (d: Date) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`

describe('addWorkdays', () => {
  it('skips weekends forward and back', () => {
    expect(iso(addWorkdays(day('2026-11-06'), 1))).toBe('2026-11-09')
    expect(iso(addWorkdays(day('2026-11-06'), 5))).toBe('2026-11-13')
    expect(iso(addWorkdays(day('2026-11-09'), -1))).toBe('2026-11-06')
    expect(iso(addWorkdays(day('2026-11-04'), 10))).toBe('2026-11-18')
  })

  it('starts from a weekend day to the next or previous workday', () => {
    expect(iso(addWorkdays(day('2026-11-07'), 1))).toBe('2026-11-09')
    expect(iso(addWorkdays(day('2026-11-08'), -1))).toBe('2026-11-06')
    expect(iso(addWorkdays(day('2026-11-07'), 0))).toBe('2026-11-07')
  })

  it('counts every day when weekends are not skipped, and keeps the time', () => {
    expect(iso(addWorkdays(day('2026-11-06'), 2, false))).toBe('2026-11-08')
    expect(addWorkdays(day('2026-11-06'), 3).getHours()).toBe(8)
  })

  it('does not change its argument and crosses months and a DST change', () => {
    const d = day('2026-10-23')
    expect(iso(addWorkdays(d, 7))).toBe('2026-11-03')
    expect(iso(d)).toBe('2026-10-23')
  })

  it('is undone by workdaysBetween', () => {
    for (const n of [-12, -1, 0, 3, 17]) {
      const from = day('2026-11-04')
      expect(workdaysBetween(from, addWorkdays(from, n))).toBe(n)
    }
  })
})

describe('round', () => {
  it('rounds to 2 decimals by default, half away from zero', () => {
    expect(round(1.005)).toBe(1.01)
    expect(round(2.675)).toBe(2.68)
    expect(round(-1.005)).toBe(-1.01)
    expect(round(10)).toBe(10)
    expect(round(0.1 + 0.2)).toBe(0.3)
  })

  it('takes other precisions and leaves non-finite values alone', () => {
    expect(round(1234.5678, 0)).toBe(1235)
    expect(round(1234.5678, 3)).toBe(1234.568)
    expect(round(1e-7, 2)).toBe(0)
    expect(round(Number.NaN)).toBeNaN()
    expect(round(Infinity)).toBe(Infinity)
  })
})
