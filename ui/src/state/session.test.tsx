import { QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, render, screen, waitFor } from '@testing-library/react'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { MemoryRouter, Route, Routes, useLocation } from 'react-router'
import { PUBLIC_SESSION, type Session } from '../api/auth.ts'
import { queryKeys } from '../api/queries.ts'
import { createQueryClient } from '../api/queryClient.ts'
import { json, session } from '../test/fixtures.ts'
import { api } from '../api/client.ts'
import { SessionProvider, type HomeNotice } from './session.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
  localStorage.clear()
})

/** A server whose session answer the test changes; records every call. */
function fakeServer(first: Session) {
  const state = { session: first as Session | 'unauthorized' | 'critical' | 'refused', calls: [] as string[] }
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string, init?: RequestInit) => {
      state.calls.push(`${init?.method ?? 'GET'} ${url}`)
      if (url === '/api/v1/auth/logout') return json(null, 204)
      if (url === '/api/v1/boom') {
        return json({ error: { code: 'critical', message: 'A CRITICAL error occurred' } }, 401)
      }
      if (url === '/api/v1/refused') {
        return json({ error: { code: 'provider_sign_in', message: 'Exact Online no longer accepts the sign-in' } }, 403)
      }
      if (url === '/api/v1/auth/session') {
        if (state.session === 'critical') return json({ error: { code: 'critical', message: 'A CRITICAL error occurred' } }, 401)
        if (state.session === 'refused') return json({ error: { code: 'sign_in_refused', message: 'Exact Online no longer accepts your sign-in' } }, 401)
        return state.session === 'unauthorized' ? json({ error: { code: 'not_authorized', message: 'not authorized' } }, 401) : json(state.session)
      }
      return json({ error: { code: 'not_found', message: 'Not found' } }, 404)
    }),
  )
  return state
}

function Home() {
  const notice = (useLocation().state as HomeNotice | null)?.notice
  return <p>home page {notice}</p>
}

function renderAt(path: string) {
  const queryClient = createQueryClient()
  render(
    <QueryClientProvider client={queryClient}>
      <MemoryRouter initialEntries={[path]}>
        <SessionProvider>
          <Routes>
            <Route path="/" element={<Home />} />
            <Route path="/dashboard" element={<p>dashboard page</p>} />
          </Routes>
        </SessionProvider>
      </MemoryRouter>
    </QueryClientProvider>,
  )
  return queryClient
}

describe('SessionProvider', () => {
  it('logs out and goes Home when a signed-in session comes back public', async () => {
    const server = fakeServer(session())
    localStorage.setItem('selectedEndpoints', '["items"]')
    const queryClient = renderAt('/dashboard')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'full' }))
    expect(screen.getByText('dashboard page')).toBeTruthy()

    server.session = PUBLIC_SESSION
    await act(() => queryClient.refetchQueries({ queryKey: queryKeys.session }))

    await screen.findByText(/^home page/)
    expect(server.calls).toContain('POST /api/v1/auth/logout')
    expect(localStorage.getItem('selectedEndpoints')).toBeNull()
    expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'public' })
    // logged out once, and the public answer that follows does not log out again
    await act(() => queryClient.refetchQueries({ queryKey: queryKeys.session }))
    expect(server.calls.filter((c) => c.includes('logout'))).toHaveLength(1)
  })

  it('logs out when the check is refused with 401', async () => {
    const server = fakeServer(session({ tier: 'signedIn', registered: false }))
    const queryClient = renderAt('/dashboard')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'signedIn' }))
    server.session = 'unauthorized'
    await act(() => queryClient.refetchQueries({ queryKey: queryKeys.session }))
    await screen.findByText(/^home page/)
    expect(server.calls).toContain('POST /api/v1/auth/logout')
  })

  it('logs out with the critical message when any call fails critically', async () => {
    const server = fakeServer(session())
    const queryClient = renderAt('/dashboard')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'full' }))
    await act(async () => {
      await queryClient.fetchQuery({ queryKey: ['boom'], queryFn: () => api('/boom') }).catch(() => undefined)
    })
    await screen.findByText('home page A CRITICAL error occurred, you will be returned to the login screen')
    expect(server.calls).toContain('POST /api/v1/auth/logout')
  })

  it('logs out once with the critical message when a call outside any query fails critically', async () => {
    const server = fakeServer(session())
    const queryClient = renderAt('/dashboard')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'full' }))
    await act(async () => {
      await Promise.all([api('/boom').catch(() => undefined), api('/boom').catch(() => undefined)])
    })
    await screen.findByText('home page A CRITICAL error occurred, you will be returned to the login screen')
    expect(server.calls.filter((c) => c === 'POST /api/v1/auth/logout')).toHaveLength(1)
  })

  it('says the critical message when the session check itself answers it', async () => {
    const server = fakeServer(session())
    const queryClient = renderAt('/dashboard')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'full' }))
    server.session = 'critical'
    await act(() => queryClient.refetchQueries({ queryKey: queryKeys.session }))
    await screen.findByText('home page A CRITICAL error occurred, you will be returned to the login screen')
    // a server that keeps saying it does not log out in a loop
    await act(() => queryClient.refetchQueries({ queryKey: queryKeys.session }))
    await act(() => new Promise((r) => setTimeout(r, 100)))
    expect(server.calls.filter((c) => c === 'POST /api/v1/auth/logout')).toHaveLength(1)
  })

  it('checks the session at once when Exact refuses a call, and says why it ended', async () => {
    const server = fakeServer(session())
    const queryClient = renderAt('/dashboard')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'full' }))
    server.session = 'refused'
    await act(async () => {
      await api('/refused').catch(() => undefined)
    })
    await screen.findByText(/home page Exact Online no longer accepts your sign-in: your access was withdrawn/)
    expect(server.calls).toContain('POST /api/v1/auth/logout')
    expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'public' })
  })

  it('ends the session when any call says Exact ended the user', async () => {
    const server = fakeServer(session())
    vi.stubGlobal(
      'fetch',
      vi.fn(async (url: string, init?: RequestInit) => {
        server.calls.push(`${init?.method ?? 'GET'} ${url}`)
        if (url === '/api/v1/auth/session') return server.session === 'refused' ? json(PUBLIC_SESSION) : json(session())
        if (url === '/api/v1/db/items') return json({ error: { code: 'sign_in_refused', message: 'refused' } }, 401)
        return json(null, 204)
      }),
    )
    const queryClient = renderAt('/dashboard')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'full' }))
    server.session = 'refused'
    await act(async () => {
      await api('/db/items').catch(() => undefined)
    })
    await screen.findByText(/home page Exact Online no longer accepts your sign-in/)
  })

  it('leaves a public visitor alone', async () => {
    const server = fakeServer(PUBLIC_SESSION)
    const queryClient = renderAt('/')
    await waitFor(() => expect(queryClient.getQueryData(queryKeys.session)).toMatchObject({ tier: 'public' }))
    await act(() => queryClient.refetchQueries({ queryKey: queryKeys.session }))
    expect(server.calls.some((c) => c.includes('logout'))).toBe(false)
  })
})
