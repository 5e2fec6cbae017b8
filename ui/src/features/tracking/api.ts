// The serial and batch numbers of an item in stock (`/tracking/numbers`), and the last answer for
// each item and place kept in this browser, so a handheld in a Wi-Fi dead spot still lists the
// batches it saw there.
import { api, isNetworkFailure } from '../../api/client.ts'
import { pathOf } from '../../api/contract.ts'
import { isOfflineNow } from '../../state/reachability.ts'
import type { StockBatch, Tracking } from './logic.ts'

export interface StockSerial {
  number: string
  warehouse: string
  warehouseCode: string | null
  location: string | null
  locationCode: string | null
}

/** `GET /api/v1/tracking/numbers`: batches come first-expiring, then oldest, first. */
export interface TrackingNumbers {
  item: string
  tracking: Tracking
  serials: StockSerial[]
  batches: StockBatch[]
}

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

const KEPT_PREFIX = 'esm.tracking.'
const keptKey = (p: Place) => `${KEPT_PREFIX}${p.item}|${p.warehouse ?? ''}|${p.location ?? ''}`.toLowerCase()

export const trackingKeys = {
  numbers: (p: Place) => ['tracking', 'numbers', p.item, p.warehouse ?? null, p.location ?? null] as const,
}

function keep(p: Place, value: TrackingNumbers, now: number) {
  try {
    localStorage.setItem(keptKey(p), JSON.stringify({ at: now, value }))
  } catch {
    // storage full or blocked: the next dead spot types its batches
  }
}

/** The answer kept for this item and place, if this browser has one. */
export function keptNumbers(p: Place): NumbersAnswer | null {
  try {
    const raw = localStorage.getItem(keptKey(p))
    if (!raw) return null
    const kept = JSON.parse(raw) as { at?: unknown; value?: TrackingNumbers }
    if (typeof kept.at !== 'number' || !kept.value || !Array.isArray(kept.value.batches) || !Array.isArray(kept.value.serials)) return null
    return { value: kept.value, asOf: kept.at }
  } catch {
    return null
  }
}

/**
 * The numbers in stock for the item at the place (warehouse and location optional), kept for
 * the next dead spot; out of reach, the kept answer (or null: there is none to list).
 */
export async function fetchNumbers(p: Place, now: () => number = Date.now): Promise<NumbersAnswer | null> {
  if (isOfflineNow()) return keptNumbers(p)
  try {
    // typed here until the server's document has the route
    const value = await api<TrackingNumbers>(pathOf('/tracking/numbers', undefined, { item: p.item, warehouse: p.warehouse || undefined, location: p.location || undefined }))
    keep(p, value, now())
    return { value, asOf: null }
  } catch (e) {
    if (isNetworkFailure(e)) return keptNumbers(p)
    throw e
  }
}
