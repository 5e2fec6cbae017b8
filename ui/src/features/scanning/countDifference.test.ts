import { describe, expect, it } from 'vitest'
import { countDifference } from './countDifference.ts'

describe('a count’s difference', () => {
  it('is counted less expected, large from one unit and a tenth of what is expected', () => {
    expect(countDifference(12, 10)).toEqual({ expected: 12, counted: 10, difference: -2, large: true })
    expect(countDifference(100, 95)).toMatchObject({ difference: -5, large: false })
    expect(countDifference(100, 110)).toMatchObject({ difference: 10, large: true })
    expect(countDifference(2.5, 2.25)).toMatchObject({ difference: -0.25, large: false })
    expect(countDifference(0, 3)).toMatchObject({ difference: 3, large: true })
    expect(countDifference(7, 7)).toMatchObject({ difference: 0, large: false })
    expect(countDifference(0.3, 0.1 + 0.2)).toMatchObject({ difference: 0 })
  })
  it('is unknown while the stock or the count is', () => {
    expect(countDifference(null, 3)).toBeNull()
    expect(countDifference(3, null)).toBeNull()
  })
})
