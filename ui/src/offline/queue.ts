// Bookings made while the server could not be reached (a Wi-Fi dead spot): kept in the browser's
// database under the idempotency key they were made with, shown as "N waiting to send", and sent
// in the order they were made as soon as the server answers again, also after the app was closed.
// The key makes a resend safe: the server books a request it already has once.
import { useSyncExternalStore } from 'react'
import { api, isApiError, TIMEOUT_CODE, type RequestOptions } from '../api/client.ts'
import type { Schema } from '../api/contract.ts'
import { idbStore, memoryStore, type KeyedStore } from './idb.ts'
import { userMessage } from '../lib/errors.ts'

/** What was booked: the screen's words for it come with the booking (`summary`). */
export type BookingKind = 'issue' | 'receipt' | 'byProduct' | 'goodsReceipt' | 'transfer' | 'count' | 'hours'

export interface Booking {
  /** The idempotency key it was made with; it is sent under this key, however often. */
  key: string
  /** The order it was made in. */
  seq: number
  /** The organization it was made in: sent only while the session is in that one. */
  division: number
  /** Who made it (their sign-in name): sent only while they are signed in, so Exact Online books
   * it in their name. Absent from bookings kept before this was kept: anyone's session sends those. */
  user?: string | null
  /** Their name as shown, for "waits for … to sign in". */
  userFullName?: string | null
  kind: BookingKind
  /** What the user booked, in their words ("Issue 3 pc PART-001 to shop order 24005"). */
  summary: string
  path: string
  method: NonNullable<RequestOptions['method']>
  body: unknown
  madeAt: number
  /** Times it was sent without an answer. */
  tries: number
  /** Why the last send did not get through. */
  lastError: string | null
  /** The server's refusal (a 400/422): kept so the user sees it, sent no more. */
  refused: string | null
}

/** What a write needs to be kept: the screen's kind and words for it. */
export interface Keepable {
  kind: BookingKind
  summary: string
}

/** What became of a booking this page kept. */
export type Fate = { status: 'waiting'; booking: Booking } | { status: 'refused'; booking: Booking } | { status: 'sent'; result: WriteResult | null }

let store: KeyedStore<Booking> = typeof indexedDB === 'undefined' ? memoryStore((b) => b.key) : idbStore<Booking>('bookings')
let snapshot: readonly Booking[] = []
const sent = new Map<string, WriteResult | null>()
const listeners = new Set<() => void>()
/** Whose session this page has: who keeps and who sends. */
export interface Owner {
  division: number
  user: string | null
  fullName?: string | null
}

let owner: Owner = { division: 0, user: null }
let counter = 0
const channel = typeof BroadcastChannel === 'undefined' ? null : new BroadcastChannel('esm-bookings')

/** Tests use a store in memory. */
export function setBookingStore(s: KeyedStore<Booking>) {
  store = s
  snapshot = []
  sent.clear()
  lastSent = null
}

function notify() {
  for (const l of listeners) l()
}

/** Reads the kept bookings again (after a change here or in another tab). */
export async function reloadBookings(): Promise<readonly Booking[]> {
  const rows = await store.all().catch(() => [] as Booking[])
  snapshot = rows.sort((a, b) => a.seq - b.seq)
  notify()
  return snapshot
}

async function changed() {
  await reloadBookings()
  channel?.postMessage('changed' satisfies TabMessage)
}

/** What the tabs of this app tell each other: the kept bookings changed, or one was sent with this answer. */
type TabMessage = 'changed' | { sent: string; result: WriteResult | null }

if (channel) {
  channel.onmessage = (e: MessageEvent<TabMessage>) => {
    // a booking another tab sent: its answer, so this tab's screen shows what became of it
    if (typeof e.data === 'object' && e.data && typeof e.data.sent === 'string') sent.set(e.data.sent, e.data.result ?? null)
    void reloadBookings()
  }
}

/** The session's organization and user: a booking kept now belongs to them. */
export function setBookingOwner(o: Owner) {
  owner = o
}

/** Whether `o`'s session sends booking `b`: made in its organization, by its user. */
export function sendableBy(b: Booking, o: Owner): boolean {
  return b.division === o.division && (!b.user || b.user === o.user)
}

