import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { lazy } from 'react'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import type { Session } from '../api/auth.ts'
import { createQueryClient } from '../api/queryClient.ts'
import { json, session } from '../test/fixtures.ts'
import { RouteGuard } from './RouteGuard.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const screenOf = lazy(async () => ({ default: () => <p>the import screen</p> }))

function renderAt(s: Session) {
  vi.stubGlobal('fetch', vi.fn(async () => json(s)))
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={['/importData']}>
        <Routes>
          <Route path="/importData" element={<RouteGuard route={{ path: '/importData', access: 'importData', screen: screenOf }} />} />
          <Route path="/" element={<p>home</p>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  )
}

describe('RouteGuard for ImportData', () => {
  it('asks a full user without a fresh re-authentication to confirm, with both ways', async () => {
    renderAt(session({ importDataUntil: null }))
    await screen.findByRole('heading', { name: 'Confirm it is you' })
    expect(screen.getByRole('link', { name: 'Sign in with Exact Online again' }).getAttribute('href')).toBe(
      '/api/v1/auth/login?purpose=reauth&returnTo=%2FimportData',
    )
    expect(screen.queryByText('the import screen')).toBeNull()
  })

  it('shows the screen while the re-authentication is fresh', async () => {
    renderAt(session({ importDataUntil: Date.now() + 60_000 }))
    await screen.findByText('the import screen')
  })

  it('sends a user without full access Home', async () => {
    renderAt(session({ tier: 'signedIn', importDataUntil: Date.now() + 60_000 }))
    await screen.findByText('home')
  })
})
