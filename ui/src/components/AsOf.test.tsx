import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it } from 'vitest'
import { setLanguage } from '../i18n/index.ts'
import { formatAsOf } from '../lib/dateTime.ts'
import { AsOf } from './AsOf.tsx'

const STORED = new Date(2026, 10, 24, 13, 5).getTime()

afterEach(() => {
  cleanup()
  setLanguage('en', false)
})

describe('AsOf', () => {
  it('says nothing for live data and the time of a stored copy in the user’s language', () => {
    const { container } = render(<AsOf asOf={null} />)
    expect(container.textContent).toBe('')
    render(<AsOf asOf={STORED} />)
    expect(screen.getByTestId('as-of').textContent).toBe(`Exact Online cannot be reached: shown as of ${formatAsOf(STORED)}`)
    cleanup()
    setLanguage('nl', false)
    render(<AsOf asOf={STORED} compact />)
    expect(screen.getByTestId('as-of').textContent).toBe(`Stand van ${formatAsOf(STORED)}`)
  })

  it('gives the time alone today and the day too before, in the organization’s time zone', () => {
    const at = Date.UTC(2026, 10, 24, 13, 5) // 14:05 in Amsterdam
    expect(formatAsOf(at, Date.UTC(2026, 10, 24, 18, 0))).toBe('14:05')
    expect(formatAsOf(at, Date.UTC(2026, 10, 25, 8, 0))).toMatch(/24 Nov.*14:05/)
    // 23:30 UTC is already the next day in Amsterdam: today there, so the time alone
    expect(formatAsOf(Date.UTC(2026, 10, 24, 23, 30), Date.UTC(2026, 10, 25, 0, 10))).toBe('00:30')
  })
})
