import { QueryClient, QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Session } from '../api/auth.ts'
import { queryKeys, receiptKeys, transferKeys } from '../api/queries.ts'
import { createQueryClient } from '../api/queryClient.ts'
import { json, session } from '../test/fixtures.ts'
import { OutageBanner } from './OutageBanner.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

function show(status: unknown, s: Session = session()) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => json(status)),
  )
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter>
        <OutageBanner session={s} />
      </MemoryRouter>
    </QueryClientProvider>,
  )
}

describe('OutageBanner', () => {
  it('counts writes queued during an outage as waiting, and says nothing was refused', async () => {
    show({ provider: { reachable: false, since_ms: null, last_error: 'could not connect' }, outbox: { pending: 3, failed: 0 } })
    const banner = await screen.findByTestId('outage')
    expect(banner.textContent).toContain('3 changes wait and are sent when Exact Online is back.')
    expect(banner.textContent).not.toMatch(/refused/i)
  })

  it('says writes wait (not that they are being sent) while Exact Online wants the user to sign in again', async () => {
    show({ provider: { reachable: true, since_ms: null, last_error: null }, outbox: { pending: 1, failed: 0 } }, session({ providerAccess: 'signInNeeded' }))
    const notice = await screen.findByTestId('queue-notice')
    expect(notice.textContent).toContain('1 change waits to be sent to Exact Online.')
    expect(notice.textContent).not.toMatch(/refused/i)
  })
})

describe('OutageBanner when Exact Online is back', () => {
  it('reads again what was shown from the stored copy', async () => {
    const client = new QueryClient()
    client.setQueryData(receiptKeys.list(1), { rows: [], asOf: 1_795_000_000_000 })
    client.setQueryData(transferKeys.recent(1), { rows: [], asOf: null })
    const statuses = [
      { provider: { reachable: false, since_ms: null, last_error: 'x' }, outbox: { pending: 0, failed: 0 } },
      { provider: { reachable: true, since_ms: null, last_error: null }, outbox: { pending: 0, failed: 0 } },
    ]
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => json(statuses.length > 1 ? statuses.shift() : statuses[0])),
    )
    render(
      <QueryClientProvider client={client}>
        <MemoryRouter>
          <OutageBanner session={session()} />
        </MemoryRouter>
      </QueryClientProvider>,
    )
    await screen.findByTestId('outage')
    await client.refetchQueries({ queryKey: queryKeys.status })
    await vi.waitFor(() => expect(client.getQueryState(receiptKeys.list(1))?.isInvalidated).toBe(true))
    expect(client.getQueryState(transferKeys.recent(1))?.isInvalidated).toBe(false)
  })
})
