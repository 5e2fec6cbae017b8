import { QueryClientProvider } from '@tanstack/react-query'
import { act, cleanup, render, screen } from '@testing-library/react'
import { lazy } from 'react'
import { MemoryRouter, Route, Routes } from 'react-router'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PUBLIC_SESSION, type Session } from '../api/auth.ts'
import { createQueryClient } from '../api/queryClient.ts'
import { routes, type RouteDef } from '../routeTable.ts'
import { json, session } from '../test/fixtures.ts'
import { RouteGuard } from './RouteGuard.tsx'

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const screenOf = lazy(async () => ({ default: () => <p>the import screen</p> }))

/** The ImportData route (made for offline or not) behind its guard, with Home beside it. */
function guarded(client = createQueryClient(), offline?: boolean) {
  return (
    <QueryClientProvider client={client}>
      <MemoryRouter initialEntries={['/importData']}>
        <Routes>
          <Route path="/importData" element={<RouteGuard route={{ path: '/importData', access: 'importData', screen: screenOf, offline }} />} />
          <Route path="/" element={<p>home</p>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>
  )
}

function renderAt(s: Session) {
  vi.stubGlobal(
    'fetch',
    vi.fn(async () => json(s)),
  )
  render(guarded())
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

  it('shows a user of an organization not activated the way to activation', async () => {
    renderAt(session({ tier: 'signedIn', registered: false, importDataUntil: Date.now() + 60_000 }))
    await screen.findByTestId('activation-notice')
    expect(screen.queryByText('the import screen')).toBeNull()
  })

  it('sends a signed-out visitor Home', async () => {
    renderAt(PUBLIC_SESSION)
    await screen.findByText('home')
  })
})

/** Every call the screen under test makes, answered 403 as the server does below full access. */
function renderRoute(route: RouteDef, s: Session) {
  const calls: string[] = []
  vi.stubGlobal(
    'fetch',
    vi.fn(async (url: string) => {
      calls.push(url)
      if (url === '/api/v1/auth/session') return json(s)
      return json({ error: { code: 'forbidden', message: 'This organization is not activated yet' } }, 403)
    }),
  )
  render(
    <QueryClientProvider client={createQueryClient()}>
      <MemoryRouter initialEntries={[route.path]}>
        <Routes>
          <Route path={route.path} element={<RouteGuard route={route} />} />
          <Route path="/" element={<p>home</p>} />
          <Route path="/license-code" element={<p>licence page</p>} />
        </Routes>
      </MemoryRouter>
    </QueryClientProvider>,
  )
  return calls
}

describe('RouteGuard before activation', () => {
  const notActivated = session({ tier: 'signedIn', registered: false })
  const fullRoutes = routes.filter((r) => r.access === 'full')

  it('covers Transfers, whose every call needs full access', () => {
    expect(fullRoutes.map((r) => r.path)).toContain('/transfers')
  })

  it.each(fullRoutes.map((r) => [r.path, r] as const))('shows %s’s notice and link to activation, and calls nothing', async (_, route) => {
    const calls = renderRoute(route, notActivated)
    const notice = await screen.findByTestId('activation-notice')
    expect(notice.textContent).toContain('This organization is not activated yet.')
    expect(calls.filter((c) => c !== '/api/v1/auth/session')).toEqual([])
    act(() => screen.getByRole('link', { name: 'Enter a licence code' }).click())
    await screen.findByText('licence page')
  })

  it('shows the screen once activated', async () => {
    renderRoute({ path: '/transfers', access: 'full', screen: lazy(async () => ({ default: () => <p>the transfers screen</p> })) }, session())
    await screen.findByText('the transfers screen')
  })
})

describe('RouteGuard without the server', () => {
  it('shows the catalogue message in place of the screen, not Home, and the screen once the server answers', async () => {
    let up = false
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        if (!up) throw new TypeError('Failed to fetch')
        return json(session({ importDataUntil: Date.now() + 60_000 }))
      }),
    )
    render(guarded())
    const alert = await screen.findByTestId('unreached')
    expect(alert.textContent).toBe('Function code timed out or there was a network issue / try executing the call again (timeout)')
    expect(screen.queryByText('home')).toBeNull()
    up = true
    await act(async () => screen.getByRole('button', { name: 'Try again' }).click())
    await screen.findByText('the import screen')
  })

  it('with the last session this browser had, opens a screen made for offline and no other', async () => {
    localStorage.setItem('esm.session.kept', JSON.stringify({ keptAt: Date.now(), session: session({ importDataUntil: Date.now() + 60_000 }) }))
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        throw new TypeError('Failed to fetch')
      }),
    )
    const view = render(guarded(createQueryClient(), true))
    await screen.findByText('the import screen')
    view.unmount()
    render(guarded(createQueryClient(), false))
    expect((await screen.findByTestId('unreached')).textContent).toContain('(timeout)')
    expect(screen.queryByText('the import screen')).toBeNull()
    localStorage.clear()
  })

  it('keeps a screen in use when a session check meets the server gone (the kept copy is for opening only)', async () => {
    localStorage.setItem('esm.session.kept', JSON.stringify({ keptAt: Date.now(), session: session({ importDataUntil: Date.now() + 60_000 }) }))
    let up = true
    vi.stubGlobal(
      'fetch',
      vi.fn(async () => {
        if (!up) throw new TypeError('Failed to fetch')
        return json(session({ importDataUntil: Date.now() + 60_000 }))
      }),
    )
    const client = createQueryClient()
    render(guarded(client))
    await screen.findByText('the import screen')
    up = false
    await act(() => client.refetchQueries({ queryKey: ['session'] }))
    expect(screen.getByText('the import screen')).toBeTruthy()
    expect(screen.queryByTestId('unreached')).toBeNull()
    localStorage.clear()
  })
})
