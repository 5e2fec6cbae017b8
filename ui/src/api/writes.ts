// Writes to Exact Online through the outbox, with their outcome as the user should see it.
import { api, isApiError, TIMEOUT_CODE, type RequestOptions } from './client.ts'
import type { EntryState, OutboxEntry, WriteResult } from './outbox.ts'

export interface WriteOutcome {
  state: EntryState
  /**
   * When refused ('failed'): the provider's (or the server's) message. While open ('pending',
   * 'sending'): why it waits, if the server says ("Waiting for Exact Online: could not connect").
   */
  message: string | null
  /** Outbox entries still to follow while pending. */
  entryIds: number[]
}

/** Seconds the server waits for the provider before answering "pending" (202). */
const WAIT_SECS = 10

/** Times a write is sent when no answer comes back (a Wi-Fi dead spot), under one key. */
export const SEND_TRIES = 3

/**
 * A new idempotency key: the server books a write sent twice under one key once, and answers the
 * second time as it did the first.
 */
export function idempotencyKey(random: Pick<Crypto, 'getRandomValues'> & Partial<Pick<Crypto, 'randomUUID'>> = crypto): string {
  // randomUUID exists only in secure contexts; a handheld on plain http still has getRandomValues
  if (typeof random.randomUUID === 'function') return random.randomUUID()
  return Array.from(random.getRandomValues(new Uint8Array(16)), (b) => b.toString(16).padStart(2, '0')).join('')
}

/**
 * A write to Exact Online through the server under one idempotency key, made once per write:
 * when no answer comes back (a Wi-Fi dead spot), it is sent again under the same key, up to
 * SEND_TRIES times, and the server books it once and answers as it did the first time.
 */
export async function keyedWrite<T>(
  path: string,
  options: Omit<RequestOptions, 'headers'>,
  { key = idempotencyKey(), pauseMs = 1000 }: { key?: string; pauseMs?: number } = {},
): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await api<T>(path, { ...options, headers: { 'Idempotency-Key': key } })
    } catch (e) {
      // no answer: the write may have been queued or not; under the same key a resend is safe
      if (isApiError(e) && e.code === TIMEOUT_CODE && attempt < SEND_TRIES) {
        await new Promise((r) => setTimeout(r, pauseMs * attempt))
        continue
      }
      throw e
    }
  }
}

/**
 * Sends a write; a refusal (422) or a refused body (400) is an outcome, not an exception. During
 * an outage the server queues it and answers 202 at once: 'pending', sent when Exact Online answers.
 */
export async function sendWrite(
  path: string,
  method: 'POST' | 'PUT' | 'DELETE',
  body?: unknown,
  retry?: { key?: string; pauseMs?: number },
): Promise<WriteOutcome> {
  try {
    const res = await keyedWrite<WriteResult>(`${path}${path.includes('?') ? '&' : '?'}wait=${WAIT_SECS}`, { method, body }, retry)
    const open = res.state === 'pending' || res.state === 'sending'
    const message = res.error ?? (open ? waitingReason(res.entries) : null)
    return { state: res.state, message, entryIds: res.entries.map((e) => e.id) }
  } catch (e) {
    if (isApiError(e) && (e.status === 422 || e.status === 400)) return { state: 'failed', message: e.message, entryIds: [] }
    throw e
  }
}

export const getEntry = (id: number) => api<OutboxEntry>(`/outbox/${id}`)

/** What `deleteDataFromExact` may delete: hour bookings, draft transfers and draft counts. */
export type Deletable = 'timeTransactions' | 'warehouseTransfers' | 'stockCounts'

/** Deletes a record in Exact Online through the outbox. */
export const deleteFromExact = (endpoint: Deletable, id: string) =>
  sendWrite(`/exact/deleteDataFromExact?endpoint=${endpoint}&id=${encodeURIComponent(id)}`, 'DELETE')

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
