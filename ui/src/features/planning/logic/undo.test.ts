import { afterEach, describe, expect, it } from 'vitest'
import { setLanguage } from '../../../i18n/index.ts'
import { canUndo, datesBefore, moveStands, moveText, undoMove, type Move } from './undo.ts'

// 2026-11-30 as Exact Online writes it
const NOV_30 = `/Date(${Date.UTC(2026, 10, 30)})/`
const DEC_2 = `/Date(${Date.UTC(2026, 11, 2)})/`

const moved = (over: Partial<Move> = {}): Move => ({
  id: 1,
  project: null,
  back: false,
  orders: [
    {
      id: 'a',
      number: 24012,
      before: { PlannedStartDate: '2026-11-30', PlannedDate: '2026-12-02' },
      after: { PlannedStartDate: '2026-12-03', PlannedDate: '2026-12-05' },
    },
  ],
  ...over,
})

afterEach(() => setLanguage('en', false))

describe('datesBefore', () => {
  it('keeps the dates a move replaces, as days', () => {
    const order = { PlannedStartDate: NOV_30, PlannedDate: DEC_2 }
    expect(datesBefore(order, { PlannedStartDate: '2026-12-03', PlannedDate: '2026-12-05' })).toEqual({
      PlannedStartDate: '2026-11-30',
      PlannedDate: '2026-12-02',
    })
    // a resized end leaves the start alone, so its undo does too
    expect(datesBefore(order, { PlannedDate: '2026-12-04' })).toEqual({ PlannedDate: '2026-12-02' })
  })

  it('has none when a replaced date was empty: an empty date cannot be written back', () => {
    expect(datesBefore({ PlannedStartDate: null, PlannedDate: DEC_2 }, { PlannedStartDate: '2026-12-01', PlannedDate: '2026-12-03' })).toBeNull()
    expect(datesBefore({ PlannedStartDate: null, PlannedDate: DEC_2 }, { PlannedDate: '2026-12-03' })).toEqual({ PlannedDate: '2026-12-02' })
  })
})

describe('undo of a move', () => {
  it('puts each order back where it was, and has no undo of its own', () => {
    const back = undoMove(moved(), 2)
    expect(back).toEqual({
      id: 2,
      project: null,
      back: true,
      orders: [
        {
          id: 'a',
          number: 24012,
          before: { PlannedStartDate: '2026-12-03', PlannedDate: '2026-12-05' },
          after: { PlannedStartDate: '2026-11-30', PlannedDate: '2026-12-02' },
        },
      ],
    })
    expect(canUndo(moved())).toBe(true)
    expect(canUndo(back)).toBe(false)
    expect(canUndo(moved({ orders: [{ ...moved().orders[0], before: null }] }))).toBe(false)
  })

  it('is offered only while the orders stand where the move put them', () => {
    const move = moved()
    // the change shows at once (the dates as written), or as read again from Exact Online
    expect(moveStands(move, () => ({ PlannedStartDate: '2026-12-03', PlannedDate: '2026-12-05' }))).toBe(true)
    expect(moveStands(move, () => ({ PlannedStartDate: `/Date(${Date.UTC(2026, 11, 3)})/`, PlannedDate: `/Date(${Date.UTC(2026, 11, 5)})/` }))).toBe(true)
    // refused: the order went back
    expect(moveStands(move, () => ({ PlannedStartDate: NOV_30, PlannedDate: DEC_2 }))).toBe(false)
    // gone from the planning (finished meanwhile)
    expect(moveStands(move, () => undefined)).toBe(false)
  })
})

describe('moveText', () => {
  it('says where the order went, its date in the language of the user', () => {
    expect(moveText(moved())).toBe('Moved SO 24012 to Thu 3 Dec.')
    expect(moveText(undoMove(moved(), 2))).toBe('Moved SO 24012 back to Mon 30 Nov.')
    const end = moved({ orders: [{ id: 'a', number: 24012, before: { PlannedDate: '2026-12-02' }, after: { PlannedDate: '2026-12-04' } }] })
    expect(moveText(end)).toBe('Moved the planned date of SO 24012 to Fri 4 Dec.')
    setLanguage('nl', false)
    expect(moveText(moved())).toBe('SO 24012 verplaatst naar do 3 dec.')
    expect(moveText(undoMove(moved(), 2))).toBe('SO 24012 teruggezet naar ma 30 nov.')
  })

  it('counts the orders of a project shift', () => {
    const order = moved().orders[0]
    const project = moved({ project: 'Line 4', orders: [order, { ...order, id: 'b', number: 24013 }] })
    expect(moveText(project)).toBe('Moved 2 shop orders of project Line 4.')
    expect(moveText(undoMove(project, 2))).toBe('Moved 2 shop orders of project Line 4 back.')
  })
})
