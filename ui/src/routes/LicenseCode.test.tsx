import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, session } from '../test/fixtures.ts'
import LicenseCode from './LicenseCode.tsx'

const DIVISIONS = [
  { division: 3154102, name: 'Van Dijk Machinebouw B.V.', customer: 'Van Dijk Holding B.V.' },
  { division: 3154117, name: 'Van Dijk Service B.V.', customer: 'Van Dijk Holding B.V.' },
]

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

function show(path: string, over: Parameters<typeof session>[0]) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => json(session({ divisions: DIVISIONS, customer_name: 'Van Dijk Holding B.V.', ...over }))),
  )
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[path]}>
        <LicenseCode />
      </MemoryRouter>
    </QueryClientProvider>,
  )
}

describe('LicenseCode', () => {
  beforeEach(() => vi.unstubAllGlobals())

  it('names the chosen division’s company, not the first one’s, and says it is not activated', async () => {
    show('/license-code?division=3154117&customer=Van+Dijk+Holding+B.V.', { division: 3154117, activated: false, tier: 'signedIn' })
    expect((await screen.findByTestId('licence-company')).textContent).toBe('Van Dijk Service B.V.')
    expect(screen.getByTestId('licence-customer').textContent).toBe('Van Dijk Holding B.V.')
    expect(screen.getByTestId('licence-status').textContent).toBe('Not activated yet')
  })

  it('shows an active licence’s end', async () => {
    show('/license-code?division=3154102', { division: 3154102, activated: true, licenceExpires: '2027-03-31' })
    await screen.findByText('Van Dijk Machinebouw B.V.')
    expect((await screen.findByTestId('licence-status')).textContent).toMatch(/^Active until .*2027/)
  })

  it('shows an active licence without an end', async () => {
    show('/license-code?division=3154102', { division: 3154102, activated: true, licenceExpires: null })
    await screen.findByText('Van Dijk Machinebouw B.V.')
    expect((await screen.findByTestId('licence-status')).textContent).toBe('Active, without an end date')
  })
})
