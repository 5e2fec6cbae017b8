import { describe, expect, it } from 'vitest'
import { formatUptime } from './format.ts'

describe('formatUptime', () => {
  it('formats seconds, minutes and hours', () => {
    expect(formatUptime(5)).toBe('5 s')
    expect(formatUptime(65)).toBe('1 min 5 s')
    expect(formatUptime(3725)).toBe('1 h 2 min')
    expect(formatUptime(-3)).toBe('0 s')
  })
})
