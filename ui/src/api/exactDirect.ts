// Live reads of any provider path of the session's division (`/exact/urlDirect`, every page).
import { chunks, type Row } from './db.ts'
import { callDated } from './contract.ts'
import { joinLive, oldestAsOf, type LiveRows } from './live.ts'
import { anyGuid, directUrl, type DirectQuery } from '../lib/odata.ts'

/**
 * Live reads count against the provider's 60 calls a minute: a screen shown again within this
 * time uses what it read (a write refreshes them at once).
 */
export const LIVE_STALE_MS = 60_000

/** How soon a live read answered from the stored copy (Exact Online slow or away) is asked again. */
export const STORED_RETRY_MS = 15_000

/**
 * A live read's `refetchInterval`: while its answer is the server's stored copy, it is asked again
 * every STORED_RETRY_MS until Exact Online answers, so a booking just made shows up by itself.
 */
export const againWhileStored = (query: { state: { data?: { asOf?: number | null } } }): number | false => (query.state.data?.asOf ? STORED_RETRY_MS : false)

/**
 * Rows of a provider path (the server's stored copy, dated, while Exact Online cannot be reached).
 * The provider's records are free-form in the server's document: `T` names the fields the caller
 * selected.
 */
export async function readDirectUrl<T = Row>(url: string): Promise<LiveRows<T>> {
  const { body, asOf } = await inLiveSlot(() => callDated('get', '/exact/urlDirect', { query: { url } }))
  // the header is the contract; the body's copy of it is taken when a proxy dropped the header
  return { rows: body.responseDirect.results as T[], asOf: asOf ?? oldestAsOf(body.responseDirect.asOf) }
}

/**
 * Live reads this page sends at once. A browser holds six connections to the server: a screen
 * that sent its twenty live reads together held all six while Exact Online took seconds to
 * answer, and its reads of the local copy (milliseconds each) queued behind them; at scale large
 * Materials waited 23 s for its local rows. The server takes four at once per user anyway
 * (`MAX_LIVE_READS_PER_USER`), so a fifth would only wait there holding a connection.
 */
export const LIVE_READS_AT_ONCE = 3
let liveInFlight = 0
const liveWaiting: (() => void)[] = []

/** Runs `read` once fewer than LIVE_READS_AT_ONCE live reads of this page are under way. */
export async function inLiveSlot<R>(read: () => Promise<R>): Promise<R> {
  if (liveInFlight >= LIVE_READS_AT_ONCE) await new Promise<void>((go) => liveWaiting.push(go))
  else liveInFlight++
  try {
    return await read()
  } finally {
    // the slot goes straight to the next waiting read, or is freed
    const next = liveWaiting.shift()
    if (next) next()
    else liveInFlight--
  }
}

export function readDirect<T = Row>(path: string, q: DirectQuery = {}): Promise<LiveRows<T>> {
  return readDirectUrl<T>(directUrl(path, q))
}

/** Guids per `or` filter: about 70 URL characters each keeps a call well under the provider's URL limit. */
const GUIDS_PER_CALL = 40

/** Rows whose `field` is one of `ids`, in calls of a safe URL length; `extra` is and-ed to each. */
export async function readDirectByIds<T = Row>(path: string, field: string, ids: readonly string[], q: DirectQuery = {}, extra = ''): Promise<LiveRows<T>> {
  if (!ids.length) return { rows: [], asOf: null }
  const parts = await Promise.all(
    chunks([...new Set(ids)], GUIDS_PER_CALL).map((part) =>
      readDirect<T>(path, { ...q, filter: extra ? `${anyGuid(field, part)} and ${extra}` : anyGuid(field, part) }),
    ),
  )
  return joinLive(parts)
}
