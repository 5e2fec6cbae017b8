// The write-back queue to Exact Online.
import { api } from './client.ts'
import { keyedWrite } from './writes.ts'

export type EntryState = 'pending' | 'sending' | 'delivered' | 'failed'

export interface OutboxEntry {
  id: number
  uid: string
  action: string
  method: 'POST' | 'PUT' | 'DELETE'
  path: string
  body: unknown
  state: EntryState
  attempts: number
  error: string | null
  user_name: string
  created_ms: number
  sent_ms: number | null
  done_ms: number | null
  result_key: string | null
}

export interface Outbox {
  pending: number
  failed: number
  entries: OutboxEntry[]
}

/** What a write answers: 200 delivered, 202 queued (422 refused arrives as an ApiError). */
export interface WriteResult {
  state: EntryState
  error: string | null
  entries: OutboxEntry[]
}

export const getOutbox = () => api<Outbox>('/outbox')
export const retryEntry = (id: number) => api<OutboxEntry>(`/outbox/${id}/retry`, { method: 'POST' })
export const discardEntry = (id: number) => api<void>(`/outbox/${id}`, { method: 'DELETE' })

/** Creates an item (no id) or updates one through the outbox. */
export const writeItem = (data: Record<string, unknown>, id?: string) =>
  keyedWrite<WriteResult>('/exact/items', { method: id ? 'PUT' : 'POST', body: id ? { data, id } : { data } })
