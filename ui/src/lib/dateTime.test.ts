import { afterEach, describe, expect, it } from 'vitest'
import { setLanguage } from '../i18n/index.ts'
import { formatDay, formatQty } from './dayFormat.ts'

afterEach(() => setLanguage('en', false))

describe('day and quantity format', () => {
  it('keeps the calendar day whatever the time zone', () => {
    setLanguage('en', false)
    expect(formatDay('2026-03-01')).toBe('Sun, 1 Mar 2026')
    expect(formatDay('bad')).toBe('bad')
  })

  it('writes quantities in the language, signed on request', () => {
    setLanguage('nl', false)
    expect(formatQty(1234.5)).toBe('1.234,5')
    expect(formatQty(3, true)).toBe('+3')
    expect(formatQty(-3, true)).toBe('-3')
  })
})
