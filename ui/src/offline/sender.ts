// Sends the bookings kept on this device whenever the server can be reached: when the app opens,
// when the server answers again, and every few seconds while some wait (a dead spot can end
// without any call noticing it).
import { useEffect } from 'react'
import { useOffline } from '../state/reachability.ts'
import { reloadBookings, sendWaiting, setBookingDivision, useBookings } from './queue.ts'

/** How often bookings still waiting are tried while the server seems reachable. */
export const RESEND_MS = 10_000

/** Runs the sending of organization `division`'s kept bookings (null: not signed in). */
export function useBookingSender(division: number | null) {
  const offline = useOffline()
  const bookings = useBookings()
  const waiting = division !== null && bookings.some((b) => b.division === division && !b.refused)
  useEffect(() => {
    void reloadBookings()
  }, [])
  useEffect(() => {
    if (division !== null) setBookingDivision(division)
  }, [division])
  useEffect(() => {
    if (!waiting || offline || division === null) return
    void sendWaiting(division)
    const timer = setInterval(() => void sendWaiting(division), RESEND_MS)
    return () => clearInterval(timer)
  }, [waiting, offline, division])
}
