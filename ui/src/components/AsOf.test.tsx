import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { AS_OF_HEADER } from '../api/client.ts'
import { createQueryClient } from '../api/queryClient.ts'
import { setLanguage } from '../i18n/index.ts'
import { formatAsOf } from '../lib/dateTime.ts'
import { RecentTransfers } from '../features/transfers/RecentTransfers.tsx'
import { WeekView } from '../features/hours/WeekView.tsx'
import { json } from '../test/fixtures.ts'
import { AsOf } from './AsOf.tsx'

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
