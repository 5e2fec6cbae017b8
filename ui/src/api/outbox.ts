// The write-back queue to Exact Online.
import { call, type BodyOf, type Schema } from './contract.ts'
import { keyedWrite } from './writes.ts'

export type EntryState = Schema<'OutboxState'>

export type OutboxEntry = Schema<'OutboxEntry'>

export type Outbox = Schema<'OutboxList'>

/** What a write answers: 200 delivered, 202 queued (422 refused arrives as an ApiError). */
export type WriteResult = Schema<'WriteView'>

export const getOutbox = () => call('get', '/outbox')
export const retryEntry = (id: number) => call('post', '/outbox/{id}/retry', { params: { id } })
export const discardEntry = (id: number) => call('delete', '/outbox/{id}', { params: { id } })
/** Discards every refused entry the caller may discard (their own; every one for an administrator). */
export const discardRefused = () => call('post', '/outbox/discard', { body: { state: 'failed' } })

/** Creates an item (no id) or updates one through the outbox. */
export const writeItem = (data: Record<string, unknown>, id?: string) =>
  keyedWrite('/exact/items', { method: id ? 'PUT' : 'POST', body: (id ? { data, id } : { data }) satisfies BodyOf<'/exact/{kind}', 'put'> })
