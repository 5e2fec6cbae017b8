// Screens that read a stored copy when Exact Online is out of reach date it with AsOf (its own
// tests are beside it in components/); these render the screens, so they live here, not there.
import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AS_OF_HEADER } from '../api/client.ts'
import { createQueryClient } from '../api/queryClient.ts'
import { setLanguage } from '../i18n/index.ts'
import { formatAsOf } from '../lib/dateTime.ts'
import { RecentTransfers } from '../features/transfers/RecentTransfers.tsx'
import { WeekView } from '../features/hours/WeekView.tsx'
import { json } from './fixtures.ts'

const STORED = new Date(2026, 10, 24, 13, 5).getTime()
const MESSAGE = 'Exact Online cannot be reached right now: this needs Exact Online, local data and queued changes keep working'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  setLanguage('en', false)
})

function serve(answer: (url: string) => Response) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => answer(url)),
  )
}

function withHeader(body: unknown, asOf: number): Response {
  const r = json(body)
  r.headers.set(AS_OF_HEADER, String(asOf))
  return r
}

const renderIn = (node: React.ReactNode) => render(<QueryClientProvider client={createQueryClient()}>{node}</QueryClientProvider>)

describe('screens dated by AsOf', () => {
  it('shows the transfers history of the stored copy with its time', async () => {
    serve((url) =>
      url.includes('WarehouseTransferLines')
        ? withHeader({ responseDirect: { results: [] } }, STORED)
        : withHeader({ responseDirect: { results: [{ TransferID: 't1', TransferNumber: 12, EntryDate: '/Date(1795000000000)/', Status: 50 }] } }, STORED),
    )
    renderIn(<RecentTransfers />)
    expect((await screen.findByTestId('as-of')).textContent).toContain(formatAsOf(STORED))
    expect(screen.getAllByTestId('recent-transfer')).toHaveLength(1)
  })

  it('shows the server’s message, not a spinner, when nothing is stored (503)', async () => {
    serve(() => json({ error: { code: 'provider_unreachable', message: MESSAGE } }, 503))
    renderIn(<WeekView employees={[]} />)
    expect((await screen.findByRole('alert')).textContent).toContain(MESSAGE)
    expect(screen.queryByText('Loading…')).toBeNull()
    expect(screen.queryByText(/Failed to fetch/)).toBeNull()
  })

  it('dates the week view by its oldest part', async () => {
    serve(() => withHeader({ responseDirect: { results: [] } }, STORED))
    renderIn(<WeekView employees={[]} employeesAsOf={STORED - 3_600_000} />)
    expect((await screen.findByTestId('as-of')).textContent).toContain(formatAsOf(STORED - 3_600_000))
  })
})
