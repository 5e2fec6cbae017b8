import { describe, expect, it, vi } from 'vitest'
import { ApiError, networkError } from '../../api/client.ts'
import { memoryStorage } from '../../test/fixtures.ts'
import {
  activityOf,
  carriedOver,
  carryOverTimers,
  clockOffset,
  elapsedHours,
  employeeNames,
  formatElapsed,
  hoursError,
  readTimers,
  timeTransactionData,
  toEntries,
  weekStart,
  weekTotals,
  stopHoursText,
  writeTimers,
  type Timer,
  type TimerStart,
} from './logic.ts'
import { isoDay } from '../../lib/odata.ts'

describe('weeks', () => {
  it('start on Monday', () => {
    expect(isoDay(weekStart(new Date(2026, 10, 22, 10)))).toBe('2026-11-16') // a Sunday
    expect(isoDay(weekStart(new Date(2026, 10, 16, 0)))).toBe('2026-11-16')
    expect(isoDay(weekStart(new Date(2026, 10, 21)))).toBe('2026-11-16')
  })
})

describe('entries and totals', () => {
  const rows = [
    { ID: 'a', Employee: 'E1', Date: '/Date(1794787200000)/', Hours: 2.5, Activity: 10 }, // 2026-11-16
    { ID: 'b', Employee: 'e1', Date: '/Date(1794787200000)/', Hours: 1.25, Activity: 20, ShopOrder: 'S', RoutingStepPlan: 'R' },
    { ID: 'c', Employee: 'e2', Date: '2026-11-22T00:00:00', Hours: 8, Activity: 20 },
    { ID: 'd', Employee: 'e2', Date: '/Date(1795392000000)/', Hours: 3, Activity: 20 }, // next Monday
  ]
  const entries = toEntries(rows)
  it('read the provider rows', () => {
    expect(entries[0]).toMatchObject({ employee: 'e1', day: '2026-11-16', hours: 2.5, activity: 'setup' })
    expect(entries[1]).toMatchObject({ shopOrder: 's', step: 'r', activity: 'run' })
    expect(entries[2].day).toBe('2026-11-22')
  })
  it('add up per employee and weekday within the week', () => {
    const totals = weekTotals(entries, new Date(2026, 10, 16))
    expect(totals).toEqual([
      { employee: 'e1', days: [3.75, 0, 0, 0, 0, 0, 0], total: 3.75 },
      { employee: 'e2', days: [0, 0, 0, 0, 0, 0, 8], total: 8 },
    ])
  })
})

describe('bookings', () => {
  it('validate hours', () => {
    expect(hoursError('1,5')).toBeNull()
    expect(hoursError('24')).toBeNull()
    expect(hoursError('')).toBe('hours.error.notNumber')
    expect(hoursError('0')).toBe('hours.error.notPositive')
    expect(hoursError('25')).toBe('hours.error.tooMany')
  })
  it('time a run to the hundredth, never 0', () => {
    expect(elapsedHours(0, 90 * 60_000)).toBe(1.5)
    expect(elapsedHours(0, 1_000)).toBe(0.01)
    expect(formatElapsed(3_909_000)).toBe('1:05:09')
  })
  it('write the provider fields', () => {
    expect(timeTransactionData({ employee: 'e', day: '2026-11-21', hours: 2, activity: 'setup', shopOrder: 's', step: 'r', workCenter: 'w' })).toEqual({
      Employee: 'e',
      Date: '2026-11-21T00:00:00',
      Hours: 2,
      Activity: 10,
      ShopOrder: 's',
      RoutingStepPlan: 'r',
      WorkCenter: 'w',
      Notes: '',
    })
    expect(activityOf('20')).toBe('run')
  })
})

describe('operator timers', () => {
  const kept: Timer = {
    id: '1764100000000-ab12cd',
    employee: 'e1',
    employeeName: 'Anna',
    shopOrder: 's1',
    shopOrderNumber: '24005',
    step: 'r1',
    stepLabel: '10. ZAGEN',
    workCenter: 'w1',
    activity: 'setup',
    startedMs: 1_000,
  }

  it('take the elapsed time from the server clock', () => {
    expect(clockOffset({ now: 10_000, timers: [] }, 7_000)).toBe(3_000)
    expect(clockOffset({ now: Number.NaN, timers: [] }, 7_000)).toBe(0)
    // Stop offers the elapsed hours to the hundredth, as the user types them
    expect(stopHoursText({ startedMs: 0 }, 90 * 60_000 + 20_000, 'nl-NL')).toBe('1,51')
    expect(stopHoursText({ startedMs: 0 }, 90 * 60_000, 'en-GB')).toBe('1.5')
    expect(hoursError(stopHoursText({ startedMs: 0 }, 90 * 60_000 + 20_000, 'nl-NL'))).toBeNull()
  })

  it('read what a browser kept per division and drop unreadable ones', () => {
    const s = memoryStorage()
    writeTimers(s, 1, [kept])
    expect(readTimers(s, 1)).toEqual([kept])
    expect(readTimers(s, 2)).toEqual([])
    s.setItem('esm.hours.timers.3', '{bad')
    expect(readTimers(s, 3)).toEqual([])
    writeTimers(s, 1, [])
    expect(s.getItem('esm.hours.timers.1')).toBeNull()
  })

  it('hand a kept timer over with its id and start', () => {
    expect(carriedOver(kept)).toEqual({ ...kept })
    const odd = { ...kept, id: 'a b', shopOrderNumber: 24005 as unknown as string, workCenter: null as unknown as string }
    expect(carriedOver(odd)).toMatchObject({ id: undefined, shopOrderNumber: '24005', workCenter: '' })
  })

  it('hand the kept timers over once, keeping those that did not reach the server', async () => {
    const s = memoryStorage()
    const other = { ...kept, id: 'second' }
    const refused = { ...kept, id: 'third' }
    writeTimers(s, 1, [kept, other, refused])
    const posted: string[] = []
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined)
    const post = (t: TimerStart) => {
      posted.push(t.id ?? '')
      if (t.id === 'second') return Promise.reject(networkError())
      if (t.id === 'third') return Promise.reject(new ApiError(400, 'bad_request', "'employee' must be an employee ID"))
      return Promise.resolve(t)
    }
    expect(await carryOverTimers(s, 1, post)).toBe(1)
    expect(posted).toEqual(['1764100000000-ab12cd', 'second', 'third'])
    expect(readTimers(s, 1)).toEqual([other])
    expect(warn).toHaveBeenCalledOnce()
    // the next load tries the one left, then nothing is kept
    expect(await carryOverTimers(s, 1, (t) => Promise.resolve(t))).toBe(1)
    expect(s.getItem('esm.hours.timers.1')).toBeNull()
    expect(await carryOverTimers(s, 1, post)).toBe(0)
    expect(posted).toHaveLength(3)
    warn.mockRestore()
  })
})

describe('employeeNames', () => {
  it('adds the employee number only where two share a name, and uses it where there is no name', () => {
    const names = employeeNames([
      { ID: 'A', Code: '12', FullName: 'Jan de Vries' },
      { ID: 'b', Code: ' 31 ', FullName: 'jan de vries ' },
      { ID: 'c', Code: '40', FullName: 'Eva van Dijk' },
      { ID: 'd', Code: '41', FullName: '' },
    ])
    expect([...names]).toEqual([
      ['a', 'Jan de Vries (12)'],
      ['b', 'jan de vries (31)'],
      ['c', 'Eva van Dijk'],
      ['d', '41'],
    ])
  })
})
