import { QueryClientProvider } from '@tanstack/react-query'
import { cleanup, render, screen } from '@testing-library/react'
import { StrictMode } from 'react'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { createQueryClient } from '../api/queryClient.ts'
import { json, session } from '../test/fixtures.ts'
import Callback from './Callback.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

function Where() {
  const { pathname, search } = useLocation()
  return <p>at {pathname + search}</p>
}

function renderCallback(search: string, answers: Record<string, () => Response>) {
  const calls: string[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      calls.push(`${init?.method ?? 'GET'} ${url} ${init?.body ?? ''}`.trim())
      return (answers[url] ?? (() => json(session())))()
    }),
  )
  render(
    <StrictMode>
      <QueryClientProvider client={createQueryClient()}>
        <MemoryRouter initialEntries={['/callback' + search]}>
          <Routes>
            <Route path="/callback" element={<Callback />} />
            <Route path="*" element={<Where />} />
          </Routes>
        </MemoryRouter>
      </QueryClientProvider>
    </StrictMode>,
  )
  return calls
}

describe('Callback', () => {
  it('exchanges the code once even under StrictMode, then goes to the licence page', async () => {
    const calls = renderCallback('?code=XTzM!abc&state=s1', {
      '/api/v1/auth/authorize': () => json(session({ tier: 'signedIn', registered: false })),
      '/api/v1/checkUser': () => json({ activated: false, division: 3154102, customer: 'Van Dijk', licence: null, token: { expires_at: '' } }),
    })
    await screen.findByText('at /license-code?division=3154102&customer=Van+Dijk')
    expect(calls.filter((c) => c.startsWith('POST /api/v1/auth/authorize'))).toEqual(['POST /api/v1/auth/authorize {"code":"XTzM!abc","state":"s1"}'])
  })

  it('sends an activated organization to the Dashboard', async () => {
    renderCallback('?code=c&state=s', {
      '/api/v1/checkUser': () => json({ activated: true, division: 7, customer: 'X', licence: { expires: null }, token: { expires_at: '' } }),
    })
    await screen.findByText('at /dashboard?division=7')
  })

  it('returns a re-authentication (ImportData) to the page that asked, without the licence check', async () => {
    const calls = renderCallback('?code=c&state=s', {
      '/api/v1/auth/authorize': () => json({ ...session(), returnTo: '/importData' }),
    })
    await screen.findByText('at /importData')
    expect(calls.some((c) => c.includes('checkUser'))).toBe(false)
  })

  it('shows the server message and a way Home when the state does not match', async () => {
    const calls = renderCallback('?code=c&state=wrong', {
      '/api/v1/auth/authorize': () => json({ error: { code: 'login_state', message: 'The sign-in could not be verified' } }, 400),
    })
    await screen.findByText('The sign-in could not be verified')
    expect(screen.getByRole('link', { name: 'Back to the start page' }).getAttribute('href')).toBe('/')
    expect(calls.filter((c) => c.includes('authorize'))).toHaveLength(1)
  })

  it('says so when the provider returned no code', async () => {
    renderCallback('?error=access_denied&error_description=The+user+cancelled', {})
    await screen.findByText('The user cancelled')
  })
})
