import { describe, expect, it } from 'vitest'
import { fitLabel } from './headerLabels.ts'

describe('header labels', () => {
  it('takes the longest form that fits', () => {
    expect(fitLabel(80, ['Mon', 'M'])).toBe('Mon')
    expect(fitLabel(20, ['Mon', 'M'])).toBe('M')
    expect(fitLabel(200, ['Nov 2026', 'Nov'])).toBe('Nov 2026')
    expect(fitLabel(40, ['Nov 2026', 'Nov'])).toBe('Nov')
  })

  it('shows nothing rather than a label cut off', () => {
    expect(fitLabel(8, ['Mon', 'M'])).toBe('')
    expect(fitLabel(0, ['23'])).toBe('')
  })

  it('fits a day column at every scale of the days view (20 to 80 px)', () => {
    for (const px of [20, 30, 40, 60, 80]) {
      expect(fitLabel(px, ['23'])).toBe('23')
      expect(fitLabel(px, ['Mon', 'M'])).not.toBe('')
    }
  })
})
