import { afterEach, describe, expect, it } from 'vitest'
import { setLanguage } from '../i18n/index.ts'
import { materialPlanStatusName, shopOrderStatusName } from './status.ts'

afterEach(() => setLanguage('en', false))

describe('status names', () => {
  it('names shop order codes', () => {
    expect([10, 20, 30, 40, 50, null].map(shopOrderStatusName)).toEqual(['Open', 'In Process', 'Finished', 'Completed', 'N/A', 'N/A'])
    expect(shopOrderStatusName('20')).toBe('In Process')
  })

  it('names material plan codes, in Dutch too', () => {
    expect([12, 20, 21, 45, 99].map(materialPlanStatusName)).toEqual(['Open', 'Partial', 'Complete', 'Cancelled', 'N/A'])
    // and the codes Exact Online itself sends
    expect([5, 10, 25, 30].map(materialPlanStatusName)).toEqual(['Draft', 'Open', 'Partial', 'Finished'])
    setLanguage('nl', false)
    expect(materialPlanStatusName(45)).toBe('Geannuleerd')
  })
})
