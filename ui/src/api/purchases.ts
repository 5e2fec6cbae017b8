// Open purchase order lines from the local copy: Exact's purchase order stream (the order's row
// and its lines' rows, each line carrying its order's fields) is synced into `purchaseOrders`,
// so Purchases and Materials read one table here instead of every open order from Exact.
import { useQuery } from '@tanstack/react-query'
import { purchaseKeys, useDivision } from './queries.ts'
import { OPEN_RECEIPT_STATUS, toPurchaseLines, type PurchaseLine } from '../lib/purchases.ts'
import { dbGetAll } from './db.ts'
import type { LiveRows } from './live.ts'

/** The local table of Exact's purchase order stream (a sync endpoint of its own). */
export const PURCHASE_ORDERS = 'purchaseOrders'

/** The header's and the line's fields the screens use (every row has both kinds of column). */
const FIELDS = [
  'ID',
  'PurchaseOrderID',
  'LineNumber',
  'OrderNumber',
  'OrderDate',
  'ReceiptDate',
  'ReceiptStatus',
  'Supplier',
  'SupplierCode',
  'SupplierName',
  'Warehouse',
  'WarehouseCode',
  'Item',
  'ItemCode',
  'ItemDescription',
  'Description',
  'Quantity',
  'ReceivedQuantity',
  'Unit',
  'UnitDescription',
  'Project',
  'ProjectCode',
].join(',')

/** The open orders' rows: the order's own row has LineNumber 0, its lines 1 and up. */
export async function fetchOpenPurchaseLines(): Promise<LiveRows<PurchaseLine>> {
  const rows = await dbGetAll(PURCHASE_ORDERS, [
    ['ReceiptStatus', `in.(${OPEN_RECEIPT_STATUS.join(',')})`],
    ['select', FIELDS],
  ])
  const headers = rows.filter((r) => Number(r.LineNumber ?? 0) === 0)
  const lines = rows.filter((r) => Number(r.LineNumber ?? 0) > 0)
  // the local copy, as every synced screen: the sync status says how recent it is
  return { rows: toPurchaseLines(headers, lines), asOf: null }
}

/**
 * Shared by Purchases and Materials; a finished sync of the table reads it again, so switching
 * between the two screens reuses the read (75,000 rows at scale large) for a minute.
 */
export function useOpenPurchaseLines(enabled = true) {
  return useQuery({ queryKey: purchaseKeys.open(useDivision()), queryFn: fetchOpenPurchaseLines, enabled, staleTime: 60_000 })
}
