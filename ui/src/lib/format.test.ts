import { describe, expect, it } from 'vitest'
import { formatMoney, formatUptime } from './format.ts'

describe('formatUptime', () => {
  it('formats seconds, minutes and hours', () => {
    expect(formatUptime(5)).toBe('5 s')
    expect(formatUptime(65)).toBe('1 min 5 s')
    expect(formatUptime(3725)).toBe('1 h 2 min')
    expect(formatUptime(-3)).toBe('0 s')
  })
})

describe('formatMoney', () => {
  it('writes two decimals in the language, signed on request, never a negative zero', () => {
    expect(formatMoney(-41.5, 'en-GB')).toBe('-41.50')
    expect(formatMoney(1234.5, 'nl-NL')).toBe('1.234,50')
    expect(formatMoney(9, 'nl-NL', true)).toBe('+9,00')
    expect(formatMoney(-0.001, 'en-GB', true)).toBe('0.00')
    expect(formatMoney(0, 'en-GB', true)).toBe('0.00')
  })
})
