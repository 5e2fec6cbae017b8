// The Counts screen's calls: count sessions live on this server (so counting goes on while Exact
// Online cannot be reached); only sending one waits for Exact, in the server's outbox.
import { queryOptions } from '@tanstack/react-query'
import { call } from '../../api/contract.ts'
import { countSessionKeys } from '../../api/queries.ts'
import { REVIEW_PAGE, type LineBody, type ReviewFilter, type StartBody } from './logic.ts'

export const fetchCounts = () => call('get', '/counts')

export const fetchCount = (id: string) => call('get', '/counts/{id}', { params: { id } })

// The list and one count are read by more than one part of the screen (the list, the count's view,
// the counting panel before a line replaces another): one key each, written here.
export const countsQuery = (division: number) => queryOptions({ queryKey: countSessionKeys.list(division), queryFn: fetchCounts })

export const countQuery = (id: string) => queryOptions({ queryKey: countSessionKeys.one(id), queryFn: () => fetchCount(id) })

export const startCount = (body: StartBody) => call('post', '/counts', { body })

export const removeCount = (id: string) => call('delete', '/counts/{id}', { params: { id } })

/** A counted line; `replace` answers the server's "which count stands?" with this one. */
export const addLine = (id: string, body: LineBody) => call('post', '/counts/{id}/lines', { params: { id }, body })

export const removeLine = (id: string, line: string) => call('delete', '/counts/{id}/lines/{line}', { params: { id, line } })

export const fetchReview = (id: string, filter: ReviewFilter, offset: number) =>
  call('get', '/counts/{id}/review', { params: { id }, query: { filter, offset, limit: REVIEW_PAGE } })

/** Sends the count to Exact Online: as a draft for someone with the right to process it there, or processed (administrators). */
export const sendCount = (id: string, mode: 'draft' | 'process') =>
  mode === 'draft' ? call('post', '/counts/{id}/draft', { params: { id } }) : call('post', '/counts/{id}/process', { params: { id } })

/** Counting again after Exact Online refused the count. */
export const reopenCount = (id: string) => call('post', '/counts/{id}/reopen', { params: { id } })
