import { afterEach, describe, expect, it } from 'vitest'
import { setLanguage } from '../i18n/index.ts'
import {
  addDays,
  daysBetween,
  DEFAULT_TIME_ZONE,
  formatAsOf,
  formatDate,
  formatDateTime,
  formatDay,
  formatProviderDate,
  formatServerTime,
  formatTime,
  formatWeekday,
  orgToday,
  parseProviderDate,
  providerDay,
  setTimeZone,
  timeZone,
  wallOf,
  weekNumber,
  weekStart,
} from './dateTime.ts'
import { formatQty } from './quantity.ts'

afterEach(() => {
  setLanguage('en', false)
  setTimeZone(DEFAULT_TIME_ZONE)
})

describe('provider dates', () => {
  it('reads /Date(ms)/ as the wall-clock time it is, offset suffix or not', () => {
    // Exact's documented example: 2014-01-22 (a date-only field, 00:00 of the day)
    expect(providerDay('/Date(1390348800000)/')).toBe('2014-01-22')
    expect(parseProviderDate('/Date(1641034800000+0100)/')).toBe(1641034800000)
    expect(parseProviderDate('/Date(-5)/')).toBe(-5)
  })

  it('reads ISO texts without an offset as wall-clock and with one as an instant in the organization’s zone', () => {
    expect(parseProviderDate('2026-03-01')).toBe(Date.UTC(2026, 2, 1))
    expect(parseProviderDate('2026-11-26T14:05:30')).toBe(Date.UTC(2026, 10, 26, 14, 5, 30))
    expect(parseProviderDate('2026-11-26T14:05:30.250')).toBe(Date.UTC(2026, 10, 26, 14, 5, 30, 250))
    // the server's own clock: 13:05 UTC is 14:05 in Amsterdam in winter, 15:05 in summer
    expect(parseProviderDate('2026-11-26T13:05:00Z')).toBe(Date.UTC(2026, 10, 26, 14, 5))
    expect(parseProviderDate('2026-07-01T13:05:00.000+00:00')).toBe(Date.UTC(2026, 6, 1, 15, 5))
    expect(parseProviderDate('2026-07-01T16:05:00+03:00')).toBe(Date.UTC(2026, 6, 1, 15, 5))
  })

  it('gives null for what is not a date', () => {
    for (const v of [null, undefined, '', 'never', '2026-02-30', '/Date(abc)/', {}, Number.NaN]) expect(parseProviderDate(v)).toBeNull()
  })
})

describe('the organization’s time zone', () => {
  it('follows the CET/CEST switch days', () => {
    // 29 March 2026: 02:00 CET becomes 03:00 CEST (01:00 UTC)
    expect(wallOf(Date.UTC(2026, 2, 29, 0, 59))).toBe(Date.UTC(2026, 2, 29, 1, 59))
    expect(wallOf(Date.UTC(2026, 2, 29, 1, 0))).toBe(Date.UTC(2026, 2, 29, 3, 0))
    // 25 October 2026: 03:00 CEST goes back to 02:00 CET (01:00 UTC)
    expect(wallOf(Date.UTC(2026, 9, 25, 0, 59))).toBe(Date.UTC(2026, 9, 25, 2, 59))
    expect(wallOf(Date.UTC(2026, 9, 25, 1, 0))).toBe(Date.UTC(2026, 9, 25, 2, 0))
    expect(wallOf(Date.UTC(2026, 9, 25, 1, 0, 0, 999))).toBe(Date.UTC(2026, 9, 25, 2, 0, 0, 999))
  })

  it('turns the day at the organization’s midnight, not UTC’s or the browser’s', () => {
    expect(orgToday(Date.UTC(2026, 10, 25, 22, 59))).toBe('2026-11-25')
    expect(orgToday(Date.UTC(2026, 10, 25, 23, 0))).toBe('2026-11-26')
    expect(orgToday(Date.UTC(2026, 6, 1, 21, 59))).toBe('2026-07-01')
    expect(orgToday(Date.UTC(2026, 6, 1, 22, 0))).toBe('2026-07-02')
    expect(orgToday(Date.UTC(2026, 11, 31, 23, 30))).toBe('2027-01-01')
  })

  it('takes the server’s zone, and keeps Amsterdam for one the browser does not know', () => {
    expect(setTimeZone('Europe/London')).toBe('Europe/London')
    expect(orgToday(Date.UTC(2026, 10, 25, 23, 30))).toBe('2026-11-25')
    expect(formatServerTime(Date.UTC(2026, 6, 1, 13, 5))).toBe('01/07/2026, 14:05')
    expect(setTimeZone('Mars/Olympus_Mons')).toBe(DEFAULT_TIME_ZONE)
    expect(setTimeZone(undefined)).toBe(DEFAULT_TIME_ZONE)
    expect(timeZone()).toBe('Europe/Amsterdam')
  })
})

