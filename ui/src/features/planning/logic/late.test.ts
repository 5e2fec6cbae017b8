import { describe, expect, it } from 'vitest'
import { isLate, lateCount } from './late.ts'

const TODAY = 20_000

describe('late shop orders', () => {
  it('is late when the planned date is before today and the order is open or in process', () => {
    expect(isLate(TODAY - 1, 10, TODAY)).toBe(true)
    expect(isLate(TODAY - 30, 20, TODAY)).toBe(true)
  })

  it('is not late on or after its planned date', () => {
    expect(isLate(TODAY, 10, TODAY)).toBe(false)
    expect(isLate(TODAY + 5, 20, TODAY)).toBe(false)
  })

  it('is never late once finished or completed', () => {
    expect(isLate(TODAY - 10, 30, TODAY)).toBe(false)
    expect(isLate(TODAY - 10, 40, TODAY)).toBe(false)
  })

  it('counts the late ones', () => {
    const orders = [
      { endDay: TODAY - 1, status: 10 },
      { endDay: TODAY - 2, status: 20 },
      { endDay: TODAY - 2, status: 30 },
      { endDay: TODAY, status: 10 },
    ]
    expect(lateCount(orders, TODAY)).toBe(2)
    expect(lateCount([], TODAY)).toBe(0)
  })
})
