import { describe, expect, it } from 'vitest'
import { formatQuantity, parseQuantity } from './quantity.ts'

describe('parseQuantity', () => {
  it('reads both decimal marks', () => {
    expect(parseQuantity('2,5')).toBe(2.5)
    expect(parseQuantity(' 2.5 ')).toBe(2.5)
    expect(parseQuantity('12')).toBe(12)
    expect(parseQuantity('-3')).toBe(-3)
  })
  it('refuses what is not a number', () => {
    expect(parseQuantity('')).toBeNull()
    expect(parseQuantity('abc')).toBeNull()
    expect(parseQuantity('1,2,3')).toBeNull()
    expect(parseQuantity('1e5')).toBeNull()
  })
  it('formats without trailing zeros', () => {
    expect(formatQuantity(2.5, 'en-GB')).toBe('2.5')
    expect(formatQuantity(2.5, 'nl-NL')).toBe('2,5')
    expect(formatQuantity(3, 'en-GB')).toBe('3')
  })
})
