import { describe, expect, it } from 'vitest'
import { daysBetween, moveChange, moveDays, projectMoves, type ShiftableOrder } from './projectShift.ts'
import { dayIso, draggedDates, toDay } from './timeline.ts'

const d = (iso: string) => toDay(iso) as number
const ms = (iso: string) => `/Date(${Date.parse(`${iso}T00:00:00Z`)})/`

const P = 'aaaaaaaa-0000-0000-0000-000000000001'
const Q = 'bbbbbbbb-0000-0000-0000-000000000002'

function order(n: number, project: string | null, start: string | null, end: string | null): ShiftableOrder {
  return { ID: `id-${n}`, ShopOrderNumber: n, Project: project, PlannedStartDate: start && ms(start), PlannedDate: end && ms(end) }
}

const dates = (m: { toStart: number | null; toEnd: number | null }) => [
  m.toStart === null ? null : dayIso(m.toStart),
  m.toEnd === null ? null : dayIso(m.toEnd),
]

describe('daysBetween', () => {
  it('counts calendar days, or workdays when weekends are hidden', () => {
    // 2026-11-20 is a Friday
    expect(daysBetween(d('2026-11-20'), d('2026-11-23'), false)).toBe(3)
    expect(daysBetween(d('2026-11-20'), d('2026-11-23'), true)).toBe(1)
    expect(daysBetween(d('2026-11-23'), d('2026-11-20'), true)).toBe(-1)
    expect(daysBetween(d('2026-11-16'), d('2026-11-30'), true)).toBe(10)
    expect(daysBetween(d('2026-11-20'), d('2026-11-20'), true)).toBe(0)
    // Friday to Saturday: no workday passes
    expect(daysBetween(d('2026-11-20'), d('2026-11-21'), true)).toBe(0)
  })

  it('gives back the steps of a drag, so other orders move as far as the dragged one', () => {
    for (const skip of [false, true])
      for (const steps of [-7, -1, 1, 2, 5, 9]) {
        const start = d('2026-11-19')
        const moved = draggedDates('move', start, start + 2, steps, skip)
        expect(daysBetween(start, moved.startDay, skip)).toBe(steps)
      }
  })
})

describe('moveDays', () => {
  const o = order(1, P, '2026-11-16', '2026-11-20')
  it('follows the start when it changes, else the planned date', () => {
    expect(moveDays(o, { PlannedStartDate: '2026-11-18', PlannedDate: '2026-11-22' }, false)).toBe(2)
    expect(moveDays(o, { PlannedDate: '2026-11-27' }, false)).toBe(7)
    expect(moveDays(o, { PlannedDate: '2026-11-27' }, true)).toBe(5)
    expect(moveDays(o, { PlannedStartDate: '2026-11-16', PlannedDate: '2026-11-19' }, false)).toBe(-1)
    expect(moveDays(o, {}, false)).toBe(0)
  })

  it('places an order without a start by its planned date', () => {
    expect(moveDays(order(2, P, null, '2026-11-20'), { PlannedStartDate: '2026-11-24' }, false)).toBe(4)
  })
})

describe('projectMoves', () => {
  const moved = order(10, P, '2026-11-16', '2026-11-18')
  const orders = [
    moved,
    order(12, P.toUpperCase(), '2026-11-25', '2026-11-27'),
    order(11, P, '2026-11-10', '2026-11-13'),
    order(13, Q, '2026-11-16', '2026-11-18'),
    order(14, null, '2026-11-16', '2026-11-18'),
    order(15, P, null, '2026-12-04'),
    order(16, P, null, null),
  ]

  it('moves every dated order of the project by the same days, the chosen one first', () => {
    const moves = projectMoves(orders, moved, { PlannedStartDate: '2026-11-19', PlannedDate: '2026-11-23' }, false)
    expect(moves.map((m) => m.order.ShopOrderNumber)).toEqual([10, 11, 12, 15])
    expect(moves.map(dates)).toEqual([
      ['2026-11-19', '2026-11-23'],
      ['2026-11-13', '2026-11-16'],
      ['2026-11-28', '2026-11-30'],
      [null, '2026-12-07'],
    ])
    expect(moveChange(moves[3])).toEqual({ PlannedDate: '2026-12-07' })
    expect(moveChange(moves[1])).toEqual({ PlannedStartDate: '2026-11-13', PlannedDate: '2026-11-16' })
  })

  it('counts workdays when weekends are hidden', () => {
    // three workdays on from Monday the 16th: Thursday the 19th
    const moves = projectMoves(orders, moved, { PlannedStartDate: '2026-11-19', PlannedDate: '2026-11-23' }, true)
    expect(moves.map(dates)).toEqual([
      ['2026-11-19', '2026-11-23'],
      ['2026-11-13', '2026-11-18'],
      ['2026-11-30', '2026-12-02'],
      [null, '2026-12-09'],
    ])
  })

  it('moves backwards too', () => {
    const moves = projectMoves(orders, moved, { PlannedStartDate: '2026-11-09', PlannedDate: '2026-11-11' }, false)
    expect(dates(moves[1])).toEqual(['2026-11-03', '2026-11-06'])
  })

  it('is only the chosen order without a project or without a move', () => {
    expect(projectMoves(orders, orders[4], { PlannedStartDate: '2026-11-20' }, false)).toHaveLength(1)
    expect(projectMoves(orders, moved, { PlannedStartDate: '2026-11-16' }, false)).toHaveLength(1)
  })

  it('sends only the dates that change', () => {
    const [first] = projectMoves(orders, moved, { PlannedDate: '2026-11-20' }, false)
    expect(moveChange(first)).toEqual({ PlannedDate: '2026-11-20' })
  })
})
