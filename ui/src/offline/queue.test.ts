import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { ApiError } from '../api/client.ts'
import type { WriteResult } from '../api/outbox.ts'
import { book, sendWrite } from '../api/writes.ts'
import { memoryStore } from './idb.ts'
import { fateOf, keepBooking, reloadBookings, sendWaiting, setBookingOwner, setBookingStore, type Booking, type Send } from './queue.ts'

const delivered: WriteResult = { state: 'delivered', error: null, entries: [] }
const ANNA = { division: 7, user: 'anna@example.nl', fullName: 'Anna de Vries' }
const made = (summary: string, division = 7, user = ANNA.user) => {
  setBookingOwner({ division, user, fullName: user === ANNA.user ? ANNA.fullName : null })
  return keepBooking({ key: `k-${summary}`, kind: 'issue', summary, path: '/exact/updateMaterialsIssues', method: 'POST', body: { summary } })
}
const lost = () => new ApiError(0, 'timeout', 'The request timed out or encountered a network issue')

beforeEach(() => setBookingStore(memoryStore<Booking>((b) => b.key)))
afterEach(() => vi.unstubAllGlobals())

describe('bookings kept offline', () => {
  it('sent by another tab show the answer that tab got', async () => {
    await made('elsewhere')
    expect(fateOf('k-elsewhere', [])).toBeUndefined()
    // the other tab's message, as its run sends it
    const other = new BroadcastChannel('esm-bookings')
    other.postMessage({ sent: 'k-elsewhere', result: delivered })
    await vi.waitFor(() => expect(fateOf('k-elsewhere', [])).toEqual({ status: 'sent', result: delivered }))
    other.close()
  })

  it('are sent in the order they were made, each once, and leave the device', async () => {
    for (const s of ['first', 'second', 'third']) await made(s)
    const send = vi.fn<Send>(async () => delivered)
    expect(await sendWaiting(ANNA, send)).toBe(3)
    expect(send.mock.calls.map(([b]) => b.summary)).toEqual(['first', 'second', 'third'])
    expect(send.mock.calls.map(([b]) => b.key)).toEqual(['k-first', 'k-second', 'k-third'])
    expect(await reloadBookings()).toEqual([])
    expect(fateOf('k-second')).toEqual({ status: 'sent', result: delivered })
    // nothing left: a second run sends nothing
    expect(await sendWaiting(ANNA, send)).toBe(0)
    expect(send).toHaveBeenCalledTimes(3)
  })

  it('stop at the first that gets no answer; it and the later ones wait, in order', async () => {
    for (const s of ['a', 'b', 'c']) await made(s)
    const send = vi.fn<Send>(async (b) => {
      if (b.summary === 'b') throw lost()
      return delivered
    })
    expect(await sendWaiting(ANNA, send)).toBe(1)
    expect(send).toHaveBeenCalledTimes(2)
    const left = await reloadBookings()
    expect(left.map((b) => b.summary)).toEqual(['b', 'c'])
    expect(left[0]).toMatchObject({ tries: 2, lastError: 'The request timed out or encountered a network issue', refused: null })
    expect(fateOf('k-b')?.status).toBe('waiting')
  })

  it('a refusal is kept for the user to see, is not sent again, and the next goes on', async () => {
    for (const s of ['bad', 'good']) await made(s)
    const send = vi.fn<Send>(async (b) => {
      if (b.summary === 'bad') throw new ApiError(422, 'exact_refused', 'Not enough stock')
      return delivered
    })
    expect(await sendWaiting(ANNA, send)).toBe(1)
    const left = await reloadBookings()
    expect(left).toHaveLength(1)
    expect(left[0]).toMatchObject({ summary: 'bad', refused: 'Not enough stock' })
    expect(fateOf('k-bad')?.status).toBe('refused')
    await sendWaiting(ANNA, send)
    expect(send).toHaveBeenCalledTimes(2)
  })

  it('a server that cannot take them now (signed out, 5xx) keeps them all', async () => {
    await made('x')
    const send = vi.fn<Send>(async () => {
      throw new ApiError(401, 'not_authorized', 'Sign in again')
    })
    expect(await sendWaiting(ANNA, send)).toBe(0)
    expect((await reloadBookings())[0]).toMatchObject({ summary: 'x', refused: null, tries: 1, lastError: 'Sign in again' })
  })

  it('wait for the organization they were made in', async () => {
    await made('here', 7)
    await made('there', 8)
    const send = vi.fn<Send>(async () => delivered)
    await sendWaiting(ANNA, send)
    expect(send.mock.calls.map(([b]) => b.summary)).toEqual(['here'])
    expect((await reloadBookings()).map((b) => b.summary)).toEqual(['there'])
  })

  it('one run at a time: a second call while one runs sends nothing twice', async () => {
    for (const s of ['a', 'b']) await made(s)
    const send = vi.fn<Send>(async () => {
      await new Promise((r) => setTimeout(r, 5))
      return delivered
    })
    await Promise.all([sendWaiting(ANNA, send), sendWaiting(ANNA, send)])
    expect(send).toHaveBeenCalledTimes(2)
  })
})

