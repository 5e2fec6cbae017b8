import { act, cleanup, fireEvent, render, screen, within } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { memoryStore } from '../offline/idb.ts'
import { keepBooking, reloadBookings, setBookingOwner, setBookingStore, type Booking } from '../offline/queue.ts'
import { session } from '../test/fixtures.ts'
import { WaitingBookings } from './WaitingBookings.tsx'

let store = memoryStore<Booking>((b) => b.key)

async function made(summary: string, division = 7, user: string | null = session().userName ?? null) {
  setBookingOwner({ division, user, fullName: user === session().userName ? session().fullName : 'Piet Jansen' })
  return keepBooking({ key: summary, kind: 'count', summary, path: '/exact/createStockCount', method: 'POST', body: {} })
}

beforeEach(() => {
  store = memoryStore<Booking>((b) => b.key)
  setBookingStore(store)
  // offline: the sender leaves them alone, so what is shown is what was kept
  vi.stubGlobal('navigator', { ...navigator, onLine: false })
})

afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

describe('WaitingBookings', () => {
  it('shows nothing while nothing waits', async () => {
    render(<WaitingBookings session={session({ division: 7 })} />)
    await act(() => reloadBookings())
    expect(screen.queryByTestId('waiting-bookings')).toBeNull()
  })

  it('says how many wait and lists what each is, with a refusal, another organization and another user apart', async () => {
    await made('Count A-1 at 1 · B1: 4 pc')
    await made('Move 2 pc A-2 from B1 to B2')
    await made('Count X at elsewhere', 8)
    await made('Issue 1 pc A-4 to shop order 6', 7, 'piet@example.nl')
    const refused = await made('Issue 9 pc A-3 to shop order 5')
    await store.put({ ...refused, refused: 'Not enough stock' })
    render(<WaitingBookings session={session({ division: 7 })} />)
    await act(() => reloadBookings())
    expect(screen.getByTestId('waiting-count').textContent).toBe('4 waiting to send')
    fireEvent.click(screen.getByRole('button', { name: /4 waiting to send/ }))
    const rows = screen.getAllByTestId('waiting-booking')
    expect(rows.map((r) => r.textContent)).toEqual([
      expect.stringContaining('Count A-1 at 1 · B1: 4 pc'),
      expect.stringContaining('Move 2 pc A-2 from B1 to B2'),
      expect.stringContaining('Made in organization 8: sent when you work in it again'),
      expect.stringContaining('Made by Piet Jansen: sent when they sign in on this device again, so it is booked in their name'),
      expect.stringContaining('Refused, not booked: Not enough stock'),
    ])
    expect(screen.getByRole('button', { name: 'Send now' })).toBeTruthy()
  })

  it('removes one only after the question, and a refused one at once', async () => {
    await made('Count A-1: 4 pc')
    const refused = await made('Issue 9 pc A-3')
    await store.put({ ...refused, refused: 'Not enough stock' })
    render(<WaitingBookings session={session({ division: 7 })} />)
    await act(() => reloadBookings())
    fireEvent.click(screen.getByRole('button', { name: /1 waiting to send/ }))
    const [first, second] = screen.getAllByTestId('waiting-booking')
    await act(async () => fireEvent.click(within(second).getByRole('button', { name: 'Dismiss' })))
    expect((await store.all()).map((b) => b.summary)).toEqual(['Count A-1: 4 pc'])

    fireEvent.click(within(first).getByRole('button', { name: 'Remove' }))
    const dialog = screen.getByRole('dialog', { hidden: true })
    expect(dialog.textContent).toContain('Remove “Count A-1: 4 pc”? It will not be sent to Exact Online.')
    fireEvent.click(within(dialog).getByRole('button', { name: 'Keep it', hidden: true }))
    expect(await store.all()).toHaveLength(1)
    fireEvent.click(within(screen.getByTestId('waiting-booking')).getByRole('button', { name: 'Remove' }))
    await act(async () => fireEvent.click(within(screen.getByRole('dialog', { hidden: true })).getByRole('button', { name: 'Remove', hidden: true })))
    expect(await store.all()).toEqual([])
    expect(screen.queryByTestId('waiting-bookings')).toBeNull()
  })
})
