import { act, cleanup, render, screen } from '@testing-library/react'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { memoryStore } from '../offline/idb.ts'
import { keepBooking, reloadBookings, setBookingOwner, setBookingStore, type Booking } from '../offline/queue.ts'
import { LogoutDialog } from './LogoutDialog.tsx'

let store = memoryStore<Booking>((b) => b.key)

async function made(summary: string, user: string) {
  setBookingOwner({ division: 7, user })
  return keepBooking({ key: summary, kind: 'count', summary, path: '/exact/createStockCount', method: 'POST', body: {} })
}

beforeEach(() => {
  store = memoryStore<Booking>((b) => b.key)
  setBookingStore(store)
})

afterEach(cleanup)

describe('the logout question on a shared handheld', () => {
  it("counts the bookings still waiting, anyone's, and says they stay until their maker signs in", async () => {
    await made('Count A-1: 4 pc', 'anna@example.nl')
    await made('Count A-2: 1 pc', 'piet@example.nl')
    const refused = await made('Count A-3: 2 pc', 'anna@example.nl')
    await store.put({ ...refused, refused: 'Not enough stock' })
    render(<LogoutDialog onClose={() => undefined} />)
    await act(() => reloadBookings())
    expect(screen.getByTestId('logout-waiting').textContent).toBe(
      '2 bookings made offline still wait on this device. They stay on it, and each is sent when the person who made it signs in again.',
    )
  })

  it('says it of one booking in the singular, and nothing when none waits', async () => {
    const view = render(<LogoutDialog onClose={() => undefined} />)
    await act(() => reloadBookings())
    expect(screen.queryByTestId('logout-waiting')).toBeNull()
    view.unmount()
    await made('Count A-1: 4 pc', 'anna@example.nl')
    render(<LogoutDialog onClose={() => undefined} />)
    await act(() => reloadBookings())
    expect(screen.getByTestId('logout-waiting').textContent).toBe(
      '1 booking made offline still waits on this device. It stays on it, and is sent when the person who made it signs in again.',
    )
  })
})
