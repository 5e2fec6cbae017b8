// Writes to Exact Online through the outbox, with their outcome as the user should see it.
import { api, isApiError, TIMEOUT_CODE, type RequestOptions } from './client.ts'
import { call, pathOf, type Route } from './contract.ts'
import type { EntryState, OutboxEntry, WriteResult } from './outbox.ts'
import { keepBooking, type Booking, type Keepable } from '../offline/queue.ts'
import { t } from '../i18n/index.ts'

/** An outbox state, or 'kept': made while the server could not be reached, kept on this device. */
export type WriteState = EntryState | 'kept'

export interface WriteOutcome {
  state: WriteState
  /**
   * When refused ('failed'): the provider's (or the server's) message. While open ('pending',
   * 'sending'): why it waits, if the server says ("Waiting for Exact Online: could not connect").
   */
  message: string | null
  /** Outbox entries still to follow while pending. */
  entryIds: number[]
  /** The idempotency key of a booking kept on this device ('kept'). */
  key?: string
}

/** Thrown by a keepable write the server could not be reached for: it was kept on this device. */
export class KeptOffline extends Error {
  readonly booking: Booking

  constructor(booking: Booking) {
    super(t('offline.kept'))
    this.name = 'KeptOffline'
    this.booking = booking
  }
}

/** Seconds the server waits for the provider before answering "pending" (202). */
const WAIT_SECS = 10

/** Times a write is sent when no answer comes back (a Wi-Fi dead spot), under one key. */
export const SEND_TRIES = 3

/** How long one try waits for the server's answer (it may wait WAIT_SECS for Exact's own). */
export const WRITE_TIMEOUT_MS = (WAIT_SECS + 20) * 1000

/**
 * A new idempotency key: the server books a write sent twice under one key once, and answers the
 * second time as it did the first.
 */
export function idempotencyKey(random: Pick<Crypto, 'getRandomValues'> & Partial<Pick<Crypto, 'randomUUID'>> = crypto): string {
  // randomUUID exists only in secure contexts; a handheld on plain http still has getRandomValues
  if (typeof random.randomUUID === 'function') return random.randomUUID()
  return Array.from(random.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
}

/** How a write is sent again: its key, the pause between tries, and whether it may be kept. */
export interface SendOptions {
  key?: string
  pauseMs?: number
  /**
   * A booking that may wait on this device when the server cannot be reached: it is kept under
   * its key (KeptOffline is thrown) and sent later (`offline/queue.ts`).
   */
  keep?: Keepable
}

/**
 * A write to Exact Online through the server under one idempotency key, made once per write:
 * when no answer comes back (a Wi-Fi dead spot), it is sent again under the same key, up to
 * SEND_TRIES times, and the server books it once and answers as it did the first time. A
 * keepable booking that still gets no answer (or is made while the browser is offline) is kept.
 * The path is a write route of the server's document (`/exact/createGoodsReceipt`, or
 * `/exact/{kind}` filled in) with its query; the caller types the body with `BodyOf`.
 */
export async function keyedWrite(
  path: string,
  options: Omit<RequestOptions, 'headers'>,
  { key = idempotencyKey(), pauseMs = 1000, keep }: SendOptions = {},
): Promise<WriteResult> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api<WriteResult>(path, { timeoutMs: WRITE_TIMEOUT_MS, ...options, headers: { 'Idempotency-Key': key } })
    } catch (e) {
      // no answer: the write may have been queued or not; under the same key a resend is safe
      if (isApiError(e) && e.code === TIMEOUT_CODE) {
        const offline = typeof navigator !== 'undefined' && navigator.onLine === false
        if (attempt < SEND_TRIES && !(keep && offline)) {
          await new Promise((r) => setTimeout(r, pauseMs * attempt))
          continue
        }
        if (keep) throw await kept(e, { ...keep, key, path, method: options.method ?? 'POST', body: options.body })
      }
      throw e
    }
  }
}

/** What a booking's write answered, or 'kept' (with its key) when it waits on this device. */
export type BookResult = Omit<WriteResult, 'state'> & { state: WriteState; key?: string }

/** A keyed write of a booking that may be kept on this device: 'kept' is an answer, not an error. */
export async function book(path: string, options: Omit<RequestOptions, 'headers'>, send: SendOptions = {}): Promise<BookResult> {
  try {
    return await keyedWrite(path, options, send)
  } catch (e) {
    if (e instanceof KeptOffline) return { state: 'kept', error: null, entries: [], key: e.booking.key }
    throw e
  }
}

/** The booking kept, or the original failure when this browser cannot keep it. */
async function kept(failure: Error, b: Parameters<typeof keepBooking>[0]): Promise<Error> {
  try {
    return new KeptOffline(await keepBooking(b))
  } catch {
    return failure
  }
}

/**
 * Sends a write; a refusal (422) or a refused body (400) is an outcome, not an exception. During
 * an outage the server queues it and answers 202 at once: 'pending', sent when Exact Online answers.
 */
export async function sendWrite(path: string, method: 'POST' | 'PUT' | 'DELETE', body?: unknown, retry?: SendOptions): Promise<WriteOutcome> {
  try {
    return outcomeOf(await book(`${path}${path.includes('?') ? '&' : '?'}wait=${WAIT_SECS}`, { method, body }, retry))
  } catch (e) {
    if (isApiError(e) && (e.status === 422 || e.status === 400)) return { state: 'failed', message: e.message, entryIds: [] }
    throw e
  }
}

/** The outcome of what the server answered a write (a kept booking's, once sent), or 'kept'. */
export function outcomeOf(res: BookResult): WriteOutcome {
  if (res.state === 'kept') return { state: 'kept', message: null, entryIds: [], key: res.key }
  const open = res.state === 'pending' || res.state === 'sending'
  return { state: res.state, message: res.error ?? (open ? waitingReason(res.entries) : null), entryIds: res.entries.map((e) => e.id) }
}

export const getEntry = (id: number) => call('get', '/outbox/{id}', { params: { id } })

/** What `deleteDataFromExact` may delete: hour bookings, draft transfers and draft counts. */
export type Deletable = 'timeTransactions' | 'warehouseTransfers' | 'stockCounts'

/** Deletes a record in Exact Online through the outbox. */
export const deleteFromExact = (endpoint: Deletable, id: string) =>
  sendWrite(pathOf('/exact/deleteDataFromExact' satisfies Route, undefined, { endpoint, id }), 'DELETE')

/** Why open entries wait, if the server says: the first reason given. */
export function waitingReason(entries: readonly Pick<OutboxEntry, 'state' | 'error'>[]): string | null {
  return entries.find((e) => (e.state === 'pending' || e.state === 'sending') && e.error)?.error ?? null
}

/**
 * The overall state of entries that were sent together: any refusal wins, then any still open
 * (with why it waits).
 */
export function combine(entries: readonly OutboxEntry[]): Pick<WriteOutcome, 'state' | 'message'> {
  const failed = entries.find((e) => e.state === 'failed')
  if (failed) return { state: 'failed', message: failed.error }
  if (entries.length && entries.every((e) => e.state === 'delivered')) return { state: 'delivered', message: null }
  return { state: entries.some((e) => e.state === 'sending') ? 'sending' : 'pending', message: waitingReason(entries) }
}
