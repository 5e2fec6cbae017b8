// Live reads of any provider path of the session's division (`/exact/urlDirect`, every page).
import { api } from './client.ts'
import { chunks, type Row } from './db.ts'
import { anyGuid, directUrl, type DirectQuery } from '../lib/odata.ts'

/**
 * Live reads count against the provider's 60 calls a minute: a screen shown again within this
 * time uses what it read (a write refreshes them at once).
 */
export const LIVE_STALE_MS = 60_000

export async function readDirect<T = Row>(path: string, q: DirectQuery = {}): Promise<T[]> {
  const url = directUrl(path, q)
  const res = await api<{ responseDirect: { results: T[] } }>(`/exact/urlDirect?url=${encodeURIComponent(url)}`)
  return res.responseDirect.results
}

/** Guids per `or` filter: about 70 URL characters each keeps a call well under the provider's URL limit. */
const GUIDS_PER_CALL = 40

/** Rows whose `field` is one of `ids`, in calls of a safe URL length; `extra` is and-ed to each. */
export async function readDirectByIds<T = Row>(path: string, field: string, ids: readonly string[], q: DirectQuery = {}, extra = ''): Promise<T[]> {
  if (!ids.length) return []
  const parts = await Promise.all(
    chunks([...new Set(ids)], GUIDS_PER_CALL).map((part) =>
      readDirect<T>(path, { ...q, filter: extra ? `${anyGuid(field, part)} and ${extra}` : anyGuid(field, part) }),
    ),
  )
  return parts.flat()
}
