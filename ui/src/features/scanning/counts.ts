// An item's recent stock counts, read live from Exact Online, to delete one counted by mistake.
import type { Row } from '../../api/db.ts'
import { readDirect, readDirectByIds } from '../../api/exactDirect.ts'
import { oldestAsOf, type LiveRows } from '../../api/live.ts'
import { addDays, orgToday, parseProviderDate } from '../../lib/dateTime.ts'
import { dayLit, guidLit } from '../../lib/odata.ts'

/** Days of counts the list reads. */
export const RECENT_COUNT_DAYS = 14

/** Exact Online's status of a processed count (12 is a draft). */
const PROCESSED = 21

export interface RecentCount {
  /** The count (header) id: what a delete names. */
  id: string
  number: string
  date: number | null
  processed: boolean
  by: string
  location: string
  counted: number | null
}

const text = (v: unknown) => (typeof v === 'string' ? v.trim() : v === null || v === undefined ? '' : String(v))
const numOrNull = (v: unknown) => (v === null || v === undefined || v === '' || !Number.isFinite(Number(v)) ? null : Number(v))

/** One row per count of the item (its line joined to its header), newest first. */
export function toRecentCounts(lines: readonly Row[], headers: readonly Row[]): RecentCount[] {
  const byId = new Map(headers.map((h) => [text(h.StockCountID).toLowerCase(), h]))
  const out: RecentCount[] = []
  for (const l of lines) {
    const h = byId.get(text(l.StockCountID).toLowerCase())
    if (!h) continue
    out.push({
      id: text(h.StockCountID),
      number: text(h.StockCountNumber),
      date: parseProviderDate(h.StockCountDate) ?? parseProviderDate(l.Created),
      processed: Number(h.Status) === PROCESSED,
      by: text(h.CreatorFullName),
      location: [text(h.WarehouseCode), text(l.StorageLocationCode)].filter(Boolean).join(' · '),
      counted: numOrNull(l.QuantityNew),
    })
  }
  return out.sort((a, b) => (b.date ?? 0) - (a.date ?? 0) || Number(b.number) - Number(a.number))
}

export async function fetchRecentCounts(item: string, now: number = Date.now()): Promise<LiveRows<RecentCount>> {
  const since = addDays(orgToday(now), -RECENT_COUNT_DAYS)
  const lines = await readDirect('inventory/StockCountLines', {
    filter: `Item eq ${guidLit(item)} and Created ge ${dayLit(since)}`,
    select: 'StockCountID,StorageLocationCode,QuantityNew,Created',
  })
  const headers = await readDirectByIds(
    'inventory/StockCounts',
    'StockCountID',
    lines.rows.map((l) => text(l.StockCountID)),
    {
      select: 'StockCountID,StockCountNumber,StockCountDate,Status,WarehouseCode,CreatorFullName',
    },
  )
  return { rows: toRecentCounts(lines.rows, headers.rows), asOf: oldestAsOf(lines.asOf, headers.asOf) }
}
