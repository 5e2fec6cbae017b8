import { act, cleanup, fireEvent, render, screen } from '@testing-library/react'
import { MemoryRouter } from 'react-router'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import type { WriteResult } from '../api/outbox.ts'
import { memoryStore } from '../offline/idb.ts'
import { keepBooking, sendWaiting, setBookingOwner, setBookingStore, type Booking, type Send } from '../offline/queue.ts'
import { SentBookings } from './SentBookings.tsx'

const OWNER = { division: 7, user: 'anna@example.nl', fullName: 'Anna de Vries' }
const delivered: WriteResult = { state: 'delivered', error: null, entries: [] }

async function made(summary: string) {
  setBookingOwner(OWNER)
  return keepBooking({ key: summary, kind: 'issue', summary, path: '/exact/updateMaterialsIssues', method: 'POST', body: {} })
}

beforeEach(() => setBookingStore(memoryStore<Booking>((b) => b.key)))
afterEach(() => {
  cleanup()
  vi.unstubAllGlobals()
})

const show = () =>
  render(
    <MemoryRouter>
      <SentBookings division={7} />
    </MemoryRouter>,
  )

describe('SentBookings', () => {
  it('says how many kept bookings were sent, links to the list, and stays until dismissed', async () => {
    show()
    expect(screen.queryByTestId('sent-bookings')).toBeNull()
    await made('a')
    await made('b')
    const send = vi.fn<Send>(async () => delivered)
    await act(async () => void (await sendWaiting(OWNER, send)))
    const notice = screen.getByTestId('sent-bookings')
    expect(notice.textContent).toContain('2 bookings made on this device sent to Exact Online')
    expect(screen.getByRole('link', { name: 'See the list of writes' }).getAttribute('href')).toBe('/mng?division=7#mng-outbox')
    // one more later adds up until the user has seen it
    await made('c')
    await act(async () => void (await sendWaiting(OWNER, send)))
    expect(screen.getByTestId('sent-bookings').textContent).toContain('3 bookings made on this device sent')
    fireEvent.click(screen.getByRole('button', { name: 'OK' }))
    expect(screen.queryByTestId('sent-bookings')).toBeNull()
  })

  it('says nothing when nothing could be sent', async () => {
    show()
    await made('a')
    const send = vi.fn<Send>(async () => {
      throw new Error('unreachable')
    })
    await act(async () => void (await sendWaiting(OWNER, send)))
    expect(screen.queryByTestId('sent-bookings')).toBeNull()
  })
})
