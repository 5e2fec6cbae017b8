import { afterEach, describe, expect, it } from 'vitest'
import { detectLanguage, getLanguage, setLanguage, t, tCount } from './index.ts'
import { en } from './messages.ts'
import { nl } from './messages.nl.ts'

afterEach(() => setLanguage('en', false))

describe('i18n', () => {
  it('takes the first browser language it has', () => {
    expect(detectLanguage(['nl-BE', 'en-US'])).toBe('nl')
    expect(detectLanguage(['de-DE', 'en-GB'])).toBe('en')
    expect(detectLanguage(['fr'])).toBe('en')
    expect(detectLanguage([])).toBe('en')
  })

  it('switches the catalogue and fills placeholders', () => {
    setLanguage('nl', false)
    expect(getLanguage()).toBe('nl')
    expect(t('logout.confirm')).toBe('Weet u zeker dat u wilt uitloggen?')
    expect(tCount('toast.remaining', 3)).toBe('Nog 3 seconden')
    setLanguage('en', false)
    expect(t('toast.refreshing', { name: 'Items' })).toBe('Refreshing Items')
    expect(tCount('toast.remaining', 1)).toBe('1 second remaining')
  })

  it('has every English key in Dutch with the same placeholders', () => {
    const names = (s: string) => [...s.matchAll(/\{(\w+)\}/g)].map((m) => m[1]).sort()
    for (const key of Object.keys(en) as (keyof typeof en)[]) {
      expect(nl[key], key).toBeTruthy()
      expect(names(nl[key]), key).toEqual(names(en[key]))
    }
  })
})

describe('amounts in messages', () => {
  afterEach(() => setLanguage('en', false))
  it("writes an amount with the language's thousands mark, an order's number as it is", () => {
    expect(t('purchases.summary', { lines: 3554, orders: 2100, late: 12 })).toBe('3,554 open lines on 2,100 orders, 12 late')
    setLanguage('nl', false)
    expect(t('purchases.summary', { lines: 3554, orders: 2100, late: 12 })).toMatch(/^3\.554 .* 2\.100 /)
    expect(t('scanning.shopOrderNumber', { number: 24005 })).toBe('SO 24005')
  })
})
