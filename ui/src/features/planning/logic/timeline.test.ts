import { describe, expect, it } from 'vitest'
import { axisDays, barBox, columnOf, dayIso, draggedDates, dragSteps, headerCells, makeAxis, toDay, weekKey, weekday } from './timeline.ts'

const d = (iso: string) => toDay(iso) as number

describe('toDay', () => {
  it('reads the provider date forms as the same calendar day', () => {
    const ms = Date.UTC(2026, 10, 20)
    expect(toDay(`/Date(${ms})/`)).toBe(d('2026-11-20'))
    expect(toDay('2026-11-20T00:00:00')).toBe(d('2026-11-20'))
    expect(toDay(ms)).toBe(d('2026-11-20'))
    expect(dayIso(d('2026-11-20'))).toBe('2026-11-20')
  })
  it('answers null for what is no date', () => {
    expect(toDay(null)).toBeNull()
    expect(toDay('soon')).toBeNull()
  })
})

describe('axis', () => {
  it('starts on a Monday and hides weekends when asked', () => {
    // 2026-11-20 is a Friday
    expect(weekday(d('2026-11-20'))).toBe(5)
    const axis = makeAxis(d('2026-11-20'), d('2026-11-30'), 'days', 1, true)
    expect(dayIso(axis.start)).toBe('2026-11-16')
    expect(columnOf(axis, d('2026-11-20'))).toBe(4)
    // Saturday and Sunday take Monday's column
    expect(columnOf(axis, d('2026-11-21'))).toBe(5)
    expect(columnOf(axis, d('2026-11-23'))).toBe(5)
    expect(axisDays(axis).map(dayIso)).not.toContain('2026-11-21')
    const all = makeAxis(d('2026-11-20'), d('2026-11-30'), 'days', 1, false)
    expect(columnOf(all, d('2026-11-23'))).toBe(7)
  })

  it('sizes bars from the start to the end of the planned day', () => {
    const axis = makeAxis(d('2026-11-16'), d('2026-11-30'), 'days', 1, false)
    expect(barBox(axis, d('2026-11-17'), d('2026-11-18'))).toEqual({ left: 40, width: 80 })
    const half = makeAxis(d('2026-11-16'), d('2026-11-30'), 'weeks', 0.5, false)
    expect(half.pxPerDay).toBe(8)
  })

  it('groups header cells by ISO week and month', () => {
    expect(weekKey(d('2026-01-01'))).toBe('2026-W01')
    expect(weekKey(d('2027-01-01'))).toBe('2026-W53')
    const axis = makeAxis(d('2026-11-23'), d('2026-12-06'), 'weeks', 1, true)
    const weeks = headerCells(axis, 'weeks')
    expect(weeks.map((c) => c.key)).toEqual(['2026-W48', '2026-W49'])
    expect(weeks[0].width).toBe(5 * 16)
    expect(headerCells(axis, 'months').map((c) => c.key)).toEqual(['2026-11', '2026-12'])
  })
})

describe('dragging', () => {
  const fri = d('2026-11-20')
  const mon = d('2026-11-23')
  it('turns pixels into whole columns', () => {
    const axis = makeAxis(fri, fri + 30, 'days', 1, true)
    expect(dragSteps(axis, 79)).toBe(2)
    expect(dragSteps(axis, -15)).toBe(0)
  })
  it('moves over hidden weekends by workdays, and over shown ones by days', () => {
    expect(draggedDates('move', fri, mon, 1, true)).toEqual({ startDay: mon, endDay: d('2026-11-24') })
    expect(draggedDates('move', fri, mon, 1, false)).toEqual({ startDay: d('2026-11-21'), endDay: d('2026-11-24') })
    expect(draggedDates('move', mon, mon, -1, true)).toEqual({ startDay: fri, endDay: fri })
  })
  it('resizes one edge without crossing the other', () => {
    expect(draggedDates('end', fri, mon, 2, true).endDay).toBe(d('2026-11-25'))
    expect(draggedDates('end', fri, mon, -5, true).endDay).toBe(fri)
    expect(draggedDates('start', fri, mon, 4, true).startDay).toBe(mon)
    expect(draggedDates('start', fri, mon, -1, true).startDay).toBe(d('2026-11-19'))
  })
})
