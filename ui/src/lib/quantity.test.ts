import { describe, expect, it } from 'vitest'
import { exceeds, fitsUnit, formatQuantity, fractionsAllowed, parseQuantity, readWithThousands } from './quantity.ts'

describe('parseQuantity', () => {
  it('reads both decimal marks', () => {
    expect(parseQuantity('2,5')).toBe(2.5)
    expect(parseQuantity(' 2.5 ')).toBe(2.5)
    expect(parseQuantity('12')).toBe(12)
    expect(parseQuantity('-3')).toBe(-3)
  })
  it("reads a thousands mark in the language's style, never silently as a decimal mark", () => {
    // "2.500" kg typed in Dutch is two thousand five hundred, in English two and a half
    expect(parseQuantity('2.500', 'nl')).toBe(2500)
    expect(parseQuantity('2.500', 'en')).toBe(2.5)
    expect(parseQuantity('2,500', 'en')).toBe(2500)
    expect(parseQuantity('2,500', 'nl')).toBe(2.5)
    expect(parseQuantity('1.234.567,5', 'nl')).toBe(1234567.5)
    expect(parseQuantity('1,234,567.5', 'en')).toBe(1234567.5)
    expect(parseQuantity('1.000,5', 'en')).toBeNull()
    expect(parseQuantity('1,000.5', 'nl')).toBeNull()
    // not a group of thousands: a decimal mark in either language
    expect(parseQuantity('0.250', 'nl')).toBe(0.25)
    expect(parseQuantity('2.5', 'nl')).toBe(2.5)
    expect(parseQuantity('2,50', 'en')).toBe(2.5)
    expect(parseQuantity('12.3456', 'nl')).toBe(12.3456)
  })
  it('says when a text was read with thousands marks', () => {
    expect(readWithThousands('2.500', 'nl')).toBe(2500)
    expect(readWithThousands('2,5', 'nl')).toBeNull()
    expect(readWithThousands('2.500', 'en')).toBeNull()
    expect(readWithThousands('2,500', 'en')).toBe(2500)
    expect(readWithThousands('abc', 'en')).toBeNull()
  })
  it('reads back what a form field was given, in both languages', () => {
    expect(parseQuantity((1.234).toLocaleString('nl-NL', { useGrouping: false, maximumFractionDigits: 6 }), 'nl')).toBe(1.234)
    expect(parseQuantity((2500).toLocaleString('nl-NL', { useGrouping: false }), 'nl')).toBe(2500)
    expect(parseQuantity((1.234).toLocaleString('en-GB', { useGrouping: false, maximumFractionDigits: 6 }), 'en')).toBe(1.234)
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

describe('units', () => {
  it("reads Exact's fraction flag in its Boolean and Byte forms", () => {
    expect(fractionsAllowed(true)).toBe(true)
    expect(fractionsAllowed(1)).toBe(true)
    expect(fractionsAllowed(false)).toBe(false)
    expect(fractionsAllowed(0)).toBe(false)
    expect(fractionsAllowed('0')).toBe(false)
  })
  it('allows fractions when the flag is not known', () => {
    expect(fractionsAllowed(undefined)).toBe(true)
    expect(fractionsAllowed(null)).toBe(true)
  })
  it('takes only whole numbers in a piece unit', () => {
    expect(fitsUnit(12.5, false)).toBe(false)
    expect(fitsUnit(12, false)).toBe(true)
    expect(fitsUnit(12.5, true)).toBe(true)
    // 0.1 + 0.2 style noise is still a whole piece
    expect(fitsUnit(3.0000000000000004, false)).toBe(true)
  })
})

describe('exceeds', () => {
  it('is true only above a known limit', () => {
    expect(exceeds(99_999, 29)).toBe(true)
    expect(exceeds(29, 29)).toBe(false)
    expect(exceeds(0.30000000000000004, 0.3)).toBe(false)
    expect(exceeds(5, null)).toBe(false)
    expect(exceeds(5, undefined)).toBe(false)
  })
})
