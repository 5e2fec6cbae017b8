// The Transfers screen's reads and writes.
import { dbGetAll, type Row } from '../../api/db.ts'
import { readDirect, readDirectByIds } from '../../api/exactDirect.ts'
import { oldestAsOf, type LiveRows } from '../../api/live.ts'
import { sendWrite } from '../../api/writes.ts'
import type { Keepable } from '../../offline/queue.ts'
import { addDays, orgToday } from '../../lib/dateTime.ts'
import { dayLit } from '../../lib/odata.ts'
import { fromPlaces, toRecent, warehouseFromPlaces, type FromPlace, type RecentTransfer, type TransferBody, type WarehouseRow } from './logic.ts'

/**
 * Where the item can be moved from: its storage locations with stock, then the warehouses without
 * storage locations that hold it (`warehouses`: the live list, which says which those are).
 */
export async function fetchFromPlaces(item: string, warehouses: readonly WarehouseRow[] | undefined): Promise<FromPlace[]> {
  const rows = await dbGetAll<Row>('storageLocationStockPositions', [
    ['Item', `eq.${item}`],
    ['select', 'Item,Stock,StorageLocation,StorageLocationCode,Warehouse,WarehouseCode'],
  ])
  if (!warehouses?.some((w) => w.UseStorageLocations === 0 || w.UseStorageLocations === false)) return fromPlaces(rows)
  const positions = await dbGetAll<Row>('stockPositions', [
    ['ItemId', `eq.${item}`],
    ['select', 'ItemId,CurrentStock,Warehouse,WarehouseCode'],
  ])
  return [...fromPlaces(rows), ...warehouseFromPlaces(positions, warehouses)]
}

/** Days of transfers the recent list reads. */
export const RECENT_DAYS = 14

export async function fetchRecentTransfers(now: number = Date.now()): Promise<LiveRows<RecentTransfer>> {
  const since = addDays(orgToday(now), -RECENT_DAYS)
  const headers = await readDirect('inventory/WarehouseTransfers', {
    filter: `EntryDate ge ${dayLit(since)}`,
    select: 'TransferID,TransferNumber,EntryDate,TransferDate,Status,WarehouseFromCode,WarehouseToCode,CreatorFullName,Description',
  })
  const lines = await readDirectByIds(
    'inventory/WarehouseTransferLines',
    'TransferID',
    headers.rows.map((h) => String(h.TransferID)),
    {
      select: 'TransferID,ItemCode,ItemDescription,Quantity,StorageLocationFromCode,StorageLocationToCode',
    },
  )
  return { rows: toRecent(headers.rows, lines.rows), asOf: oldestAsOf(headers.asOf, lines.asOf) }
}

/** A transfer; made in a Wi-Fi dead spot it waits on the device, named by `summary`. */
export const createTransfer = (body: TransferBody, summary: string) =>
  sendWrite('/exact/createWarehouseTransfer', 'POST', body, { keep: { kind: 'transfer', summary } satisfies Keepable })
