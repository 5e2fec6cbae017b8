// Sends the bookings kept on this device whenever the server can be reached: when the app opens,
// when the server answers again, and every few seconds while some wait (a dead spot can end
// without any call noticing it).
import { useEffect } from 'react'
import { useOffline } from '../state/reachability.ts'
import { reloadBookings, sendableBy, sendWaiting, setBookingOwner, useBookings, type Owner } from './queue.ts'

/** How often bookings still waiting are tried while the server seems reachable. */
export const RESEND_MS = 10_000

/** Runs the sending of the kept bookings the signed-in user made in their organization. */
export function useBookingSender({ division, user, fullName }: Owner) {
  const offline = useOffline()
  const bookings = useBookings()
  const waiting = bookings.some((b) => sendableBy(b, { division, user }) && !b.refused)
  useEffect(() => {
    void reloadBookings()
  }, [])
  useEffect(() => {
    setBookingOwner({ division, user, fullName })
  }, [division, user, fullName])
  useEffect(() => {
    if (!waiting || offline) return
    void sendWaiting({ division, user })
    const timer = setInterval(() => void sendWaiting({ division, user }), RESEND_MS)
    return () => clearInterval(timer)
  }, [waiting, offline, division, user])
}
