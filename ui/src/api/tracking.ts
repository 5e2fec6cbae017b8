// The serial and batch numbers of an item in stock (`/tracking/numbers`), and the last answer for
// each item and place kept in this browser (until logout), so a handheld in a Wi-Fi dead spot
// still lists the batches it saw there.
import { isNetworkFailure } from './client.ts'
import { call, type Schema } from './contract.ts'
import { readJson, STORAGE_KEYS, writeJson } from '../lib/storage.ts'
import { isOfflineNow } from '../state/reachability.ts'

/** `GET /api/v1/tracking/numbers`: batches come first-expiring, then oldest, first. */
export type TrackingNumbers = Schema<'NumbersInStock'>

export interface Place {
  item: string
  warehouse?: string | null
  location?: string | null
}

/** The numbers and when they were read: null for a live answer, the kept answer's time offline. */
export interface NumbersAnswer {
  value: TrackingNumbers
  asOf: number | null
}

/** Places whose last answer is kept: the ones most recently read, enough for a shift's rounds. */
const KEPT_PLACES = 200

type Kept = Record<string, { at: number; value: TrackingNumbers }>

const placeKey = (p: Place) => `${p.item}|${p.warehouse ?? ''}|${p.location ?? ''}`.toLowerCase()

export const trackingKeys = {
  numbers: (p: Place) => ['tracking', 'numbers', p.item, p.warehouse ?? null, p.location ?? null] as const,
}

function readKept(): Kept {
  const kept = readJson(localStorage, STORAGE_KEYS.keptNumbers)
  return kept && typeof kept === 'object' ? (kept as Kept) : {}
}

function keep(p: Place, value: TrackingNumbers, now: number) {
  const entries = Object.entries({ ...readKept(), [placeKey(p)]: { at: now, value } })
  // the oldest go first once there are too many
  const newest = entries.sort((a, b) => b[1].at - a[1].at).slice(0, KEPT_PLACES)
  writeJson(localStorage, STORAGE_KEYS.keptNumbers, Object.fromEntries(newest))
}

/** The answer kept for this item and place, if this browser has one. */
export function keptNumbers(p: Place): NumbersAnswer | null {
  const kept = readKept()[placeKey(p)]
  if (!kept || typeof kept.at !== 'number' || !kept.value || !Array.isArray(kept.value.batches) || !Array.isArray(kept.value.serials)) return null
  return { value: kept.value, asOf: kept.at }
}

/**
 * The numbers in stock for the item at the place (warehouse and location optional), kept for
 * the next dead spot; out of reach, the kept answer (or null: there is none to list).
 */
export async function fetchNumbers(p: Place, now: () => number = Date.now): Promise<NumbersAnswer | null> {
  if (isOfflineNow()) return keptNumbers(p)
  try {
    const value = await call('get', '/tracking/numbers', { query: { item: p.item, warehouse: p.warehouse || undefined, location: p.location || undefined } })
    keep(p, value, now())
    return { value, asOf: null }
  } catch (e) {
    if (isNetworkFailure(e)) return keptNumbers(p)
    throw e
  }
}