/** Keeps a booking the server could not be reached for; resolved once it is in the database. */
export async function keepBooking(b: Keepable & Pick<Booking, 'key' | 'path' | 'method' | 'body'>): Promise<Booking> {
  const madeAt = Date.now()
  const booking: Booking = {
    ...b,
    division: owner.division,
    user: owner.user,
    userFullName: owner.fullName ?? null,
    seq: madeAt * 1000 + (counter++ % 1000),
    madeAt,
    tries: 1,
    lastError: null,
    refused: null,
  }
  await store.put(booking)
  await changed()
  return booking
}

/** Removes a booking from the handheld: a refused one seen, or one the user does not want sent. */
export async function removeBooking(key: string) {
  await store.delete(key)
  await changed()
}

function subscribe(l: () => void) {
  listeners.add(l)
  return () => void listeners.delete(l)
}

/** The kept bookings, oldest first, re-rendering when they change. */
export function useBookings(): readonly Booking[] {
  return useSyncExternalStore(subscribe, () => snapshot)
}

/** The kept bookings the last run sent (since the user last dismissed the notice), and when. */
export interface SentNotice {
  count: number
  at: number
}

let lastSent: SentNotice | null = null

/** Bookings kept here that have been sent: shown until the user dismisses it. */
export function useSentNotice(): SentNotice | null {
  return useSyncExternalStore(subscribe, () => lastSent)
}

export function dismissSentNotice() {
  lastSent = null
  notify()
}

function noteSent(count: number) {
  lastSent = { count: (lastSent?.count ?? 0) + count, at: Date.now() }
  notify()
}

/** What became of the booking kept under `key` (unknown before the first read). */
export function fateOf(key: string, rows: readonly Booking[] = snapshot): Fate | undefined {
  const booking = rows.find((b) => b.key === key)
  if (booking) return booking.refused ? { status: 'refused', booking } : { status: 'waiting', booking }
  if (sent.has(key)) return { status: 'sent', result: sent.get(key) ?? null }
  return undefined
}

/** What a kept booking became once it left the device (refused, or the server's answer); null while it waits. */
export function sentAs(fate: Fate): WriteResult | null {
  if (fate.status === 'waiting') return null
  if (fate.status === 'refused') return { state: 'failed', error: fate.booking.refused, entries: [] }
  return fate.result ?? { state: 'pending', error: null, entries: [] }
}

/** `fateOf`, re-rendering when it changes. A booking another tab sent counts as sent, with the
 * answer that tab got once its message has come. */
export function useFate(key: string): Fate {
  const rows = useBookings()
  return fateOf(key, rows) ?? { status: 'sent', result: null }
}

/** What a write answers (`WriteResult` of the outbox). */
type WriteResult = Schema<'WriteView'>

/** How one booking is sent: its path, method and body under its key, answered at once. */
export type Send = (b: Booking) => Promise<WriteResult>

/** How long one send waits for the server (a dead spot can hold a call for minutes). */
const SEND_TIMEOUT_MS = 30_000

// `api`, not `call`: the path is the one kept with the booking (a write route with its query)
const sendOne: Send = (b) => api<WriteResult>(b.path, { method: b.method, body: b.body, headers: { 'Idempotency-Key': b.key }, timeoutMs: SEND_TIMEOUT_MS })

let sending: Promise<number> | null = null

/**
 * Sends the kept bookings `by` may send (its organization's, made by its user), oldest first,
 * one at a time; another user's wait for them to sign in. It stops at
 * the first that gets no answer (still unreachable) or meets a server that cannot take it now
 * (signed out, a 5xx): those wait for the next try, in order. A refusal is kept for the user to
 * see and the next booking goes on. Resolves to the number sent. One run at a time per page.
 */
export function sendWaiting(by: Owner, send: Send = sendOne): Promise<number> {
  if (!sending) {
    sending = run(by, send).finally(() => {
      sending = null
    })
  }
  return sending
}

async function run(by: Owner, send: Send): Promise<number> {
  let count = 0
  for (const b of await reloadBookings()) {
    if (!sendableBy(b, by) || b.refused) continue
    try {
      const result = await send(b)
      sent.set(b.key, result)
      channel?.postMessage({ sent: b.key, result } satisfies TabMessage)
      await store.delete(b.key)
      count++
    } catch (e) {
      const refused = isApiError(e) && (e.status === 400 || e.status === 409 || e.status === 422)
      const unanswered = isApiError(e) && e.code === TIMEOUT_CODE
      const message = userMessage(e)
      await store.put(refused ? { ...b, refused: message } : { ...b, tries: b.tries + (unanswered ? 1 : 0), lastError: message })
      if (!refused) break
    }
  }
  await changed()
  if (count > 0) noteSent(count)
  return count
}
