import { QueryClient, QueryObserver } from '@tanstack/react-query'
import { describe, expect, it, vi } from 'vitest'
import { PUBLIC_SESSION } from '../api/auth.ts'
import { ApiError } from '../api/client.ts'
import { queryKeys, sessionRefetchInterval } from '../api/queries.ts'
import { memoryStorage, session } from '../test/fixtures.ts'
import { forgetCatalogues, type CatalogueRecord } from '../offline/catalogue.ts'
import { memoryStore } from '../offline/idb.ts'
import { keepBooking, reloadBookings, setBookingOwner, setBookingStore, type Booking } from '../offline/queue.ts'
import { endSession, sessionEnded } from './sessionEnd.ts'

const nothingKept = async () => undefined

describe('sessionEnded', () => {
  it('ends a signed-in session that comes back public', () => {
    expect(sessionEnded(true, PUBLIC_SESSION, null)).toBe(true)
  })

  it('ends a signed-in session whose check is refused with 401', () => {
    expect(sessionEnded(true, session(), new ApiError(401, 'not_authorized', 'not authorized'))).toBe(true)
  })

  it('does not end on a network failure or another error', () => {
    expect(sessionEnded(true, session(), new ApiError(0, 'network', 'Failed to fetch'))).toBe(false)
    expect(sessionEnded(true, session(), new ApiError(500, '-', 'boom'))).toBe(false)
  })

  it('does nothing for someone who was never signed in', () => {
    expect(sessionEnded(false, PUBLIC_SESSION, null)).toBe(false)
    expect(sessionEnded(false, undefined, new ApiError(401, 'not_authorized', ''))).toBe(false)
  })

  it('keeps a session that is still signed in', () => {
    expect(sessionEnded(true, session({ tier: 'signedIn' }), null)).toBe(false)
  })
})

describe('the 10-second check', () => {
  it('runs while signed in and stops when public', () => {
    expect(sessionRefetchInterval(session())).toBe(10_000)
    expect(sessionRefetchInterval(session({ tier: 'signedIn' }))).toBe(10_000)
    expect(sessionRefetchInterval(PUBLIC_SESSION)).toBe(false)
    expect(sessionRefetchInterval(undefined)).toBe(false)
  })
})

describe('endSession', () => {
  it('logs out on the server, clears the caches and the app storage, leaves the session public', async () => {
    const queryClient = new QueryClient()
    queryClient.setQueryData(queryKeys.session, session())
    queryClient.setQueryData(queryKeys.syncStatus, { running: false })
    const local = memoryStorage({ selectedEndpoints: '["items"]', 'other-app': 'keep' })
    const sess = memoryStorage({ anything: '1' })
    const postLogout = vi.fn(async () => undefined)

    await endSession({ postLogout, queryClient, local, session: sess, forgetCatalogues: nothingKept })

    expect(postLogout).toHaveBeenCalledOnce()
    expect(queryClient.getQueryData(queryKeys.syncStatus)).toBeUndefined()
    expect(queryClient.getQueryData(queryKeys.session)).toEqual(PUBLIC_SESSION)
    expect(sessionRefetchInterval(queryClient.getQueryData(queryKeys.session))).toBe(false)
    expect(local.getItem('selectedEndpoints')).toBeNull()
    expect(local.getItem('other-app')).toBe('keep')
    expect(sess.length).toBe(0)
  })

  it('clears everything even when the server logout fails', async () => {
    const queryClient = new QueryClient()
    queryClient.setQueryData(queryKeys.syncStatus, { running: true })
    const local = memoryStorage({ selectedEndpoints: '[]' })
    await endSession({
      postLogout: async () => Promise.reject(new ApiError(0, 'network', 'down')),
      queryClient,
      local,
      session: memoryStorage(),
      forgetCatalogues: nothingKept,
    })
    expect(queryClient.getQueryData(queryKeys.syncStatus)).toBeUndefined()
    expect(local.getItem('selectedEndpoints')).toBeNull()
  })

  it('tells a screen that is already watching the session that it is public now, without a reload', async () => {
    // the header watched the session before the logout: it must stop showing the nav and names
    const queryClient = new QueryClient()
    queryClient.setQueryData(queryKeys.session, session())
    queryClient.setQueryData(queryKeys.syncStatus, { running: false })
    const observer = new QueryObserver(queryClient, { queryKey: queryKeys.session, queryFn: async () => session(), staleTime: Infinity })
    const seen: unknown[] = []
    const unsubscribe = observer.subscribe((r) => seen.push(r.data))
    await endSession({ postLogout: async () => undefined, queryClient, local: memoryStorage(), session: memoryStorage(), forgetCatalogues: nothingKept })
    expect(observer.getCurrentResult().data).toEqual(PUBLIC_SESSION)
    expect(seen.at(-1)).toEqual(PUBLIC_SESSION)
    expect(queryClient.getQueryData(queryKeys.syncStatus)).toBeUndefined()
    unsubscribe()
  })
})

describe('logout on a shared handheld', () => {
  it('deletes the kept catalogues and the kept session, and keeps the bookings still waiting', async () => {
    const catalogues = memoryStore<CatalogueRecord>((r) => r.division)
    await catalogues.put({ division: 7, etag: null, checkedAt: 0, json: '{}' })
    setBookingStore(memoryStore<Booking>((b) => b.key))
    setBookingOwner({ division: 7, user: 'anna@example.nl' })
    await keepBooking({ key: 'k1', kind: 'count', summary: 'Count A-1: 4 pc', path: '/exact/createStockCount', method: 'POST', body: {} })
    const local = memoryStorage({ 'esm.session.kept': JSON.stringify({ keptAt: 1, session: session() }) })

    await endSession({
      postLogout: async () => undefined,
      queryClient: new QueryClient(),
      local,
      session: memoryStorage(),
      forgetCatalogues: () => forgetCatalogues(catalogues),
    })

    expect(await catalogues.all()).toEqual([])
    expect(local.getItem('esm.session.kept')).toBeNull()
    expect((await reloadBookings()).map((b) => [b.key, b.user])).toEqual([['k1', 'anna@example.nl']])
  })
})