describe('bookings kept for their user', () => {
  it('wait while another user is signed in on the device, and go once their maker signs in again', async () => {
    await made('hers')
    await made('his', 7, 'piet@example.nl')
    const send = vi.fn<Send>(async () => delivered)
    expect(await sendWaiting({ division: 7, user: 'piet@example.nl' }, send)).toBe(1)
    expect(send.mock.calls.map(([b]) => b.summary)).toEqual(['his'])
    const [left] = await reloadBookings()
    expect(left).toMatchObject({ summary: 'hers', user: ANNA.user, userFullName: 'Anna de Vries' })
    expect(await sendWaiting(ANNA, send)).toBe(1)
    expect(await reloadBookings()).toEqual([])
  })

  it('kept before their user was kept with them are sent by whoever signs in', async () => {
    await made('older', 7, null as unknown as string)
    const send = vi.fn<Send>(async () => delivered)
    expect(await sendWaiting({ division: 7, user: 'piet@example.nl' }, send)).toBe(1)
  })
})

describe('a booking made without the server', () => {
  const failingFetch = () =>
    vi.fn(async (_url: string, _init?: RequestInit): Promise<Response> => {
      throw new TypeError('Failed to fetch')
    })

  it('is kept under the key it was sent with, and answered "kept"', async () => {
    const fetchMock = failingFetch()
    vi.stubGlobal('fetch', fetchMock)
    vi.stubGlobal('navigator', { onLine: false })
    setBookingOwner(ANNA)
    const res = await book('/exact/updateMaterialsIssues', { method: 'POST', body: { Quantity: 2 } }, { keep: { kind: 'issue', summary: 'Issue 2' } })
    expect(res.state).toBe('kept')
    // offline: no resends with pauses, kept at once
    expect(fetchMock).toHaveBeenCalledTimes(1)
    const sentKey = (fetchMock.mock.calls[0][1]?.headers as Record<string, string> | undefined)?.['Idempotency-Key']
    const [kept] = await reloadBookings()
    expect(kept).toMatchObject({
      key: sentKey,
      division: 7,
      kind: 'issue',
      summary: 'Issue 2',
      path: '/exact/updateMaterialsIssues',
      method: 'POST',
      body: { Quantity: 2 },
    })
    expect(res.key).toBe(sentKey)
  })

  it('through sendWrite is an outcome "kept", not an error; without `keep` it stays an error', async () => {
    vi.stubGlobal('fetch', failingFetch())
    vi.stubGlobal('navigator', { onLine: false })
    const outcome = await sendWrite('/exact/createWarehouseTransfer', 'POST', { a: 1 }, { keep: { kind: 'transfer', summary: 'Move 1' }, pauseMs: 0 })
    expect(outcome).toMatchObject({ state: 'kept', entryIds: [] })
    expect((await reloadBookings())[0]).toMatchObject({ path: '/exact/createWarehouseTransfer?wait=10', key: outcome.key })
    await expect(sendWrite('/exact/updateShopOrder', 'PUT', {}, { pauseMs: 0 })).rejects.toMatchObject({ code: 'timeout' })
    expect(await reloadBookings()).toHaveLength(1)
  })

  it('a refusal by the server is never kept', async () => {
    vi.stubGlobal('fetch', async () => new Response(JSON.stringify({ error: { code: 'exact_refused', message: 'Not enough stock' } }), { status: 422 }))
    await expect(book('/exact/updateMaterialsIssues', { method: 'POST', body: {} }, { keep: { kind: 'issue', summary: 'x' } })).rejects.toMatchObject({
      status: 422,
    })
    expect(await reloadBookings()).toEqual([])
  })
})
