import { describe, expect, it } from 'vitest'
import { memoryStorage } from '../test/fixtures.ts'
import {
  activityOf,
  elapsedHours,
  formatElapsed,
  hoursError,
  readTimers,
  timeTransactionData,
  toEntries,
  weekStart,
  weekTotals,
  writeTimers,
  type Timer,
} from './hours.ts'
import { isoDay } from './odata.ts'

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
  it('keep timers per division and drop unreadable ones', () => {
    const s = memoryStorage()
    const timer = { id: '1', employee: 'e', startedMs: 5 } as Timer
    writeTimers(s, 1, [timer])
    expect(readTimers(s, 1)).toEqual([timer])
    expect(readTimers(s, 2)).toEqual([])
    s.setItem('esm.hours.timers.3', '{bad')
    expect(readTimers(s, 3)).toEqual([])
  })
})