describe('formats in the user’s language', () => {
  const at = Date.UTC(2026, 10, 26, 14, 5)

  it('writes English day-month order', () => {
    expect(formatDate(at)).toBe('26/11/2026')
    expect(formatDateTime(at)).toBe('26/11/2026, 14:05')
    expect(formatTime(at)).toBe('14:05')
    expect(formatDay('2026-03-01')).toBe('Sun, 1 Mar 2026')
    expect(formatWeekday('2026-03-02')).toBe('Mon 2 Mar')
    expect(formatWeekday('2026-03-02', false)).toBe('Mon 2')
    expect(formatDay('bad')).toBe('bad')
  })

  it('writes Dutch', () => {
    setLanguage('nl', false)
    expect(formatDate(at)).toBe('26-11-2026')
    expect(formatDateTime(at)).toMatch(/^26-11-2026,? 14:05$/)
    expect(formatDay('2026-03-01')).toBe('zo 1 mrt 2026')
    expect(formatWeekday('2026-03-02')).toBe('ma 2 mrt')
  })

  it('shows a provider date at midnight as a day, else with its time', () => {
    expect(formatProviderDate(Date.UTC(2026, 10, 26))).toBe('26/11/2026')
    expect(formatProviderDate(at)).toBe('26/11/2026, 14:05')
  })

  it('shows one event alike whether Exact wrote it (wall-clock) or the server did (instant)', () => {
    for (const instant of [Date.UTC(2026, 10, 26, 13, 5), Date.UTC(2026, 6, 1, 13, 5), Date.UTC(2026, 9, 25, 0, 30)]) {
      const exactWrote = `/Date(${wallOf(instant, 'Europe/Amsterdam')})/`
      const wall = parseProviderDate(exactWrote)
      expect(wall).not.toBeNull()
      expect(formatProviderDate(wall ?? 0)).toBe(formatServerTime(instant))
    }
    expect(formatServerTime('2026-11-26T13:05:00.000+00:00')).toBe('26/11/2026, 14:05')
    expect(formatServerTime('never')).toBe('never')
  })

  it('gives a stored copy’s age as a time today and with the day before', () => {
    const stored = Date.UTC(2026, 10, 24, 13, 5)
    expect(formatAsOf(stored, Date.UTC(2026, 10, 24, 20, 0))).toBe('14:05')
    expect(formatAsOf(stored, Date.UTC(2026, 10, 25, 8, 0))).toBe('24 Nov, 14:05')
  })

  it('writes quantities in the language, signed on request', () => {
    setLanguage('nl', false)
    expect(formatQty(1234.5)).toBe('1.234,5')
    expect(formatQty(3, true)).toBe('+3')
    expect(formatQty(-3, true)).toBe('-3')
  })
})

describe('days and weeks', () => {
  it('numbers ISO weeks across year ends', () => {
    expect(weekNumber('2020-12-31')).toBe(53)
    expect(weekNumber('2021-01-03')).toBe(53)
    expect(weekNumber('2021-01-04')).toBe(1)
    expect(weekNumber('2024-12-30')).toBe(1)
    expect(weekNumber('2025-12-28')).toBe(52)
    expect(weekNumber('2025-12-29')).toBe(1)
    expect(weekNumber('2026-01-01')).toBe(1)
    expect(weekNumber('2026-12-31')).toBe(53)
    expect(weekNumber('2027-01-03')).toBe(53)
    expect(weekNumber('2027-01-04')).toBe(1)
    expect(weekNumber('2026-11-16')).toBe(47)
    expect(weekNumber('2026-11-26')).toBe(48)
    expect(weekNumber('nonsense')).toBeNaN()
  })

  it('finds Mondays and counts days over month, year and summer-time ends', () => {
    expect(weekStart('2026-11-26')).toBe('2026-11-23')
    expect(weekStart('2026-11-23')).toBe('2026-11-23')
    expect(weekStart('2027-01-03')).toBe('2026-12-28')
    expect(addDays('2026-03-28', 2)).toBe('2026-03-30')
    expect(addDays('2026-12-31', 1)).toBe('2027-01-01')
    expect(addDays('2026-03-01', -1)).toBe('2026-02-28')
    expect(daysBetween('2026-03-28', '2026-03-30')).toBe(2)
    expect(daysBetween('2026-11-26', '2026-11-20')).toBe(-6)
  })
})
