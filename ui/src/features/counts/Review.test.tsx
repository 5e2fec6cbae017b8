import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, fireEvent, render, screen, waitFor, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../../api/queryClient.ts'
import { json } from '../../test/fixtures.ts'
import type { CountSummary, ReviewRow } from './logic.ts'
import { Review } from './Review.tsx'
import { countScope, countSummary } from './testData.ts'

const COUNT: CountSummary = countSummary({
  scope: countScope({ kind: 'location', location: 'loc-a', locationCode: 'A-01' }),
  lineCount: 1,
  lines: [],
})

function row(n: number): ReviewRow {
  const counted = n === 0
  return {
    item: `i${n}`,
    itemCode: `ITEM-${String(n).padStart(3, '0')}`,
    itemDescription: `Item ${n}`,
    location: 'loc-a',
    locationCode: 'A-01',
    expected: 10,
    counted: counted ? 12 : null,
    difference: counted ? 2 : null,
    costPrice: 4.5,
    value: counted ? 9 : null,
    countedBy: counted ? 'Jan de Vries' : null,
    countedMs: counted ? 1_780_000_000_000 : null,
    lastCount: null,
  }
}

/** A review of `matching` rows (per filter) answered a page at a time, as the server pages it. */
function serve(matching: Record<string, number>) {
  const asked: URLSearchParams[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      const u = new URL(url, 'http://x')
      if (u.pathname !== '/api/v1/counts/c1/review') return json({ error: { code: 'not_found', message: url } }, 404)
      asked.push(u.searchParams)
      const filter = u.searchParams.get('filter') ?? 'all'
      const offset = Number(u.searchParams.get('offset'))
      const limit = Number(u.searchParams.get('limit'))
      const total = matching[filter]
      const rows = Array.from({ length: Math.max(0, Math.min(limit, total - offset)) }, (_, i) => row(offset + i))
      return json({ total: 450, counted: 1, notCounted: 449, differences: 1, valueDifference: -41.5, matching: total, offset, rows })
    }),
  )
  return asked
}

function show(wide = true) {
  vi.stubGlobal('matchMedia', (query: string) => ({ matches: wide, media: query, addEventListener: () => {}, removeEventListener: () => {} }))
  render(
    <QueryClientProvider client={createQueryClient()}>
      <Review count={COUNT} />
    </QueryClientProvider>,
  )
}

beforeEach(() => {
  vi.unstubAllGlobals()
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

/** Hundreds of table rows take jsdom a while to render. */
const SLOW = { timeout: 10_000 }

describe('the review', () => {
  it('shows the totals, then 200 rows at a time with "Show more" until every row is there', async () => {
    const asked = serve({ all: 250 })
    show()
    await screen.findByText('Showing 200 of 250', undefined, SLOW)
    expect(screen.getByTestId('review-counted').textContent).toBe('1')
    expect(screen.getByTestId('review-not-counted').textContent).toBe('449')
    expect(screen.getByTestId('review-differences').textContent).toBe('1')
    expect(screen.getByTestId('review-value').textContent).toBe('-41.50')
    expect(screen.getAllByTestId('review-row')).toHaveLength(200)
    // the counted row: its figures, the difference and its value
    const first = within(screen.getAllByTestId('review-row')[0])
    expect(first.getByText('ITEM-000')).toBeTruthy()
    expect(first.getByText('+2')).toBeTruthy()
    expect(first.getByText('+9.00')).toBeTruthy()
    fireEvent.click(screen.getByRole('button', { name: 'Show more' }))
    await screen.findByText('Showing 250 of 250', undefined, SLOW)
    expect(screen.getAllByTestId('review-row')).toHaveLength(250)
    expect(screen.queryByRole('button', { name: 'Show more' })).toBeNull()
    expect(asked.map((q) => [q.get('filter'), q.get('offset'), q.get('limit')])).toEqual([
      ['all', '0', '200'],
      ['all', '200', '200'],
    ])
  }, 20_000)

  it('asks the server for the chosen filter from its first row', async () => {
    const asked = serve({ all: 250, differences: 3 })
    show()
    await screen.findByText('Showing 200 of 250', undefined, SLOW)
    fireEvent.click(screen.getByRole('tab', { name: 'Differences' }))
    await screen.findByText('Showing 3 of 3')
    expect(screen.getByRole('tab', { name: 'Differences' }).getAttribute('aria-selected')).toBe('true')
    expect(screen.getByText(/expected here but not counted/)).toBeTruthy()
    expect(asked.at(-1)?.get('filter')).toBe('differences')
    expect(asked.at(-1)?.get('offset')).toBe('0')
  })

  it('is a list on a handheld, with the same paging', async () => {
    serve({ all: 2 })
    show(false)
    await screen.findByText('Showing 2 of 2')
    expect(screen.queryByRole('table')).toBeNull()
    await waitFor(() => expect(screen.getAllByTestId('review-row')[0].textContent).toContain('expected 10 · counted 12 · +2'))
  })
})
